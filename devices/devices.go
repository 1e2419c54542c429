// Package devices is the adapter contract: the small capability interfaces a
// device may implement, the value types they exchange, the sentinel errors
// that tell a permanent "unsupported" from a retryable "unreachable", the
// Fault adapters return them in (what to say to a person, which sentinel,
// and the lower-level cause, each a field the hub reads rather than text it
// parses), and the registry through which adapters hand their devices to
// the hub.
//
// The package imports nothing of Bifrost's; adapters (devices/sim,
// devices/neewer, …) and the service layer both depend on it.
package devices

import (
	"context"
	"errors"
	"strings"
	"time"
)

// ID is a device's stable identity, "ADAPTER:NATIVE_ID" (e.g. "sim:key-light",
// "sonos:RINCON_…").
type ID string

// Kind is what a device is to the house.
type Kind string

const (
	KindLight  Kind = "light"
	KindMedia  Kind = "media"
	KindPower  Kind = "power"
	KindRemote Kind = "remote"
	KindSensor Kind = "sensor"
	// KindOther is a device the hub lists but cannot control (a Home
	// Assistant cover or climate entity): it shows its state as text.
	KindOther Kind = "other"
)

// Kinds lists the kinds the hub controls and reads, in display order;
// devices of KindOther are only listed.
var Kinds = []Kind{KindLight, KindMedia, KindPower, KindRemote, KindSensor}

// Sentinel errors. Adapters return them as the Kind of a *Fault
// (Unreachable(err, "did not answer %s", action)) so callers can tell a
// device that cannot do something from one that cannot be reached right
// now.
var (
	// ErrUnsupported: the device cannot do this, ever. Permanent.
	ErrUnsupported = errors.New("not supported by this device")
	// ErrUnreachable: the device did not answer. Retryable.
	ErrUnreachable = errors.New("device unreachable")
	// ErrInvalid: the device refused a value (e.g. an unknown input name).
	ErrInvalid = errors.New("invalid value for this device")
	// ErrRefused: the device, or the hub it is reached through (Home
	// Assistant), answered and refused the command for a reason of its
	// own, which the error's message gives.
	ErrRefused = errors.New("refused the command")
	// ErrTimeout: a command did not finish within its timeout. It is a
	// *Fault of kind ErrUnreachable, so errors.Is(err, ErrUnreachable)
	// holds.
	ErrTimeout error = &Fault{Said: "device did not answer in time", Kind: ErrUnreachable}
)

// Error is a device's failure as the hub reports it: which device, the
// operation (a command's key, "read", …; "" when there is none to name), and
// the cause: a *Fault, a bare sentinel, or an internal error (a bug). Its
// message names the device by id; surfaces name it as people call it. So a fault says what happened
// ("did not confirm the command", "refused SetVolume: UPnP error 402") and
// never names the device: adapters leave the naming to the hub, and one
// that knows the id may return an *Error itself.
type Error struct {
	ID  ID
	Op  string
	Err error
}

