package hass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

// A house in Home Assistant, as get_states and the registries give it.
func house() (states []hasstest.State, areas, devs, ents []map[string]any) {
	st := func(id, state string, attrs map[string]any) hasstest.State {
		return hasstest.State{EntityID: id, State: state, Attributes: attrs}
	}
	states = []hasstest.State{
		st("light.kitchen", "on", map[string]any{
			"friendly_name": "Kitchen Ceiling", "supported_color_modes": []string{"color_temp", "xy"},
			"color_mode": "color_temp", "brightness": 128, "color_temp_kelvin": 2700,
			"min_color_temp_kelvin": 2202, "max_color_temp_kelvin": 6535, "effect_list": []string{"colorloop", "random"},
			"supported_features": 44}),
		st("light.hall", "off", map[string]any{"friendly_name": "Hall", "supported_color_modes": []string{"hs"}}),
		st("light.strip", "on", map[string]any{"friendly_name": "Strip", "supported_color_modes": []string{"rgb"},
			"color_mode": "rgb", "brightness": 255, "rgb_color": []int{255, 0, 0}, "xy_color": []float64{0.701, 0.299}}),
		st("light.porch", "on", map[string]any{"friendly_name": "Porch", "supported_color_modes": []string{"onoff"}}),
		st("switch.coffee", "off", map[string]any{"friendly_name": "Coffee Machine", "device_class": "outlet"}),
		st("input_boolean.guests", "on", map[string]any{"friendly_name": "Guests"}),
		st("fan.bedroom", "off", map[string]any{"friendly_name": "Bedroom Fan", "percentage": 0, "percentage_step": 33.333333333333336, "supported_features": 1}),
		st("media_player.living_room", "playing", map[string]any{
			"friendly_name": "Living Room Sonos", "device_class": "speaker", "volume_level": 0.25, "is_volume_muted": false,
			"source": "TV", "source_list": []string{"TV", "Line-in"}, "media_title": "Blue in Green", "media_artist": "Miles Davis",
			"media_album_name": "Kind of Blue", "group_members": []string{"media_player.living_room"},
			"supported_features": mpPause | mpVolumeSet | mpVolumeMute | mpPrevious | mpNext | mpPlayMedia | mpSelectSource |
				mpStop | mpPlay | mpGrouping}),
		st("media_player.kitchen", "idle", map[string]any{"friendly_name": "Kitchen Sonos", "volume_level": 0.1,
			"group_members":      []string{"media_player.kitchen"},
			"supported_features": mpPause | mpVolumeSet | mpPlay | mpGrouping | mpPlayMedia}),
		st("media_player.radio", "off", map[string]any{"friendly_name": "Kitchen Radio", "supported_features": mpTurnOn | mpTurnOff}),
		st("remote.living_room_tv", "on", map[string]any{"friendly_name": "Living Room TV",
			"activity_list": []string{"com.netflix.ninja", "com.google.android.youtube.tv"}, "current_activity": "com.netflix.ninja"}),
		st("sensor.office_temperature", "68.9", map[string]any{"friendly_name": "Office Temperature",
			"device_class": "temperature", "unit_of_measurement": "°F", "state_class": "measurement"}),
		st("sensor.heater_power", "1.5", map[string]any{"friendly_name": "Heater Power", "device_class": "power", "unit_of_measurement": "kW"}),
		st("sensor.heater_energy", "2500", map[string]any{"friendly_name": "Heater Energy", "device_class": "energy", "unit_of_measurement": "Wh"}),
		st("sensor.office_humidity", "unknown", map[string]any{"friendly_name": "Office Humidity", "device_class": "humidity", "unit_of_measurement": "%"}),
		st("sensor.pressure", "1013", map[string]any{"friendly_name": "Pressure", "device_class": "pressure", "unit_of_measurement": "hPa"}),
		st("binary_sensor.hall_motion", "off", map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}),
		st("binary_sensor.front_door", "on", map[string]any{"friendly_name": "Front Door", "device_class": "door"}),
		st("cover.garage", "closed", map[string]any{"friendly_name": "Garage Door"}),
		st("weather.home", "sunny", map[string]any{"friendly_name": "Home"}),
	}
	areas = []map[string]any{
		{"area_id": "kitchen", "name": "Kitchen"}, {"area_id": "living_room", "name": "Living Room"}, {"area_id": "office", "name": "Office"},
	}
	devs = []map[string]any{
		{"id": "dev-sonos", "name": "Living Room", "area_id": "living_room", "manufacturer": "Sonos", "model": "Arc",
			"identifiers": [][]string{{"sonos", "RINCON_48A6B8E0A1B201400"}}, "connections": [][]string{{"mac", "48:A6:B8:E0:A1:B2"}}},
		{"id": "dev-hue", "name": "Kitchen Ceiling", "area_id": "kitchen", "manufacturer": "Signify", "model": "Hue White and Color",
			"identifiers": [][]string{{"hue", "00:17:88:01:0b:aa:bb:cc-0b"}}, "connections": [][]string{}},
		{"id": "dev-tv", "name": "TV", "area_id": "living_room", "manufacturer": "Google", "model": "Chromecast",
			"identifiers": [][]string{}, "connections": [][]string{{"mac", "a4:5e:60:c2:11:09"}}},
	}
	ents = []map[string]any{
		{"entity_id": "media_player.living_room", "device_id": "dev-sonos", "area_id": nil, "platform": "sonos"},
		{"entity_id": "light.kitchen", "device_id": "dev-hue", "area_id": nil, "platform": "hue"},
		{"entity_id": "remote.living_room_tv", "device_id": "dev-tv", "area_id": nil, "platform": "androidtv_remote"},
		{"entity_id": "sensor.office_temperature", "device_id": nil, "area_id": "office", "platform": "template"},
	}
	return
}

