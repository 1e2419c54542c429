package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	file := filepath.Join(dir, "devices.json")
	for _, content := range []string{"first\n", "second\n"} {
		if err := Replace(file, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != content {
			t.Fatalf("read %q, %v; want %q", b, err, content)
		}
	}
	assertPrivate(t, file)
	assertAlone(t, dir)
}

func TestCreateRefusesAnExistingFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	file := filepath.Join(dir, "client.pem")
	if err := Create(file, []byte("mine")); err != nil {
		t.Fatal(err)
	}
	if err := Create(file, []byte("theirs")); !errors.Is(err, os.ErrExist) {
		t.Fatalf("a second Create: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Fatalf("the file holds %q", b)
	}
	assertPrivate(t, file)
	assertAlone(t, dir)
}

func TestWriteJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tvs.json")
	if err := WriteJSON(file, map[string][]int{"tvs": {1}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"tvs\": [\n    1\n  ]\n}\n"
	if b, _ := os.ReadFile(file); string(b) != want {
		t.Fatalf("wrote %q, want %q", b, want)
	}
	if err := WriteJSON(file, func() {}); err == nil {
		t.Fatal("a value JSON cannot hold was written")
	}
}

// assertPrivate checks that file and its directory are its owner's only.
func assertPrivate(t *testing.T, file string) {
	t.Helper()
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(file)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v", di.Mode(), err)
	}
}

// assertAlone checks that no temporary file was left beside the file.
func assertAlone(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) != 1 {
		t.Errorf("directory holds %v, %v", es, err)
	}
}
