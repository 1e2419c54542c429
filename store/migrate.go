package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/pressly/goose/v3"
)

// migrate brings the schema up to the newest migration in fsys, or refuses
// a database newer than that with a *TooNewError.
//
// An upgrade is all or nothing: every pending migration runs in one
// transaction, so a migration that fails leaves the database as it was,
// at the version it had, rather than half-way between two releases. goose
// runs each migration in a transaction of its own, and has no way to group
// them; WithIsolateDDL makes it run their statements as they come instead,
// inside the transaction migrate holds around them all. That transaction
// is begun and ended on the pool's one connection (see openWith), which is
// the connection goose takes in turn. (A migration marked NO TRANSACTION
// would run inside it too; migrations_test refuses those.)
//
// The transaction begins IMMEDIATE, before the version is read, so two
// processes opening one old database at once migrate it once: the second
// waits for the first (the busy timeout) and finds nothing pending. When
// nothing is pending it writes nothing, and a start costs a lock taken and
// let go.
func (db *DB) migrate(ctx context.Context, fsys fs.FS) (err error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.db, fsys,
		goose.WithDisableGlobalRegistry(true), goose.WithIsolateDDL(true))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	db.migrations = p
	if _, err := db.db.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			// Some errors end the transaction on their own; then
			// ROLLBACK fails, and there is nothing left to undo.
			_, _ = db.db.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	current, newest, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > newest {
		return &TooNewError{Version: current, Newest: newest}
	}
	if current < newest {
		if _, err := p.Up(ctx); err != nil {
			return migrationFailed(current, newest, err)
		}
	}
	if _, err := db.db.ExecContext(ctx, `COMMIT`); err != nil {
		return fmt.Errorf("migrate: commit: %w; the database is still at version %d", err, current)
	}
	return nil
}

// TooNewError is a database whose schema is newer than this binary's
// newest migration: a newer release has upgraded it. Open and CheckBackup
// refuse it.
type TooNewError struct {
	Version int64 // the database's schema version
	Newest  int64 // this binary's newest migration
}

func (e *TooNewError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this binary's newest migration (%d)", e.Version, e.Newest)
}

// migrationFailed says which migration failed, and that the database is
// still at version from.
func migrationFailed(from, to int64, err error) error {
	var partial *goose.PartialError
	if errors.As(err, &partial) && partial.Failed != nil && partial.Failed.Source != nil {
		err = fmt.Errorf("migration %s failed: %w", path.Base(partial.Failed.Source.Path), partial.Err)
	}
	return fmt.Errorf("upgrading the schema from version %d to %d: %w; nothing was applied, the database is still at version %d",
		from, to, err, from)
}
