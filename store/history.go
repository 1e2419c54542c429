package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/history"
)

var _ history.Store = (*DB)(nil)

// The bucket widths, in seconds.
const (
	fiveMinSecs = 300
	hourSecs    = 3600
)

// AppendSamples stores a batch of samples in one transaction.
func (db *DB) AppendSamples(ctx context.Context, samples []history.Sample) error {
	if len(samples) == 0 {
		return nil
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO sensor_samples (device_id, type, at, value) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, s := range samples {
			if _, err := st.ExecContext(ctx, string(s.Device), s.Type, s.At.UnixMilli(), s.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

// RollUpHistory rolls up and prunes, in one transaction. Each roll-up
// starts at the newest bucket its tier holds and computes that bucket and
// every later one whole, from the tier below, replacing what is there:
// a bucket is only ever written from all of its samples, so running it
// again changes nothing. Only buckets that have ended are written (the
// current one is still filling), and nothing the next tier has not taken
// yet is pruned, even when its tier's retention is shorter.
func (db *DB) RollUpHistory(ctx context.Context, now time.Time, keep history.Retention) error {
	end5 := now.Unix() / fiveMinSecs * fiveMinSecs // the start of the bucket filling now
	endH := now.Unix() / hourSecs * hourSecs
	return db.write(ctx, func(tx *sql.Tx) error {
		var from5, fromH int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(bucket), 0) FROM sensor_5m`).Scan(&from5); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(bucket), 0) FROM sensor_1h`).Scan(&fromH); err != nil {
			return err
		}
		steps := []struct {
			q    string
			args []any
		}{
			{`INSERT OR REPLACE INTO sensor_5m (device_id, type, bucket, mean, min, max, n)
				SELECT device_id, type, at / 300000 * 300, avg(value), min(value), max(value), count(*)
				FROM sensor_samples WHERE at >= ? AND at < ?
				GROUP BY device_id, type, at / 300000`, []any{from5 * 1000, end5 * 1000}},
			{`INSERT OR REPLACE INTO sensor_1h (device_id, type, bucket, mean, min, max, n)
				SELECT device_id, type, bucket / 3600 * 3600, sum(mean * n) / sum(n), min(min), max(max), sum(n)
				FROM sensor_5m WHERE bucket >= ? AND bucket < ?
				GROUP BY device_id, type, bucket / 3600`, []any{fromH, endH}},
			{`DELETE FROM sensor_samples WHERE at < ?`, []any{min(now.Add(-keep.Raw).Unix(), end5) * 1000}},
			{`DELETE FROM sensor_5m WHERE bucket < ?`, []any{min(now.Add(-keep.FiveMin).Unix(), endH)}},
			{`DELETE FROM sensor_1h WHERE bucket < ?`, []any{now.Add(-keep.Hourly).Unix()}},
		}
		for _, st := range steps {
			if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadHistory returns a device's points of one tier in [from, until]:
// samples taken then, and buckets any of which falls then.
func (db *DB) ReadHistory(ctx context.Context, id devices.ID, tier string, from, until time.Time, types []string) ([]history.Row, error) {
	var q string
	args := []any{string(id)}
	switch tier {
	case history.TierRaw:
		q = `SELECT type, at, value, NULL, NULL, 1 FROM sensor_samples WHERE device_id = ? AND +at >= ? AND +at <= ?`
		args = append(args, from.UnixMilli(), until.UnixMilli())
	case history.Tier5m, history.TierHourly:
		table := map[string]string{history.Tier5m: "sensor_5m", history.TierHourly: "sensor_1h"}[tier]
		// A bucket is in the range when any of it is.
		width := map[string]int64{history.Tier5m: fiveMinSecs, history.TierHourly: hourSecs}[tier]
		q = `SELECT type, bucket * 1000, mean, min, max, n FROM ` + table + ` WHERE device_id = ? AND +bucket > ? AND +bucket <= ?`
		args = append(args, from.Unix()-width, until.Unix())
	default:
		return nil, fmt.Errorf("no history tier %q", tier)
	}
	if len(types) > 0 {
		q += ` AND type IN (?` + strings.Repeat(", ?", len(types)-1) + `)`
		for _, t := range types {
			args = append(args, t)
		}
	}
	q += ` ORDER BY type, 2`
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []history.Row
	for rows.Next() {
		var (
			r        history.Row
			ms       int64
			min, max sql.NullFloat64
		)
		if err := rows.Scan(&r.Type, &ms, &r.Value, &min, &max, &r.N); err != nil {
			return nil, err
		}
		r.At = time.UnixMilli(ms).UTC()
		if min.Valid {
			r.Min, r.Max = &min.Float64, &max.Float64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// deleteHistory deletes a device's history, with the device.
func deleteHistory(ctx context.Context, tx *sql.Tx, id devices.ID) error {
	for _, table := range []string{"sensor_samples", "sensor_5m", "sensor_1h"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE device_id = ?`, string(id)); err != nil {
			return err
		}
	}
	return nil
}