func (e *Error) Error() string { return string(e.ID) + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// errNotConnected: no adapter holds the device now.
var errNotConnected = Unreachable(nil, "not connected")

// Info describes a device as its adapter knows it.
type Info struct {
	ID      ID
	Adapter string // "sim", "neewer", "sonos", …
	Kind    Kind
	Name    string // the adapter's name for it; a user-given name overrides it
	Model   string
	// Room is the adapter's suggestion for a room on first discovery (the
	// simulated home uses it); empty when the adapter has no opinion.
	Room string
}

// Device is what every device implements.
type Device interface {
	Info() Info
	// Online reports whether the device is reachable as far as the adapter
	// knows, without doing I/O.
	Online() bool
}

// LightCaps are what a light can do.
type LightCaps struct {
	Dimmable bool `json:"dimmable"`
	// Color is true when the light takes a colour (hex / xy).
	Color bool `json:"color"`
	// Gamut is the Hue gamut ("A", "B", "C") a colour light takes xy in, or
	// "" when it takes any xy (HSI lamps convert from RGB themselves).
	Gamut string `json:"gamut,omitempty"`
	// KelvinMin/KelvinMax are the colour-temperature range; 0 when the
	// light has no colour temperature.
	KelvinMin int `json:"kelvin_min,omitempty"`
	KelvinMax int `json:"kelvin_max,omitempty"`
	// GM is true when the light takes a green–magenta shift with its
	// colour temperature (Neewer bi-colour panels).
	GM      bool     `json:"gm,omitempty"`
	Effects []string `json:"effects,omitempty"`
	// Segments is how many addressable colour segments the light has (an
	// RGBIC strip, a WLED strip), numbered from 0; 0 when it has none. A
	// light with segments implements Segmenter.
	Segments int `json:"segments,omitempty"`
}

// HasTemperature reports whether the light takes a colour temperature.
func (c LightCaps) HasTemperature() bool { return c.KelvinMax > 0 }

// Color is a light colour in the two forms lamps take: sRGB hex and CIE xy.
type Color struct {
	Hex string  `json:"hex"` // "RRGGBB", upper case, no '#'
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
}

// Colour modes of a lit light.
const (
	ModeTemperature = "temperature"
	ModeColor       = "color"
	ModeEffect      = "effect"
)

// LightState is a light's full state.
type LightState struct {
	On         bool   `json:"on"`
	Brightness int    `json:"brightness"` // 0–100 %
	Mode       string `json:"mode,omitempty"`
	Kelvin     int    `json:"kelvin,omitempty"`
	// GM is the green–magenta shift (-50 … +50) of a white, on lights
	// that take one; 0 is neutral.
	GM     int    `json:"gm,omitempty"`
	Color  *Color `json:"color,omitempty"`
	Effect string `json:"effect,omitempty"`
}

// LightChange is a sparse, already validated and clamped change: nil fields
// are left as they are. At most one of Kelvin, Color and Effect is set.
type LightChange struct {
	On         *bool
	Brightness *int
	Kelvin     *int
	// GM is a green–magenta shift (-50 … +50) that goes with Kelvin on
	// lamps that take one (Neewer bi-colour panels); others ignore it.
	GM     *int
	Color  *Color
	Effect *string
	// EffectSpeed (1–10) and EffectColor (a choice among an effect's
	// colours, from 0) go with Effect, on lamps whose effects take them
	// (Neewer panels); others, and effects without them, ignore them.
	EffectSpeed *int
	EffectColor *int
}

// Light is a lamp.
type Light interface {
	Device
	LightCaps() LightCaps
	LightState(ctx context.Context) (LightState, error)
	// SetLight applies a change and returns the state that resulted.
	SetLight(ctx context.Context, c LightChange) (LightState, error)
}

// SegmentChange is a sparse, already validated change to one segment of
// an addressable strip: nil fields are left as they are, and at least one
// is set.
type SegmentChange struct {
	// Index is the segment, from 0 to LightCaps.Segments-1.
	Index int
	// RGB is the segment's colour packed as 0xRRGGBB.
	RGB *uint32
	// Brightness is the segment's own brightness, 0–100 %; 0 darkens the
	// segment.
	Brightness *int
}

// Segmenter is a light whose segments take colours of their own. A light
// takes them when it implements Segmenter and its LightCaps.Segments is
// above 0.
type Segmenter interface {
	// SetSegments applies the changes, each to the segment it names, as
	// one command; segments not named are left as they are. Segment state
	// is write-only: LightState does not report it. A change naming a
	// segment the light does not have is an error wrapping ErrInvalid; a
	// light without segments answers ErrUnsupported.
	SetSegments(ctx context.Context, segs []SegmentChange) error
}

// NowPlaying is what a media player is playing.
type NowPlaying struct {
	Title  string `json:"title,omitempty"`
	Artist string `json:"artist,omitempty"`
	Album  string `json:"album,omitempty"`
	App    string `json:"app,omitempty"`
	// ArtworkURL is where the item's cover art is, as the adapter can
	// fetch it: an absolute URL the hub GETs, or, when the player is an
	// ArtworkFetcher, one only its adapter reads. "" when it has none.
	// It is the adapter's address, never shown to clients.
	ArtworkURL string `json:"-"`
	// Progress is how far into the item playback is, nil when the player
	// does not say.
	Progress *Progress `json:"-"`
}

// Progress is a position in what plays, as read at a moment: a client
// advances Position from At while the transport is playing.
type Progress struct {
	Position time.Duration
	// Duration is the item's length; 0 when it has none (a live stream)
	// or the player does not say.
	Duration time.Duration
	// At is when Position was read.
	At time.Time
}

// Equal reports whether two readings of progress say the same: the same
// length and a position that moved by no more than the time between them
// (within a second). A player that plays on reads as unchanged.
func (p *Progress) Equal(q *Progress) bool {
	if p == nil || q == nil {
		return p == q
	}
	if p.Duration != q.Duration {
		return false
	}
	drift := (q.Position - p.Position) - q.At.Sub(p.At)
	return drift.Abs() <= time.Second || p.Position == q.Position
}

// ArtworkFetcher is a media player whose artwork its adapter fetches
// itself (with its own client or credentials, or from memory): the hub
// asks it for NowPlaying.ArtworkURL instead of a plain GET.
type ArtworkFetcher interface {
	// FetchArtwork reads the image at url, at most max bytes (more is an
	// error), and returns its bytes and the content type it was given.
	FetchArtwork(ctx context.Context, url string, max int64) ([]byte, string, error)
}

// Transport states and commands.
const (
	TransportPlaying = "playing"
	TransportPaused  = "paused"
	TransportStopped = "stopped"
)

// MediaState is a media player's live state.
type MediaState struct {
	Power      bool        `json:"power"`
	Volume     int         `json:"volume"` // 0–100
	Muted      bool        `json:"muted"`
	Source     string      `json:"source,omitempty"`
	Sources    []string    `json:"sources,omitempty"`
	Transport  string      `json:"transport,omitempty"`
	NowPlaying *NowPlaying `json:"now_playing,omitempty"`
	// GroupCoordinator is the id of the speaker this one plays in sync
	// with, empty when it plays alone or leads its own group.
	GroupCoordinator ID `json:"group_coordinator,omitempty"`
}

// MediaChange is a sparse change to a media player. Transport is one of
// "play", "pause", "stop", "next", "previous".
type MediaChange struct {
	Power     *bool
	Volume    *int
	Mute      *bool
	Source    *string
	Transport *string
}

// MediaPlayer is a speaker, receiver or TV's media side.
type MediaPlayer interface {
	Device
	MediaState(ctx context.Context) (MediaState, error)
	SetMedia(ctx context.Context, c MediaChange) (MediaState, error)
}

// Media classes: what sort of player a device is, as people tell them
// apart.
const (
	MediaReceiver = "receiver"
	MediaSpeaker  = "speaker"
	MediaTV       = "tv"
	MediaZone     = "zone" // a receiver's second or third zone
)

// MediaClasser is a player that says which media class it is. A player
// that does not is a TV when it is also a remote, a speaker otherwise.
type MediaClasser interface {
	MediaClass() string
}

// Favorite is a saved station, playlist or track.
type Favorite struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind,omitempty"` // "radio", "playlist", "track", …
	// Subtitle is the player's second line for it, such as the service it
	// comes from ("TuneIn Station"); empty when the player gives none.
	// Surfaces name it in their own words.
	Subtitle string `json:"-"`
}

