package mcp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
)

// The views below are the service's types cut down for an assistant's
// context: names over nested records, an effect count instead of every
// effect, no empty fields. Each has its output schema beside it and a
// short human line.

// light is a light with its state (absent when it is offline) and what it
// can do.
type light struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Room       string     `json:"room,omitempty"`
	Offline    bool       `json:"offline,omitempty"`
	On         *bool      `json:"on,omitempty"`
	Brightness *int       `json:"brightness,omitempty"`
	Kelvin     int        `json:"kelvin,omitempty"`
	Hex        string     `json:"hex,omitempty"`
	Effect     string     `json:"effect,omitempty"`
	Can        *lightCaps `json:"can,omitempty"`
}

// lightCaps is what a light can do; Effects counts its effects (named by
// list_light_effects).
type lightCaps struct {
	Dim     bool  `json:"dim,omitempty"`
	Color   bool  `json:"color,omitempty"`
	Kelvin  []int `json:"kelvin,omitempty"` // [min, max]
	Effects int   `json:"effects,omitempty"`
}

var lightSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "room": str(""), "offline": boolean(""),
	"on": boolean(""), "brightness": integer("", 1, 0), "kelvin": integer("", 1, 0),
	"hex": str(""), "effect": str(""),
	"can": open(map[string]schema{
		"dim": boolean(""), "color": boolean(""), "kelvin": array("[min, max]", integer("", 1, 0)),
		"effects": integer("count", 1, 0),
	}),
})

func lightOf(l service.Light) light {
	v := light{ID: string(l.ID), Name: l.Name, Room: l.Room, Offline: !l.Online || l.State == nil, Can: capsOf(l.Capabilities)}
	if l.State != nil {
		v.On, v.Brightness = &l.State.On, &l.State.Brightness
		setMode(&v, *l.State)
	}
	return v
}

// setMode fills in the light's one colour mode.
func setMode(v *light, st devices.LightState) {
	switch {
	case st.Mode == devices.ModeEffect && st.Effect != "":
		v.Effect = st.Effect
	case st.Mode == devices.ModeColor && st.Color != nil:
		v.Hex = st.Color.Hex
	case st.Kelvin > 0:
		v.Kelvin = st.Kelvin
	}
}

func capsOf(c devices.LightCaps) *lightCaps {
	v := &lightCaps{Dim: c.Dimmable, Color: c.Color, Effects: len(c.Effects)}
	if c.HasTemperature() {
		v.Kelvin = []int{c.KelvinMin, c.KelvinMax}
	}
	return v
}

// line says the light's state; withRoom names its room too.
func (l light) line(withRoom bool) string {
	var b strings.Builder
	b.WriteString(label(l.Name, l.Room, withRoom))
	switch {
	case l.Offline || l.On == nil:
		b.WriteString("offline")
	case !*l.On:
		b.WriteString("off")
	default:
		b.WriteString("on " + strconv.Itoa(*l.Brightness) + "%")
		switch {
		case l.Effect != "":
			b.WriteString(", effect " + l.Effect)
		case l.Hex != "":
			b.WriteString(", #" + l.Hex)
		case l.Kelvin > 0:
			b.WriteString(", " + strconv.Itoa(l.Kelvin) + " K")
		}
	}
	return b.String()
}

// room is a room with its members (by name) and, when it has a presence
// sensor that answers, whether someone is there.
type room struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Occupied *bool    `json:"occupied,omitempty"`
	Members  []string `json:"members"`
}

var roomSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "occupied": boolean(""), "members": array("", str("")),
})

func roomOf(r service.RoomView) room {
	v := room{ID: r.ID, Name: r.Name, Occupied: r.Occupied, Members: make([]string, 0, len(r.Members))}
	for _, m := range r.Members {
		v.Members = append(v.Members, m.Name)
	}
	return v
}

// scene is a saved scene.
type scene struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Room string `json:"room,omitempty"`
}

var sceneSchema = open(map[string]schema{"id": str(""), "name": str(""), "room": str("")})

func sceneOf(sc service.SceneView) scene {
	return scene{ID: sc.ID, Name: sc.Name, Room: sc.Room}
}

