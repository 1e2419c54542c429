package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// TestUpgrade_FromEveryVersion writes the house of every earlier release
// (see eras), each with the SQL of its own schema version, opens it with
// today's store, which migrates it to the newest version, and checks that
// nothing was lost: every row of every table is still there with the
// values it had, and today's store and services read them all, admit the
// keys, sign the people in, open the sealed password, validate the
// automations and read the sensor history. The newest version runs too,
// as the control.
func TestUpgrade_FromEveryVersion(t *testing.T) {
	for from := int64(1); from <= store.NewestSchemaVersion(); from++ {
		t.Run(fmt.Sprintf("from version %d", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bifrost.db")
			writeOldRelease(t, path, from)
			before := takeSnapshot(t, path, nil)

			db := MustOpenPath(t, path)
			if v, err := db.SchemaVersion(context.Background()); err != nil || v != store.NewestSchemaVersion() {
				t.Fatalf("schema version after the upgrade = %d, %v; want %d", v, err, store.NewestSchemaVersion())
			}
			after := takeSnapshot(t, path, before.columns)
			compareSnapshots(t, before.without(goose.DefaultTablename, schemaTable), after)

			u := upgrade(t, db)
			var last []check
			for _, e := range eras {
				if e.migration > from {
					break
				}
				for _, c := range e.checks {
					c(t, u)
				}
				if e.last != nil {
					last = append(last, e.last)
				}
			}
			for _, c := range last {
				c(t, u)
			}
		})
	}
}

// TestUpgrade_EveryMigrationHasAnEra: every migration brings an era of
// content, and the house at the newest version leaves no table empty, so
// that what a new migration does to stored rows is tested.
func TestUpgrade_EveryMigrationHasAnEra(t *testing.T) {
	head := store.NewestSchemaVersion()
	for i, e := range eras {
		if e.migration != int64(i+1) {
			t.Fatalf("eras[%d] is of migration %d; want one era per migration, in order", i, e.migration)
		}
	}
	if n := int64(len(eras)); n != head {
		t.Fatalf("%d eras for %d migrations: give migration %d an era in upgrade_content_test.go (rows for its tables, and checks that they survive)", n, head, n+1)
	}
	path := filepath.Join(t.TempDir(), "bifrost.db")
	writeOldRelease(t, path, head)
	s := takeSnapshot(t, path, nil)
	for table, rows := range s.rows {
		if len(rows) == 0 {
			t.Errorf("table %s is empty in the house of version %d: give it rows in the era of the migration that made it", table, head)
		}
	}
}

// TestOpen_FailedMigrationLeavesTheDatabaseAsItWas opens a house at
// version 5 with migrations that go on past today's, the last of which
// fails half-way: none of the pending migrations stays applied, not even
// those before it, and the database is left as it was, schema, version
// and rows. It opens again, and upgrades, once the failing migration is
// gone.
func TestOpen_FailedMigrationLeavesTheDatabaseAsItWas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	writeOldRelease(t, path, 5)
	before := takeSnapshot(t, path, nil)

	head := store.NewestSchemaVersion()
	notes := "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL) STRICT;\n" +
		"INSERT INTO notes (id, body) SELECT id, name FROM rooms;"
	good := migrationsPlus(t, map[int64]string{head + 1: notes})
	failing := migrationsPlus(t, map[int64]string{
		head + 1: notes,
		head + 2: "UPDATE rooms SET name = upper(name);\n" +
			"INSERT INTO notes (id, body) VALUES ('room_hall', 'taken');", // the id is taken
	})
	_, err := store.OpenWithMigrations(ctx, path, failing)
	for _, want := range []string{
		fmt.Sprintf("upgrading the schema from version 5 to %d", head+2),
		fmt.Sprintf("migration %s failed", name(head+2)),
		"UNIQUE constraint failed: notes.id",
		"the database is still at version 5",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open = %v; want an error that says %q", err, want)
		}
	}
	compareSnapshots(t, before, takeSnapshot(t, path, nil))
	if v, err := store.CheckBackup(ctx, path); err != nil || v != 5 {
		t.Errorf("schema version after the failed upgrade = %d, %v; want 5", v, err)
	}

	db, err := store.OpenWithMigrations(ctx, path, good)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.SchemaVersion(ctx); err != nil || v != head+1 {
		t.Fatalf("schema version = %d, %v; want %d", v, err, head+1)
	}
	r, err := db.GetRoom(ctx, "room_hall")
	if err != nil || r.Name != "Hallway" {
		t.Fatalf("the hallway after the upgrade: %+v, %v", r, err)
	}
}