// bridge runs an Adapter against srv with a real registry.
type bridge struct {
	srv *hasstest.Server
	reg *devices.Registry
	ad  *Adapter
	log *bytes.Buffer

	mu      sync.Mutex
	changes []devices.Change
	changed chan struct{}
}

func newBridge(t *testing.T, srv *hasstest.Server, tok string) *bridge {
	t.Helper()
	b := &bridge{srv: srv, reg: devices.NewRegistry(timeout), log: &bytes.Buffer{}, changed: make(chan struct{})}
	b.reg.Subscribe(func(c devices.Change) {
		b.mu.Lock()
		b.changes = append(b.changes, c)
		close(b.changed)
		b.changed = make(chan struct{})
		b.mu.Unlock()
	})
	ad, err := NewAdapter(b.reg, AdapterConfig{URL: srv.URL(), Token: tok, Logger: slog.New(slog.NewTextHandler(syncWriter{b}, nil)),
		MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, PingInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	b.ad = ad
	done := make(chan error, 1)
	go func() { done <- ad.Run(context.Background()) }()
	t.Cleanup(func() {
		ad.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return b
}

type syncWriter struct{ b *bridge }

func (w syncWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return w.b.log.Write(p)
}

func (b *bridge) logText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.String()
}

// until waits for cond, re-checking at every registry change and every
// sync, and fails the test at the deadline.
func (b *bridge) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		_, synced := b.ad.Synced()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-synced:
		case <-time.After(10 * time.Millisecond): // the fake's side (auth counts) changes without a registry change
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// started serves the house, connects, and waits for the first sync.
func started(t *testing.T) *bridge {
	t.Helper()
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	states, areas, devs, ents := house()
	srv.SetStates(states...)
	srv.SetRegistries(areas, devs, ents)
	srv.ServeLikeHA()
	b := newBridge(t, srv, token)
	b.until(t, "the first sync", func() bool { n, _ := b.ad.Synced(); return n >= 1 })
	return b
}

func get[T any](t *testing.T, b *bridge, id string) T {
	t.Helper()
	d, ok := b.reg.Get(devices.ID("hass:" + id))
	if !ok {
		t.Fatalf("hass:%s is not registered", id)
	}
	v, ok := d.(T)
	if !ok {
		var zero T
		t.Fatalf("hass:%s is a %T, not a %T", id, d, zero)
	}
	return v
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// lastCall is the last call_service the fake received, decoded.
func lastCall(t *testing.T, srv *hasstest.Server) map[string]any {
	t.Helper()
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("no call_service received")
	}
	var m map[string]any
	if err := json.Unmarshal(calls[len(calls)-1], &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "id")
	return m
}

func wantCall(t *testing.T, srv *hasstest.Server, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if got := lastCall(t, srv); !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Fatalf("call_service:\n got %s\nwant %s", g, want)
	}
}

func TestEntitiesBecomeDevices(t *testing.T) {
	b := started(t)
	kinds := map[string]devices.Kind{
		"light.kitchen": devices.KindLight, "light.hall": devices.KindLight, "switch.coffee": devices.KindPower,
		"input_boolean.guests": devices.KindPower, "fan.bedroom": devices.KindPower, "media_player.living_room": devices.KindMedia,
		"remote.living_room_tv": devices.KindRemote, "sensor.office_temperature": devices.KindSensor,
		"sensor.heater_power": devices.KindSensor, "sensor.heater_energy": devices.KindSensor,
		"binary_sensor.hall_motion": devices.KindSensor, "binary_sensor.front_door": devices.KindSensor,
		"sensor.pressure": devices.KindOther, "cover.garage": devices.KindOther, "weather.home": devices.KindOther,
	}
	for id, k := range kinds {
		d, ok := b.reg.Get(devices.ID("hass:" + id))
		if !ok {
			t.Errorf("%s not registered", id)
			continue
		}
		if got := d.Info(); got.Kind != k || got.Adapter != "hass" || !d.Online() {
			t.Errorf("%s: %+v online=%v, want kind %s", id, got, d.Online(), k)
		}
	}
	if n := len(b.reg.List()); n != 20 {
		t.Errorf("%d devices registered, want 20", n)
	}

	// Names, areas (the entity's own, else its device's) and models.
	kitchen := get[*light](t, b, "light.kitchen")
	if inf := kitchen.Info(); inf.Name != "Kitchen Ceiling" || inf.Room != "Kitchen" || inf.Model != "Signify Hue White and Color" {
		t.Errorf("kitchen light info = %+v", inf)
	}
	if inf := get[*sensor](t, b, "sensor.office_temperature").Info(); inf.Room != "Office" {
		t.Errorf("temperature room = %q, want the entity's own area", inf.Room)
	}
	if inf := get[*other](t, b, "cover.garage").Info(); inf.Room != "" || inf.Model != "Home Assistant cover" {
		t.Errorf("cover info = %+v", inf)
	}

	// Light capabilities and state.
	wantCaps := devices.LightCaps{Dimmable: true, Color: true, KelvinMin: 2202, KelvinMax: 6535, Effects: []string{"colorloop", "random"}}
	if got := kitchen.LightCaps(); !reflect.DeepEqual(got, wantCaps) {
		t.Errorf("caps = %+v, want %+v", got, wantCaps)
	}
	ls, _ := kitchen.LightState(tctx(t))
	if want := (devices.LightState{On: true, Brightness: 50, Mode: devices.ModeTemperature, Kelvin: 2700}); !reflect.DeepEqual(ls, want) {
		t.Errorf("kitchen state = %+v, want %+v", ls, want)
	}
	strip, _ := get[*light](t, b, "light.strip").LightState(tctx(t))
	if strip.Mode != devices.ModeColor || strip.Color == nil || strip.Color.Hex != "FF0000" || strip.Color.X != 0.701 {
		t.Errorf("strip state = %+v %+v", strip, strip.Color)
	}
	if c := get[*light](t, b, "light.porch").LightCaps(); c.Dimmable || c.Color || c.HasTemperature() {
		t.Errorf("on/off lamp caps = %+v", c)
	}

	// Power kinds.
	for id, want := range map[string]string{"switch.coffee": devices.PowerOutlet, "input_boolean.guests": devices.PowerToggle, "fan.bedroom": devices.PowerFan} {
		if got := get[devices.PowerDevice](t, b, id).PowerKind(); got != want {
			t.Errorf("%s power kind = %s, want %s", id, got, want)
		}
	}

	// Media: its state, and what it can do by supported_features.
	lr := get[castingGroupingMedia](t, b, "media_player.living_room")
	ms, _ := lr.MediaState(tctx(t))
	want := devices.MediaState{Power: true, Volume: 25, Source: "TV", Sources: []string{"TV", "Line-in"}, Transport: devices.TransportPlaying,
		NowPlaying: &devices.NowPlaying{Title: "Blue in Green", Artist: "Miles Davis", Album: "Kind of Blue"}}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("media state = %+v, want %+v", ms, want)
	}
	if lr.MediaClass() != devices.MediaSpeaker {
		t.Errorf("class = %s", lr.MediaClass())
	}
	radio, ok := b.reg.Get("hass:media_player.radio")
	if _, casts := radio.(devices.Caster); !ok || casts {
		t.Errorf("a player without play_media casts: %T", radio)
	}
	if !slices.Equal(lr.HardwareIDs(), []string{"sonos:rincon_48a6b8e0a1b201400", "mac:48a6b8e0a1b2"}) {
		t.Errorf("hardware ids = %q", lr.HardwareIDs())
	}

	// Sensors, converted to the hub's units.
	reading := func(id string) []devices.Reading {
		rs, err := get[*sensor](t, b, id).Readings(tctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	for id, w := range map[string]struct {
		typ, unit string
		v         float64
	}{
		"sensor.office_temperature": {devices.ReadingTemperature, "°C", 20.5},
		"sensor.heater_power":       {devices.ReadingPower, "W", 1500},
		"sensor.heater_energy":      {devices.ReadingEnergy, "kWh", 2.5},
	} {
		rs := reading(id)
		if len(rs) != 1 || rs[0].Type != w.typ || rs[0].Unit != w.unit || rs[0].Value != w.v || rs[0].Updated.IsZero() {
			t.Errorf("%s readings = %+v, want %+v", id, rs, w)
		}
	}
	if rs := reading("sensor.office_humidity"); len(rs) != 0 {
		t.Errorf("an unknown humidity reads %+v, want none", rs)
	}
	if rs := reading("binary_sensor.hall_motion"); len(rs) != 1 || rs[0].Type != devices.ReadingMotion || *rs[0].Bool {
		t.Errorf("motion = %+v", rs)
	}
	if rs := reading("binary_sensor.front_door"); len(rs) != 1 || rs[0].Type != devices.ReadingContact || *rs[0].Bool {
		t.Errorf("an open door reads %+v, want contact false (open)", rs)
	}
	if got := get[*other](t, b, "sensor.pressure").StateText(); got != "1013 hPa" {
		t.Errorf("pressure text = %q", got)
	}

	// Remote.
	tv := get[*remote](t, b, "remote.living_room_tv")
	apps, _ := tv.Apps(tctx(t))
	cur, _ := tv.CurrentApp(tctx(t))
	if len(apps) != 2 || cur != "com.netflix.ninja" {
		t.Errorf("apps %+v, current %q", apps, cur)
	}
}

func TestLightWritesBecomeServiceData(t *testing.T) {
	b := started(t)
	kitchen := get[*light](t, b, "light.kitchen")
	on := true
	st, err := kitchen.SetLight(tctx(t), devices.LightChange{On: &on, Brightness: ptr(80), Kelvin: ptr(4000)})
	if err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"light","service":"turn_on","target":{"entity_id":["light.kitchen"]},
		"service_data":{"brightness_pct":80,"color_temp_kelvin":4000}}`)
	if st.Brightness != 80 || st.Kelvin != 4000 || st.Mode != devices.ModeTemperature {
		t.Errorf("state after the write = %+v", st)
	}

	// A colour goes as xy to a lamp that takes xy, as hs to one that
	// takes hs, and as rgb to one that takes only rgb.
	red := devices.Color{Hex: "FF0000", X: 0.7006, Y: 0.2993}
	st, err = kitchen.SetLight(tctx(t), devices.LightChange{Color: &red})
	if err != nil || st.Mode != devices.ModeColor {
		t.Fatalf("colour write: %+v %v", st, err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"light","service":"turn_on","target":{"entity_id":["light.kitchen"]},
		"service_data":{"xy_color":[0.7006,0.2993]}}`)
	orange := devices.Color{Hex: "FF8000"}
	if _, err := get[*light](t, b, "light.hall").SetLight(tctx(t), devices.LightChange{Color: &orange}); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"light","service":"turn_on","target":{"entity_id":["light.hall"]},
		"service_data":{"hs_color":[30.1,100]}}`)
	if _, err := get[*light](t, b, "light.strip").SetLight(tctx(t), devices.LightChange{Color: &orange}); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"light","service":"turn_on","target":{"entity_id":["light.strip"]},
		"service_data":{"rgb_color":[255,128,0]}}`)

	fx := "colorloop"
	st, err = kitchen.SetLight(tctx(t), devices.LightChange{Effect: &fx})
	if err != nil || st.Effect != "colorloop" || st.Mode != devices.ModeEffect {
		t.Fatalf("effect write: %+v %v", st, err)
	}
	off := false
	st, err = kitchen.SetLight(tctx(t), devices.LightChange{On: &off, Brightness: ptr(10)})
	if err != nil || st.On {
		t.Fatalf("off: %+v %v", st, err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"light","service":"turn_off","target":{"entity_id":["light.kitchen"]}}`)
}

func ptr[T any](v T) *T { return &v }

func TestAServiceErrorCarriesHAsMessage(t *testing.T) {
	b := started(t)
	b.srv.HandleService("light", "turn_on", func(map[string]any) ([]hasstest.State, string, string) {
		return nil, "home_assistant_error", "Hue bridge at 192.168.1.20 did not answer"
	})
	_, err := get[*light](t, b, "light.kitchen").SetLight(tctx(t), devices.LightChange{Brightness: ptr(30)})
	if err == nil || !strings.Contains(err.Error(), "Hue bridge at 192.168.1.20 did not answer") {
		t.Fatalf("err = %v, want HA's message", err)
	}
	if !errors.Is(err, devices.ErrRefused) || errors.Is(err, devices.ErrUnreachable) || errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("a refusal is neither unreachable nor unsupported: %v", err)
	}
	// An HA that does not know the service says so.
	b.srv.HandleService("light", "turn_on", nil)
	_, err = get[*light](t, b, "light.kitchen").SetLight(tctx(t), devices.LightChange{Brightness: ptr(30)})
	if err == nil || !strings.Contains(err.Error(), "Action light.turn_on not found") {
		t.Fatalf("err = %v, want HA's message", err)
	}
}

func TestChangesInHAReachTheRegistry(t *testing.T) {
	b := started(t)
	b.srv.SetState(hasstest.State{EntityID: "binary_sensor.hall_motion", State: "on",
		Attributes: map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}})
	s := get[*sensor](t, b, "binary_sensor.hall_motion")
	b.until(t, "motion", func() bool {
		rs, _ := s.Readings(tctx(t))
		return len(rs) == 1 && *rs[0].Bool
	})
	b.mu.Lock()
	seen := slices.ContainsFunc(b.changes, func(c devices.Change) bool { return c.ID == "hass:binary_sensor.hall_motion" && !c.Added })
	b.mu.Unlock()
	if !seen {
		t.Error("no registry change for the motion sensor")
	}

	// A new entity is added; a removed one is removed.
	b.srv.SetState(hasstest.State{EntityID: "switch.new_plug", State: "on", Attributes: map[string]any{"friendly_name": "New Plug"}})
	b.until(t, "the new plug", func() bool { _, ok := b.reg.Get("hass:switch.new_plug"); return ok })
	// A light that gains colour is registered again with it.
	b.srv.SetState(hasstest.State{EntityID: "light.porch", State: "on", Attributes: map[string]any{"friendly_name": "Porch",
		"supported_color_modes": []string{"rgb"}, "color_mode": "rgb", "rgb_color": []int{0, 0, 255}}})
	b.until(t, "the porch light's new capabilities", func() bool {
		d, _ := b.reg.Get("hass:light.porch")
		return d.(*light).LightCaps().Color
	})
}

func TestMediaCastSourcesAndGroups(t *testing.T) {
	b := started(t)
	lr := get[castingGroupingMedia](t, b, "media_player.living_room")
	if err := lr.Cast(tctx(t), "https://example.org/stream.mp3", "music"); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"media_player","service":"play_media","target":{"entity_id":["media_player.living_room"]},
		"service_data":{"media_content_id":"https://example.org/stream.mp3","media_content_type":"music"}}`)

	st, err := lr.SetMedia(tctx(t), devices.MediaChange{Volume: ptr(40), Source: ptr("line-in"), Mute: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Volume != 40 || st.Source != "Line-in" || !st.Muted {
		t.Errorf("state = %+v", st)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"media_player","service":"volume_mute","target":{"entity_id":["media_player.living_room"]},
		"service_data":{"is_volume_muted":true}}`)
	st, err = lr.SetMedia(tctx(t), devices.MediaChange{Transport: ptr("pause")})
	if err != nil || st.Transport != devices.TransportPaused {
		t.Fatalf("pause: %+v %v", st, err)
	}
	if _, err := lr.SetMedia(tctx(t), devices.MediaChange{Source: ptr("Bluetooth")}); !errors.Is(err, devices.ErrInvalid) ||
		!strings.Contains(err.Error(), "TV, Line-in") {
		t.Errorf("an unknown source: %v", err)
	}
	if _, err := lr.SetMedia(tctx(t), devices.MediaChange{Power: ptr(false)}); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("turning off a player without turn_off: %v", err)
	}
}

func TestGrouping(t *testing.T) {
	b := started(t)
	kitchen := get[castingGroupingMedia](t, b, "media_player.kitchen")
	if err := kitchen.JoinGroup(tctx(t), "hass:media_player.living_room"); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"media_player","service":"join","target":{"entity_id":["media_player.living_room"]},
		"service_data":{"group_members":["media_player.kitchen"]}}`)
	b.until(t, "the kitchen to follow the living room", func() bool {
		st, _ := kitchen.MediaState(tctx(t))
		return st.GroupCoordinator == "hass:media_player.living_room"
	})
	if err := kitchen.LeaveGroup(tctx(t)); err != nil {
		t.Fatal(err)
	}
	if st, _ := kitchen.MediaState(tctx(t)); st.GroupCoordinator != "" {
		t.Errorf("still grouped: %+v", st)
	}
}

