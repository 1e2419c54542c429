package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// t0 is a fixed instant with a nanosecond part and a non-UTC zone, to check
// that times round-trip exactly.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))

// MustOpen opens a new database in a temporary directory, closed at the end
// of the test.
func MustOpen(tb testing.TB) *store.DB {
	tb.Helper()
	return MustOpenPath(tb, filepath.Join(tb.TempDir(), "bifrost.db"))
}

// MustOpenWithPath opens a new database in a temporary directory and
// returns its path too.
func MustOpenWithPath(tb testing.TB) (*store.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "bifrost.db")
	return MustOpenPath(tb, path), path
}

// MustExecRaw runs statements on the database file at path through a
// connection of its own, as another program would.
func MustExecRaw(tb testing.TB, path, statements string, args ...any) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(statements, args...); err != nil {
		tb.Fatal(err)
	}
}

// MustOpenPath opens the database at path, closed at the end of the test.
func MustOpenPath(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

// MustUpsertDevice stores a device named after its id, seen at t0.
func MustUpsertDevice(tb testing.TB, db *store.DB, id devices.ID) service.DeviceRecord {
	tb.Helper()
	d := service.DeviceRecord{
		ID: id, Adapter: "sim", Kind: devices.KindLight, Name: "Lamp " + string(id),
		Enabled: true, LastSeen: t0, CreatedAt: t0,
	}
	if err := db.UpsertDevice(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// MustCreateRoom creates a room with members.
func MustCreateRoom(tb testing.TB, db *store.DB, id, name string, members ...devices.ID) {
	tb.Helper()
	r := service.Room{ID: id, Name: name, Members: members, CreatedAt: t0}
	if err := db.CreateRoom(context.Background(), r); err != nil {
		tb.Fatal(err)
	}
}

// assertCode fails unless err is a service error with code.
func assertCode(tb testing.TB, err error, code string) {
	tb.Helper()
	var e *service.Error
	if !errors.As(err, &e) || e.Code != code {
		tb.Fatalf("error = %v (%T), want code %q", err, err, code)
	}
}

// assertTime fails unless got and want are the same instant.
func assertTime(tb testing.TB, what string, got, want time.Time) {
	tb.Helper()
	if !got.Equal(want) {
		tb.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func TestOpen_CreatesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "bifrost.db")
	db := MustOpenPath(t, path)
	if err := db.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestOpen_PathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd?dir#1 %20")
	path := filepath.Join(dir, "bifrost.db")
	db := MustOpenPath(t, path)
	MustUpsertDevice(t, db, "sim:lamp")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path given: %v", err)
	}
}

func TestOpen_NoPath(t *testing.T) {
	if _, err := store.Open(context.Background(), ""); err == nil {
		t.Fatal("Open with no path succeeded")
	}
}

func TestOpen_ReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	MustUpsertDevice(t, db, "sim:lamp")
	MustCreateRoom(t, db, "r1", "Office", "sim:lamp")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = MustOpenPath(t, path)
	r, err := db.GetRoom(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "Office" || len(r.Members) != 1 || r.Members[0] != "sim:lamp" {
		t.Fatalf("room after reopen = %+v", r)
	}
}

func TestOpen_MigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	for i := range 3 {
		db, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v != newestMigration(t) {
			t.Fatalf("schema version = %d, want %d", v, newestMigration(t))
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// newestMigration returns the version of the newest embedded migration.
func newestMigration(tb testing.TB) int64 {
	tb.Helper()
	names, err := filepath.Glob("../migrations/*.sql")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no migrations found: %v", err)
	}
	var newest int64
	for _, name := range names {
		var v int64
		if _, err := fmt.Sscanf(filepath.Base(name), "%d_", &v); err != nil {
			tb.Fatalf("migration %s: %v", name, err)
		}
		newest = max(newest, v)
	}
	return newest
}

func TestPing(t *testing.T) {
	db := MustOpen(t)
	if err := db.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(context.Background()); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

func TestBackup(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:lamp")
	MustCreateRoom(t, db, "r1", "Office", "sim:lamp")
	if err := db.AddAudit(ctx, service.AuditEntry{Time: t0, ActorKind: "system", Action: "backup", Result: "ok"}); err != nil {
		t.Fatal(err)
	}

	dest := filepath.Join(t.TempDir(), "backups", "bifrost-backup.db")
	if err := db.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	// The database is still in use after the backup.
	MustUpsertDevice(t, db, "sim:other")

	copy := MustOpenPath(t, dest)
	r, err := copy.GetRoom(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Members) != 1 || r.Members[0] != "sim:lamp" {
		t.Fatalf("room in backup = %+v", r)
	}
	list, err := copy.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("backup holds %d devices, want 1 (taken before the second)", len(list))
	}
	if v, err := copy.SchemaVersion(ctx); err != nil || v != newestMigration(t) {
		t.Fatalf("backup schema version = %d, %v", v, err)
	}
}

func TestBackup_RefusesExistingFile(t *testing.T) {
	db := MustOpen(t)
	dest := filepath.Join(t.TempDir(), "exists.db")
	if err := os.WriteFile(dest, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := db.Backup(context.Background(), dest)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Backup over an existing file = %v, want an 'already exists' error", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Fatal("Backup overwrote an existing file")
	}
}

// TestConcurrentWriters: many goroutines writing at once never see
// SQLITE_BUSY.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	const goroutines, each = 20, 50
	errs := make(chan error, goroutines*each)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				errs <- db.AddAudit(ctx, service.AuditEntry{
					ActorKind: "key", ActorID: fmt.Sprint(g), Action: "light.set",
					Target: fmt.Sprint(i), Result: "ok",
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListAudit(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != goroutines*each {
		t.Fatalf("audit log holds %d entries, want %d", len(list), goroutines*each)
	}
}

// TestConcurrentWriters_TwoProcesses: two handles on one file (the server
// and a `bifrost keys` command, say) writing at once wait for each other
// (busy timeout) and, since transactions begin IMMEDIATE, a read-modify-write
// never loses an update nor fails with SQLITE_BUSY.
func TestConcurrentWriters_TwoProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	handles := []*store.DB{MustOpenPath(t, path), MustOpenPath(t, path)}
	MustUpsertDevice(t, handles[0], "sim:lamp")

	const goroutines, each = 20, 25
	errs := make(chan error, goroutines*each*2)
	var wg sync.WaitGroup
	for g := range goroutines {
		db := handles[g%2]
		wg.Go(func() {
			for i := range each {
				errs <- db.SetDeviceSetting(ctx, "sim:lamp", fmt.Sprintf("k%d-%d", g, i), "v")
				errs <- db.AddAudit(ctx, service.AuditEntry{ActorKind: "system", Action: "test", Result: "ok"})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	d, err := handles[1].GetDevice(ctx, "sim:lamp")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Settings) != goroutines*each {
		t.Fatalf("device has %d settings, want %d (lost updates)", len(d.Settings), goroutines*each)
	}
}

func TestNow_StampsZeroTimes(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	db.Now = func() time.Time { return t0 }

	if err := db.UpsertDevice(ctx, service.DeviceRecord{ID: "sim:lamp", Name: "Lamp", Kind: devices.KindLight}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateRoom(ctx, service.Room{ID: "r1", Name: "Office"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddAudit(ctx, service.AuditEntry{ActorKind: "system", Action: "x", Result: "ok"}); err != nil {
		t.Fatal(err)
	}
	d, err := db.GetDevice(ctx, "sim:lamp")
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "device created_at", d.CreatedAt, t0)
	r, err := db.GetRoom(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "room created_at", r.CreatedAt, t0)
	a, err := db.ListAudit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "audit time", a[0].Time, t0)
}

// TestMigrations_DownAndUp checks that every migration's Down section undoes
// its Up section, so the sequence can be rolled back and re-applied.
func TestMigrations_DownAndUp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var tables int
	err = raw.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`).Scan(&tables)
	if err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Fatalf("%d tables left after migrating down to 0", tables)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	MustUpsertDevice(t, MustOpenPath(t, path), "sim:lamp")
}
