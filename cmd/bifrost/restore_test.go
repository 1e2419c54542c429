package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// house makes the database of data with the rooms named and one API key,
// which it returns.
func house(t *testing.T, data string, rooms ...string) string {
	t.Helper()
	code, out, errOut := runCLI("keys", "create", "--name", "script", "--scope", "read", "--data", data)
	if code != 0 {
		t.Fatalf("keys create: exit %d: %s", code, errOut)
	}
	db, err := store.Open(context.Background(), filepath.Join(data, "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range rooms {
		if err := db.CreateRoom(context.Background(), service.Room{ID: "room-" + strings.ToLower(name), Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	return strings.TrimSpace(out)
}

// roomsAndKeys reads back the rooms of data's database, and which of keys
// it admits.
func roomsAndKeys(t *testing.T, data string, keys ...string) (rooms []string, admitted []bool) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = data
	logger := slog.New(slog.DiscardHandler)
	err := withIdentity(context.Background(), cfg, logger, func(ctx context.Context, ks *identity.Keys, _ *identity.Accounts) error {
		for _, k := range keys {
			_, err := ks.AuthenticateKey(ctx, k)
			admitted = append(admitted, err == nil)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.ListRooms(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		rooms = append(rooms, r.Name)
	}
	slices.Sort(rooms)
	return rooms, admitted
}

// backupOf writes a backup of data's database and returns its path.
func backupOf(t *testing.T, data string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "backup.db")
	if code, _, errOut := runCLI("backup", dest, "--data", data); code != 0 {
		t.Fatalf("backup: exit %d: %s", code, errOut)
	}
	return dest
}

// snapshot is every file of dir and its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func TestRestore(t *testing.T) {
	old := t.TempDir()
	oldKey := house(t, old, "Kitchen", "Hall")
	backup := backupOf(t, old)

	data := t.TempDir()
	newKey := house(t, data, "Garage")
	code, _, errOut := runCLI("restore", backup, "--data", data)
	if code != 0 || !strings.Contains(errOut, "restored") || !strings.Contains(errOut, "before-restore-") {
		t.Fatalf("restore: exit %d: %s", code, errOut)
	}
	rooms, admitted := roomsAndKeys(t, data, oldKey, newKey)
	if !slices.Equal(rooms, []string{"Hall", "Kitchen"}) || !slices.Equal(admitted, []bool{true, false}) {
		t.Errorf("after restore: rooms %q, keys admitted %v; want the backup's house and key", rooms, admitted)
	}
	if fi, err := os.Stat(filepath.Join(data, "bifrost.db")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("restored database: %v, %v", fi, err)
	}

	// The replaced database is kept beside, whole, and openable.
	kept, _ := filepath.Glob(filepath.Join(data, "bifrost.db.before-restore-2*Z"))
	if len(kept) != 1 {
		t.Fatalf("kept databases: %q", kept)
	}
	if fi, err := os.Stat(kept[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kept database: %v, %v", fi, err)
	}
	keptDir := t.TempDir()
	if err := os.Rename(kept[0], filepath.Join(keptDir, "bifrost.db")); err != nil {
		t.Fatal(err)
	}
	rooms, admitted = roomsAndKeys(t, keptDir, newKey)
	if !slices.Equal(rooms, []string{"Garage"}) || !admitted[0] {
		t.Errorf("kept database: rooms %q, key admitted %v", rooms, admitted)
	}
	if left, _ := filepath.Glob(filepath.Join(data, ".bifrost.db.restore-*")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// TestRestore_MigratesAnOlderBackup restores a database at schema 5 and
// finds it at head.
func TestRestore_MigratesAnOlderBackup(t *testing.T) {
	backup := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+backup)
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO rooms (id, name, created_at) VALUES ('r1', 'Attic', '2024-01-01T00:00:00.000000000Z')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	data := t.TempDir() // a new machine: no database yet
	code, _, errOut := runCLI("restore", backup, "--data", data)
	if code != 0 || !strings.Contains(errOut, "schema_version=5") || !strings.Contains(errOut, "migrated_to=") || strings.Contains(errOut, "before-restore") {
		t.Fatalf("restore: exit %d: %s", code, errOut)
	}
	if v, err := store.CheckBackup(context.Background(), filepath.Join(data, "bifrost.db")); err != nil || v != store.NewestSchemaVersion() {
		t.Errorf("restored database at version %d, %v", v, err)
	}
	if rooms, _ := roomsAndKeys(t, data); !slices.Equal(rooms, []string{"Attic"}) {
		t.Errorf("rooms after restore = %q", rooms)
	}
}

func TestRestore_Refusals(t *testing.T) {
	data := t.TempDir()
	key := house(t, data, "Garage")
	good := backupOf(t, data)
	dir := t.TempDir()

	text := filepath.Join(dir, "notes.txt")
	writeFile(t, text, []byte("rooms: kitchen, hall\n"))

	damaged := filepath.Join(dir, "damaged.db")
	b := readFile(t, good)
	pageSize := int(b[16])<<8 | int(b[17])
	for page := 1; page*pageSize < len(b); page++ {
		for i := page * pageSize; i < page*pageSize+24; i++ {
			b[i] ^= 0x5a
		}
	}
	writeFile(t, damaged, b)

	truncated := filepath.Join(dir, "truncated.db")
	writeFile(t, truncated, readFile(t, good)[:len(b)/2])

	newer := filepath.Join(dir, "newer.db")
	writeFile(t, newer, readFile(t, good))
	mustExec(t, newer, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, store.NewestSchemaVersion()+1)

	other := filepath.Join(dir, "other.db")
	mustExec(t, other, `CREATE TABLE notes (body TEXT)`)

	head := store.NewestSchemaVersion()
	before := snapshot(t, data)
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"text", text, []string{"not a Bifrost backup", "not a SQLite database"}},
		{"other database", other, []string{"not a Bifrost backup", "goose_db_version"}},
		{"damaged", damaged, []string{"is damaged", "restore an older backup"}},
		{"truncated", truncated, []string{"is damaged"}},
		{"newer", newer, []string{fmt.Sprintf("schema version %d, newer than this bifrost's %d", head+1, head)}},
		{"missing", filepath.Join(dir, "nosuch.db"), []string{"no such file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI("restore", c.file, "--data", data)
			if code != 1 {
				t.Errorf("exit %d, want 1: %s", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q: %s", w, errOut)
				}
			}
		})
	}
	if after := snapshot(t, data); !maps.Equal(before, after) {
		t.Errorf("a refused restore changed the data directory: %d files before, %d after", len(before), len(after))
	}
	if rooms, admitted := roomsAndKeys(t, data, key); !slices.Equal(rooms, []string{"Garage"}) || !admitted[0] {
		t.Errorf("after refusals: rooms %q, key admitted %v", rooms, admitted)
	}
}

// TestRestore_RefusedWhileTheHubRuns starts a hub on the data directory
// and asks for a restore.
func TestRestore_RefusedWhileTheHubRuns(t *testing.T) {
	data := t.TempDir()
	house(t, data, "Garage")
	other := t.TempDir()
	house(t, other, "Kitchen")
	backup := backupOf(t, other)

	m := startQuietHub(t, data)
	code, _, errOut := runCLI("restore", backup, "--data", data)
	if code != 1 || !strings.Contains(errOut, "a hub is running on "+data) || !strings.Contains(errOut, "stop it") {
		t.Errorf("restore beside a running hub: exit %d: %s", code, errOut)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if kept, _ := filepath.Glob(filepath.Join(data, "*before-restore*")); len(kept) > 0 {
		t.Errorf("a refused restore kept %q", kept)
	}
	if rooms, _ := roomsAndKeys(t, data); !slices.Equal(rooms, []string{"Garage"}) {
		t.Errorf("rooms after a refused restore = %q", rooms)
	}

	// And a hub does not start while a restore holds the directory.
	release, err := lockData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	m = NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = data
	m.Logger = slog.New(slog.DiscardHandler)
	err = m.Run(t.Context())
	m.Close()
	if err == nil || !strings.Contains(err.Error(), "a restore is under way") {
		t.Errorf("hub start during a restore = %v", err)
	}
}

// startQuietHub runs a hub in process on data, with no Bluetooth, an
// empty environment and no log, on a free loopback port; the caller
// closes it.
func startQuietHub(t *testing.T, data string) *Main {
	t.Helper()
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = data
	m.Config.Neewer.BLE = "off"
	m.Logger = slog.New(slog.DiscardHandler)
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// mustExec runs statements on the database file at path.
func mustExec(t *testing.T, path, statements string, args ...any) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(statements, args...); err != nil {
		t.Fatal(err)
	}
}