func TestRemoteKeysAndActivities(t *testing.T) {
	b := started(t)
	tv := get[*remote](t, b, "remote.living_room_tv")
	if err := tv.PressKey(tctx(t), "select"); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"remote","service":"send_command","target":{"entity_id":["remote.living_room_tv"]},
		"service_data":{"command":"DPAD_CENTER"}}`)
	if err := tv.LaunchApp(tctx(t), "com.google.android.youtube.tv"); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"remote","service":"turn_on","target":{"entity_id":["remote.living_room_tv"]},
		"service_data":{"activity":"com.google.android.youtube.tv"}}`)
	b.until(t, "the current activity", func() bool { a, _ := tv.CurrentApp(tctx(t)); return a == "com.google.android.youtube.tv" })
	if err := tv.SetPower(tctx(t), false); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"remote","service":"turn_off","target":{"entity_id":["remote.living_room_tv"]}}`)
	if on, _ := tv.PowerState(tctx(t)); on {
		t.Error("the remote is still on")
	}
	if err := tv.SendText(tctx(t), "hi"); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("text: %v", err)
	}
}

func TestPowerWrites(t *testing.T) {
	b := started(t)
	fan := get[*speedFan](t, b, "fan.bedroom")
	if err := fan.SetPower(tctx(t), true); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"fan","service":"turn_on","target":{"entity_id":["fan.bedroom"]}}`)
	if on, _ := fan.PowerState(tctx(t)); !on {
		t.Error("fan still off")
	}
	// A fan of three speeds takes 50 % as its nearest step, 67 %.
	if err := fan.SetSpeed(tctx(t), 50); err != nil {
		t.Fatal(err)
	}
	wantCall(t, b.srv, `{"type":"call_service","domain":"fan","service":"set_percentage","target":{"entity_id":["fan.bedroom"]},
		"service_data":{"percentage":50}}`)
	if pct, ok := fan.Speed(); !ok || pct != 67 {
		t.Errorf("speed = %d %v, want 67", pct, ok)
	}
	if _, speeds := b.reg.Get("hass:switch.coffee"); speeds {
		if _, ok := get[devices.PowerDevice](t, b, "switch.coffee").(devices.FanSpeeder); ok {
			t.Error("a switch takes a speed")
		}
	}
	// HA answering without the state following is a timeout, not a
	// success the hub would then show.
	b.srv.HandleService("switch", "turn_on", func(map[string]any) ([]hasstest.State, string, string) { return nil, "", "" })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := get[*power](t, b, "switch.coffee").SetPower(ctx, true); !errors.Is(err, devices.ErrTimeout) {
		t.Errorf("err = %v, want a timeout", err)
	}
}

