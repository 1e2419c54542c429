package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

var _ kiosk.Store = (*DB)(nil)

// A kiosk's row, with its key's name, prefix and revocation.
const selectKiosks = `
SELECT k.id, k.key_id, a.name, a.prefix, a.revoked_at IS NOT NULL, COALESCE(k.room_id, ''),
	k.app_version, k.screen_on, k.battery_level, k.battery_charging, k.battery_voltage_mv,
	k.battery_current_ua, k.battery_temp_dc, k.power_source,
	k.mic_presence, k.mic_sensitivity, k.noise_elevated, k.noise_level, k.noise_at,
	k.pending_command, k.created_at, k.last_seen
FROM kiosks k JOIN api_keys a ON a.id = k.key_id`

// CheckInKiosk records a check-in and takes the waiting command, in one
// transaction.
func (db *DB) CheckInKiosk(ctx context.Context, keyID, newID string, r kiosk.Report, at time.Time) (before, after kiosk.Kiosk, command string, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		before, err = kioskWhere(ctx, tx, `k.key_id = ?`, keyID)
		switch {
		case service.ErrorCode(err) == service.ENOTFOUND:
			before = kiosk.Kiosk{}
		case err != nil:
			return err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO kiosks (id, key_id, app_version, screen_on, battery_level, battery_charging,
				battery_voltage_mv, battery_current_ua, battery_temp_dc, power_source, created_at, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (key_id) DO UPDATE SET
				app_version = excluded.app_version, screen_on = excluded.screen_on,
				battery_level = excluded.battery_level, battery_charging = excluded.battery_charging,
				battery_voltage_mv = excluded.battery_voltage_mv, battery_current_ua = excluded.battery_current_ua,
				battery_temp_dc = excluded.battery_temp_dc, power_source = excluded.power_source,
				last_seen = excluded.last_seen, pending_command = ''`,
			newID, keyID, r.AppVersion, r.ScreenOn, r.BatteryLevel, r.BatteryCharging,
			r.BatteryVoltageMV, r.BatteryCurrentUA, r.BatteryTempDC, r.PowerSource, formatTime(at), formatTime(at))
		if err != nil {
			return err
		}
		after, err = kioskWhere(ctx, tx, `k.key_id = ?`, keyID)
		return err
	})
	if err != nil {
		return kiosk.Kiosk{}, kiosk.Kiosk{}, "", err
	}
	return before, after, before.PendingCommand, nil
}

// KioskByKey returns the kiosk of the key keyID.
func (db *DB) KioskByKey(ctx context.Context, keyID string) (kiosk.Kiosk, error) {
	return kioskWhere(ctx, db.db, `k.key_id = ?`, keyID)
}

// GetKiosk returns kiosk id.
func (db *DB) GetKiosk(ctx context.Context, id string) (kiosk.Kiosk, error) {
	return kioskWhere(ctx, db.db, `k.id = ?`, id)
}

// ListKiosks returns every kiosk, by name.
func (db *DB) ListKiosks(ctx context.Context) ([]kiosk.Kiosk, error) {
	rows, err := db.db.QueryContext(ctx, selectKiosks+` ORDER BY a.name COLLATE NOCASE, k.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []kiosk.Kiosk{}
	for rows.Next() {
		k, err := scanKiosk(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, k)
	}
	return list, rows.Err()
}

// SetKioskRoom puts kiosk id in room roomID ("" for none). An unknown
// kiosk or room is ENOTFOUND.
func (db *DB) SetKioskRoom(ctx context.Context, id, roomID string) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		if roomID != "" {
			err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "room %q not found", roomID),
				`SELECT 1 FROM rooms WHERE id = ?`, roomID)
			if err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE kiosks SET room_id = ? WHERE id = ?`, nullIfEmpty(roomID), id)
		return affectedOne(res, err, errNoKiosk(id))
	})
}

// SetKioskMic sets kiosk id's microphone presence and sensitivity.
func (db *DB) SetKioskMic(ctx context.Context, id string, presence bool, sensitivity string) error {
	res, err := db.db.ExecContext(ctx, `UPDATE kiosks SET mic_presence = ?, mic_sensitivity = ? WHERE id = ?`,
		presence, sensitivity, id)
	return affectedOne(res, err, errNoKiosk(id))
}

// QueueKioskCommand leaves command for kiosk id's next check-in.
func (db *DB) QueueKioskCommand(ctx context.Context, id, command string) error {
	res, err := db.db.ExecContext(ctx, `UPDATE kiosks SET pending_command = ? WHERE id = ?`, command, id)
	return affectedOne(res, err, errNoKiosk(id))
}

// RecordKioskNoise records the sound level the key keyID's kiosk
// reported; a level left out keeps the last one.
func (db *DB) RecordKioskNoise(ctx context.Context, keyID string, n kiosk.Noise, at time.Time) (before kiosk.Kiosk, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		if before, err = kioskWhere(ctx, tx, `k.key_id = ?`, keyID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE kiosks SET noise_elevated = ?, noise_level = COALESCE(?, noise_level), noise_at = ?
			WHERE key_id = ?`, n.Elevated, n.Level, formatTime(at), keyID)
		return err
	})
	return before, err
}

func errNoKiosk(id string) error {
	return service.Errorf(service.ENOTFOUND, "kiosk %q not found", id)
}

// kioskWhere returns the one kiosk that where (on kiosks k) selects.
func kioskWhere(ctx context.Context, q queryer, where string, args ...any) (kiosk.Kiosk, error) {
	k, err := scanKiosk(q.QueryRowContext(ctx, selectKiosks+` WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return kiosk.Kiosk{}, service.Errorf(service.ENOTFOUND, "no such kiosk")
	}
	return k, err
}

// scanKiosk reads a row selected by selectKiosks.
func scanKiosk(s scanner) (kiosk.Kiosk, error) {
	var k kiosk.Kiosk
	var screen, charging, elevated sql.NullBool
	var level, voltage, current, temp sql.NullInt64
	var noise sql.NullFloat64
	err := s.Scan(&k.ID, &k.KeyID, &k.Name, &k.KeyPrefix, &k.Revoked, &k.RoomID,
		&k.AppVersion, &screen, &level, &charging, &voltage, &current, &temp, &k.PowerSource,
		&k.MicPresence, &k.MicSensitivity, &elevated, &noise, nullTimeCol{&k.NoiseAt},
		&k.PendingCommand, timeCol{&k.CreatedAt}, timeCol{&k.LastSeen})
	if err != nil {
		return kiosk.Kiosk{}, err
	}
	k.ScreenOn, k.BatteryCharging, k.NoiseElevated = nullBool(screen), nullBool(charging), nullBool(elevated)
	k.BatteryLevel, k.BatteryVoltageMV, k.BatteryCurrentUA, k.BatteryTempDC = nullInt(level), nullInt(voltage), nullInt(current), nullInt(temp)
	if noise.Valid {
		k.MicLevel = &noise.Float64
	}
	return k, nil
}

func nullBool(b sql.NullBool) *bool {
	if !b.Valid {
		return nil
	}
	return &b.Bool
}

func nullInt(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}
