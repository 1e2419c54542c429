package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

// wantHome is every device of the simulated home: name → kind and room.
var wantHome = map[string]struct {
	kind devices.Kind
	room string
}{
	"Key Light":             {devices.KindLight, "Office"},
	"Fill Light":            {devices.KindLight, "Office"},
	"Desk Lamp":             {devices.KindLight, "Office"},
	"Ceiling Light":         {devices.KindLight, "Living Room"},
	"Bedside Lamp":          {devices.KindLight, "Bedroom"},
	"Rope Light":            {devices.KindLight, "Living Room"},
	"Living Room Sonos":     {devices.KindMedia, "Living Room"},
	"Kitchen Sonos":         {devices.KindMedia, "Kitchen"},
	"Onkyo Receiver":        {devices.KindMedia, "Living Room"},
	"Living Room TV":        {devices.KindMedia, "Living Room"},
	"Porch Switch":          {devices.KindPower, ""},
	"Desk Fan":              {devices.KindPower, "Office"},
	"Coffee Plug":           {devices.KindPower, "Kitchen"},
	"Office Motion":         {devices.KindSensor, "Office"},
	"Living Room Occupancy": {devices.KindSensor, "Living Room"},
	"Bedroom Temperature":   {devices.KindSensor, "Bedroom"},
}

func TestHomeHasExactlyTheListedDevices(t *testing.T) {
	h := mustHome(t)
	seen := map[string]bool{}
	ids := map[devices.ID]bool{}
	for _, d := range h.Devices() {
		info := d.Info()
		want, ok := wantHome[info.Name]
		if !ok {
			t.Errorf("unexpected device %q", info.Name)
			continue
		}
		if seen[info.Name] || ids[info.ID] {
			t.Errorf("%q listed twice", info.Name)
		}
		seen[info.Name], ids[info.ID] = true, true
		if info.Kind != want.kind || info.Room != want.room {
			t.Errorf("%s: kind %q room %q, want %q %q", info.Name, info.Kind, info.Room, want.kind, want.room)
		}
		if wantID := devices.ID("sim:" + sim.Slug(info.Name)); info.ID != wantID {
			t.Errorf("%s: id %q, want %q", info.Name, info.ID, wantID)
		}
		if info.Adapter != "sim" || info.Model == "" || strings.HasPrefix(info.Model, "Simulated") {
			t.Errorf("%s: adapter %q model %q", info.Name, info.Adapter, info.Model)
		}
		if !d.Online() {
			t.Errorf("%s starts offline", info.Name)
		}
	}
	if len(seen) != len(wantHome) {
		t.Errorf("home has %d of the %d devices", len(seen), len(wantHome))
	}
	if h.Light("sim:key-light") == nil || h.Light("sim:key-light").Info().Model != "Neewer RGB660 PRO" {
		t.Error("sim:key-light is not the Neewer RGB660 PRO")
	}
}

func TestHomeUsesEveryRoom(t *testing.T) {
	h := mustHome(t)
	rooms := h.Rooms()
	if want := []string{"Living Room", "Office", "Bedroom", "Kitchen"}; !slices.Equal(rooms, want) {
		t.Fatalf("rooms = %v, want %v", rooms, want)
	}
	for _, room := range rooms {
		if !slices.ContainsFunc(h.Devices(), func(d devices.Device) bool { return d.Info().Room == room }) {
			t.Errorf("no device in %s", room)
		}
	}
	for _, d := range h.Devices() {
		if r := d.Info().Room; r != "" && !slices.Contains(rooms, r) {
			t.Errorf("%s is in unknown room %q", d.Info().Name, r)
		}
	}
}

func TestHomeCapabilities(t *testing.T) {
	h := mustHome(t)
	caps := map[string]devices.LightCaps{}
	for _, d := range h.Devices() {
		if l, ok := d.(devices.Light); ok {
			caps[d.Info().Name] = l.LightCaps()
		}
	}
	key := caps["Key Light"]
	if !key.Dimmable || !key.Color || key.Gamut != "" || key.KelvinMin != 3200 || key.KelvinMax != 5600 || len(key.Effects) != 17 {
		t.Errorf("Key Light caps = %+v", key)
	}
	if fill := caps["Fill Light"]; fill.Color || len(fill.Effects) > 0 || fill.KelvinMin != 3200 || fill.KelvinMax != 5600 {
		t.Errorf("Fill Light caps = %+v", fill)
	}
	if desk := caps["Desk Lamp"]; !desk.Color || desk.Gamut != "C" || desk.KelvinMin != 2000 || desk.KelvinMax != 6500 || len(desk.Effects) > 0 {
		t.Errorf("Desk Lamp caps = %+v", desk)
	}
	if ceil := caps["Ceiling Light"]; !ceil.Color || ceil.Gamut != "C" || ceil.KelvinMin != 2200 || ceil.KelvinMax != 6500 {
		t.Errorf("Ceiling Light caps = %+v", ceil)
	}
	if bed := caps["Bedside Lamp"]; !bed.Dimmable || bed.Color || bed.KelvinMin != 2200 || bed.KelvinMax != 4000 {
		t.Errorf("Bedside Lamp caps = %+v", bed)
	}
	rope := caps["Rope Light"]
	if !rope.Color || rope.Gamut != "" || rope.HasTemperature() || len(rope.Effects) < 30 || rope.Segments != 15 {
		t.Errorf("Rope Light caps = %+v", rope)
	}
	for name, c := range caps {
		if name != "Rope Light" && c.Segments != 0 {
			t.Errorf("%s has %d segments; only the rope light has any", name, c.Segments)
		}
	}
	for name, c := range caps {
		if len(c.Effects) != len(uniqueFold(c.Effects)) {
			t.Errorf("%s has duplicate effects", name)
		}
	}
	kinds := map[string]string{}
	for _, d := range h.Devices() {
		if p, ok := d.(devices.PowerDevice); ok {
			kinds[d.Info().Name] = p.PowerKind()
		}
	}
	if kinds["Porch Switch"] != devices.PowerSwitch || kinds["Desk Fan"] != devices.PowerFan || kinds["Coffee Plug"] != devices.PowerOutlet {
		t.Errorf("power kinds = %v", kinds)
	}
}

