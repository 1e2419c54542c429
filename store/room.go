package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// CreateRoom creates a room with its members, in order, in one transaction.
// A member that is in another room is moved out of it. A name already taken
// (case-insensitively) is ECONFLICT; members that are not known devices are
// EINVALID, naming them (detail "devices"), and nothing is created. A zero
// CreatedAt is stamped with db.Now.
func (db *DB) CreateRoom(ctx context.Context, r service.Room) error {
	return db.write(ctx, func(tx *sql.Tx) error { return createRoom(ctx, tx, db.Now, r) })
}

func createRoom(ctx context.Context, tx *sql.Tx, now func() time.Time, r service.Room) error {
	if r.ID == "" {
		return errEmpty("room id")
	}
	if strings.TrimSpace(r.Name) == "" {
		return errEmpty("room name")
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now()
	}
	if err := checkRoomFree(ctx, tx, r.ID, r.Name); err != nil {
		return err
	}
	if err := checkDevicesExist(ctx, tx, r.Members); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO rooms (id, name, created_at) VALUES (?, ?, ?)`,
		r.ID, r.Name, formatTime(r.CreatedAt))
	if err != nil {
		return err
	}
	for _, id := range r.Members {
		if err := addMember(ctx, tx, r.ID, id); err != nil {
			return err
		}
	}
	return nil
}

// checkRoomFree returns ECONFLICT when the id or the name is taken.
func checkRoomFree(ctx context.Context, tx *sql.Tx, id, name string) error {
	err := ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a room with id %q already exists", id),
		`SELECT 1 FROM rooms WHERE id = ?`, id)
	if err != nil {
		return err
	}
	return checkRoomName(ctx, tx, id, name)
}

// checkRoomName returns ECONFLICT when a room other than id has the name
// (names compare case-insensitively).
func checkRoomName(ctx context.Context, tx *sql.Tx, id, name string) error {
	return ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a room named %q already exists", name),
		`SELECT 1 FROM rooms WHERE name = ? AND id <> ?`, name, id)
}

// roomExists returns ENOTFOUND unless the room exists.
func roomExists(ctx context.Context, q queryer, id string) error {
	return ensureRow(ctx, q, service.Errorf(service.ENOTFOUND, "room %q not found", id),
		`SELECT 1 FROM rooms WHERE id = ?`, id)
}

// checkDevicesExist returns EINVALID naming the ids that are not devices.
func checkDevicesExist(ctx context.Context, tx *sql.Tx, ids []devices.ID) error {
	var missing []string
	for _, id := range ids {
		ok, err := exists(ctx, tx, `SELECT 1 FROM devices WHERE id = ?`, string(id))
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, string(id))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return service.Errorf(service.EINVALID, "no such device: %s", quoteList(missing)).
		With("devices", missing)
}

// quoteList returns `"a", "b"`.
func quoteList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(quoted, ", ")
}

// GetRoom returns a room with its members in order.
func (db *DB) GetRoom(ctx context.Context, id string) (service.Room, error) {
	var r service.Room
	err := db.read(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `SELECT id, name, created_at FROM rooms WHERE id = ?`, id)
		var err error
		if r, err = scanRoom(row); err != nil {
			return notFound(err, "room %q not found", id)
		}
		members, err := roomMembers(ctx, tx, `WHERE room_id = ?`, id)
		r.Members = append(r.Members, members[id]...)
		return err
	})
	return r, err
}

// RoomNamed finds a room by its name, in any case, without its members.
func (db *DB) RoomNamed(ctx context.Context, name string) (service.Room, error) {
	return roomNamed(ctx, db.db, name)
}

func roomNamed(ctx context.Context, q queryer, name string) (service.Room, error) {
	row := q.QueryRowContext(ctx, `SELECT id, name, created_at FROM rooms WHERE name = ?`, name)
	r, err := scanRoom(row)
	return r, notFound(err, "no room is named %q", name)
}

// ListRooms returns every room with its members, by name.
func (db *DB) ListRooms(ctx context.Context) ([]service.Room, error) {
	list := []service.Room{}
	err := db.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, name, created_at FROM rooms ORDER BY name, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRoom(rows)
			if err != nil {
				return err
			}
			list = append(list, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		members, err := roomMembers(ctx, tx, ``)
		for i := range list {
			list[i].Members = append(list[i].Members, members[list[i].ID]...)
		}
		return err
	})
	return list, err
}

// roomMembers returns the members, in order, of the rooms the where clause
// selects, by room id.
func roomMembers(ctx context.Context, tx *sql.Tx, where string, args ...any) (map[string][]devices.ID, error) {
	rows, err := tx.QueryContext(ctx, `SELECT room_id, device_id FROM room_members `+where+
		` ORDER BY room_id, position`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	members := map[string][]devices.ID{}
	for rows.Next() {
		var roomID, deviceID string
		if err := rows.Scan(&roomID, &deviceID); err != nil {
			return nil, err
		}
		members[roomID] = append(members[roomID], devices.ID(deviceID))
	}
	return members, rows.Err()
}

// RenameRoom renames a room; a name another room has is ECONFLICT.
func (db *DB) RenameRoom(ctx context.Context, id, name string) error {
	if strings.TrimSpace(name) == "" {
		return errEmpty("room name")
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := roomExists(ctx, tx, id); err != nil {
			return err
		}
		if err := checkRoomName(ctx, tx, id, name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE rooms SET name = ? WHERE id = ?`, name, id)
		return err
	})
}

// DeleteRoom deletes a room, its memberships (the devices stay, in no room)
// and its Room Scenes. A missing room is ENOTFOUND, which a caller that
// wants deleting to be idempotent may ignore.
func (db *DB) DeleteRoom(ctx context.Context, id string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM rooms WHERE id = ?`, id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "room %q not found", id))
}

// scanRoom reads id, name, created_at; Members is an empty list.
func scanRoom(s scanner) (service.Room, error) {
	r := service.Room{Members: []devices.ID{}}
	err := s.Scan(&r.ID, &r.Name, timeCol{&r.CreatedAt})
	return r, err
}
