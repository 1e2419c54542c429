// Package homeview is the house read at once: every list of the home,
// narrowed to a room, a kind or what is on, or summed up per room for a
// house too big to read whole. It is built over the service's own lists
// (each checks that the caller may read), so the service keeps the rules
// and this package only puts the lists together.
package homeview

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// SummaryThreshold is how many devices a house may have and still be
// answered in full by default: a bigger house, asked for nothing narrower,
// is answered with a summary per room, short enough for an assistant to
// read before every command.
const SummaryThreshold = 60

// summaryNames bounds the devices a room summary names in one list (the
// offline, the playing); the rest are counted.
const summaryNames = 10

// Query narrows the snapshot Read answers. The zero value asks for the
// default: the whole house, summarised if it is bigger than
// SummaryThreshold.
type Query struct {
	// Room keeps one room (an id or a name, resolved as every target is):
	// its devices and its scenes.
	Room string
	// Kind keeps the devices of one kind (light, media, power, remote,
	// sensor).
	Kind devices.Kind
	// OnlyOn keeps what is on: lit lights, media players that are on or
	// playing, power devices that are on, TVs with an app in front, and
	// sensors that sense someone.
	OnlyOn bool
	// Detail asks for every device even in a big house.
	Detail bool
}

// narrows reports whether q asks for part of the house.
func (q Query) narrows() bool { return q.Room != "" || q.Kind != "" || q.OnlyOn }

// View is what Read answers: the snapshot, narrowed as asked (Home), or,
// for a big house asked for nothing narrower, its summary (Summary).
// Exactly one is set, so the encoded view is either the snapshot's lists
// or {"summary": …}.
type View struct {
	*service.Home
	Summary *Summary `json:"summary,omitempty"`
}

// Summary is the house in one record per room.
type Summary struct {
	Devices int           `json:"devices"`
	Rooms   []RoomSummary `json:"rooms"`
	// NoRoom sums the devices in no room; nil when every device has one.
	NoRoom *RoomSummary `json:"no_room,omitempty"`
	// Scenes are the names of the home scenes (a room's are with it).
	Scenes []string `json:"scenes,omitempty"`
}

// RoomSummary counts one room's devices by what they are doing.
type RoomSummary struct {
	ID       string       `json:"id,omitempty"`
	Name     string       `json:"name,omitempty"`
	Devices  int          `json:"devices"`
	Occupied *bool        `json:"occupied,omitempty"` // nil without a presence sensor that answers
	Lights   *LightCounts `json:"lights,omitempty"`
	Power    *OnOff       `json:"power,omitempty"`
	Media    *OnOff       `json:"media,omitempty"`
	// Playing names the media players that play, and what (at most
	// summaryNames; MorePlaying counts the rest).
	Playing     []Playing `json:"playing,omitempty"`
	MorePlaying int       `json:"more_playing,omitempty"`
	// Offline names the devices that do not answer (at most summaryNames;
	// MoreOffline counts the rest).
	Offline     []string `json:"offline,omitempty"`
	MoreOffline int      `json:"more_offline,omitempty"`
	Scenes      []string `json:"scenes,omitempty"` // names of the room's scenes
}

// OnOff counts devices that are on, off, and not answering.
type OnOff struct {
	On      int `json:"on"`
	Off     int `json:"off"`
	Offline int `json:"offline,omitempty"`
}

// LightCounts counts lights, with the range of the lit ones' brightness.
type LightCounts struct {
	OnOff
	// Brightness is [lowest, highest] in percent of the lit lights;
	// absent when none is lit.
	Brightness []int `json:"brightness,omitempty"`
}

// Playing is a media player that plays, and what.
type Playing struct {
	ID         devices.ID          `json:"id"`
	Name       string              `json:"name"`
	NowPlaying *devices.NowPlaying `json:"now_playing,omitempty"`
}

