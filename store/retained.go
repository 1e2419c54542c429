package store

import (
	"context"
	"database/sql"
	"time"
)

// Retained is a retained message of the embedded MQTT broker.
type Retained struct {
	Topic     string
	Payload   []byte
	QoS       byte
	UpdatedAt time.Time
}

// ListRetained returns every retained message, by topic.
func (db *DB) ListRetained(ctx context.Context) ([]Retained, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT topic, payload, qos, updated_at FROM mqtt_retained ORDER BY topic`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Retained
	for rows.Next() {
		var r Retained
		if err := rows.Scan(&r.Topic, &r.Payload, &r.QoS, timeCol{&r.UpdatedAt}); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PutRetained saves a batch of retained messages in one transaction: each
// replaces the message of its topic, and one with an empty payload deletes
// it (as MQTT clears a retained message).
func (db *DB) PutRetained(ctx context.Context, batch []Retained) error {
	if len(batch) == 0 {
		return nil
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		for _, r := range batch {
			if r.Topic == "" {
				return errEmpty("retained message topic")
			}
			if len(r.Payload) == 0 {
				if _, err := tx.ExecContext(ctx, `DELETE FROM mqtt_retained WHERE topic = ?`, r.Topic); err != nil {
					return err
				}
				continue
			}
			if r.UpdatedAt.IsZero() {
				r.UpdatedAt = db.Now()
			}
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO mqtt_retained (topic, payload, qos, updated_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (topic) DO UPDATE SET payload = excluded.payload, qos = excluded.qos, updated_at = excluded.updated_at`,
				r.Topic, r.Payload, min(r.QoS, 2), formatTime(r.UpdatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}