func uniqueFold(ss []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[strings.ToLower(s)] = true
	}
	return m
}

func TestHomeInterfaces(t *testing.T) {
	h := mustHome(t)
	tv := devices.Device(h.TV("sim:living-room-tv"))
	if _, ok := tv.(devices.Remote); !ok {
		t.Error("the TV is not a remote")
	}
	if _, ok := tv.(devices.Caster); !ok {
		t.Error("the TV is not a caster")
	}
	for _, id := range []devices.ID{"sim:living-room-sonos", "sim:kitchen-sonos"} {
		d := devices.Device(h.Speaker(id))
		_, fav := d.(devices.FavoritePlayer)
		_, grp := d.(devices.Grouper)
		_, cst := d.(devices.Caster)
		if !fav || !grp || !cst {
			t.Errorf("%s: favourites %v, grouper %v, caster %v", id, fav, grp, cst)
		}
	}
	recv := devices.Device(h.Receiver("sim:onkyo-receiver"))
	if _, ok := recv.(devices.Grouper); ok {
		t.Error("the receiver groups")
	}
}

func TestHomeInitialStatesVary(t *testing.T) {
	h := mustHome(t)
	on, off := 0, 0
	modes := map[string]bool{}
	for _, d := range h.Devices() {
		l, ok := d.(*sim.Light)
		if !ok {
			continue
		}
		s := l.State()
		if s.On {
			on++
		} else {
			off++
		}
		modes[s.Mode] = true
	}
	if on == 0 || off == 0 || len(modes) < 3 {
		t.Errorf("lights: %d on, %d off, modes %v", on, off, modes)
	}
	if !h.Switch("sim:coffee-plug").On() || h.Switch("sim:porch-switch").On() {
		t.Error("Coffee Plug should start on and the Porch Switch off")
	}
}

func TestHomeLookups(t *testing.T) {
	h := mustHome(t)
	if h.Light("sim:kitchen-sonos") != nil || h.Speaker("sim:nope") != nil || h.Sensor("sim:key-light") != nil {
		t.Error("a lookup found the wrong kind")
	}
	if h.Receiver("sim:onkyo-receiver") == nil || h.Switch("sim:desk-fan") == nil || h.Sensor("sim:bedroom-temperature") == nil {
		t.Error("a lookup missed a device")
	}
}

func TestHomeRegister(t *testing.T) {
	h, r, c := registered(t)
	if got := len(r.List()); got != len(h.Devices()) {
		t.Fatalf("registry has %d devices, want %d", got, len(h.Devices()))
	}
	mustOK(t, h.Trip("sim:office-motion"))
	if c.count("sim:office-motion") != 1 {
		t.Error("Trip did not tell the registry")
	}
	rs := h.Sensor("sim:office-motion").Current()
	if p, ok := rs[0].Presence(); !ok || !p {
		t.Errorf("after Trip readings = %+v", rs)
	}
	wantErr(t, h.Trip("sim:bedroom-temperature"), devices.ErrInvalid)
	wantErr(t, h.Trip("sim:key-light"), devices.ErrInvalid)
	h.Switch("sim:porch-switch").Toggle()
	h.Light("sim:key-light").SetUnreachable(true)
	h.Light("sim:key-light").SetUnreachable(true)
	if c.count("sim:porch-switch") != 1 || c.count("sim:key-light") != 1 {
		t.Errorf("changes = %v", c.ids)
	}
}

func TestHomeSetLatency(t *testing.T) {
	h := mustHome(t)
	h.SetLatency(20 * time.Millisecond)
	start := time.Now()
	_, err := h.Light("sim:key-light").LightState(bg)
	mustOK(t, err)
	if time.Since(start) < 20*time.Millisecond {
		t.Error("SetLatency did not slow the home")
	}
}

func TestRunDriftsAndStops(t *testing.T) {
	h, _, c := registered(t)
	h.SetTick(time.Millisecond)
	before := h.Sensor("sim:bedroom-temperature").Current()
	h.Sensor("sim:living-room-occupancy").SetUnreachable(true)
	n := c.total()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error)
	go func() { done <- h.Run(ctx) }()
	deadline := time.Now().Add(2 * time.Second)
	for c.count("sim:bedroom-temperature") < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		mustOK(t, err)
	case <-time.After(time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if c.count("sim:bedroom-temperature") < 20 {
		t.Fatalf("temperature moved %d times", c.count("sim:bedroom-temperature"))
	}
	if c.count("sim:living-room-occupancy") != 1 || c.total() <= n {
		t.Errorf("unreachable occupancy sensor changed: %d notices", c.count("sim:living-room-occupancy"))
	}
	after := h.Sensor("sim:bedroom-temperature").Current()
	for i, r := range after {
		if r.Value < 17 || r.Value > 65 || r.Unit != before[i].Unit || !r.Updated.After(before[i].Updated) {
			t.Errorf("reading %+v after %+v", r, before[i])
		}
	}
	if temp := after[0].Value; temp < 17 || temp > 25 {
		t.Errorf("temperature wandered to %v", temp)
	}
}