// media is a media player with its live state.
type media struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Room      string   `json:"room,omitempty"`
	Offline   bool     `json:"offline,omitempty"`
	Power     *bool    `json:"power,omitempty"`
	Volume    *int     `json:"volume,omitempty"`
	Muted     bool     `json:"muted,omitempty"`
	Source    string   `json:"source,omitempty"`
	Transport string   `json:"transport,omitempty"`
	Playing   string   `json:"playing,omitempty"`
	Following string   `json:"following,omitempty"` // the speaker it plays in sync with
	Receiver  string   `json:"receiver,omitempty"`  // the receiver its volume goes to
	Sources   []string `json:"sources,omitempty"`
	Can       []string `json:"can,omitempty"`
	// position is how far into what plays, for the text ("1:23 of 3:45").
	position string
}

var mediaSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "room": str(""), "offline": boolean(""),
	"power": boolean(""), "volume": integer("", 1, 0), "muted": boolean(""), "source": str(""),
	"transport": str(""), "playing": str(""), "following": str("speaker id"), "receiver": str("receiver id"),
	"sources": array("", str("")), "can": array("", str("")),
})

// mediaAbilities name what a media player can do besides play.
var mediaAbilities = []string{"favorites", "cast", "group", "remote"}

// mediaOf is the player's view; sources (long for a receiver) only when
// asked for one player.
func mediaOf(m service.Media, sources bool) media {
	v := media{ID: string(m.ID), Name: m.Name, Room: m.Room, Offline: !m.Online || m.State == nil, Receiver: string(m.Receiver)}
	for i, can := range []bool{m.Favorites, m.Cast, m.Group, m.RemoteDevice} {
		if can {
			v.Can = append(v.Can, mediaAbilities[i])
		}
	}
	st := m.State
	if st == nil {
		return v
	}
	v.Power, v.Volume, v.Muted = &st.Power, &st.Volume, st.Muted
	v.Source, v.Transport, v.Following = st.Source, st.Transport, string(st.GroupCoordinator)
	v.Playing = nowPlaying(st.NowPlaying)
	if v.Playing != "" {
		v.position = positionText(m, time.Now())
	}
	if sources {
		v.Sources = st.Sources
	}
	return v
}

func nowPlaying(np *devices.NowPlaying) string {
	if np == nil || np.Title == "" {
		return ""
	}
	s := np.Title
	if np.Artist != "" {
		s += " – " + np.Artist
	}
	if np.App != "" {
		s += " (" + np.App + ")"
	}
	return s
}

// positionText is how far into what plays the player is at now: "1:23 of
// 3:45", or "12:34" in a stream without an end; "" when it does not say.
// The position read runs on while the transport plays.
func positionText(m service.Media, now time.Time) string {
	if m.PositionSecs == nil || m.PositionAt == nil || m.State == nil {
		return ""
	}
	pos := *m.PositionSecs
	if m.State.Transport == devices.TransportPlaying {
		pos += max(now.Sub(*m.PositionAt).Seconds(), 0)
	}
	if m.DurationSecs == nil {
		return clock(pos)
	}
	return clock(min(pos, *m.DurationSecs)) + " of " + clock(*m.DurationSecs)
}

// clock is a time in seconds as m:ss, or h:mm:ss from an hour.
func clock(secs float64) string {
	t := int(secs)
	if t >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
	}
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

// line says the player's state; withRoom names its room too.
func (m media) line(withRoom bool) string {
	var b strings.Builder
	b.WriteString(label(m.Name, m.Room, withRoom))
	switch {
	case m.Offline || m.Power == nil:
		b.WriteString("offline")
		return b.String()
	case !*m.Power:
		b.WriteString("off")
		return b.String()
	}
	b.WriteString("on, volume " + strconv.Itoa(*m.Volume))
	if m.Muted {
		b.WriteString(" (muted)")
	}
	if m.Source != "" {
		b.WriteString(", " + m.Source)
	}
	if m.Playing != "" {
		fmt.Fprintf(&b, ", %s %s", orDefault(m.Transport, "playing"), m.Playing)
	}
	if m.position != "" {
		b.WriteString(", " + m.position)
	}
	return b.String()
}