func TestTheBridgeResyncsAfterADrop(t *testing.T) {
	b := started(t)
	states, areas, devs, ents := house()
	states = slices.DeleteFunc(states, func(s hasstest.State) bool { return s.EntityID == "weather.home" })
	states = append(states, hasstest.State{EntityID: "light.attic", State: "off", Attributes: map[string]any{"supported_color_modes": []string{"brightness"}}})
	b.srv.SetStates(states...) // while connected: no events, so only a resync can tell
	b.srv.SetRegistries(areas, devs, ents)
	b.srv.DropAll()
	b.until(t, "the resync after the drop", func() bool {
		_, attic := b.reg.Get("hass:light.attic")
		_, weather := b.reg.Get("hass:weather.home")
		n, _ := b.ad.Synced()
		return attic && !weather && n >= 2
	})
	if up, err := b.ad.Status(); !up || err != nil {
		t.Errorf("status after the resync: %v %v", up, err)
	}
	if !get[*light](t, b, "light.attic").Online() {
		t.Error("the new light is offline")
	}
}

func TestAWrongTokenIsReportedOnce(t *testing.T) {
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	srv.SetStates(hasstest.State{EntityID: "light.kitchen", State: "on"})
	b := newBridge(t, srv, "wrong-token")
	b.until(t, "three refused attempts", func() bool { _, refused := srv.AuthAttempts(); return refused >= 3 })
	up, err := b.ad.Status()
	if up || !errors.Is(err, ErrAuth) {
		t.Fatalf("status = %v, %v; want ErrAuth", up, err)
	}
	if len(b.reg.List()) != 0 {
		t.Error("devices registered without a connection")
	}
	log := b.logText()
	if n := strings.Count(log, "refused the access token"); n != 1 {
		t.Errorf("the refusal is logged %d times, want once:\n%s", n, log)
	}
	if strings.Contains(log, "wrong-token") {
		t.Error("the token is in the log")
	}
}

