package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// DeviceRecord is a device as the inventory keeps it, whether or not its
// adapter can see it right now.
type DeviceRecord struct {
	ID      devices.ID   `json:"id"`
	Adapter string       `json:"adapter"`
	Kind    devices.Kind `json:"kind"`
	// Name is the user-given name (the adapter's name until renamed).
	Name  string `json:"name"`
	Model string `json:"model,omitempty"`
	// RoomID is the room the device is a member of, "" for none (read
	// from room membership; written through SetDeviceRoom).
	RoomID       string            `json:"room_id,omitempty"`
	Capabilities json.RawMessage   `json:"capabilities,omitempty"`
	Enabled      bool              `json:"enabled"`
	Settings     map[string]string `json:"settings,omitempty"`
	LastSeen     time.Time         `json:"last_seen"`
	CreatedAt    time.Time         `json:"created_at"`
}

// DeviceUpdate is a sparse change to a device's user-owned fields.
type DeviceUpdate struct {
	Name    *string
	Enabled *bool
}

// Room is a named group of devices.
type Room struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	Members   []devices.ID `json:"members"`
	CreatedAt time.Time    `json:"created_at"`
}

// Scene is a captured state: a Room Scene when RoomID is set, a Home Scene
// otherwise.
type Scene struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	RoomID    string       `json:"room_id,omitempty"`
	Entries   []SceneEntry `json:"entries"`
	CreatedAt time.Time    `json:"created_at"`
}

// SceneEntry is one device's captured state. Exactly one of Light, Power and
// Media is set.
type SceneEntry struct {
	DeviceID devices.ID          `json:"device_id"`
	Light    *devices.LightState `json:"light,omitempty"`
	Power    *bool               `json:"power,omitempty"`
	Media    *SceneMedia         `json:"media,omitempty"`
}

// SceneMedia is the part of a media player's state a scene restores.
type SceneMedia struct {
	Power bool `json:"power"`
	// Volume is restored when set (a TV's scene keeps its power only).
	Volume *int   `json:"volume,omitempty"`
	Source string `json:"source,omitempty"`
}

// Key scopes.
const (
	ScopeRead    = "read"
	ScopeControl = "control"
)

// AuditEntry records one state change: who, what, target, result, when.
// Package audit reads it to people (audit.Sentence, audit.Actor).
type AuditEntry struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	ActorKind string    `json:"actor_kind"` // "key", "user", "system"
	ActorID   string    `json:"actor_id"`
	ActorName string    `json:"actor_name"`
	Action    string    `json:"action"` // "light.set", "scene.activate", …
	Target    string    `json:"target"`
	Result    string    `json:"result"` // "ok", or the error
	Detail    string    `json:"detail,omitempty"`
}

// Store is the persistence the service needs, an interface per aggregate;
// package store implements them all on SQLite. Lookups of a missing row
// return an *Error with code ENOTFOUND; a unique-name clash returns
// ECONFLICT. Every method that writes several rows does so in one
// transaction.
type Store interface {
	DeviceStore
	RoomStore
	SceneStore
	AuditStore

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// DataVersion returns a number that changes when another connection
	// (another process) has committed to the database since the previous
	// call; the store's own writes leave it unchanged. It reads no table.
	DataVersion(ctx context.Context) (int64, error)
}

// DeviceStore keeps the inventory's devices.
type DeviceStore interface {
	// UpsertDevice inserts a newly discovered device (with its Name and
	// Enabled as given) or, for a known one, refreshes only the adapter-owned
	// fields (adapter, kind, model, capabilities, last seen), keeping the
	// user's name, room, enabled flag and settings.
	UpsertDevice(ctx context.Context, d DeviceRecord) error
	GetDevice(ctx context.Context, id devices.ID) (DeviceRecord, error)
	ListDevices(ctx context.Context) ([]DeviceRecord, error)
	UpdateDevice(ctx context.Context, id devices.ID, u DeviceUpdate) (DeviceRecord, error)
	// SetDeviceRoom moves the device into roomID ("" removes it from its room).
	SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error
	SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error // value "" deletes
	TouchDevice(ctx context.Context, id devices.ID, seen time.Time) error
	DeleteDevice(ctx context.Context, id devices.ID) error
	// WriteInventory runs fn in one write transaction, committed when fn
	// returns nil and rolled back otherwise. fn must use the store only
	// through w until it returns: the transaction holds the store.
	WriteInventory(ctx context.Context, fn func(w InventoryWriter) error) error
}

// InventoryWriter is what recording devices reads and writes (see
// DeviceStore.WriteInventory); each method does what the Store method of
// its name does.
type InventoryWriter interface {
	GetDevice(ctx context.Context, id devices.ID) (DeviceRecord, error)
	ListDevices(ctx context.Context) ([]DeviceRecord, error)
	UpsertDevice(ctx context.Context, d DeviceRecord) error
	SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error
	SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error
	RoomNamed(ctx context.Context, name string) (Room, error)
	CreateRoom(ctx context.Context, r Room) error
}

// RoomStore keeps rooms. A device is a member of at most one room.
type RoomStore interface {
	CreateRoom(ctx context.Context, r Room) error // with its members, in one transaction
	GetRoom(ctx context.Context, id string) (Room, error)
	// RoomNamed finds a room by its name in any case, without its
	// members; ENOTFOUND when there is none.
	RoomNamed(ctx context.Context, name string) (Room, error)
	ListRooms(ctx context.Context) ([]Room, error)
	RenameRoom(ctx context.Context, id, name string) error
	DeleteRoom(ctx context.Context, id string) error
}

// SceneStore keeps scenes.
type SceneStore interface {
	CreateScene(ctx context.Context, s Scene) error // with its entries, in one transaction
	GetScene(ctx context.Context, id string) (Scene, error)
	ListScenes(ctx context.Context) ([]Scene, error)
	RenameScene(ctx context.Context, id, name string) error
	DeleteScene(ctx context.Context, id string) error
}

// AuditStore keeps the audit log, newest first.
type AuditStore interface {
	AddAudit(ctx context.Context, e AuditEntry) error
	ListAudit(ctx context.Context, limit int) ([]AuditEntry, error)
	// PruneAudit deletes the entries older than before, and all but the
	// newest keep; it returns how many it deleted.
	PruneAudit(ctx context.Context, before time.Time, keep int) (int64, error)
}