// House is what the read needs of the home: its lists, each of which
// checks that the caller may read (*service.Service is one).
type House interface {
	ListRooms(context.Context) ([]service.RoomView, error)
	ListLights(context.Context) ([]service.Light, error)
	ListScenes(context.Context) ([]service.SceneView, error)
	ListMedia(context.Context) ([]service.Media, error)
	ListPower(context.Context) ([]service.PowerView, error)
	ListRemotes(context.Context) ([]service.RemoteView, error)
	ListSensors(context.Context) ([]service.SensorView, error)
}

// Read returns house as q asks: every list, narrowed to a room, a kind or
// what is on, or for a big house asked for nothing narrower a summary per
// room. The lists are read in parallel.
func Read(ctx context.Context, house House, q Query) (View, error) {
	if err := service.Authorize(ctx, service.ScopeRead); err != nil {
		return View{}, err
	}
	kind, err := homeKind(q.Kind)
	if err != nil {
		return View{}, err
	}
	h, err := readHome(ctx, house)
	if err != nil {
		return View{}, err
	}
	if !q.narrows() && !q.Detail && countDevices(h) > SummaryThreshold {
		return View{Summary: summarize(h)}, nil
	}
	h, err = narrow(h, q, kind)
	if err != nil {
		return View{}, err
	}
	return View{Home: &h}, nil
}

// narrow keeps the part of h that q asks for (kind checked already).
func narrow(h service.Home, q Query, kind devices.Kind) (service.Home, error) {
	if q.Room != "" {
		r, err := service.Resolve("room", q.Room, h.Rooms, func(r service.RoomView) string { return r.ID }, func(r service.RoomView) string { return r.Name })
		if err != nil {
			return service.Home{}, asArgument("room", err)
		}
		h = inRoom(h, r)
	}
	if kind != "" || q.OnlyOn {
		h = narrowHome(h, func(k devices.Kind, d homeDevice) bool { return (kind == "" || k == kind) && (!q.OnlyOn || d.on) })
		h.Rooms = keptRooms(h, q.Room != "")
	}
	return h, nil
}

// readHome reads every list of the house.
func readHome(ctx context.Context, house House) (service.Home, error) {
	var h service.Home
	var mu sync.Mutex
	var first error
	keep := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && first == nil {
			first = err
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { var err error; h.Rooms, err = house.ListRooms(ctx); keep(err) })
	wg.Go(func() { var err error; h.Lights, err = house.ListLights(ctx); keep(err) })
	wg.Go(func() { var err error; h.Scenes, err = house.ListScenes(ctx); keep(err) })
	wg.Go(func() { var err error; h.Media, err = house.ListMedia(ctx); keep(err) })
	wg.Go(func() { var err error; h.Power, err = house.ListPower(ctx); keep(err) })
	wg.Go(func() { var err error; h.Remotes, err = house.ListRemotes(ctx); keep(err) })
	wg.Go(func() { var err error; h.Sensors, err = house.ListSensors(ctx); keep(err) })
	wg.Wait()
	return h, first
}

// homeKind checks a kind asked for (any case); "" asks for every kind.
func homeKind(k devices.Kind) (devices.Kind, error) {
	k = devices.Kind(strings.ToLower(strings.TrimSpace(string(k))))
	if k == "" || slices.Contains(devices.Kinds, k) {
		return k, nil
	}
	opts := make([]string, 0, len(devices.Kinds))
	for _, v := range devices.Kinds {
		opts = append(opts, string(v))
	}
	return "", service.Errorf(service.EINVALID, "kind %q is not a kind of device; valid: %s", k, strings.Join(opts, ", ")).
		With("field", "kind").With("options", opts)
}

// asArgument makes a failed lookup of a filter's value an invalid
// argument naming the field: the house is there, the value is wrong.
func asArgument(field string, err error) error {
	var e *service.Error
	if !errors.As(err, &e) {
		return err
	}
	return (&service.Error{Code: service.EINVALID, Message: e.Message, Details: e.Details}).With("field", field)
}

// homeDevice is what the filters and the summary need of a device in any
// of the lists.
type homeDevice struct {
	view       service.DeviceView
	offline    bool
	on         bool // lit, on or playing, showing an app, sensing someone
	brightness int  // a light's
}

