package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// CreateEnrollment stores an enrollment token's hash, and sweeps the
// tokens used, or expired, by e.CreatedAt. An unknown creator is
// ENOTFOUND; a hash already stored is ECONFLICT.
func (db *DB) CreateEnrollment(ctx context.Context, e identity.Enrollment) error {
	switch {
	case e.ID == "":
		return errEmpty("enrollment id")
	case e.Hash == "":
		return errEmpty("enrollment hash")
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if e.CreatedBy != "" {
			err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "user %q not found", e.CreatedBy),
				`SELECT 1 FROM users WHERE id = ?`, e.CreatedBy)
			if err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM enrollment_tokens WHERE used_at IS NOT NULL OR expires_at <= ?`,
			formatTime(e.CreatedAt))
		if err != nil {
			return err
		}
		err = ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "an enrollment with that hash already exists"),
			`SELECT 1 FROM enrollment_tokens WHERE hash = ?`, e.Hash)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO enrollment_tokens (id, hash, created_by, creator, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)`,
			e.ID, e.Hash, nullIfEmpty(e.CreatedBy), e.CreatorName, formatTime(e.CreatedAt), formatTime(e.ExpiresAt))
		return err
	})
}

// RedeemEnrollment claims the unused enrollment of hash that expires
// after at and stores the key mint makes for it, in one transaction.
func (db *DB) RedeemEnrollment(ctx context.Context, hash string, at time.Time, mint func(identity.Enrollment) identity.APIKey) (identity.Enrollment, error) {
	var e identity.Enrollment
	err := db.write(ctx, func(tx *sql.Tx) error {
		var by sql.NullString
		err := tx.QueryRowContext(ctx, `
			SELECT id, hash, created_by, creator, created_at, expires_at FROM enrollment_tokens
			WHERE hash = ? AND used_at IS NULL AND expires_at > ?`, hash, formatTime(at)).
			Scan(&e.ID, &e.Hash, &by, &e.CreatorName, timeCol{&e.CreatedAt}, timeCol{&e.ExpiresAt})
		if errors.Is(err, sql.ErrNoRows) {
			return service.Errorf(service.ENOTFOUND, "no such enrollment")
		}
		if err != nil {
			return err
		}
		e.CreatedBy = by.String
		k := mint(e)
		if err := insertAPIKey(ctx, tx, k); err != nil {
			return err
		}
		used := at.UTC()
		e.UsedAt, e.KeyID = &used, k.ID
		_, err = tx.ExecContext(ctx, `UPDATE enrollment_tokens SET used_at = ?, key_id = ? WHERE hash = ?`,
			formatTime(used), k.ID, hash)
		return err
	})
	if err != nil {
		return identity.Enrollment{}, err
	}
	return e, nil
}

// nullIfEmpty stores "" as NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
