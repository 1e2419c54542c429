// Package store keeps Bifrost's state in one SQLite file, through the
// CGO-free modernc.org/sqlite driver. It implements service.Store,
// identity.Store, integrations.Store, history.Store and dashboard.Store
// (and the automations' store); all of Bifrost's SQL lives here.
//
// The connection is configured once, in the DSN: WAL journal, foreign keys
// on, a busy timeout, synchronous=NORMAL, and BEGIN IMMEDIATE for every
// read-write transaction, so a transaction takes the write lock when it
// starts rather than failing with SQLITE_BUSY halfway through. The pool has
// a single connection: writes are serialised in the process, and the busy
// timeout covers another process (a `bifrost keys` command run beside the
// server) writing the same file.
//
// What SQLite holds in memory is bounded by the page cache, set in the DSN
// to SQLite's default of 2000 KiB for the connection; a sort (a roll-up's
// GROUP BY) works in at most as much before it spills to a temporary file.
// modernc.org/libc serves SQLite's allocations from pages it maps itself,
// outside the Go heap, in power-of-two slots: a 4 KiB database page and
// its header take an 8 KiB slot, so a full cache is some 4 MiB of the
// process's memory, and a sort's buffer up to 2 MiB more. The cache fills
// as the database is read and then stays full: a long-running hub's
// resident memory rises by some megabytes over its first hours (the soak,
// scripts/soak, shows it), and no further.
//
// Times are stored as UTC text with a fixed nine-digit fraction, so they
// round-trip exactly (as instants: they come back in UTC) and compare
// correctly as strings.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/service"
)

var (
	_ service.Store  = (*DB)(nil)
	_ identity.Store = (*DB)(nil)
)

// DB is the SQLite store.
type DB struct {
	// Now stamps the times the store fills in itself (a created_at or an
	// audit time left zero by the caller). It defaults to time.Now; set it
	// before first use.
	Now func() time.Time

	db         *sql.DB
	path       string
	migrations *goose.Provider
	version    dataVersion
}

// dsnParams configure every connection: see the package comment.
const dsnParams = "_pragma=journal_mode(WAL)" +
	"&_pragma=foreign_keys(1)" +
	"&_pragma=busy_timeout(10000)" +
	"&_pragma=synchronous(NORMAL)" +
	"&_pragma=cache_size(-2000)" +
	"&_txlock=immediate"

// Open opens (creating it and its directory if missing) the database at
// path and brings its schema up to date, all the pending migrations in one
// transaction (see migrate): an upgrade that fails leaves the database as
// it was. It refuses a database whose schema is newer than the newest
// migration this binary carries, with a *TooNewError. The database file,
// its -wal and its -shm are readable and writable by their owner only,
// whatever the umask (see makePrivate).
func Open(ctx context.Context, path string) (*DB, error) {
	return openWith(ctx, path, migrations.FS)
}

