package service

import (
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// DeviceView is a device as every surface shows it: inventory facts plus
// live availability.
type DeviceView struct {
	ID       devices.ID   `json:"id"`
	Name     string       `json:"name"`
	Kind     devices.Kind `json:"kind"`
	Adapter  string       `json:"adapter"`
	Model    string       `json:"model,omitempty"`
	RoomID   string       `json:"room_id,omitempty"`
	Room     string       `json:"room,omitempty"`
	Enabled  bool         `json:"enabled"`
	Online   bool         `json:"online"`
	LastSeen *time.Time   `json:"last_seen,omitempty"`
	// Pairing is "needed" or "paired" for a device that takes commands
	// only once paired with the hub (an Android TV); absent for others.
	Pairing string `json:"pairing,omitempty"`
	// MAC is the address a TV is woken at by Wake-on-LAN, when known.
	MAC string `json:"mac,omitempty"`
	// Via is the radio a device reached through one of several (a Neewer
	// light: the hub's Bluetooth or an ESPHome proxy) is reached through
	// now, with its signal; absent for others and while none is.
	Via *devices.Via `json:"via,omitempty"`
	// StateText is the state, as text, of a device of kind other (one the
	// hub lists but does not control), when known.
	StateText string `json:"state_text,omitempty"`
	// CompanionOf is the device this one is merged into: another view of
	// the same physical device, which is listed and controlled instead.
	CompanionOf devices.ID `json:"companion_of,omitempty"`
}

// Light is a light with its capabilities and, when online, its state.
type Light struct {
	DeviceView
	Capabilities devices.LightCaps   `json:"capabilities"`
	State        *devices.LightState `json:"state,omitempty"`
}

// XY is a CIE 1931 chromaticity, optionally with a brightness (0–100).
type XY struct {
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Brightness *int    `json:"brightness,omitempty"`
}

// LightPatch is a sparse light write as callers send it. Only the fields
// given change; a colour, temperature, effect or brightness implies on.
// Colour may be given as Hex or XY (Color); temperature as Kelvin or Mirek.
type LightPatch struct {
	On         *bool   `json:"on,omitempty"`
	Brightness *int    `json:"brightness,omitempty"`
	Hex        *string `json:"hex,omitempty"`
	Color      *XY     `json:"color,omitempty"`
	Kelvin     *int    `json:"kelvin,omitempty"`
	Mirek      *int    `json:"color_temp_mirek,omitempty"`
	Effect     *string `json:"effect,omitempty"`
	// GM is a green–magenta shift (-50 … +50) of a white, on lights that
	// take one (LightCaps.GM); with kelvin, or on its own for the white
	// the light shows.
	GM *int `json:"gm,omitempty"`
	// Preset names a gel or light-source preset (ListPresets): a white
	// (kelvin and green–magenta shift) or a colour.
	Preset *string `json:"preset,omitempty"`
	// Hue (0–360°) and Saturation (0–100 %) give a colour by its parts:
	// the part not given is the light's present one (full saturation
	// when the light shows a white), at full value.
	Hue        *float64 `json:"hue,omitempty"`
	Saturation *float64 `json:"saturation,omitempty"`
	// EffectNumber picks an effect by its position in the light's own
	// list (Capabilities.Effects), from 1, as NeewerLite's clients do.
	EffectNumber *int `json:"effect_number,omitempty"`
	// EffectSpeed (1–10) and EffectColor (from 0, a choice among the
	// effect's colours) go with an effect (Effect or EffectNumber), on
	// lights whose effects take them; others run the effect as it is.
	EffectSpeed *int `json:"effect_speed,omitempty"`
	EffectColor *int `json:"effect_color,omitempty"`
}

// Empty reports whether the patch asks for nothing.
func (p LightPatch) Empty() bool {
	return p.On == nil && p.Brightness == nil && p.Hex == nil && p.Color == nil &&
		p.Kelvin == nil && p.Mirek == nil && p.Effect == nil && p.Preset == nil && p.GM == nil &&
		p.Hue == nil && p.Saturation == nil && p.EffectNumber == nil && p.EffectSpeed == nil && p.EffectColor == nil
}

// LightResult answers a light write: what was asked, what was applied
// (after clamping to the lamp), and the state that resulted.
type LightResult struct {
	ID      devices.ID         `json:"id"`
	Name    string             `json:"name"`
	Applied AppliedLight       `json:"applied"`
	State   devices.LightState `json:"state"`
	Notes   []string           `json:"notes,omitempty"`
}

// AppliedLight is the change as sent to the lamp.
type AppliedLight struct {
	On         *bool          `json:"on,omitempty"`
	Brightness *int           `json:"brightness,omitempty"`
	Kelvin     *int           `json:"kelvin,omitempty"`
	Mirek      *int           `json:"color_temp_mirek,omitempty"`
	GM         *int           `json:"gm,omitempty"`
	Color      *devices.Color `json:"color,omitempty"`
	Effect     *string        `json:"effect,omitempty"`
}

// Outcome is one device's result in a fan-out.
type Outcome struct {
	ID    devices.ID `json:"id"`
	Name  string     `json:"name"`
	Error string     `json:"error,omitempty"`
	Code  string     `json:"code,omitempty"`
	named bool       // Error names the device itself
}

// Said is a failure as a sentence that names the device once: "Key
// Light is unreachable", "Desk Lamp failed: brightness must be 0–100".
func (o Outcome) Said() string {
	switch {
	case o.Error == "":
		return o.Name + " failed"
	case o.named:
		return o.Error
	}
	return o.Name + " failed: " + o.Error
}

// FanoutResult answers a write to many devices: which applied, which
// failed and why. Partial failure is said, never swallowed.
type FanoutResult struct {
	Applied []Outcome `json:"applied"`
	Failed  []Outcome `json:"failed"`
}

// RoomView is a room with its members and live occupancy.
type RoomView struct {
	ID      string       `json:"id"`
	Name    string       `json:"name"`
	Members []DeviceView `json:"members"`
	// Occupied is nil when the room has no presence sensor.
	Occupied  *bool     `json:"occupied,omitempty"`
	Scenes    []string  `json:"scenes,omitempty"` // ids of its room scenes
	CreatedAt time.Time `json:"created_at"`
}

// RoomPatch is a room write: the light fields, with On as power intent.
type RoomPatch = LightPatch

// SceneView is a scene as listed.
type SceneView struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	RoomID    string       `json:"room_id,omitempty"`
	Room      string       `json:"room,omitempty"`
	Entries   []SceneEntry `json:"entries"`
	CreatedAt time.Time    `json:"created_at"`
	// Skipped names the devices a capture could not read.
	Skipped []Outcome `json:"skipped,omitempty"`
}

