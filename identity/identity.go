// Package identity is who may use the hub: the users and their argon2id
// passwords, the sessions of the web UI (with their CSRF tokens), the
// one-time setup code, sign-in throttling, and the API keys (minted,
// listed, revoked, and checked in memory against a keyring that reloads
// when the database moves under it).
//
// It depends on service for the principal, the scopes and the error
// vocabulary, and on nothing else of the hub: its storage is the narrow
// Store it declares (package store implements it on SQLite), and what it
// needs from the service (the audit log, the event bus) is handed to it as
// the small interfaces of Config. The service never imports it; the api
// packages use it beside the service.
package identity

import (
	"context"
	"encoding/base32"
	"log/slog"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// Config configures Keys and Accounts; Store, Audit and Events are
// required.
type Config struct {
	Store Store
	// Audit writes and reads the audit log: the hub's *service.Service.
	Audit Auditor
	// Events hears of keys created and revoked: the service's event bus
	// (*service.Bus), whose streams end a revoked key's stream at once.
	Events Publisher
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Auditor is the audit log as identity uses it.
type Auditor interface {
	// Audit records a change by the caller in ctx: its action, its target,
	// its result (err, nil for success) and a detail.
	Audit(ctx context.Context, action, target string, err error, detail string)
	// AuditLog returns the newest entries.
	AuditLog(ctx context.Context, limit int) ([]service.AuditEntry, error)
}

// Publisher sends an event to every listener of the house's changes.
type Publisher interface {
	Publish(e service.Event)
}

// Store is the persistence identity needs, an interface per aggregate;
// package store implements them on SQLite, under the same rules as
// service.Store (ENOTFOUND for a missing row, ECONFLICT for a clash).
type Store interface {
	APIKeyStore
	EnrollmentStore
	UserStore
	SessionStore
	// DataVersion returns a number that changes when another connection
	// (another process) has committed to the database since the previous
	// call; the store's own writes leave it unchanged. It reads no table.
	DataVersion(ctx context.Context) (int64, error)
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

// NewKey is a freshly minted key: the only time the secret is seen.
type NewKey struct {
	APIKey
	Key string `json:"key"`
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

// idEncoding is the alphabet of keys and setup codes: the service's ids'.
var idEncoding = base32.NewEncoding(idAlphabet).WithPadding(base32.NoPadding)

const idAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// deps is what Keys and Accounts share from their Config, defaults
// filled in.
type deps struct {
	store  Store
	audit  Auditor
	events Publisher
	log    *slog.Logger
	now    func() time.Time
}

func newDeps(cfg Config) deps {
	d := deps{store: cfg.Store, audit: cfg.Audit, events: cfg.Events, log: cfg.Logger, now: cfg.Now}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	return d
}

// publish tells the house's listeners that a key changed.
func (d deps) publish(typ, id, action string) {
	d.events.Publish(service.Event{Type: typ, ID: id, Action: action, Time: d.now()})
}
