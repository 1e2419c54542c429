// Package kiosk keeps the wall tablets that run the Rust Bifrost hub's
// kiosk app: each checks in every few seconds with its API key, reporting
// its app version, screen and battery, and is answered with the room it
// is in, its microphone settings and the command (sleep, wake) waiting
// for it; commands also reach it at once over its command stream. An
// admin puts a kiosk in a room (which becomes the default room of the
// voice commands sent with its key) and sends it commands.
//
// A kiosk is identified by its key: the first check-in of a key makes
// it a kiosk, and it goes with the key. Pairing a tablet (the key it
// checks in with) is identity's: see identity.Keys.RedeemEnrollment.
//
// It depends on service for the principal, the error vocabulary and the
// rooms (through Home, which *service.Service satisfies), and on nothing
// else of the hub: its storage is the narrow Store it declares (package
// store implements it on SQLite). The service never imports it.
package kiosk

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// The commands a kiosk carries out, as its app names them.
const (
	Sleep = "sleep" // turn the screen off
	Wake  = "wake"  // turn the screen on
)

// Commands are the commands an admin may send.
var Commands = []string{Sleep, Wake}

// The microphone's sensitivities, as the app names them: how far above
// the room's ambient level a sound counts as someone there.
var Sensitivities = []string{"low", "medium", "high"}

// OnlineWithin is how recent a kiosk's last check-in must be for it to
// count as online (the app checks in every 10 seconds).
const OnlineWithin = 90 * time.Second

// Report is what a kiosk reports when it checks in, in the app's field
// names; what it leaves out is nil (a desktop kiosk has no battery).
type Report struct {
	AppVersion       string `json:"app_version"`
	ScreenOn         *bool  `json:"screen_on"`
	BatteryLevel     *int   `json:"battery_level"` // %
	BatteryCharging  *bool  `json:"battery_charging"`
	BatteryVoltageMV *int   `json:"battery_voltage_mv"`
	BatteryCurrentUA *int   `json:"battery_current_ua"` // signed: + into the battery
	BatteryTempDC    *int   `json:"battery_temp_dc"`    // tenths of a degree Celsius
	PowerSource      string `json:"power_source"`       // ac, usb, wireless, none
}

// Noise is a sound-level report of a kiosk's microphone: whether the
// room is louder than its ambient level (someone is there), and the
// level in dBFS. Only the level leaves the tablet, never sound.
type Noise struct {
	Elevated bool     `json:"elevated"`
	Level    *float64 `json:"level"`
}

// Kiosk is a tablet that has checked in, with its last report.
type Kiosk struct {
	ID string `json:"id"`
	// Name is its key's name; KeyID and KeyPrefix say which key it is;
	// Revoked is true once that key is revoked (the kiosk must be paired
	// again).
	Name      string `json:"name"`
	KeyID     string `json:"key_id"`
	KeyPrefix string `json:"key_prefix"`
	Revoked   bool   `json:"revoked"`
	// RoomID is the room it is in ("" for none), Room its name.
	RoomID string `json:"room_id"`
	Room   string `json:"room"`
	Report
	MicPresence    bool       `json:"mic_presence"`
	MicSensitivity string     `json:"mic_sensitivity"`
	NoiseElevated  *bool      `json:"noise_elevated"`
	MicLevel       *float64   `json:"mic_level"` // dBFS, as last reported
	NoiseAt        *time.Time `json:"noise_at"`
	// PendingCommand waits for its next check-in ("" for none).
	PendingCommand string    `json:"pending_command"`
	CreatedAt      time.Time `json:"created_at"`
	LastSeen       time.Time `json:"last_seen"`
	Online         bool      `json:"online"`
}

// Store keeps the kiosks, under the same rules as service.Store
// (ENOTFOUND for a missing row).
type Store interface {
	// CheckInKiosk records a check-in of the key keyID at at, making it a
	// kiosk (with id newID) on its first, and takes the command waiting
	// for it, in one transaction. It answers the kiosk as it was before
	// (zero on its first check-in) and after, and the command taken ("").
	CheckInKiosk(ctx context.Context, keyID, newID string, r Report, at time.Time) (before, after Kiosk, command string, err error)
	KioskByKey(ctx context.Context, keyID string) (Kiosk, error)
	GetKiosk(ctx context.Context, id string) (Kiosk, error)
	ListKiosks(ctx context.Context) ([]Kiosk, error)
	// SetKioskRoom puts the kiosk in the room roomID ("" for none).
	SetKioskRoom(ctx context.Context, id, roomID string) error
	SetKioskMic(ctx context.Context, id string, presence bool, sensitivity string) error
	// QueueKioskCommand leaves a command for the kiosk's next check-in,
	// in place of any waiting.
	QueueKioskCommand(ctx context.Context, id, command string) error
	// RecordKioskNoise records the sound level the key keyID's kiosk
	// reported at at, and answers the kiosk as it was before.
	RecordKioskNoise(ctx context.Context, keyID string, n Noise, at time.Time) (before Kiosk, err error)
}

// Home is the house kiosks are put in: the hub's *service.Service.
type Home interface {
	ListRooms(ctx context.Context) ([]service.RoomView, error)
	GetRoom(ctx context.Context, ref string) (service.RoomView, error)
}

// Admins tells admins from other people: the hub's *identity.Accounts.
type Admins interface {
	// RequireAdmin admits the command line and admin users to do what.
	RequireAdmin(ctx context.Context, what string) error
}

// Auditor writes the audit log: the hub's *service.Service.
type Auditor interface {
	Audit(ctx context.Context, action, target string, err error, detail string)
}

// Publisher sends an event to the house's listeners: the service's bus.
type Publisher interface {
	Publish(e service.Event)
}

// Config configures Kiosks; every field but Logger and Now is required.
type Config struct {
	Store  Store
	Home   Home
	Admins Admins
	Audit  Auditor
	Events Publisher
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Kiosks are the hub's kiosks.
type Kiosks struct {
	cfg Config

	mu     sync.Mutex
	live   map[string]*listener // kiosk id → its open command stream
	closed bool
}

// New returns the kiosks of cfg.
func New(cfg Config) *Kiosks {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Kiosks{cfg: cfg, live: map[string]*listener{}}
}

// publish tells the people following the house that kiosk id changed.
func (ks *Kiosks) publish(id, action string) {
	ks.cfg.Events.Publish(service.Event{Type: "kiosk", ID: id, Action: action, Time: ks.cfg.Now()})
}