// power is a switch, plug or fan.
type power struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Room    string `json:"room,omitempty"`
	Kind    string `json:"kind"`
	Offline bool   `json:"offline,omitempty"`
	On      *bool  `json:"on,omitempty"`
	Speed   *int   `json:"speed,omitempty"` // a fan's, %
}

var powerSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "room": str(""), "kind": str(""),
	"offline": boolean(""), "on": boolean(""), "speed": {"type": "integer"},
})

func powerOf(p service.PowerView) power {
	return power{ID: string(p.ID), Name: p.Name, Room: p.Room, Kind: p.PowerKind, Offline: !p.Online || p.On == nil, On: p.On, Speed: p.Speed}
}

// line says whether the device is on; withRoom names its room too.
func (p power) line(withRoom bool) string {
	state := "offline"
	switch {
	case !p.Offline && p.Kind == devices.PowerButton:
		state = "ready to press"
	case !p.Offline && p.On != nil:
		state = onOff(*p.On)
		if *p.On && p.Speed != nil {
			state += fmt.Sprintf(", speed %d %%", *p.Speed)
		}
	}
	return label(p.Name+" ("+p.Kind+")", p.Room, withRoom) + state
}

// remote is a TV remote with the app in front and, when listed, the apps
// it can open.
type remote struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Room    string   `json:"room,omitempty"`
	Offline bool     `json:"offline,omitempty"`
	App     string   `json:"app,omitempty"`
	Apps    []string `json:"apps,omitempty"`
}

var remoteSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "room": str(""), "offline": boolean(""),
	"app": str("in front"), "apps": array("", str("")),
})

func remoteOf(r service.RemoteView, apps bool) remote {
	v := remote{ID: string(r.ID), Name: r.Name, Room: r.Room, Offline: !r.Online, App: r.CurrentApp}
	for _, a := range r.Apps {
		if a.ID == r.CurrentApp {
			v.App = a.Name
		}
		if apps {
			v.Apps = append(v.Apps, a.Name)
		}
	}
	return v
}

// line says which app is in front; withRoom names its room too.
func (r remote) line(withRoom bool) string {
	if r.Offline {
		return label(r.Name, r.Room, withRoom) + "offline"
	}
	s := label(r.Name, r.Room, withRoom) + orDefault(r.App, "no app") + " in front"
	if len(r.Apps) > 0 {
		s += "; apps: " + strings.Join(r.Apps, ", ")
	}
	return s
}

// sensor is a sensor with its readings.
type sensor struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Room     string    `json:"room,omitempty"`
	Offline  bool      `json:"offline,omitempty"`
	Readings []reading `json:"readings"`
	// History summarises each reading over the span list_sensors was
	// asked for (since).
	History *sensorHistory `json:"history,omitempty"`
}

// sensorHistory is a sensor's readings over a span, summarised.
type sensorHistory struct {
	Since      string          `json:"since"`
	Resolution string          `json:"resolution"` // raw, 5m or 1h
	Series     []seriesSummary `json:"series"`
}