func lightDevice(l service.Light) homeDevice {
	d := homeDevice{view: l.DeviceView, offline: !l.Online || l.State == nil}
	if !d.offline {
		d.on, d.brightness = l.State.On, l.State.Brightness
	}
	return d
}

func mediaDevice(m service.Media) homeDevice {
	d := homeDevice{view: m.DeviceView, offline: !m.Online || m.State == nil}
	d.on = !d.offline && (m.State.Power || m.State.Transport == devices.TransportPlaying)
	return d
}

func powerDevice(p service.PowerView) homeDevice {
	d := homeDevice{view: p.DeviceView, offline: !p.Online || p.On == nil}
	d.on = !d.offline && *p.On
	return d
}

func remoteDevice(r service.RemoteView) homeDevice {
	return homeDevice{view: r.DeviceView, offline: !r.Online, on: r.Online && r.CurrentApp != ""}
}

func sensorDevice(sn service.SensorView) homeDevice {
	senses := slices.ContainsFunc(sn.Readings, func(r devices.Reading) bool { p, ok := r.Presence(); return ok && p })
	return homeDevice{view: sn.DeviceView, offline: !sn.Online, on: sn.Online && senses}
}

// eachDevice calls fn for every device of h, list by list (a TV is a
// media player and a remote, so it comes twice).
func eachDevice(h service.Home, fn func(devices.Kind, homeDevice)) {
	for _, l := range h.Lights {
		fn(devices.KindLight, lightDevice(l))
	}
	for _, m := range h.Media {
		fn(devices.KindMedia, mediaDevice(m))
	}
	for _, p := range h.Power {
		fn(devices.KindPower, powerDevice(p))
	}
	for _, r := range h.Remotes {
		fn(devices.KindRemote, remoteDevice(r))
	}
	for _, sn := range h.Sensors {
		fn(devices.KindSensor, sensorDevice(sn))
	}
}

// countDevices counts the devices of h, each once.
func countDevices(h service.Home) int {
	seen := map[devices.ID]bool{}
	eachDevice(h, func(_ devices.Kind, d homeDevice) { seen[d.view.ID] = true })
	return len(seen)
}

// narrowHome keeps the devices of h that ok keeps, in every list.
func narrowHome(h service.Home, ok func(devices.Kind, homeDevice) bool) service.Home {
	h.Lights = kept(h.Lights, devices.KindLight, lightDevice, ok)
	h.Media = kept(h.Media, devices.KindMedia, mediaDevice, ok)
	h.Power = kept(h.Power, devices.KindPower, powerDevice, ok)
	h.Remotes = kept(h.Remotes, devices.KindRemote, remoteDevice, ok)
	h.Sensors = kept(h.Sensors, devices.KindSensor, sensorDevice, ok)
	return h
}

// kept is the items of kind k that ok keeps, in a new slice.
func kept[T any](items []T, k devices.Kind, dev func(T) homeDevice, ok func(devices.Kind, homeDevice) bool) []T {
	out := make([]T, 0, len(items))
	for _, it := range items {
		if ok(k, dev(it)) {
			out = append(out, it)
		}
	}
	return out
}

// inRoom narrows h to room r: its devices and its scenes.
func inRoom(h service.Home, r service.RoomView) service.Home {
	h = narrowHome(h, func(_ devices.Kind, d homeDevice) bool { return d.view.RoomID == r.ID })
	h.Rooms = []service.RoomView{r}
	h.Scenes = slices.DeleteFunc(slices.Clone(h.Scenes), func(sc service.SceneView) bool { return sc.RoomID != r.ID })
	return h
}

// keptRooms narrows each room's members to the devices h still lists and
// leaves out the rooms left empty (but the room asked for, always kept).
func keptRooms(h service.Home, asked bool) []service.RoomView {
	listed := map[devices.ID]bool{}
	eachDevice(h, func(_ devices.Kind, d homeDevice) { listed[d.view.ID] = true })
	out := make([]service.RoomView, 0, len(h.Rooms))
	for _, r := range h.Rooms {
		r.Members = slices.DeleteFunc(slices.Clone(r.Members), func(m service.DeviceView) bool { return !listed[m.ID] })
		if len(r.Members) > 0 || asked {
			out = append(out, r)
		}
	}
	return out
}

