package voice

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// home is one read of the house, with every name as the words a person
// says it in.
type home struct {
	rooms  []*room
	things []*thing
	scenes []*scene
	byID   map[string]*thing
	apps   [][]string // the names of the TVs' apps, as words
	here   *room      // the room the command was said in, if known
}

type room struct {
	service.RoomView
	words []string
}

type scene struct {
	service.SceneView
	words []string
}

// thing is a device the grammar can name: a light, a media player, a
// power device or a sensor.
type thing struct {
	id, name, roomID string
	words            []string
	kind             devices.Kind
	light            *service.Light
	media            *service.Media
	power            *service.PowerView
	sensor           *service.SensorView
}

// isTV reports whether a thing is a TV.
func (t *thing) isTV() bool { return t.media != nil && t.media.Class == "tv" }

// read reads the house: the lists are the live model's, each read once,
// and the read is kept while the house's generation stands still (no
// state, name, room or scene has changed since). It is shared: nothing
// changes it after.
func (c *Commander) read(ctx context.Context) (*home, error) {
	if err := service.Authorize(ctx, service.ScopeRead); err != nil {
		return nil, err
	}
	gen := c.house.Generation()
	c.mu.Lock()
	if c.cached != nil && c.gen == gen {
		h := c.cached
		c.mu.Unlock()
		return h, nil
	}
	c.mu.Unlock()
	h, err := c.readNow(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.cached, c.gen = h, gen
	c.mu.Unlock()
	return h, nil
}

// readNow reads the house from the live model.
func (c *Commander) readNow(ctx context.Context) (*home, error) {
	var (
		rooms   []service.RoomView
		lights  []service.Light
		scenes  []service.SceneView
		media   []service.Media
		power   []service.PowerView
		sensors []service.SensorView
		remotes []service.RemoteView
		wg      sync.WaitGroup
		errs    [7]error
	)
	wg.Go(func() { rooms, errs[0] = c.house.ListRooms(ctx) })
	wg.Go(func() { lights, errs[1] = c.house.ListLights(ctx) })
	wg.Go(func() { scenes, errs[2] = c.house.ListScenes(ctx) })
	wg.Go(func() { media, errs[3] = c.house.ListMedia(ctx) })
	wg.Go(func() { power, errs[4] = c.house.ListPower(ctx) })
	wg.Go(func() { sensors, errs[5] = c.house.ListSensors(ctx) })
	wg.Go(func() { remotes, errs[6] = c.house.ListRemotes(ctx) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	h := &home{byID: map[string]*thing{}}
	for _, r := range rooms {
		h.rooms = append(h.rooms, &room{RoomView: r, words: nameWords(r.Name)})
	}
	for _, s := range scenes {
		h.scenes = append(h.scenes, &scene{SceneView: s, words: nameWords(s.Name)})
	}
	add := func(v service.DeviceView, t *thing) {
		if !v.Enabled || v.CompanionOf != "" {
			return
		}
		t.id, t.name, t.roomID, t.kind, t.words = string(v.ID), v.Name, v.RoomID, v.Kind, nameWords(v.Name)
		h.things = append(h.things, t)
		h.byID[t.id] = t
	}
	for i := range lights {
		add(lights[i].DeviceView, &thing{light: &lights[i]})
	}
	for i := range media {
		add(media[i].DeviceView, &thing{media: &media[i]})
	}
	for i := range power {
		add(power[i].DeviceView, &thing{power: &power[i]})
	}
	for i := range sensors {
		add(sensors[i].DeviceView, &thing{sensor: &sensors[i]})
	}
	for _, r := range remotes {
		for _, a := range r.Apps {
			h.apps = append(h.apps, nameWords(a.Name))
		}
	}
	return h, nil
}

// nameWords are a name's words, each in the form compared. Names are
// few and change rarely, so each is read once and remembered (the cache
// starts over past maxNames).
func nameWords(name string) []string {
	nameCache.Lock()
	defer nameCache.Unlock()
	if ws, ok := nameCache.m[name]; ok {
		return ws
	}
	ws := words(name)
	for i, w := range ws {
		ws[i] = stem(w)
	}
	if len(nameCache.m) >= maxNames {
		clear(nameCache.m)
	}
	nameCache.m[name] = ws
	return ws
}

const maxNames = 20000

var nameCache = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// stem is a word without a plural's s: "lights" and "light" compare equal.
func stem(w string) string {
	if irregular, ok := plurals[w]; ok {
		return irregular
	}
	if unstemmed[w] {
		return w
	}
	if len(w) > 3 && strings.HasSuffix(w, "es") && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes")) {
		return w[:len(w)-2]
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

var plurals = map[string]string{"tvs": "tv", "televisions": "television"}

// unstemmed are words that end in s without being plurals.
var unstemmed = map[string]bool{"this": true, "has": true, "does": true, "always": true, "news": true, "series": true,
	"plus": true, "status": true, "bus": true, "gas": true, "yes": true, "lens": true, "chaos": true, "canvas": true,
	"iris": true, "christmas": true, "sonos": true, "is": true, "was": true, "its": true, "us": true, "aurora": true,
	"previous": true, "minus": true, "less": true, "focus": true, "bonus": true, "campus": true, "atlas": true}

// stems is ws, each stemmed.
func stems(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

// roomOf is the room with the id.
func (h *home) roomOf(id string) *room {
	for _, r := range h.rooms {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// roomNamed is the room whose name is exactly ws, or nil.
func (h *home) roomNamed(ref string) *room {
	if ref == "" {
		return nil
	}
	for _, r := range h.rooms {
		if r.ID == ref || strings.EqualFold(r.Name, ref) {
			return r
		}
	}
	want := nameWords(ref)
	for _, r := range h.rooms {
		if slices.Equal(r.words, want) {
			return r
		}
	}
	return nil
}

// isApp reports whether words name an app of a TV of the house ("open
// netflix"), as the start of its name.
func (h *home) isApp(ws []string) bool {
	st := stems(ws)
	for _, a := range h.apps {
		if len(st) > 0 && len(st) <= len(a) && slices.Equal(a[:len(st)], st) {
			return true
		}
	}
	return false
}

// namesTV reports whether words name a TV: "the tv", "the living room tv".
func (h *home) namesTV(ws []string) bool {
	st := stems(ws)
	for _, w := range st {
		if w == "tv" || w == "television" || w == "telly" {
			return true
		}
	}
	for _, t := range h.things {
		if t.isTV() && index(st, t.words...) >= 0 {
			return true
		}
	}
	return false
}

// in are the things in a room.
func (h *home) in(r *room) []*thing {
	var out []*thing
	for _, t := range h.things {
		if t.roomID == r.ID {
			out = append(out, t)
		}
	}
	return out
}
