// Package integrations is the hub's connections to other systems that an
// admin sets up in the web UI (Settings → Integrations, Settings → Voice):
// the MQTT broker, Home Assistant, the hub's location, and the model
// endpoints of the voice seam. It keeps their settings, checks
// them, seals their secrets under BIFROST_SECRET, and (re)starts the
// adapter of each through one generic Runner.
//
// It depends on service for the error vocabulary only, and on nothing else
// of the hub: its storage is the narrow Store it declares (package store
// implements it on SQLite); who is an admin, the audit log and the
// adapters it runs are handed to it as the small interfaces of Config. It
// knows no concrete adapter: cmd/bifrost turns the settings into an
// adapter's own configuration. service never imports it.
package integrations

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Manager is the integrations of the hub. Their settings are saved in the
// database, their secrets sealed under BIFROST_SECRET (see secretBox) and
// never shown again; settings given in the environment win over saved
// ones, field by field. Saving restarts the running adapter at once.
type Manager struct {
	store      Store
	admins     Admins
	audit      Auditor
	log        *slog.Logger
	now        func() time.Time
	box        *secretBox                  // nil without BIFROST_SECRET
	mqtt       AdapterRunner[MQTTSettings] // nil when nothing runs MQTT (tests)
	hass       AdapterRunner[HASSSettings] // nil when nothing runs the Home Assistant bridge
	roles      map[string]*modelRole       // the voice seam's model endpoints, by role
	settleTime time.Duration

	fixedLocation Location       // the configuration's, when it gives one
	onLocation    LocationRunner // nil when nothing uses the location

	mu sync.Mutex // serialises saves and the restarts they cause
}

// Config configures a Manager; Store, Admins and Audit are required.
type Config struct {
	Store Store
	// Secret is BIFROST_SECRET, the key of the saved secrets. Without it
	// settings save, but passwords and tokens do not.
	Secret string
	// MQTT runs the MQTT adapter; nil when nothing does.
	MQTT AdapterRunner[MQTTSettings]
	// HASS runs the Home Assistant bridge; nil when nothing does.
	HASS AdapterRunner[HASSSettings]
	// SettleTime bounds how long a save waits to tell whether the adapter
	// connects (default 5s).
	SettleTime time.Duration
	// Latitude and Longitude are the configuration's location, which wins
	// over one saved in Settings; nil when it gives none.
	Latitude, Longitude *float64
	// Location is told the location when it changes (the automations).
	Location LocationRunner
	// Voice is the model endpoints the environment gives, which win over
	// those saved in Settings → Voice, field by field.
	Voice VoiceSettings
	// Admins tells admins from other people (the hub's *identity.Accounts):
	// only admins and the command line manage integrations.
	Admins Admins
	// Audit records every save and removal: the hub's *service.Service.
	Audit  Auditor
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Admins is who may manage the hub, as Manager asks it.
type Admins interface {
	// RequireAdmin admits the command line and admin users to do what,
	// and refuses anyone else.
	RequireAdmin(ctx context.Context, what string) error
}

// Auditor is the audit log as Manager writes it.
type Auditor interface {
	// Audit records a change by the caller in ctx: its action, its target,
	// its result (err, nil for success) and a detail.
	Audit(ctx context.Context, action, target string, err error, detail string)
}

// Record is an integration's settings as stored.
type Record struct {
	Name string // "mqtt", "hass", "location"
	// Config holds the settings that are not secret, a JSON object.
	Config json.RawMessage
	// Secret holds the secret settings, sealed by Manager; nil when there
	// are none. The store never sees them in plaintext.
	Secret    []byte
	UpdatedAt time.Time
}

// Store keeps integration settings; package store implements it on
// SQLite. Getting or deleting a name never saved is service.ENOTFOUND.
type Store interface {
	GetIntegration(ctx context.Context, name string) (Record, error)
	// PutIntegration saves r whole, replacing what was saved under its
	// name.
	PutIntegration(ctx context.Context, r Record) error
	DeleteIntegration(ctx context.Context, name string) error
}

// AdapterRunner runs the adapter of an integration whose settings are S;
// *Runner[S] is the one the hub uses.
type AdapterRunner[S any] interface {
	// Apply restarts the adapter with settings (the saved ones under those
	// of the environment, which win field by field), or stops it when
	// they turn it off. It does not wait for the adapter to connect: the
	// error says why the adapter cannot start at all (a CA file it cannot
	// read, a port in use), Status how the connection fares.
	Apply(settings S) error
	// Fixed returns the settings the environment or command line gives,
	// "" for those left to the web UI.
	Fixed() S
	Status() Status
}

const (
	defaultSettleTime = 5 * time.Second
	settlePoll        = 50 * time.Millisecond
)

// New returns the integrations of the hub. It refuses a secret too short
// to be a key.
func New(cfg Config) (*Manager, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("integrations: no store")
	case cfg.Admins == nil:
		return nil, errors.New("integrations: no admins")
	case cfg.Audit == nil:
		return nil, errors.New("integrations: no audit log")
	}
	box, err := newSecretBox(cfg.Secret)
	if err != nil {
		return nil, err
	}
	m := &Manager{store: cfg.Store, admins: cfg.Admins, audit: cfg.Audit, log: cfg.Logger, now: cfg.Now, box: box,
		mqtt: cfg.MQTT, hass: cfg.HASS, roles: newModelRoles(cfg.Voice), settleTime: cfg.SettleTime,
		fixedLocation: Location{Latitude: cfg.Latitude, Longitude: cfg.Longitude}, onLocation: cfg.Location}
	if m.settleTime <= 0 {
		m.settleTime = defaultSettleTime
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.now == nil {
		m.now = time.Now
	}
	return m, nil
}

// requireAdmin admits admins and the command line: integrations hold the
// keys to the house's other systems.
func (m *Manager) requireAdmin(ctx context.Context) error {
	return m.admins.RequireAdmin(ctx, "manage integrations")
}

// describeChange is the audit detail of a save: the fields it changed,
// never their values.
func describeChange(fields []string) string {
	if len(fields) == 0 {
		return "no change"
	}
	return "changed " + strings.Join(fields, ", ")
}

// joinNonEmpty joins the parts that are not "".
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
