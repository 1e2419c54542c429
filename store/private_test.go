//go:build unix

package store_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bifrost-hub/bifrost/store"
)

// withUmask sets the process umask for the rest of the test. The test
// must not be parallel: the umask belongs to the whole process.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// checkPrivate checks the database file and its -wal and -shm are 0600.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s is %04o, want 0600", filepath.Base(p), perm)
		}
	}
}

// The data directory already exists (as /data does in the Docker image)
// and the umask is the usual 022: the files SQLite makes are private all
// the same.
func TestOpen_FilesArePrivateInAnExistingDirectory(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bifrost.db")
	db := MustOpenPath(t, path)
	MustUpsertDevice(t, db, "sim:lamp")
	checkPrivate(t, path)
}

// A database an older version left readable is made private when opened,
// and so are the -wal and -shm SQLite then makes after it.
func TestOpen_ReadableDatabaseIsMadePrivate(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	path := filepath.Join(dir, "bifrost.db")
	first, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	db := MustOpenPath(t, path)
	MustUpsertDevice(t, db, "sim:lamp")
	checkPrivate(t, path)
}

// A missing directory is made private too.
func TestOpen_CreatesPrivateDirectory(t *testing.T) {
	withUmask(t, 0o022)
	dir := filepath.Join(t.TempDir(), "data")
	MustOpenPath(t, filepath.Join(dir, "bifrost.db"))
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&fs.FileMode(0o077) != 0 {
		t.Errorf("data directory is %04o, want no group or other permissions", perm)
	}
}
