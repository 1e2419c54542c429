package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// selectDevices selects the columns scanDevice reads, with the device's room
// taken from its membership.
const selectDevices = `
SELECT d.id, d.adapter, d.kind, d.name, d.model, COALESCE(m.room_id, ''),
       d.capabilities, d.enabled, d.settings, d.last_seen, d.created_at
FROM devices d LEFT JOIN room_members m ON m.device_id = d.id`

// UpsertDevice inserts a newly discovered device with the name, enabled flag
// and settings given (its RoomID is ignored: membership is written through
// SetDeviceRoom or CreateRoom), or refreshes a known one's adapter-owned
// fields: adapter, kind, model, capabilities and last seen. Last seen only
// moves forward. A zero CreatedAt is stamped with db.Now.
func (db *DB) UpsertDevice(ctx context.Context, d service.DeviceRecord) error {
	return upsertDevice(ctx, db.db, db.Now, d)
}

func upsertDevice(ctx context.Context, q queryer, now func() time.Time, d service.DeviceRecord) error {
	if d.ID == "" {
		return errEmpty("device id")
	}
	caps, err := capabilitiesValue(d.ID, d.Capabilities)
	if err != nil {
		return err
	}
	settings, err := settingsText(d.Settings)
	if err != nil {
		return err
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = now()
	}
	_, err = q.ExecContext(ctx, `
		INSERT INTO devices (id, adapter, kind, name, model, capabilities, enabled, settings, last_seen, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			adapter = excluded.adapter,
			kind = excluded.kind,
			model = excluded.model,
			capabilities = excluded.capabilities,
			last_seen = max(devices.last_seen, excluded.last_seen)`,
		string(d.ID), d.Adapter, string(d.Kind), d.Name, d.Model, caps, d.Enabled, settings,
		formatTime(d.LastSeen), formatTime(d.CreatedAt))
	return err
}

// GetDevice returns one device.
func (db *DB) GetDevice(ctx context.Context, id devices.ID) (service.DeviceRecord, error) {
	return getDevice(ctx, db.db, id)
}

func getDevice(ctx context.Context, q queryer, id devices.ID) (service.DeviceRecord, error) {
	row := q.QueryRowContext(ctx, selectDevices+` WHERE d.id = ?`, string(id))
	d, err := scanDevice(row)
	return d, notFound(err, "device %q not found", id)
}

// ListDevices returns every device, by name.
func (db *DB) ListDevices(ctx context.Context) ([]service.DeviceRecord, error) {
	return listDevices(ctx, db.db)
}

func listDevices(ctx context.Context, q queryer) ([]service.DeviceRecord, error) {
	rows, err := q.QueryContext(ctx, selectDevices+` ORDER BY d.name COLLATE NOCASE, d.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []service.DeviceRecord{}
	for rows.Next() {
		d, err := scanDevice(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, d)
	}
	return list, rows.Err()
}

// UpdateDevice changes a device's user-owned fields and returns the result.
func (db *DB) UpdateDevice(ctx context.Context, id devices.ID, u service.DeviceUpdate) (service.DeviceRecord, error) {
	if u.Name != nil && strings.TrimSpace(*u.Name) == "" {
		return service.DeviceRecord{}, errEmpty("device name")
	}
	var d service.DeviceRecord
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE devices SET name = COALESCE(?, name), enabled = COALESCE(?, enabled)
			WHERE id = ?`, nullable(u.Name), nullable(u.Enabled), string(id))
		if err := affectedOne(res, err, service.Errorf(service.ENOTFOUND, "device %q not found", id)); err != nil {
			return err
		}
		d, err = getDevice(ctx, tx, id)
		return err
	})
	return d, err
}

// SetDeviceRoom moves the device into roomID, at the end of its members, or
// out of any room when roomID is "". Moving a device into the room it is
// already in keeps its place.
func (db *DB) SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error {
	return db.write(ctx, func(tx *sql.Tx) error { return setDeviceRoom(ctx, tx, id, roomID) })
}

func setDeviceRoom(ctx context.Context, tx *sql.Tx, id devices.ID, roomID string) error {
	err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "device %q not found", id),
		`SELECT 1 FROM devices WHERE id = ?`, string(id))
	if err != nil {
		return err
	}
	if roomID == "" {
		_, err := tx.ExecContext(ctx, `DELETE FROM room_members WHERE device_id = ?`, string(id))
		return err
	}
	if err := roomExists(ctx, tx, roomID); err != nil {
		return err
	}
	return addMember(ctx, tx, roomID, id)
}

