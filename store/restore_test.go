package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// MustBackup writes a backup of a database holding rooms enough to fill
// several pages, and returns its path.
func MustBackup(tb testing.TB) string {
	tb.Helper()
	db := MustOpen(tb)
	ctx := context.Background()
	for i := range 200 {
		if err := db.CreateRoom(ctx, service.Room{ID: fmt.Sprintf("r%03d", i), Name: fmt.Sprintf("Room number %03d with a long name", i)}); err != nil {
			tb.Fatal(err)
		}
	}
	dest := filepath.Join(tb.TempDir(), "backup.db")
	if err := db.Backup(ctx, dest); err != nil {
		tb.Fatal(err)
	}
	return dest
}

func TestCheckBackup_Good(t *testing.T) {
	v, err := store.CheckBackup(context.Background(), MustBackup(t))
	if err != nil || v != store.NewestSchemaVersion() || v < 9 {
		t.Fatalf("CheckBackup = %d, %v; want %d", v, err, store.NewestSchemaVersion())
	}
}

func TestCheckBackup_Refusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	MustWrite(t, text, []byte("my rooms: kitchen, hall\n"))

	other := filepath.Join(dir, "other.db")
	MustExecRaw(t, other, `CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER, is_applied INTEGER); INSERT INTO goose_db_version (version_id, is_applied) VALUES (1, 1)`)

	tooNew := MustBackup(t)
	MustExecRaw(t, tooNew, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, store.NewestSchemaVersion()+1)

	flipped := MustBackup(t)
	b := MustRead(t, flipped)
	// The b-tree page header and cell pointers of the pages after the
	// first: the file's own header stays whole.
	pageSize := int(b[16])<<8 | int(b[17])
	for page := 1; page*pageSize < len(b); page++ {
		for i := page * pageSize; i < page*pageSize+24; i++ {
			b[i] ^= 0x5a
		}
	}
	MustWrite(t, flipped, b)

	truncated := MustBackup(t)
	b = MustRead(t, truncated)
	MustWrite(t, truncated, b[:len(b)/2])

	for _, c := range []struct {
		name, path string
		want       error
	}{
		{"text", text, store.ErrNotSQLite},
		{"empty", MustWrite(t, filepath.Join(dir, "empty.db"), nil), store.ErrNotSQLite},
		{"other schema", other, store.ErrNotBifrost},
		{"flipped bytes", flipped, store.ErrCorrupt},
		{"truncated", truncated, store.ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := MustRead(t, c.path)
			_, err := store.CheckBackup(ctx, c.path)
			if !errors.Is(err, c.want) {
				t.Errorf("CheckBackup = %v, want %v", err, c.want)
			}
			if string(MustRead(t, c.path)) != string(before) {
				t.Error("CheckBackup changed the file")
			}
		})
	}
	_, err := store.CheckBackup(ctx, tooNew)
	var newer *store.TooNewError
	if !errors.As(err, &newer) || newer.Version != store.NewestSchemaVersion()+1 || newer.Newest != store.NewestSchemaVersion() {
		t.Errorf("CheckBackup of a newer database = %v", err)
	}
}

func TestCopyDatabase_FoldsTheLog(t *testing.T) {
	db, path := MustOpenWithPath(t)
	ctx := context.Background()
	if err := db.CreateRoom(ctx, service.Room{ID: "r1", Name: "Hall"}); err != nil {
		t.Fatal(err)
	}
	// The hub is still open: the room may live in the -wal alone.
	dest := filepath.Join(t.TempDir(), "kept.db")
	if err := store.CopyDatabase(ctx, path, dest); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy: %v, %v", fi, err)
	}
	if _, err := store.CheckBackup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	if r, err := MustOpenPath(t, dest).GetRoom(ctx, "r1"); err != nil || r.Name != "Hall" {
		t.Fatalf("room in the copy = %+v, %v", r, err)
	}
}

func MustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func MustWrite(tb testing.TB, path string, b []byte) string {
	tb.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