// openWith is Open with the migrations in fsys.
func openWith(ctx context.Context, path string, fsys fs.FS) (*DB, error) {
	if path == "" {
		return nil, errors.New("open database: no path given")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := makePrivate(path); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(1) // one writer; the idle pool keeps it open
	db := &DB{Now: time.Now, db: sqldb, path: path}
	if err := db.open(ctx, fsys); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

// dsn returns the DSN for the file at path. The path goes into a SQLite URI
// ("file:…"), so the characters a URI gives meaning to are escaped.
func dsn(path string) string {
	return "file:" + uriEscaper.Replace(path) + "?" + dsnParams
}

// uriEscaper escapes the characters a SQLite URI gives meaning to.
var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// open checks the connection and applies the pending migrations of fsys.
func (db *DB) open(ctx context.Context, fsys fs.FS) error {
	if err := db.db.PingContext(ctx); err != nil {
		return err
	}
	return db.migrate(ctx, fsys)
}

// Close closes the database.
func (db *DB) Close() error {
	err := db.db.Close()
	// After SQLite's connection: closing the wal-index's descriptor drops
	// the process's locks on it (see walIndex).
	db.version.mu.Lock()
	db.version.wal.close()
	db.version.mu.Unlock()
	return err
}

// Ping reports whether the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
}

// dataVersion is what DataVersion remembers between calls.
type dataVersion struct {
	mu   sync.Mutex
	conn any   // the driver connection last asked
	raw  int64 // its PRAGMA data_version then
	n    int64 // what DataVersion returned

	wal     *walIndex           // the wal-index header, mapped when it can be
	header  [walHeaderSize]byte // as read before the pragma was last asked
	asked   time.Time           // when the pragma was last asked
	mapping bool                // openWALIndex was tried
}

// askEvery bounds how long DataVersion trusts the wal-index header alone:
// should SQLite ever make the -shm file anew under a mapping, a change is
// still seen within it.
const askEvery = time.Second

// DataVersion returns a number that changes when another connection (in
// practice another process: a `bifrost keys` command run beside the hub)
// has committed to the database since the previous call. It asks SQLite's
// PRAGMA data_version, which reads no table, on the pool's one connection:
// this store's own writes go over that connection, so they leave it
// unchanged. That value is the connection's own, so should the pool ever
// replace its connection, the number changes too: a caller may see a
// change where there was none, never the reverse.
//
// The pragma is asked only when the wal-index header (see walIndex) has
// changed since it was last asked, or a second has passed: a commit by
// any process rewrites that header, so an unchanged header means an
// unchanged database, and the common case costs a 96-byte copy.
func (db *DB) DataVersion(ctx context.Context) (int64, error) {
	v := &db.version
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.mapping {
		v.mapping = true
		v.wal = openWALIndex(db.path)
	}
	h, ok := v.wal.header()
	if ok && h == v.header && time.Since(v.asked) < askEvery {
		return v.n, nil
	}
	n, err := db.askDataVersion(ctx)
	if err != nil {
		v.header = [walHeaderSize]byte{} // ask again next time
		return 0, err
	}
	if time.Since(v.asked) >= askEvery && v.wal != nil {
		v.wal.remap()
	}
	v.asked = time.Now()
	if ok {
		v.header = h // read before the pragma: a commit since is seen next time
	}
	return n, nil
}

// askDataVersion asks the pragma; v.mu is held.
func (db *DB) askDataVersion(ctx context.Context) (int64, error) {
	v := &db.version
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var raw int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&raw); err != nil {
		return 0, err
	}
	var dc any
	if err := conn.Raw(func(c any) error { dc = c; return nil }); err != nil {
		return 0, err
	}
	if dc != v.conn || raw != v.raw {
		v.conn, v.raw = dc, raw
		v.n++
	}
	return v.n, nil
}

// SchemaVersion returns the version of the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	return db.migrations.GetDBVersion(ctx)
}

// Backup writes a consistent copy of the database to dest with VACUUM INTO,
// while the database stays in use. It refuses to overwrite an existing file
// and leaves the copy readable by its owner only.
func (db *DB) Backup(ctx context.Context, dest string) error {
	if dest == "" {
		return errors.New("backup: no destination given")
	}
	// An absolute path cannot be taken for a "file:" URI by SQLite.
	dest, err := filepath.Abs(dest)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup: %s already exists; choose a new file", dest)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := db.db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	return os.Chmod(dest, 0o600)
}

// queryer is what *sql.DB and *sql.Tx have in common, so a lookup can run
// inside or outside a transaction.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// write runs fn in a read-write transaction (BEGIN IMMEDIATE) and commits
// it if fn returns nil.
func (db *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.inTx(ctx, &sql.TxOptions{}, fn)
}

// read runs fn in a read-only transaction: several queries that see one
// snapshot.
func (db *DB) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.inTx(ctx, &sql.TxOptions{ReadOnly: true}, fn)
}

func (db *DB) inTx(ctx context.Context, opts *sql.TxOptions, fn func(tx *sql.Tx) error) error {
	tx, err := db.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// exists reports whether query returns a row.
func exists(ctx context.Context, q queryer, query string, args ...any) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// ensureRow returns missing unless query returns a row.
func ensureRow(ctx context.Context, q queryer, missing error, query string, args ...any) error {
	ok, err := exists(ctx, q, query, args...)
	if err == nil && !ok {
		return missing
	}
	return err
}

// ensureNoRow returns taken if query returns a row.
func ensureNoRow(ctx context.Context, q queryer, taken error, query string, args ...any) error {
	ok, err := exists(ctx, q, query, args...)
	if err == nil && ok {
		return taken
	}
	return err
}

// affectedOne returns notFound when an UPDATE or DELETE touched no row.
func affectedOne(res sql.Result, err error, notFound error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// notFound maps sql.ErrNoRows to a service ENOTFOUND error naming what.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return service.Errorf(service.ENOTFOUND, format, args...)
	}
	return err
}

// errEmpty is the EINVALID error for a required field left empty.
func errEmpty(what string) error {
	return service.Errorf(service.EINVALID, "%s must not be empty", what)
}