// summarize counts h room by room; the devices in no room are counted
// apart, and the home scenes listed apart from the rooms' own.
func summarize(h service.Home) *Summary {
	byRoom := make(map[string]*roomTally, len(h.Rooms))
	for _, r := range h.Rooms {
		byRoom[r.ID] = newTally(RoomSummary{ID: r.ID, Name: r.Name, Occupied: r.Occupied})
	}
	loose := newTally(RoomSummary{})
	tallyOf := func(roomID string) *roomTally {
		if t, ok := byRoom[roomID]; ok {
			return t
		}
		return loose
	}
	eachDevice(h, func(k devices.Kind, d homeDevice) { tallyOf(d.view.RoomID).add(k, d) })
	for _, m := range h.Media {
		if m.Online && m.State != nil && m.State.Power && m.State.Transport == devices.TransportPlaying {
			tallyOf(m.RoomID).play(m)
		}
	}
	sum := &Summary{Devices: countDevices(h), Rooms: make([]RoomSummary, 0, len(h.Rooms))}
	for _, sc := range h.Scenes {
		if t, ok := byRoom[sc.RoomID]; ok {
			t.Scenes = append(t.Scenes, sc.Name)
		} else {
			sum.Scenes = append(sum.Scenes, sc.Name)
		}
	}
	for _, r := range h.Rooms {
		sum.Rooms = append(sum.Rooms, byRoom[r.ID].done())
	}
	if len(loose.seen) > 0 {
		rest := loose.done()
		sum.NoRoom = &rest
	}
	return sum
}

// roomTally is a room's summary being counted.
type roomTally struct {
	RoomSummary
	seen    map[devices.ID]bool
	offline map[devices.ID]bool
}

func newTally(r RoomSummary) *roomTally {
	return &roomTally{RoomSummary: r, seen: map[devices.ID]bool{}, offline: map[devices.ID]bool{}}
}

// add counts one device, listed as kind k.
func (t *roomTally) add(k devices.Kind, d homeDevice) {
	t.seen[d.view.ID] = true
	if d.offline && !t.offline[d.view.ID] {
		t.offline[d.view.ID] = true
		t.Offline = appendNamed(t.Offline, &t.MoreOffline, d.view.Name)
	}
	switch k {
	case devices.KindLight:
		if t.Lights == nil {
			t.Lights = &LightCounts{}
		}
		t.Lights.OnOff.add(d)
		if !d.offline && d.on {
			t.Lights.lit(d.brightness)
		}
	case devices.KindMedia:
		t.Media = t.Media.with(d)
	case devices.KindPower:
		t.Power = t.Power.with(d)
	}
}

// add counts d.
func (c *OnOff) add(d homeDevice) {
	switch {
	case d.offline:
		c.Offline++
	case d.on:
		c.On++
	default:
		c.Off++
	}
}

// with is c (a new count when nil) with d counted.
func (c *OnOff) with(d homeDevice) *OnOff {
	if c == nil {
		c = &OnOff{}
	}
	c.add(d)
	return c
}

// lit widens the brightness range to b.
func (c *LightCounts) lit(b int) {
	if c.Brightness == nil {
		c.Brightness = []int{b, b}
		return
	}
	c.Brightness[0], c.Brightness[1] = min(c.Brightness[0], b), max(c.Brightness[1], b)
}

// play names a player that plays.
func (t *roomTally) play(m service.Media) {
	if len(t.Playing) == summaryNames {
		t.MorePlaying++
		return
	}
	t.Playing = append(t.Playing, Playing{ID: m.ID, Name: m.Name, NowPlaying: m.State.NowPlaying})
}

// appendNamed adds name to names, or counts it in more once names is full.
func appendNamed(names []string, more *int, name string) []string {
	if len(names) == summaryNames {
		*more++
		return names
	}
	return append(names, name)
}

// done is the finished summary.
func (t *roomTally) done() RoomSummary {
	t.Devices = len(t.seen)
	return t.RoomSummary
}