func TestConfigErrors(t *testing.T) {
	reg := devices.NewRegistry(0)
	for _, cfg := range []AdapterConfig{
		{URL: "http://ha:8123"},
		{URL: "ftp://ha", Token: "t"},
		{URL: "http://ha:8123", Token: "t", CAFile: "/nonexistent/ca.pem"},
	} {
		if _, err := NewAdapter(reg, cfg); err == nil || strings.HasPrefix(err.Error(), "hass:") {
			t.Errorf("%+v: err = %v", cfg, err)
		}
	}
}

func TestAFailedHandshakeIsExplained(t *testing.T) {
	// A reverse proxy that does not pass WebSocket upgrades.
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	srv.WithoutWebSocket(true)
	b := newBridge(t, srv, token)
	b.until(t, "the proxy to be named", func() bool {
		_, err := b.ad.Status()
		return err != nil && strings.Contains(err.Error(), "reverse proxy in front of Home Assistant must pass WebSocket upgrades")
	})

	// The same with a wrong token: the REST API says it is the token.
	srv2 := hasstest.New(token)
	t.Cleanup(srv2.Close)
	srv2.WithoutWebSocket(true)
	b2 := newBridge(t, srv2, "wrong")
	b2.until(t, "the token to be refused", func() bool { _, err := b2.ad.Status(); return errors.Is(err, ErrAuth) })

	// Not Home Assistant at all.
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	ad, err := NewAdapter(devices.NewRegistry(0), AdapterConfig{URL: other.URL, Token: token, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ad.Run(context.Background()) }()
	t.Cleanup(func() { ad.Close(); <-done })
	deadline := time.Now().Add(timeout)
	for {
		_, err := ad.Status()
		if err != nil && strings.Contains(err.Error(), "does not look like Home Assistant") && strings.Contains(err.Error(), "HTTP 404") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status error = %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTheFakeSpeaksREST(t *testing.T) {
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	srv.SetStates(hasstest.State{EntityID: "switch.coffee", State: "off", Attributes: map[string]any{"friendly_name": "Coffee"}})
	srv.ServeLikeHA()
	do := func(method, path, tok, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if code, body := do("GET", "/api/", token, ""); code != 200 || body != `{"message":"API running."}` {
		t.Errorf("GET /api/: %d %s", code, body)
	}
	if code, _ := do("GET", "/api/", "nope", ""); code != 401 {
		t.Errorf("a wrong token: %d", code)
	}
	if code, _ := do("GET", "/api/states/light.nope", token, ""); code != 404 {
		t.Errorf("an unknown entity: %d", code)
	}
	if code, body := do("POST", "/api/services/switch/turn_on", token, `{"entity_id":"switch.coffee"}`); code != 200 || !strings.Contains(body, `"state":"on"`) {
		t.Errorf("POST /api/services/switch/turn_on: %d %s", code, body)
	}
	if code, body := do("GET", "/api/states/switch.coffee", token, ""); code != 200 || !strings.Contains(body, `"state":"on"`) {
		t.Errorf("GET /api/states/switch.coffee: %d %s", code, body)
	}
}
