package hass

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bifrost-hub/bifrost/devices"
)

// ErrAuth: Home Assistant refused the access token (auth_invalid). Retrying
// with the same token will not help; the client keeps retrying with a growing
// backoff, so a token fixed on the HA side is picked up, but reports it once.
var ErrAuth = errors.New("access token refused")

// AuthError is a refusal of the access token, with what Home Assistant
// said of it (Said, "" when it said nothing). It is ErrAuth.
type AuthError struct{ Said string }

func (e *AuthError) Error() string {
	if e.Said == "" {
		return ErrAuth.Error()
	}
	return ErrAuth.Error() + ": " + e.Said
}

func (e *AuthError) Unwrap() error { return ErrAuth }

// ErrNotConnected: there is no authenticated connection right now, or it was
// lost before the answer came. It is a *devices.Fault of kind
// devices.ErrUnreachable: retryable.
var ErrNotConnected = devices.Unreachable(nil, "not connected")

// Error is a command HA answered with success:false. Code and Message are
// HA's own ("service_validation_error", "Option 'custom' is not …").
type Error struct {
	Type    string // the command that failed, e.g. "call_service"
	Code    string
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s failed: %s (%s)", e.Type, e.Message, e.Code)
}

// Context is HA's event/state context.
type Context struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parent_id"`
	UserID   *string `json:"user_id"`
}

// State is one entity's state as get_states and state_changed carry it.
// Attributes stay raw: their shape depends on the domain (light, media_player…).
type State struct {
	EntityID    string                     `json:"entity_id"`
	State       string                     `json:"state"`
	Attributes  map[string]json.RawMessage `json:"attributes"`
	LastChanged string                     `json:"last_changed"`
	LastUpdated string                     `json:"last_updated"`
	Context     Context                    `json:"context"`
}

// StateChanged is the data of a state_changed event. OldState is nil for a
// new entity, NewState nil for a removed one.
type StateChanged struct {
	EntityID  string  `json:"entity_id"`
	OldState  *State  `json:"old_state"`
	NewState  *State  `json:"new_state"`
	TimeFired string  `json:"-"`
	Context   Context `json:"-"`
}

// Area is an entry of config/area_registry/list.
type Area struct {
	AreaID string `json:"area_id"`
	Name   string `json:"name"`
}

// Device is an entry of config/device_registry/list. Identifiers and
// connections are [domain, value] pairs, e.g. ["sonos","RINCON_…"],
// ["mac","a4:…"].
type Device struct {
	ID           string      `json:"id"`
	Name         string      `json:"name"`
	NameByUser   string      `json:"name_by_user"`
	AreaID       string      `json:"area_id"`
	Identifiers  [][2]string `json:"identifiers"`
	Connections  [][2]string `json:"connections"`
	Manufacturer string      `json:"manufacturer"`
	Model        string      `json:"model"`
}

// Entity is an entry of config/entity_registry/list. A non-empty AreaID
// overrides the device's.
type Entity struct {
	EntityID   string `json:"entity_id"`
	DeviceID   string `json:"device_id"`
	AreaID     string `json:"area_id"`
	DisabledBy string `json:"disabled_by"`
	HiddenBy   string `json:"hidden_by"`
	Platform   string `json:"platform"`
}

// Target is call_service's target: entities, devices and/or areas.
type Target struct {
	EntityID []string `json:"entity_id,omitempty"`
	DeviceID []string `json:"device_id,omitempty"`
	AreaID   []string `json:"area_id,omitempty"`
}

func (t Target) empty() bool {
	return len(t.EntityID) == 0 && len(t.DeviceID) == 0 && len(t.AreaID) == 0
}

// serverMsg is any message HA sends in the command phase.
type serverMsg struct {
	ID      int             `json:"id"`
	Type    string          `json:"type"`
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Event   json.RawMessage `json:"event"`
	Message string          `json:"message"` // auth_invalid
	Version string          `json:"ha_version"`
}

// event is the envelope of a state_changed event.
type event struct {
	EventType string       `json:"event_type"`
	Data      StateChanged `json:"data"`
	TimeFired string       `json:"time_fired"`
	Context   Context      `json:"context"`
}