// TestOpen_NewerDatabaseIsLeftAlone: a database a newer binary has
// upgraded is refused, naming both versions, and left as it was.
func TestOpen_NewerDatabaseIsLeftAlone(t *testing.T) {
	head := store.NewestSchemaVersion()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	writeOldRelease(t, path, head)
	MustExecRaw(t, path, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, head+1)
	before := takeSnapshot(t, path, nil)

	_, err := store.Open(context.Background(), path)
	var tooNew *store.TooNewError
	if !errors.As(err, &tooNew) || tooNew.Version != head+1 || tooNew.Newest != head {
		t.Fatalf("Open = %v; want a *store.TooNewError of version %d against %d", err, head+1, head)
	}
	want := fmt.Sprintf("database schema version %d is newer than this binary's newest migration (%d)", head+1, head)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Open = %v; want it to say %q", err, want)
	}
	compareSnapshots(t, before, takeSnapshot(t, path, nil))
}

// TestOpen_TwoAtOnceMigrateOnce: two processes that open an old database
// at once (the hub, and a `bifrost keys` beside it) upgrade it once; the
// second finds it done.
func TestOpen_TwoAtOnceMigrateOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bifrost.db")
	writeOldRelease(t, path, 1)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			db, err := store.Open(context.Background(), path)
			if err == nil {
				err = db.Close()
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s := takeSnapshot(t, path, nil)
	if n, want := len(s.rows[goose.DefaultTablename]), int(store.NewestSchemaVersion())+1; n != want {
		t.Errorf("goose_db_version has %d rows, want %d (version 0, then each migration once)", n, want)
	}
}

// oldRelease writes a database as the release whose newest migration is
// version did: its schema made by goose, stopping there, and its rows
// written with plain SQL through a connection like that release's.
type oldRelease struct {
	tb      testing.TB
	version int64
	tx      *sql.Tx
}

// releaseDSN configures a connection as every release has: a database in
// WAL mode, with foreign keys on.
const releaseDSN = "_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"

// writeOldRelease writes the house of the release at version to path:
// the rows of every era up to it.
func writeOldRelease(tb testing.TB, path string, version int64) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?"+releaseDSN)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		tb.Fatal(err)
	}
	tx, err := raw.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	o := &oldRelease{tb: tb, version: version, tx: tx}
	for _, e := range eras {
		if e.migration <= version {
			e.write(o)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

func (o *oldRelease) exec(query string, args ...any) {
	o.tb.Helper()
	if _, err := o.tx.Exec(query, args...); err != nil {
		o.tb.Fatalf("writing the house of version %d: %v\n%s", o.version, err, query)
	}
}

// upgraded is the house after the upgrade, with today's services over its
// store, on a clock that reads now.
type upgraded struct {
	db       *store.DB
	ctx      context.Context // alice, an admin
	svc      *service.Service
	keys     *identity.Keys
	accounts *identity.Accounts
	engine   *automation.Engine
	history  *history.Reader
}

func upgrade(t *testing.T, db *store.DB) *upgraded {
	clock := func() time.Time { return now }
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	sim.Register(reg, simDevices()...)
	svc := servicetest.Start(t, service.Config{Store: db, Registry: reg, Now: clock})
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Now: clock}
	keys := identity.NewKeys(cfg)
	t.Cleanup(keys.Wait)
	return &upgraded{
		db:       db,
		ctx:      service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "usr_alice", Name: "alice", Scope: service.ScopeControl}),
		svc:      svc,
		keys:     keys,
		accounts: identity.NewAccounts(cfg, keys),
		engine:   automation.New(automation.Config{Service: svc, Store: db, Now: clock, Location: time.UTC}),
		history:  history.NewReader(history.Config{Store: db, Now: clock}, svc),
	}
}

// schemaTable names the schema itself in a snapshot.
const schemaTable = "sqlite_schema"

