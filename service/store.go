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

// APIKey is a stored API key; the secret itself is never stored. OwnerID
// is the user the key belongs to, who may list and revoke it; "" marks a
// key of the hub's own (minted on the command line), which only admins
// manage.
type APIKey struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"` // the first characters, to recognise it
	Hash      string     `json:"-"`      // hex SHA-256 of the whole key
	Scope     string     `json:"scope"`
	CreatedAt time.Time  `json:"created_at"`
	CreatedBy string     `json:"created_by,omitempty"`
	OwnerID   string     `json:"owner_id,omitempty"`
	LastUsed  *time.Time `json:"last_used,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// User is a person who logs in to the web UI.
type User struct {
	ID           string    `json:"id"`
	Username     string    `json:"username"`
	PasswordHash string    `json:"-"`
	Admin        bool      `json:"admin"`
	CreatedAt    time.Time `json:"created_at"`
}

// Session is a logged-in browser; only the token's hash is stored.
type Session struct {
	TokenHash string    `json:"-"`
	UserID    string    `json:"user_id"`
	CSRFToken string    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	LastSeen  time.Time `json:"last_seen"`
}

// AuditEntry records one state change: who, what, target, result, when.
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
	APIKeyStore
	UserStore
	SessionStore
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
}

// RoomStore keeps rooms. A device is a member of at most one room.
type RoomStore interface {
	CreateRoom(ctx context.Context, r Room) error // with its members, in one transaction
	GetRoom(ctx context.Context, id string) (Room, error)
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

// APIKeyStore keeps API keys (their hashes, never the keys).
type APIKeyStore interface {
	CreateAPIKey(ctx context.Context, k APIKey) error
	GetAPIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	ListAPIKeys(ctx context.Context) ([]APIKey, error)
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
}

// UserStore keeps the people who sign in.
type UserStore interface {
	CreateUser(ctx context.Context, u User) error
	GetUserByName(ctx context.Context, username string) (User, error)
	GetUser(ctx context.Context, id string) (User, error)
	ListUsers(ctx context.Context) ([]User, error)
	CountUsers(ctx context.Context) (int, error)
	SetPassword(ctx context.Context, userID, hash string) error
	DeleteUser(ctx context.Context, id string) error
}

// SessionStore keeps signed-in sessions (their tokens' hashes).
type SessionStore interface {
	CreateSession(ctx context.Context, s Session) error
	GetSession(ctx context.Context, tokenHash string) (Session, error)
	TouchSession(ctx context.Context, tokenHash string, at time.Time) error
	DeleteSession(ctx context.Context, tokenHash string) error
	// DeleteUserSessions ends a user's sessions except the one whose hash is
	// keep ("" ends all).
	DeleteUserSessions(ctx context.Context, userID, keep string) error
	DeleteSessionsBefore(ctx context.Context, lastSeen, created time.Time) error
}

// AuditStore keeps the audit log, newest first.
type AuditStore interface {
	AddAudit(ctx context.Context, e AuditEntry) error
	ListAudit(ctx context.Context, limit int) ([]AuditEntry, error)
}
