package resources

import (
	"math"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// The resources in the shapes the Rust Bifrost hub documents
// for its public API, so its scripts work unchanged: its fields, with the
// service's own views kept beside them as additional fields. Where both
// would use one name the Rust meaning wins (a media device's kind is
// "receiver", "speaker", "tv" or "zone"; a fan-out's applied and failed
// are counts), and the service's meaning moves to a field of its own.
//
// Each shape declares each of its fields once: it embeds a view of the
// service only where no field of its own has a name of the view's, and
// lists the view's fields itself where one has (so which field a client
// reads is never left to encoding/json's rule for embedded names). The
// fields are in the order clients have always received them.

// device is a device's own fields as the shapes of media, power and
// sensors carry them: the service's DeviceView without its kind (each of
// those shapes gives the Rust hub's) and its companion_of (which each
// gives where it has always stood).
type device struct {
	ID        devices.ID `json:"id"`
	Name      string     `json:"name"`
	Adapter   string     `json:"adapter"`
	Model     string     `json:"model,omitempty"`
	RoomID    string     `json:"room_id,omitempty"`
	Room      string     `json:"room,omitempty"`
	Enabled   bool       `json:"enabled"`
	Online    bool       `json:"online"`
	LastSeen  *time.Time `json:"last_seen,omitempty"`
	Pairing   string     `json:"pairing,omitempty"`
	MAC       string     `json:"mac,omitempty"`
	StateText string     `json:"state_text,omitempty"`
}

func deviceOf(v service.DeviceView) device {
	return device{ID: v.ID, Name: v.Name, Adapter: v.Adapter, Model: v.Model, RoomID: v.RoomID, Room: v.Room,
		Enabled: v.Enabled, Online: v.Online, LastSeen: v.LastSeen, Pairing: v.Pairing, MAC: v.MAC, StateText: v.StateText}
}

// provider is what the Rust hub calls a device's adapter, and its
// provider-native id: the device id without the adapter's prefix.
type provider struct {
	Provider   string `json:"provider"`
	ProviderID string `json:"provider_id"`
}

func providerOf(v service.DeviceView) provider {
	return provider{Provider: v.Adapter, ProviderID: nativeID(v)}
}

// nativeID is a device's id as its adapter knows it.
func nativeID(v service.DeviceView) string {
	return strings.TrimPrefix(string(v.ID), v.Adapter+":")
}

// light is a light: the device, its provider, and capabilities and state
// in both vocabularies. State is always present: an unknown one is
// unreachable with no brightness or colour.
type light struct {
	service.DeviceView
	provider
	Capabilities lightCaps  `json:"capabilities"`
	State        lightState `json:"state"`
}

// lightCaps are the service's capabilities of a light (devices.LightCaps)
// and the Rust hub's.
type lightCaps struct {
	Dimmable  bool   `json:"dimmable"`
	Color     bool   `json:"color"`
	Gamut     string `json:"gamut,omitempty"`
	KelvinMin int    `json:"kelvin_min,omitempty"`
	KelvinMax int    `json:"kelvin_max,omitempty"`
	GM        bool   `json:"gm,omitempty"`
	Segments  int    `json:"segments,omitempty"`
	// Effects lists "no_effect" first, as the name that clears one.
	Effects          []string `json:"effects,omitempty"`
	ColorRGB         bool     `json:"color_rgb"`
	ColorTemperature bool     `json:"color_temperature"`
	HueGamut         *string  `json:"hue_gamut"`
	MirekMin         int      `json:"mirek_min,omitempty"`
	MirekMax         int      `json:"mirek_max,omitempty"`
}

type lightState struct {
	On         bool     `json:"on"`
	Brightness *float64 `json:"brightness"` // 0–100, null for a non-dimmable or unknown light
	Mode       string   `json:"mode,omitempty"`
	Kelvin     int      `json:"kelvin,omitempty"`
	GM         int      `json:"gm,omitempty"`
	Color      *xyY     `json:"color"`
	Mirek      *int     `json:"color_temp_mirek"`
	Effect     string   `json:"effect,omitempty"`
	Reachable  bool     `json:"reachable"`
}

// xyY is a colour as CIE xy and hex, with the Rust hub's linear
// brightness (0.0–1.0).
type xyY struct {
	Hex        string  `json:"hex"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Brightness float64 `json:"brightness"`
}

func lightOf(l service.Light) light {
	out := light{DeviceView: l.DeviceView, provider: providerOf(l.DeviceView), Capabilities: capsOf(l.Capabilities)}
	if l.State == nil {
		return out
	}
	st := *l.State
	out.State = lightState{On: st.On, Mode: st.Mode, Kelvin: st.Kelvin, GM: st.GM, Effect: st.Effect, Reachable: l.Online}
	if l.Capabilities.Dimmable {
		b := float64(st.Brightness)
		out.State.Brightness = &b
	}
	switch {
	case st.Mode == devices.ModeColor && st.Color != nil:
		out.State.Color = &xyY{Hex: st.Color.Hex, X: st.Color.X, Y: st.Color.Y, Brightness: float64(st.Brightness) / 100}
	case st.Mode == devices.ModeTemperature && st.Kelvin > 0:
		m := color.KelvinToMirek(st.Kelvin)
		out.State.Mirek = &m
	}
	return out
}

func capsOf(c devices.LightCaps) lightCaps {
	out := lightCaps{Dimmable: c.Dimmable, Color: c.Color, Gamut: c.Gamut, KelvinMin: c.KelvinMin, KelvinMax: c.KelvinMax,
		GM: c.GM, Segments: c.Segments, ColorRGB: c.Color, ColorTemperature: c.HasTemperature()}
	if len(c.Effects) > 0 {
		out.Effects = append([]string{service.NoEffect}, c.Effects...)
	}
	out.HueGamut = orNull(c.Gamut)
	if c.HasTemperature() {
		out.MirekMin, out.MirekMax = color.KelvinToMirek(c.KelvinMax), color.KelvinToMirek(c.KelvinMin)
	}
	return out
}

// room is a room with its effective members by kind.
type room struct {
	service.RoomView
	LightIDs []devices.ID `json:"light_ids"`
	MediaIDs []devices.ID `json:"media_device_ids"`
	PowerIDs []devices.ID `json:"power_device_ids"`
}

func roomOf(r service.RoomView) room {
	out := room{RoomView: r, LightIDs: []devices.ID{}, MediaIDs: []devices.ID{}, PowerIDs: []devices.ID{}}
	for _, m := range r.Members {
		switch m.Kind {
		case devices.KindLight:
			out.LightIDs = append(out.LightIDs, m.ID)
		case devices.KindMedia:
			out.MediaIDs = append(out.MediaIDs, m.ID)
		case devices.KindPower:
			out.PowerIDs = append(out.PowerIDs, m.ID)
		}
	}
	return out
}

// counts is a write to many devices as the Rust hub answers it, how many
// applied and failed, with the service's per-device outcomes in Results.
type counts struct {
	Applied int                  `json:"applied"`
	Failed  int                  `json:"failed"`
	Results service.FanoutResult `json:"results"`
}

func countsOf(r service.FanoutResult) counts {
	r = fanoutOf(r)
	return counts{Applied: len(r.Applied), Failed: len(r.Failed), Results: r}
}

// fanoutOf is r with its lists empty rather than null.
func fanoutOf(r service.FanoutResult) service.FanoutResult {
	if r.Applied == nil {
		r.Applied = []service.Outcome{}
	}
	if r.Failed == nil {
		r.Failed = []service.Outcome{}
	}
	return r
}

// scene is a scene (the service's SceneView, its room_id the Rust hub's)
// with the Rust hub's counts of what it captured.
type scene struct {
	ID        string               `json:"id"`
	Name      string               `json:"name"`
	Room      string               `json:"room,omitempty"`
	Entries   []service.SceneEntry `json:"entries"`
	CreatedAt time.Time            `json:"created_at"`
	Skipped   []service.Outcome    `json:"skipped,omitempty"`
	RoomID    *string              `json:"room_id"`   // null for a Home Scene
	RoomName  *string              `json:"room_name"` // null for a Home Scene
	Lights    int                  `json:"lights"`
	Power     int                  `json:"power"`
	IsDefault bool                 `json:"is_default"`
}

func sceneOf(sc service.SceneView) scene {
	out := scene{ID: sc.ID, Name: sc.Name, Room: sc.Room, Entries: sc.Entries, CreatedAt: sc.CreatedAt, Skipped: sc.Skipped}
	if sc.RoomID != "" {
		id, name := sc.RoomID, sc.Room
		out.RoomID, out.RoomName = &id, &name
	}
	for _, e := range sc.Entries {
		if e.Light != nil {
			out.Lights++
		}
		if e.Power != nil {
			out.Power++
		}
	}
	return out
}

// media is a media device (the service's Media, its kind and state the
// Rust hub's): its class as kind, capabilities, the remote and receiver
// it goes with, and its state (mediaState).
type media struct {
	device
	Receiver     devices.ID   `json:"receiver,omitempty"`
	Favorites    bool         `json:"has_favorites"`
	Cast         bool         `json:"can_cast"`
	Group        bool         `json:"can_group"`
	RemoteDevice bool         `json:"has_remote"`
	CompanionOf  devices.ID   `json:"companion_of,omitempty"`
	Companions   []devices.ID `json:"companions,omitempty"`
	ArtworkURL   string       `json:"artwork_url,omitempty"`
	PositionSecs *float64     `json:"position_secs,omitempty"`
	DurationSecs *float64     `json:"duration_secs,omitempty"`
	PositionAt   *time.Time   `json:"position_at,omitempty"`
	provider
	Kind           string     `json:"kind"` // receiver | speaker | tv | zone
	Capabilities   mediaCaps  `json:"capabilities"`
	RemoteID       *string    `json:"remote_id"`
	ReceiverID     *string    `json:"receiver_id"`
	ReceiverSource *string    `json:"receiver_source"`
	State          mediaState `json:"state"`
}

type mediaCaps struct {
	Sources    bool `json:"sources"`
	Transport  bool `json:"transport"`
	NowPlaying bool `json:"now_playing"`
	Favorites  bool `json:"favorites"`
	Grouping   bool `json:"grouping"`
	Cast       bool `json:"cast"`
	Remote     bool `json:"remote"`
}

// mediaState is a player's state in the Rust hub's words (mute,
// source_list), with what the service says beside them that the Rust hub
// has no field for (transport, group_coordinator).
type mediaState struct {
	Power            bool        `json:"power"`
	Volume           *int        `json:"volume"` // 0–100; null when unknown
	Mute             *bool       `json:"mute"`
	Source           *string     `json:"source"` // null when the player says none
	SourceList       []string    `json:"source_list,omitempty"`
	Transport        string      `json:"transport,omitempty"`
	NowPlaying       *nowPlaying `json:"now_playing,omitempty"`
	GroupCoordinator devices.ID  `json:"group_coordinator,omitempty"`
	Reachable        bool        `json:"reachable"`
}

type nowPlaying struct {
	devices.NowPlaying
	PlayState string `json:"play_state"` // playing | paused | stopped
}

func mediaOf(m service.Media) media {
	out := media{device: deviceOf(m.DeviceView), Receiver: m.Receiver, Favorites: m.Favorites, Cast: m.Cast, Group: m.Group,
		RemoteDevice: m.RemoteDevice, CompanionOf: m.CompanionOf, Companions: m.Companions, ArtworkURL: m.ArtworkURL,
		PositionSecs: m.PositionSecs, DurationSecs: m.DurationSecs, PositionAt: m.PositionAt,
		provider: providerOf(m.DeviceView), Kind: m.Class,
		Capabilities: mediaCaps{Favorites: m.Favorites, Grouping: m.Group, Cast: m.Cast, Remote: m.RemoteDevice}}
	if m.RemoteDevice {
		id := string(m.ID)
		out.RemoteID = &id
	}
	if m.Receiver != "" {
		out.ReceiverID, out.ReceiverSource = orNull(string(m.Receiver)), orNull(m.ReceiverInput)
	}
	if m.State == nil {
		return out
	}
	st := *m.State
	vol, muted := st.Volume, st.Muted
	out.State = mediaState{Power: st.Power, Volume: &vol, Mute: &muted, Source: orNull(st.Source), SourceList: st.Sources,
		Transport: st.Transport, GroupCoordinator: st.GroupCoordinator, Reachable: m.Online}
	if st.NowPlaying != nil {
		play := st.Transport
		if play == "" {
			play = devices.TransportStopped
		}
		out.State.NowPlaying = &nowPlaying{NowPlaying: *st.NowPlaying, PlayState: play}
	}
	out.Capabilities.Sources = len(st.Sources) > 0
	out.Capabilities.Transport = st.Transport != "" || st.NowPlaying != nil
	out.Capabilities.NowPlaying = st.NowPlaying != nil
	return out
}

// favorite is a player's favourite in the Rust hub's shape: its subtitle,
// the player's second line for it, null when the player gives none.
type favorite struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Subtitle *string `json:"subtitle"`
	Kind     string  `json:"kind,omitempty"`
}

func favoritesOf(favs []devices.Favorite) []favorite {
	out := make([]favorite, len(favs))
	for i, f := range favs {
		out[i] = favorite{ID: f.ID, Title: f.Title, Subtitle: orNull(f.Subtitle), Kind: f.Kind}
	}
	return out
}

// orNull is s, or nil (JSON null) when it is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// power is a switch, plug or fan (the service's PowerView, its kind and
// state the Rust hub's); its kind is what sort it is.
type power struct {
	device
	CompanionOf  devices.ID `json:"companion_of,omitempty"`
	PowerKind    string     `json:"power_kind"`
	On           *bool      `json:"on,omitempty"`
	SpeedControl bool       `json:"speed_control,omitempty"`
	Speed        *int       `json:"speed,omitempty"`
	provider
	DeviceID string     `json:"device_id"`
	Kind     string     `json:"kind"` // switch | outlet | fan | toggle | generic | button
	State    powerState `json:"state"`
}

type powerState struct {
	On        *bool `json:"on"`
	Reachable bool  `json:"reachable"`
}

func powerOf(p service.PowerView) power {
	return power{device: deviceOf(p.DeviceView), CompanionOf: p.CompanionOf, PowerKind: p.PowerKind, On: p.On,
		SpeedControl: p.SpeedControl, Speed: p.Speed, provider: providerOf(p.DeviceView), DeviceID: nativeID(p.DeviceView),
		Kind: p.PowerKind, State: powerState{On: p.On, Reachable: p.Online}}
}

// remote is a TV remote with the Rust hub's RemoteState beside the
// service's view.
type remote struct {
	service.RemoteView
	provider
	DeviceID string      `json:"device_id"`
	State    remoteState `json:"state"`
}

type remoteState struct {
	On         *bool   `json:"on"`
	CurrentApp *string `json:"current_app"`
	Reachable  bool    `json:"reachable"`
}

// remoteRead is one remote as GET /remote/devices/{id} answers it: the
// record with its state's fields at the top too, so it reads as the Rust
// hub's RemoteState and as the record.
type remoteRead struct {
	remote
	On        *bool `json:"on"`
	Reachable bool  `json:"reachable"`
}

func remoteReadOf(r service.RemoteView) remoteRead {
	v := remoteOf(r)
	return remoteRead{remote: v, On: v.State.On, Reachable: v.State.Reachable}
}

func remoteOf(r service.RemoteView) remote {
	out := remote{RemoteView: r, provider: providerOf(r.DeviceView), DeviceID: nativeID(r.DeviceView),
		State: remoteState{On: r.On, Reachable: r.Online}}
	out.State.CurrentApp = orNull(r.CurrentApp)
	return out
}

// sensor is a sensor (the service's SensorView, its kind the Rust
// hub's): its kind and reading are its first reading's, as the Rust hub
// reports one value per sensor; every reading stays in readings.
type sensor struct {
	device
	CompanionOf devices.ID        `json:"companion_of,omitempty"`
	Readings    []devices.Reading `json:"readings"`
	provider
	DeviceID string      `json:"device_id"`
	Kind     string      `json:"kind"` // motion | occupancy | contact | illuminance | temperature | humidity | generic
	Unit     *string     `json:"unit"`
	State    sensorState `json:"state"`
}

type sensorState struct {
	Reading   *reading `json:"reading"`
	Reachable bool     `json:"reachable"`
}

// reading is a tagged value: {"bool": true} or {"number": 21.5}.
type reading struct {
	Bool   *bool    `json:"bool,omitempty"`
	Number *float64 `json:"number,omitempty"`
}

// sensorKinds are the kinds the Rust hub names; other readings are
// "generic".
var sensorKinds = map[string]bool{
	devices.ReadingMotion: true, devices.ReadingOccupancy: true, devices.ReadingContact: true,
	devices.ReadingIlluminance: true, devices.ReadingTemperature: true, devices.ReadingHumidity: true,
}

func sensorOf(s service.SensorView) sensor {
	out := sensor{device: deviceOf(s.DeviceView), CompanionOf: s.CompanionOf, Readings: s.Readings,
		provider: providerOf(s.DeviceView), DeviceID: nativeID(s.DeviceView),
		Kind: "generic", State: sensorState{Reachable: s.Online}}
	if len(s.Readings) == 0 {
		return out
	}
	r := s.Readings[0]
	if sensorKinds[r.Type] {
		out.Kind = r.Type
	}
	out.Unit = orNull(r.Unit)
	if !s.Online {
		return out
	}
	switch {
	case r.Bool != nil:
		b := *r.Bool
		out.State.Reading = &reading{Bool: &b}
	case !math.IsNaN(r.Value):
		v := r.Value
		out.State.Reading = &reading{Number: &v}
	}
	return out
}

// mapped applies f to each of vs.
func mapped[T, U any](vs []T, f func(T) U) []U {
	out := make([]U, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}
