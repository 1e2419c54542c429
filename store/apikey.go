package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

const selectAPIKeys = `
SELECT id, name, prefix, hash, scope, created_at, created_by, owner_id, last_used, revoked_at
FROM api_keys`

// apiKeyByHash searches the unique index on hash (see TestQueryPlans). The
// service answers requests from the keys it holds in memory; this serves
// single lookups.
const apiKeyByHash = selectAPIKeys + ` WHERE hash = ?`

// CreateAPIKey stores a key. A scope other than read or control is
// EINVALID; an id or hash already stored is ECONFLICT. A zero CreatedAt is
// stamped with db.Now.
func (db *DB) CreateAPIKey(ctx context.Context, k identity.APIKey) error {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = db.Now()
	}
	return db.write(ctx, func(tx *sql.Tx) error { return insertAPIKey(ctx, tx, k) })
}

// insertAPIKey is CreateAPIKey inside tx, for a key with its creation
// time.
func insertAPIKey(ctx context.Context, tx *sql.Tx, k identity.APIKey) error {
	switch {
	case k.ID == "":
		return errEmpty("key id")
	case k.Hash == "":
		return errEmpty("key hash")
	case k.Scope != service.ScopeRead && k.Scope != service.ScopeControl:
		return service.Errorf(service.EINVALID, "key scope %q is not one of %q, %q",
			k.Scope, service.ScopeRead, service.ScopeControl)
	}
	if k.CreatedAt.IsZero() {
		return errEmpty("key creation time")
	}
	err := ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a key with id %q already exists", k.ID),
		`SELECT 1 FROM api_keys WHERE id = ?`, k.ID)
	if err != nil {
		return err
	}
	err = ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a key with that hash already exists"),
		`SELECT 1 FROM api_keys WHERE hash = ?`, k.Hash)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, owner_id, last_used, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Name, k.Prefix, k.Hash, k.Scope, formatTime(k.CreatedAt), k.CreatedBy, k.OwnerID,
		formatNullTime(k.LastUsed), formatNullTime(k.RevokedAt))
	return err
}

// GetAPIKeyByHash returns the key with the hash, revoked or not (the caller
// checks RevokedAt). The lookup uses the hash's unique index.
func (db *DB) GetAPIKeyByHash(ctx context.Context, hash string) (identity.APIKey, error) {
	k, err := scanAPIKey(db.db.QueryRowContext(ctx, apiKeyByHash, hash))
	return k, notFound(err, "no such API key")
}

// ListAPIKeys returns every key, revoked ones included, oldest first.
func (db *DB) ListAPIKeys(ctx context.Context) ([]identity.APIKey, error) {
	rows, err := db.db.QueryContext(ctx, selectAPIKeys+` ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []identity.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, k)
	}
	return list, rows.Err()
}

// RevokeAPIKey marks a key revoked at at. Revoking a revoked key keeps its
// first revocation time and is not an error; a missing key is ENOTFOUND.
func (db *DB) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`,
		formatTime(at), id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "API key %q not found", id))
}

// TouchAPIKey records that the key was used at at (last used only moves
// forward).
func (db *DB) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE api_keys SET last_used = max(COALESCE(last_used, ''), ?) WHERE id = ?`,
		formatTime(at), id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "API key %q not found", id))
}

// scanAPIKey reads a row selected by selectAPIKeys.
func scanAPIKey(s scanner) (identity.APIKey, error) {
	var k identity.APIKey
	err := s.Scan(&k.ID, &k.Name, &k.Prefix, &k.Hash, &k.Scope, timeCol{&k.CreatedAt}, &k.CreatedBy, &k.OwnerID,
		nullTimeCol{&k.LastUsed}, nullTimeCol{&k.RevokedAt})
	return k, err
}