// Media is a media player with its live state.
type Media struct {
	DeviceView
	State *devices.MediaState `json:"state,omitempty"`
	// Receiver is the id of the receiver this source's volume goes to.
	Receiver     devices.ID `json:"receiver,omitempty"`
	Favorites    bool       `json:"has_favorites"`
	Cast         bool       `json:"can_cast"`
	Group        bool       `json:"can_group"`
	RemoteDevice bool       `json:"has_remote"`
	// Class is the player's class: devices.MediaReceiver, MediaSpeaker,
	// MediaTV or MediaZone (the Rust hub's shapes call it kind).
	Class string `json:"class,omitempty"`
	// ReceiverInput is the receiver input a bound source plays through.
	// Surfaces name it in their own words.
	ReceiverInput string `json:"-"`
	// Companions are, on a primary, the ids of the companions its read
	// and commands span. A companion names its primary in the device's
	// CompanionOf (SetCompanion).
	Companions []devices.ID `json:"companions,omitempty"`
	// ArtworkURL is where the hub serves the cover art of what plays,
	// present only while it holds the image; the URL's v names the image,
	// so it never changes under the same URL.
	ArtworkURL string `json:"artwork_url,omitempty"`
	// PositionSecs is how far into what plays the player was at
	// PositionAt; DurationSecs is how long it is. Each is absent when the
	// player does not say (a live stream has no duration). While the
	// transport is playing, the position now is PositionSecs plus the time
	// since PositionAt.
	PositionSecs *float64   `json:"position_secs,omitempty"`
	DurationSecs *float64   `json:"duration_secs,omitempty"`
	PositionAt   *time.Time `json:"position_at,omitempty"`
}

// MediaPatch is a sparse media write.
type MediaPatch struct {
	Power     *bool   `json:"power,omitempty"`
	Volume    *int    `json:"volume,omitempty"`
	Mute      *bool   `json:"mute,omitempty"`
	Source    *string `json:"source,omitempty"`
	Transport *string `json:"transport,omitempty"`
}

// Transport commands a MediaPatch may carry; "toggle" pauses a player that
// plays and plays one that does not.
var TransportCommands = []string{"play", "pause", "stop", "next", "previous", TransportToggle}

// TransportToggle is the transport command that plays or pauses.
const TransportToggle = "toggle"

// PowerView is a switch, plug or fan.
type PowerView struct {
	DeviceView
	PowerKind string `json:"power_kind"`
	On        *bool  `json:"on,omitempty"`
	// SpeedControl says the device takes a speed (a fan with more than
	// on and off); Speed is its speed, 0–100 %, when known.
	SpeedControl bool `json:"speed_control,omitempty"`
	Speed        *int `json:"speed,omitempty"`
}

// RemoteView is a TV remote.
type RemoteView struct {
	DeviceView
	Keys       []string      `json:"keys"`
	Apps       []devices.App `json:"apps,omitempty"`
	CurrentApp string        `json:"current_app,omitempty"`
	// On is the TV's power as its player reports it, nil when unknown.
	// Surfaces name it in their own words.
	On *bool `json:"-"`
}

// RemoteCommand is one remote command: exactly one field is set.
type RemoteCommand struct {
	Key  string `json:"key,omitempty"`
	Text string `json:"text,omitempty"`
	App  string `json:"app,omitempty"` // package id, app name or deep link
	// HoldSecs holds the key down that long (a long press), up to
	// MaxHold, on remotes that can.
	HoldSecs float64 `json:"hold_secs,omitempty"`
	// Power turns the TV on or off (on is woken over the network when it
	// sleeps off it), rather than toggling it with the power key.
	Power *bool `json:"power,omitempty"`
}

// SensorView is a sensor with its readings.
type SensorView struct {
	DeviceView
	Readings []devices.Reading `json:"readings"`
}

// Home is one snapshot of the whole house.
type Home struct {
	Rooms   []RoomView   `json:"rooms"`
	Lights  []Light      `json:"lights"`
	Scenes  []SceneView  `json:"scenes"`
	Media   []Media      `json:"media"`
	Power   []PowerView  `json:"power"`
	Remotes []RemoteView `json:"remotes"`
	Sensors []SensorView `json:"sensors"`
}

// Event is a state change, published in-process.
type Event struct {
	Type   string    `json:"type"` // "light", "room", "scene", "media", "power", "remote", "sensor", "device"
	ID     string    `json:"id,omitempty"`
	Action string    `json:"action,omitempty"` // "changed", "created", "deleted", …
	Time   time.Time `json:"time"`
	Data   any       `json:"data,omitempty"`
}