// FavoritePlayer is a media player with favourites.
type FavoritePlayer interface {
	Favorites(ctx context.Context) ([]Favorite, error)
	PlayFavorite(ctx context.Context, id string) error
}

// Caster plays content given by id and type (a URL, a provider id).
type Caster interface {
	Cast(ctx context.Context, contentID, contentType string) error
}

// Grouper is a speaker that can play in sync with others of its adapter.
type Grouper interface {
	// JoinGroup makes this speaker follow coordinator.
	JoinGroup(ctx context.Context, coordinator ID) error
	// LeaveGroup makes it play alone again.
	LeaveGroup(ctx context.Context) error
}

// Power kinds.
const (
	PowerSwitch  = "switch"
	PowerOutlet  = "outlet"
	PowerFan     = "fan"
	PowerToggle  = "toggle"
	PowerGeneric = "generic"
	// PowerButton is momentary: switching it on presses it, switching it
	// off does nothing, and it always reads as off.
	PowerButton = "button"
)

// PowerDevice is a switch, plug, fan or button.
type PowerDevice interface {
	Device
	PowerKind() string
	PowerState(ctx context.Context) (bool, error)
	SetPower(ctx context.Context, on bool) error
}

// FanSpeeder is a power device whose speed is set as a percentage (a fan
// that has more than on and off).
type FanSpeeder interface {
	// Speed is the speed as last reported, 0–100 %; ok is false when it
	// is not known.
	Speed() (pct int, ok bool)
	// SetSpeed sets the speed, 1–100 %, turning the fan on; the device
	// rounds it to the steps it has.
	SetSpeed(ctx context.Context, pct int) error
}

// App is an app a remote can launch.
type App struct {
	ID   string `json:"id"` // package id, channel id, …
	Name string `json:"name"`
}

// Remote keys every remote understands.
var RemoteKeys = []string{
	"up", "down", "left", "right", "select", "back", "home", "menu",
	"volume_up", "volume_down", "mute", "play_pause", "next", "previous", "power",
}

