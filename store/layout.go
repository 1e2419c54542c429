package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/service"
)

var _ dashboard.Store = (*DB)(nil)

// A layout is kept as one JSON document per user rather than as rows:
// it is read and written whole on every change the dashboard makes (a
// drag rewrites an order), never queried by part, and its ids are not
// foreign keys (it outlives the rooms and devices it names), so rows
// would buy nothing but a thousand inserts a save.

// GetLayout returns the layout the user saved; ENOTFOUND when they saved
// none.
func (db *DB) GetLayout(ctx context.Context, userID string) (dashboard.Layout, error) {
	var doc string
	err := db.db.QueryRowContext(ctx, `SELECT layout FROM dashboard_layouts WHERE user_id = ?`, userID).Scan(&doc)
	if err != nil {
		return dashboard.Layout{}, notFound(err, "no dashboard layout is saved for user %q", userID)
	}
	var l dashboard.Layout
	if err := json.Unmarshal([]byte(doc), &l); err != nil {
		return dashboard.Layout{}, fmt.Errorf("the dashboard layout of user %q: %w", userID, err)
	}
	return l, nil
}

// PutLayout replaces the user's layout, stamped with db.Now. An unknown
// user is ENOTFOUND.
func (db *DB) PutLayout(ctx context.Context, userID string, l dashboard.Layout) error {
	doc, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "user %q not found", userID),
			`SELECT 1 FROM users WHERE id = ?`, userID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO dashboard_layouts (user_id, layout, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at`,
			userID, string(doc), formatTime(db.Now()))
		return err
	})
}