// seriesSummary is one reading over the span: its least, greatest, mean,
// first and last value.
type seriesSummary struct {
	Type  string  `json:"type"`
	Unit  string  `json:"unit"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	First float64 `json:"first"`
	Last  float64 `json:"last"`
}

// historyOf summarises a history; series with no point are left out.
func historyOf(since string, h history.View) *sensorHistory {
	out := &sensorHistory{Since: since, Resolution: h.Resolution, Series: []seriesSummary{}}
	for _, s := range h.Series {
		if s.Min == nil {
			continue
		}
		out.Series = append(out.Series, seriesSummary{Type: s.Type, Unit: s.Unit,
			Min: round1(*s.Min), Max: round1(*s.Max), Mean: round1(*s.Mean), First: round1(*s.First), Last: round1(*s.Last)})
	}
	return out
}

// round1 rounds to a tenth, as people say readings.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// reading is one value: a state (true or false) for motion, occupancy and
// contact, a number with its unit otherwise.
type reading struct {
	Type  string   `json:"type"`
	State *bool    `json:"state,omitempty"`
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
}

var sensorSchema = open(map[string]schema{
	"id": str(""), "name": str(""), "room": str(""), "offline": boolean(""),
	"readings": array("", open(map[string]schema{
		"type": str(""), "state": boolean("contact: true = closed"), "value": number("", 1, 0), "unit": str(""),
	})),
})

func sensorOf(s service.SensorView) sensor {
	v := sensor{ID: string(s.ID), Name: s.Name, Room: s.Room, Offline: !s.Online, Readings: make([]reading, 0, len(s.Readings))}
	for _, r := range s.Readings {
		rd := reading{Type: r.Type, State: r.Bool}
		if r.Bool == nil {
			rd.Value, rd.Unit = &r.Value, r.Unit
		}
		v.Readings = append(v.Readings, rd)
	}
	return v
}

// line says the sensor's readings; withRoom names its room too.
func (s sensor) line(withRoom bool) string {
	if s.Offline {
		return label(s.Name, s.Room, withRoom) + "offline"
	}
	parts := make([]string, 0, len(s.Readings))
	for _, r := range s.Readings {
		switch {
		case r.State != nil:
			parts = append(parts, r.Type+" "+yesNo(*r.State))
		case r.Value != nil:
			parts = append(parts, strings.TrimSpace(r.Type+" "+strconv.FormatFloat(*r.Value, 'f', -1, 64)+" "+r.Unit))
		}
	}
	line := label(s.Name, s.Room, withRoom) + strings.Join(parts, ", ")
	if h := s.History; h != nil {
		var over []string
		for _, r := range h.Series {
			num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
			over = append(over, fmt.Sprintf("%s %s–%s %s (mean %s, first %s)", r.Type, num(r.Min), num(r.Max), r.Unit, num(r.Mean), num(r.First)))
		}
		if len(over) == 0 {
			over = []string{"nothing kept"}
		}
		line += "; since " + h.Since + ": " + strings.Join(over, ", ")
	}
	return line
}

// fanout is a write to several devices: which took it, which did not.
type fanout struct {
	Applied []string  `json:"applied"`
	Failed  []failure `json:"failed,omitempty"`
}

// failure is one device that did not take a write, and why.
type failure struct {
	Name  string `json:"name"`
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
	said  string // as a sentence that names the device once
}

var fanoutSchema = open(map[string]schema{
	"applied": array("", str("")),
	"failed":  array("", open(map[string]schema{"name": str(""), "error": str(""), "code": str("")})),
})

// fanoutOut is a fan-out's answer where set_room's schema already spelt
// it out.
var fanoutOut = told("applied, failed: as set_room")

func fanoutOf(r service.FanoutResult) fanout {
	v := fanout{Applied: make([]string, 0, len(r.Applied))}
	for _, o := range r.Applied {
		v.Applied = append(v.Applied, o.Name)
	}
	for _, o := range r.Failed {
		v.Failed = append(v.Failed, failure{Name: o.Name, Error: o.Error, Code: o.Code, said: o.Said()})
	}
	return v
}

// text says what a fan-out did, naming every failure.
func (f fanout) text(what string) string {
	if len(f.Applied) == 0 && len(f.Failed) == 0 {
		return what + ": nothing to change (no device was in a state to take it)"
	}
	s := fmt.Sprintf("%s: %d of %d applied", what, len(f.Applied), len(f.Applied)+len(f.Failed))
	if len(f.Applied) > 0 {
		s += " (" + strings.Join(f.Applied, ", ") + ")"
	}
	for _, x := range f.Failed {
		s += "; " + x.said
	}
	return s
}

// allFailed reports whether nothing took the write though something tried.
func (f fanout) allFailed() bool { return len(f.Applied) == 0 && len(f.Failed) > 0 }

// label starts a line: "Name: ", or "Name (Room): ".
func label(name, room string, withRoom bool) string {
	if withRoom && room != "" {
		return name + " (" + room + "): "
	}
	return name + ": "
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