// Remote is a TV remote.
type Remote interface {
	Device
	PressKey(ctx context.Context, key string) error
	SendText(ctx context.Context, text string) error
	// LaunchApp opens an app by package id, or a deep link (a URL).
	LaunchApp(ctx context.Context, appOrLink string) error
	Apps(ctx context.Context) ([]App, error)
	CurrentApp(ctx context.Context) (string, error)
}

// Sensor reading types and their units.
const (
	ReadingMotion      = "motion"      // bool
	ReadingOccupancy   = "occupancy"   // bool
	ReadingContact     = "contact"     // bool: true = closed
	ReadingIlluminance = "illuminance" // lx
	ReadingTemperature = "temperature" // °C
	ReadingHumidity    = "humidity"    // %
	ReadingPower       = "power"       // W drawn now (a metering plug)
	ReadingEnergy      = "energy"      // kWh drawn in total
	ReadingBattery     = "battery"     // % charge left
)

// Reading is one sensor value. Presence readings (motion, occupancy,
// contact) carry Bool; the others carry Value with a Unit.
type Reading struct {
	Type    string    `json:"type"`
	Value   float64   `json:"value"`
	Bool    *bool     `json:"bool,omitempty"`
	Unit    string    `json:"unit,omitempty"`
	Updated time.Time `json:"updated"`
}

// ReadingUnits are the units of the readings that carry a value, as the
// hub says them when a device does not.
var ReadingUnits = map[string]string{
	ReadingTemperature: "°C",
	ReadingHumidity:    "%",
	ReadingIlluminance: "lx",
	ReadingPower:       "W",
	ReadingEnergy:      "kWh",
	ReadingBattery:     "%",
}

// Presence reports whether the reading says someone is there.
func (r Reading) Presence() (present, ok bool) {
	if r.Bool == nil || (r.Type != ReadingMotion && r.Type != ReadingOccupancy) {
		return false, false
	}
	return *r.Bool, true
}

// Sensor reports readings.
type Sensor interface {
	Device
	Readings(ctx context.Context) ([]Reading, error)
}

// Content is a title found in a TV's libraries (its apps' catalogues), or
// (Kind ContentSearch) the TV's own search for a title, in an app or across
// them, which is how a TV that cannot list its libraries plays one.
type Content struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	App   string `json:"app"`            // package id of the app that plays it
	Kind  string `json:"kind,omitempty"` // "movie", "show", "episode", ContentSearch, …
}

// ContentSearch is the Kind of a Content that opens the TV's search for
// its Title rather than the title itself.
const ContentSearch = "search"

// ContentSearcher is a TV that can search its libraries and play a title.
type ContentSearcher interface {
	Search(ctx context.Context, query string) ([]Content, error)
	PlayContent(ctx context.Context, c Content) error
}

// Scanner is an adapter that can look for devices it does not know yet.
// Devices it finds are added to the registry as they turn up.
type Scanner interface {
	// Adapter names the adapter ("neewer", "sonos", …).
	Adapter() string
	// Scan starts discovery and returns how long it will go on looking.
	Scan(ctx context.Context) (time.Duration, error)
}

// Switchable is a Scanner that settings can turn on and off while the hub
// runs (MQTT, set up in the web UI). While it is off it neither scans nor
// is listed among the adapters.
type Switchable interface {
	Scanner
	// On says whether the adapter runs now.
	On() bool
}

// ScannerOn says whether sc runs now: every Scanner does unless it is a
// Switchable that is off.
func ScannerOn(sc Scanner) bool {
	s, ok := sc.(Switchable)
	return !ok || s.On()
}

// Adder is an adapter that can add a device given its network or radio
// address (a Sonos player's IP, a receiver's IP, a light's MAC address).
type Adder interface {
	Adapter() string
	// Add connects to the device at address and registers what it finds
	// there (a whole Sonos household, a receiver and its zone 2, …).
	Add(ctx context.Context, address string) ([]ID, error)
}

// KeyAdder is an Adder whose devices may need a key of their own to be
// reached (an ESPHome node's API encryption key). The hub keeps the key
// sealed, never in plain text, and gives it again when it adds the
// device at start.
type KeyAdder interface {
	Adder
	// AddWithKey adds as Add does, reaching the device with key ("" for
	// none). A key the device refuses, or one it needs and was not
	// given, is an error whose chain holds ErrBadKey (see BadKey).
	AddWithKey(ctx context.Context, address, key string) ([]ID, error)
}

