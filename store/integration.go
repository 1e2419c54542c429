package store

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
)

var _ integrations.Store = (*DB)(nil)

// GetIntegration returns the saved settings of the integration name.
func (db *DB) GetIntegration(ctx context.Context, name string) (integrations.Record, error) {
	var r integrations.Record
	var config string
	err := db.db.QueryRowContext(ctx, `SELECT name, config, secret, updated_at FROM integrations WHERE name = ?`, name).
		Scan(&r.Name, &config, &r.Secret, timeCol{&r.UpdatedAt})
	if err != nil {
		return integrations.Record{}, notFound(err, "no settings are saved for integration %q", name)
	}
	r.Config = json.RawMessage(config)
	return r, nil
}

// PutIntegration saves r, replacing what was saved under its name. An
// empty Config is saved as {}, a zero UpdatedAt is stamped with db.Now, and
// a nil Secret is stored as NULL. The secret is stored as given: the
// service seals it first.
func (db *DB) PutIntegration(ctx context.Context, r integrations.Record) error {
	if strings.TrimSpace(r.Name) == "" {
		return errEmpty("integration name")
	}
	config := string(r.Config)
	if strings.TrimSpace(config) == "" {
		config = "{}"
	}
	if !json.Valid([]byte(config)) {
		return service.Errorf(service.EINVALID, "the settings of integration %q are not valid JSON", r.Name)
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = db.Now()
	}
	var secret any // NULL
	if r.Secret != nil {
		secret = r.Secret
	}
	_, err := db.db.ExecContext(ctx, `
		INSERT INTO integrations (name, config, secret, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET config = excluded.config, secret = excluded.secret, updated_at = excluded.updated_at`,
		r.Name, config, secret, formatTime(r.UpdatedAt))
	return err
}

// DeleteIntegration forgets the saved settings of the integration name.
func (db *DB) DeleteIntegration(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM integrations WHERE name = ?`, name)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "no settings are saved for integration %q", name))
}
