package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// sceneState is the stored form (the state column) of a scene entry.
type sceneState struct {
	Light *devices.LightState `json:"light,omitempty"`
	Power *bool               `json:"power,omitempty"`
	Media *service.SceneMedia `json:"media,omitempty"`
}

// CreateScene creates a scene with its entries, in order, in one
// transaction. A name already taken (case-insensitively) is ECONFLICT; an
// unknown room, an entry that does not set exactly one of Light, Power and
// Media, or a device listed twice is EINVALID. Entries may name devices that
// are not (or no longer) known. A zero CreatedAt is stamped with db.Now.
func (db *DB) CreateScene(ctx context.Context, s service.Scene) error {
	if s.ID == "" {
		return errEmpty("scene id")
	}
	if strings.TrimSpace(s.Name) == "" {
		return errEmpty("scene name")
	}
	states, err := sceneStates(s.Entries)
	if err != nil {
		return err
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = db.Now()
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := checkSceneFree(ctx, tx, s); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO scenes (id, name, room_id, created_at) VALUES (?, ?, NULLIF(?, ''), ?)`,
			s.ID, s.Name, s.RoomID, formatTime(s.CreatedAt))
		if err != nil {
			return err
		}
		for i, e := range s.Entries {
			_, err := tx.ExecContext(ctx, `INSERT INTO scene_entries (scene_id, device_id, position, state) VALUES (?, ?, ?, ?)`,
				s.ID, string(e.DeviceID), i, states[i])
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// sceneStates validates the entries and returns their stored states.
func sceneStates(entries []service.SceneEntry) ([]string, error) {
	states := make([]string, len(entries))
	seen := make(map[devices.ID]bool, len(entries))
	for i, e := range entries {
		if e.DeviceID == "" {
			return nil, errEmpty("scene entry device id")
		}
		if seen[e.DeviceID] {
			return nil, service.Errorf(service.EINVALID, "device %q appears twice in the scene", e.DeviceID)
		}
		seen[e.DeviceID] = true
		if n := countSet(e.Light != nil, e.Power != nil, e.Media != nil); n != 1 {
			return nil, service.Errorf(service.EINVALID,
				"scene entry for %q must set exactly one of light, power and media (it sets %d)", e.DeviceID, n)
		}
		b, err := json.Marshal(sceneState{Light: e.Light, Power: e.Power, Media: e.Media})
		if err != nil {
			return nil, err
		}
		states[i] = string(b)
	}
	return states, nil
}

func countSet(set ...bool) int {
	n := 0
	for _, ok := range set {
		if ok {
			n++
		}
	}
	return n
}

// checkSceneFree returns ECONFLICT when the scene's id or name is taken, and
// EINVALID when its room does not exist.
func checkSceneFree(ctx context.Context, tx *sql.Tx, s service.Scene) error {
	err := ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a scene with id %q already exists", s.ID),
		`SELECT 1 FROM scenes WHERE id = ?`, s.ID)
	if err != nil {
		return err
	}
	if err := checkSceneName(ctx, tx, s.ID, s.Name); err != nil {
		return err
	}
	if s.RoomID == "" {
		return nil
	}
	return ensureRow(ctx, tx, service.Errorf(service.EINVALID, "no such room: %q", s.RoomID),
		`SELECT 1 FROM rooms WHERE id = ?`, s.RoomID)
}

// checkSceneName returns ECONFLICT when a scene other than id has the name
// (names compare case-insensitively).
func checkSceneName(ctx context.Context, tx *sql.Tx, id, name string) error {
	return ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a scene named %q already exists", name),
		`SELECT 1 FROM scenes WHERE name = ? AND id <> ?`, name, id)
}

// GetScene returns a scene with its entries in order.
func (db *DB) GetScene(ctx context.Context, id string) (service.Scene, error) {
	var s service.Scene
	err := db.read(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `SELECT id, name, COALESCE(room_id, ''), created_at FROM scenes WHERE id = ?`, id)
		var err error
		if s, err = scanScene(row); err != nil {
			return notFound(err, "scene %q not found", id)
		}
		entries, err := sceneEntries(ctx, tx, `WHERE scene_id = ?`, id)
		s.Entries = append(s.Entries, entries[id]...)
		return err
	})
	return s, err
}

// ListScenes returns every scene with its entries, by name.
func (db *DB) ListScenes(ctx context.Context) ([]service.Scene, error) {
	list := []service.Scene{}
	err := db.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, name, COALESCE(room_id, ''), created_at FROM scenes ORDER BY name, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			s, err := scanScene(rows)
			if err != nil {
				return err
			}
			list = append(list, s)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		entries, err := sceneEntries(ctx, tx, ``)
		for i := range list {
			list[i].Entries = append(list[i].Entries, entries[list[i].ID]...)
		}
		return err
	})
	return list, err
}

// sceneEntries returns the entries, in order, of the scenes the where clause
// selects, by scene id.
func sceneEntries(ctx context.Context, tx *sql.Tx, where string, args ...any) (map[string][]service.SceneEntry, error) {
	rows, err := tx.QueryContext(ctx, `SELECT scene_id, device_id, state FROM scene_entries `+where+
		` ORDER BY scene_id, position`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	entries := map[string][]service.SceneEntry{}
	for rows.Next() {
		sceneID, e, err := scanSceneEntry(rows)
		if err != nil {
			return nil, err
		}
		entries[sceneID] = append(entries[sceneID], e)
	}
	return entries, rows.Err()
}

// RenameScene renames a scene; a name another scene has is ECONFLICT.
func (db *DB) RenameScene(ctx context.Context, id, name string) error {
	if strings.TrimSpace(name) == "" {
		return errEmpty("scene name")
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "scene %q not found", id),
			`SELECT 1 FROM scenes WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if err := checkSceneName(ctx, tx, id, name); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE scenes SET name = ? WHERE id = ?`, name, id)
		return err
	})
}

// DeleteScene deletes a scene and its entries. A missing scene is
// ENOTFOUND, which a caller that wants deleting to be idempotent may ignore.
func (db *DB) DeleteScene(ctx context.Context, id string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM scenes WHERE id = ?`, id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "scene %q not found", id))
}

// scanScene reads id, name, room id, created_at; Entries is an empty list.
func scanScene(s scanner) (service.Scene, error) {
	sc := service.Scene{Entries: []service.SceneEntry{}}
	err := s.Scan(&sc.ID, &sc.Name, &sc.RoomID, timeCol{&sc.CreatedAt})
	return sc, err
}

// scanSceneEntry reads scene_id, device_id, state.
func scanSceneEntry(s scanner) (sceneID string, e service.SceneEntry, err error) {
	var deviceID, text string
	if err := s.Scan(&sceneID, &deviceID, &text); err != nil {
		return "", e, err
	}
	var st sceneState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		return "", e, fmt.Errorf("stored state of %q in scene %q: %w", deviceID, sceneID, err)
	}
	e = service.SceneEntry{DeviceID: devices.ID(deviceID), Light: st.Light, Power: st.Power, Media: st.Media}
	return sceneID, e, nil
}
