package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/migrations"
)

// The reasons CheckBackup refuses a file. Each is wrapped with the detail
// that names what was found.
var (
	// ErrNotSQLite is a file that does not start with SQLite's header.
	ErrNotSQLite = errors.New("not a SQLite database")
	// ErrNotBifrost is a SQLite database without Bifrost's schema.
	ErrNotBifrost = errors.New("not a Bifrost database")
	// ErrCorrupt is a database that SQLite cannot read whole.
	ErrCorrupt = errors.New("the database is damaged")
)

// sqliteHeader opens every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// bifrostTables are tables the first migration made: a database with
// goose's table but without these is someone else's.
var bifrostTables = []string{"devices", "rooms", "scenes", "api_keys", "users"}

// CheckBackup reads the database file at path without changing it and
// returns its schema version. It refuses (with ErrNotSQLite, ErrNotBifrost,
// ErrCorrupt or a *TooNewError) a file that is not SQLite, that lacks
// Bifrost's schema, that fails PRAGMA integrity_check, or whose schema is
// newer than this binary. The file must not be in use: it is opened as
// immutable.
func CheckBackup(ctx context.Context, path string) (int64, error) {
	if err := checkHeader(path); err != nil {
		return 0, err
	}
	sqldb, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return 0, err
	}
	defer sqldb.Close()
	if err := checkIntegrity(ctx, sqldb); err != nil {
		return 0, err
	}
	version, err := schemaVersion(ctx, sqldb)
	if err != nil {
		return 0, err
	}
	if newest := NewestSchemaVersion(); version > newest {
		return version, &TooNewError{Version: version, Newest: newest}
	}
	return version, nil
}

// readOnlyDSN opens a file that nothing else writes: read-only, without
// locks or a -shm file beside it.
func readOnlyDSN(path string) string {
	return "file:" + uriEscaper.Replace(path) + "?mode=ro&immutable=1"
}

func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte(sqliteHeader)) {
		return fmt.Errorf("%w: it does not start with SQLite's header", ErrNotSQLite)
	}
	return nil
}

// checkIntegrity runs PRAGMA integrity_check and wants its one row "ok".
func checkIntegrity(ctx context.Context, sqldb *sql.DB) error {
	rows, err := sqldb.QueryContext(ctx, `PRAGMA integrity_check(5)`)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("%w: integrity_check says %q", ErrCorrupt, problems)
}

// schemaVersion reads goose's table (the newest applied version) after
// checking that Bifrost's tables are there.
func schemaVersion(ctx context.Context, sqldb *sql.DB) (int64, error) {
	for _, table := range append([]string{goose.DefaultTablename}, bifrostTables...) {
		ok, err := exists(ctx, sqldb, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, table)
		if err != nil {
			return 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if !ok {
			return 0, fmt.Errorf("%w: it has no %s table", ErrNotBifrost, table)
		}
	}
	var version sql.NullInt64
	err := sqldb.QueryRowContext(ctx, `SELECT MAX(version_id) FROM `+goose.DefaultTablename+` WHERE is_applied`).Scan(&version)
	if err != nil {
		return 0, fmt.Errorf("%w: reading its schema version: %v", ErrCorrupt, err)
	}
	if !version.Valid || version.Int64 < 1 {
		return 0, fmt.Errorf("%w: no migration is recorded as applied", ErrNotBifrost)
	}
	return version.Int64, nil
}

// NewestSchemaVersion is the version of the newest migration this binary
// carries.
func NewestSchemaVersion() int64 {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		panic(err) // a fixed pattern
	}
	var newest int64
	for _, name := range names {
		if v, err := goose.NumericComponent(name); err == nil && v > newest {
			newest = v
		}
	}
	return newest
}

// CopyDatabase writes a consistent copy of the database file at src (what
// its -wal holds included) to dest with VACUUM INTO, through a connection
// of its own, without migrating src. dest must not exist; it is left
// readable by its owner only.
func CopyDatabase(ctx context.Context, src, dest string) error {
	sqldb, err := sql.Open("sqlite", "file:"+uriEscaper.Replace(src)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer sqldb.Close()
	sqldb.SetMaxOpenConns(1)
	if _, err := sqldb.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dest, err)
	}
	return os.Chmod(dest, 0o600)
}