// addMember puts the device at the end of roomID's members, taking it out
// of any other room.
func addMember(ctx context.Context, tx *sql.Tx, roomID string, id devices.ID) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO room_members (room_id, device_id, position)
		VALUES (?1, ?2, (SELECT COALESCE(MAX(position) + 1, 0) FROM room_members WHERE room_id = ?1))
		ON CONFLICT (device_id) DO UPDATE SET room_id = excluded.room_id, position = excluded.position
		WHERE room_id <> excluded.room_id`, roomID, string(id))
	return err
}

// SetDeviceSetting sets one of the device's settings; value "" deletes it.
func (db *DB) SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error {
	return db.write(ctx, func(tx *sql.Tx) error { return setDeviceSetting(ctx, tx, id, key, value) })
}

func setDeviceSetting(ctx context.Context, tx *sql.Tx, id devices.ID, key, value string) error {
	if key == "" {
		return errEmpty("setting name")
	}
	var text string
	err := tx.QueryRowContext(ctx, `SELECT settings FROM devices WHERE id = ?`, string(id)).Scan(&text)
	if err != nil {
		return notFound(err, "device %q not found", id)
	}
	settings, err := parseSettings(text)
	if err != nil {
		return err
	}
	if value == "" {
		delete(settings, key)
	} else {
		if settings == nil {
			settings = map[string]string{}
		}
		settings[key] = value
	}
	if text, err = settingsText(settings); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE devices SET settings = ? WHERE id = ?`, text, string(id))
	return err
}

// TouchDevice records that the device was seen at seen (last seen only moves
// forward).
func (db *DB) TouchDevice(ctx context.Context, id devices.ID, seen time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE devices SET last_seen = max(last_seen, ?) WHERE id = ?`,
		formatTime(seen), string(id))
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "device %q not found", id))
}

// DeleteDevice forgets a device and its room membership; scenes keep their
// entries for it. A missing device is ENOTFOUND, which a caller that wants
// deleting to be idempotent may ignore.
func (db *DB) DeleteDevice(ctx context.Context, id devices.ID) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM devices WHERE id = ?`, string(id))
		if err := affectedOne(res, err, service.Errorf(service.ENOTFOUND, "device %q not found", id)); err != nil {
			return err
		}
		return deleteHistory(ctx, tx, id) // its history goes with it
	})
}

// scanDevice reads a row selected by selectDevices.
func scanDevice(s scanner) (service.DeviceRecord, error) {
	var (
		d                  service.DeviceRecord
		id, kind, settings string
		caps               sql.NullString
	)
	err := s.Scan(&id, &d.Adapter, &kind, &d.Name, &d.Model, &d.RoomID,
		&caps, &d.Enabled, &settings, timeCol{&d.LastSeen}, timeCol{&d.CreatedAt})
	if err != nil {
		return d, err
	}
	d.ID, d.Kind = devices.ID(id), devices.Kind(kind)
	if caps.Valid {
		d.Capabilities = json.RawMessage(caps.String)
	}
	d.Settings, err = parseSettings(settings)
	return d, err
}

// capabilitiesValue returns the stored form of a device's capabilities:
// NULL when there are none, else the JSON text.
func capabilitiesValue(id devices.ID, caps json.RawMessage) (any, error) {
	if len(caps) == 0 {
		return nil, nil
	}
	if !json.Valid(caps) {
		return nil, service.Errorf(service.EINVALID, "capabilities of %q are not valid JSON", id)
	}
	return string(caps), nil
}

// settingsText returns the stored form of a device's settings.
func settingsText(settings map[string]string) (string, error) {
	if len(settings) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(settings)
	return string(b), err
}

// parseSettings reads stored settings; none is a nil map.
func parseSettings(text string) (map[string]string, error) {
	var settings map[string]string
	if err := json.Unmarshal([]byte(text), &settings); err != nil {
		return nil, fmt.Errorf("stored device settings: %w", err)
	}
	if len(settings) == 0 {
		return nil, nil
	}
	return settings, nil
}

// nullable returns *p, or NULL for nil.
func nullable[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