// KeyWanted is a device a scan found that the hub cannot reach without
// a key of its own: an ESPHome node whose API encryption key is not the
// house's. The hub does not try it again until someone adds it with its
// key (KeyAdder.AddWithKey at Address).
type KeyWanted struct {
	Address string `json:"address"`        // as AddWithKey takes it: "192.168.1.40:6053"
	Name    string `json:"name,omitempty"` // as it announces itself: "kitchen"
	MAC     string `json:"mac,omitempty"`  // "AC:BC:32:89:0E:A9", when it announces one
	// Refused: the device refused the key the hub tried (the house's);
	// otherwise it wants a key and the hub had none to try.
	Refused bool `json:"refused,omitempty"`
}

// KeyWanter is a KeyAdder whose scans can find devices that need a key
// of their own.
type KeyWanter interface {
	KeyAdder
	// KeysWanted lists the devices found that wait for their key, by
	// address, without I/O; a device leaves the list once added.
	KeysWanted() []KeyWanted
}

// ErrBadKey: a device refused the key it was added with, or needs one
// that was not given.
var ErrBadKey = errors.New("the device's key is wrong or missing")

// ErrNeedsPairing: the device takes commands only from a client it has
// been paired with (a code shown on its screen), and the hub is not, or no
// longer is. Permanent until the user pairs; the message says how.
var ErrNeedsPairing = errors.New("needs pairing with the hub")

// Pairer is a device that must be paired with the hub before it takes
// commands: the device shows a code, the user types it in.
type Pairer interface {
	// Paired reports whether the device last accepted the hub's pairing,
	// without doing I/O.
	Paired() bool
	// StartPairing asks the device to show a pairing code on its screen.
	// The attempt stays open until FinishPairing, a new StartPairing, or a
	// few minutes pass.
	StartPairing(ctx context.Context) error
	// FinishPairing completes the open attempt with the code the device
	// shows. A code that cannot be right (caught locally) or that the
	// device refuses is an error wrapping ErrInvalid; no open attempt is
	// an error wrapping ErrInvalid too, saying to start one.
	FinishPairing(ctx context.Context, code string) error
}

// Waker is a device that can be woken from standby by Wake-on-LAN: its
// power-on sends a magic packet first when the device does not answer.
type Waker interface {
	// MAC is the hardware address packets go to, learned from the device
	// or given with SetMAC; "" when unknown.
	MAC() string
	// SetMAC sets the address the user gave; "" goes back to the learned
	// one.
	SetMAC(mac string)
}

// Texter is a device of KindOther: it tells its state only as text
// ("open", "heat · 21 °C"), read without I/O.
type Texter interface {
	Device
	StateText() string
}

// Hardware is a device that can say which physical device it is, so the
// hub can tell when two adapters reach the same one (a Sonos speaker
// found on the network and again through Home Assistant). Each id is
// HardwareKey's form of one identifier: "mac:a45e60c21109",
// "sonos:rincon_…". A device that does not implement Hardware is taken
// to be its ID and, when it has one, its MAC address.
type Hardware interface {
	HardwareIDs() []string
}

// Bridged is a device reached through another hub (Home Assistant). When
// the hub reaches the same hardware itself too, it keeps its own device
// and merges the bridged one into it as a companion.
type Bridged interface {
	Bridged()
}

// HardwareKey is the form in which hardware ids are compared: kind and
// value in lower case, a MAC address (of kind "mac" or "bluetooth", or a
// value that reads as one) as "mac:" and its 12 hex digits.
func HardwareKey(kind, value string) string {
	kind, value = strings.ToLower(strings.TrimSpace(kind)), strings.TrimSpace(value)
	if mac, err := ParseMAC(value); err == nil && (kind == "mac" || kind == "bluetooth" || len(value) >= 12) {
		return "mac:" + strings.ReplaceAll(mac.String(), ":", "")
	}
	return kind + ":" + strings.ToLower(value)
}

// KeyLister is a remote that takes more keys than RemoteKeys (channel,
// input, guide, …): Keys lists every key it takes.
type KeyLister interface {
	Keys() []string
}

// KeyHolder is a remote that can hold a key down (a long press) for a
// while, where its protocol has one.
type KeyHolder interface {
	HoldKey(ctx context.Context, key string, d time.Duration) error
}

// Via is the radio a device is reached through, and how loud it hears
// the device (RSSI in dBm, 0 when not known).
type Via struct {
	Radio string `json:"radio"` // "hci0", "esphome:studio"
	RSSI  int    `json:"rssi,omitempty"`
}

// Relayed is a device reached through one of several radios (a Neewer
// light through the hub's Bluetooth or an ESPHome Bluetooth proxy). Via
// is the one in use; ok is false while none is.
type Relayed interface {
	Via() (v Via, ok bool)
}