// A snapshot is every row of every table of a database (and its schema,
// as the rows of sqlite_schema), each row as text, sorted.
type snapshot struct {
	columns map[string][]string // by table
	rows    map[string][]string // by table
}

// takeSnapshot reads the database at path through a connection of its
// own: every table's columns, or those of columns when it is given (the
// columns a table had before an upgrade, which it must still have).
func takeSnapshot(tb testing.TB, path string, columns map[string][]string) snapshot {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if columns == nil {
		columns = tableColumns(tb, raw)
	}
	s := snapshot{columns: columns, rows: map[string][]string{}}
	for table, cols := range columns {
		s.rows[table] = tableRows(tb, raw, table, cols)
	}
	return s
}

// tableColumns is the columns of every table, and of sqlite_schema.
func tableColumns(tb testing.TB, raw *sql.DB) map[string][]string {
	tb.Helper()
	columns := map[string][]string{schemaTable: {"type", "name", "tbl_name", "sql"}}
	err := scanAll(raw, func(r *sql.Rows) error {
		var table, column string
		if err := r.Scan(&table, &column); err != nil {
			return err
		}
		columns[table] = append(columns[table], column)
		return nil
	}, `SELECT t.name, c.name FROM sqlite_schema t, pragma_table_info(t.name) c
		WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%' ORDER BY t.name, c.cid`)
	if err != nil {
		tb.Fatal(err)
	}
	return columns
}

// tableRows is the rows of table, its columns cols, as sorted text.
func tableRows(tb testing.TB, raw *sql.DB, table string, cols []string) []string {
	tb.Helper()
	// In brackets: SQLite takes a double-quoted name that is no column
	// for a string.
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = "[" + c + "]"
	}
	out := []string{}
	err := scanAll(raw, func(r *sql.Rows) error {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return err
		}
		fields := make([]string, len(cols))
		for i, v := range vals {
			fields[i] = cols[i] + "=" + sqlText(v)
		}
		out = append(out, strings.Join(fields, " "))
		return nil
	}, `SELECT `+strings.Join(quoted, ", ")+` FROM [`+table+`]`)
	if err != nil {
		tb.Fatalf("reading table %s: %v (a column it had before the upgrade is gone?)", table, err)
	}
	slices.Sort(out)
	return out
}

// sqlText writes a value SQLite gave back, with its type.
func sqlText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return fmt.Sprintf("x'%x'", v)
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64) + "r"
	}
	return fmt.Sprint(v)
}

func scanAll(raw *sql.DB, fn func(*sql.Rows) error, query string, args ...any) error {
	rows, err := raw.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// without is s but the tables named.
func (s snapshot) without(tables ...string) snapshot {
	out := snapshot{columns: map[string][]string{}, rows: map[string][]string{}}
	for table, cols := range s.columns {
		if !slices.Contains(tables, table) {
			out.columns[table], out.rows[table] = cols, s.rows[table]
		}
	}
	return out
}

// compareSnapshots fails for the rows of before that after lacks, and
// those after has that before lacked, in the tables of before.
func compareSnapshots(t *testing.T, before, after snapshot) {
	t.Helper()
	for table, rows := range before.rows {
		got := after.rows[table]
		if lost := missing(rows, got); len(lost) > 0 {
			t.Errorf("table %s lost %d rows:\n%s", table, len(lost), strings.Join(lost, "\n"))
		}
		if added := missing(got, rows); len(added) > 0 {
			t.Errorf("table %s has %d rows it did not have:\n%s", table, len(added), strings.Join(added, "\n"))
		}
	}
}

// missing is the rows of want that got lacks.
func missing(want, got []string) []string {
	var out []string
	for _, r := range want {
		if !slices.Contains(got, r) {
			out = append(out, r)
		}
	}
	return out
}

// migrationsPlus is the embedded migrations with more after them, by
// version: their Up sections (each with a Down that undoes nothing).
func migrationsPlus(tb testing.TB, more map[int64]string) fstest.MapFS {
	tb.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(migrations.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, p)
		out[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	for v, up := range more {
		out[name(v)] = &fstest.MapFile{Data: []byte("-- +goose Up\n" + up + "\n-- +goose Down\nSELECT 1;\n")}
	}
	return out
}

// name is the file name of a test migration of version v.
func name(v int64) string { return fmt.Sprintf("%05d_test_%d.sql", v, v) }
