package service_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// house is a service over real SQLite and the simulated home.
type house struct {
	svc  *service.Service
	home *sim.Home
	reg  *devices.Registry
	db   *store.DB
	ctx  context.Context // carries a control principal
}

func newHouse(t testing.TB) *house { return newHouseWith(t, nil) }

// newHouseWith lets a test adjust the service's configuration (a clock,
// scanners) before it starts.
func newHouseWith(t testing.TB, adjust func(*service.Config, *sim.Home)) *house {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	cfg := service.Config{Store: db, Registry: reg}
	if adjust != nil {
		adjust(&cfg, home)
	}
	svc := service.New(cfg)
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close(); db.Close() })
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &house{svc: svc, home: home, reg: reg, db: db, ctx: service.WithPrincipal(ctx, p)}
}

func ptr[T any](v T) *T { return &v }

func TestDemoHomeIsRecorded(t *testing.T) {
	h := newHouse(t)
	rooms := servicetest.Must[[]service.RoomView](t)(h.svc.ListRooms(h.ctx))
	var names []string
	for _, r := range rooms {
		names = append(names, r.Name)
	}
	for _, want := range []string{"Living Room", "Office", "Bedroom", "Kitchen"} {
		if !slices.Contains(names, want) {
			t.Errorf("room %q missing from %v", want, names)
		}
	}
	lights := servicetest.Must[[]service.Light](t)(h.svc.ListLights(h.ctx))
	if len(lights) != 6 {
		t.Fatalf("%d lights; want 6", len(lights))
	}
	for _, l := range lights {
		if !l.Online || l.State == nil || l.Room == "" {
			t.Errorf("light %s: online %v state %v room %q", l.Name, l.Online, l.State, l.Room)
		}
	}
	// A second sync keeps the user's names and rooms.
	servicetest.Must[service.DeviceView](t)(h.svc.UpdateDevice(h.ctx, "Key Light", service.DevicePatch{Name: ptr("Panel")}))
	if err := h.svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Panel"))
	if l.Room != "Office" {
		t.Errorf("renamed light lost its room: %q", l.Room)
	}
}

func TestSetLightSparseAndImpliedOn(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{On: ptr(false)}))
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "desk", service.LightPatch{Brightness: ptr(40)}))
	if !res.State.On || res.State.Brightness != 40 {
		t.Fatalf("brightness did not imply on: %+v", res.State)
	}
	before := res.State
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{Kelvin: ptr(3000)}))
	if res.State.Brightness != before.Brightness || res.State.Kelvin != 3000 || res.State.Mode != devices.ModeTemperature {
		t.Fatalf("a kelvin write changed more than kelvin: %+v", res.State)
	}
	if res.Applied.Mirek == nil || *res.Applied.Mirek != 333 {
		t.Errorf("applied mirek %v; want 333", res.Applied.Mirek)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{Hex: ptr("#ff0000")}))
	if res.State.Mode != devices.ModeColor || res.Applied.Color == nil || res.Applied.Color.Hex == "" {
		t.Fatalf("hex not applied: %+v", res)
	}
	// Desk Lamp has gamut C: pure red lands on the gamut's red corner.
	if c := res.Applied.Color; c.X != 0.6915 || c.Y != 0.3083 {
		t.Errorf("red in gamut C = (%v, %v); want (0.6915, 0.3083)", c.X, c.Y)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{Mirek: ptr(250)}))
	if res.State.Kelvin != 4000 {
		t.Errorf("mirek 250 gave %d K; want 4000", res.State.Kelvin)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{Brightness: ptr(0)}))
	if res.State.On {
		t.Error("brightness 0 must turn the light off")
	}
}

func TestSetLightClampsAndSaysSo(t *testing.T) {
	h := newHouse(t)
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(2700)}))
	if res.State.Kelvin != 3200 || *res.Applied.Kelvin != 3200 {
		t.Fatalf("2700 K on a 3200–5600 K panel: state %d applied %d", res.State.Kelvin, *res.Applied.Kelvin)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "3200") {
		t.Errorf("clamping not reported: %v", res.Notes)
	}
	// The RGB strip has no white channel: a temperature becomes a colour.
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Rope Light", service.LightPatch{Kelvin: ptr(2700)}))
	if res.State.Mode != devices.ModeColor || len(res.Notes) == 0 {
		t.Errorf("kelvin on an RGB strip: %+v", res)
	}
}

func TestSetLightRefusesNonsense(t *testing.T) {
	h := newHouse(t)
	before := h.home.Light("sim:key-light").Commands()
	cases := []struct {
		name  string
		light string
		p     service.LightPatch
		code  string
		says  string
	}{
		{"brightness 250", "Key Light", service.LightPatch{Brightness: ptr(250)}, service.EINVALID, "0–100"},
		{"bad hex", "Key Light", service.LightPatch{Hex: ptr("zz")}, service.EINVALID, "hex"},
		{"unknown effect", "Key Light", service.LightPatch{Effect: ptr("Disco Inferno")}, service.EINVALID, "Cop Car"},
		{"two modes", "Key Light", service.LightPatch{Hex: ptr("FF0000"), Kelvin: ptr(4000)}, service.EINVALID, "only one"},
		{"empty", "Key Light", service.LightPatch{}, service.EINVALID, "Nothing to change"},
		{"absurd kelvin", "Key Light", service.LightPatch{Kelvin: ptr(100)}, service.EINVALID, "1000"},
		{"xy out of range", "Key Light", service.LightPatch{Color: &service.XY{X: 2, Y: 0.3}}, service.EINVALID, "between 0 and 1"},
		{"colour on CCT lamp", "Fill Light", service.LightPatch{Hex: ptr("00FF00")}, service.EUNSUPPORTED, "3200"},
		{"effect on plain lamp", "Bedside Lamp", service.LightPatch{Effect: ptr("Party")}, service.EUNSUPPORTED, "no effects"},
		{"unknown light", "Sofa Lamp", service.LightPatch{On: ptr(true)}, service.ENOTFOUND, "Key Light"},
		{"ambiguous light", "light", service.LightPatch{On: ptr(true)}, service.EINVALID, "more than one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.svc.SetLight(h.ctx, c.light, c.p)
			servicetest.WantCode(t, err, c.code)
			if !strings.Contains(service.ErrorMessage(err), c.says) {
				t.Errorf("message %q does not say %q", service.ErrorMessage(err), c.says)
			}
		})
	}
	if got := h.home.Light("sim:key-light").Commands(); got != before {
		t.Errorf("refused writes reached the lamp (%d commands)", got-before)
	}
}

func TestEffectByNameIsCaseInsensitive(t *testing.T) {
	h := newHouse(t)
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Effect: ptr("cop car")}))
	if res.State.Effect != "Cop Car" || res.State.Mode != devices.ModeEffect || !res.State.On {
		t.Fatalf("effect: %+v", res.State)
	}
}

func TestScopes(t *testing.T) {
	h := newHouse(t)
	read := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "ro", Scope: service.ScopeRead})
	before := h.home.Light("sim:key-light").Commands()
	_, err := h.svc.SetLight(read, "Key Light", service.LightPatch{On: ptr(true)})
	servicetest.WantCode(t, err, service.EFORBIDDEN)
	_, err = h.svc.SetRoom(read, "Office", service.RoomPatch{On: ptr(false)})
	servicetest.WantCode(t, err, service.EFORBIDDEN)
	_, err = h.svc.ActivateScene(read, "anything")
	servicetest.WantCode(t, err, service.EFORBIDDEN)
	if got := h.home.Light("sim:key-light").Commands(); got != before {
		t.Fatal("a read key reached a device")
	}
	if _, err := h.svc.ListLights(read); err != nil {
		t.Fatalf("a read key cannot read: %v", err)
	}
	_, err = h.svc.ListLights(context.Background())
	servicetest.WantCode(t, err, service.EUNAUTHORIZED)
}

func TestRoomPowerIntentAndDimming(t *testing.T) {
	h := newHouse(t)
	// Office: Key Light, Fill Light, Desk Lamp, Desk Fan, Office Motion.
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true), Brightness: ptr(80)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{On: ptr(false)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{On: ptr(true)}))

	res := servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", service.RoomPatch{Brightness: ptr(20)}))
	if len(res.Applied) != 2 || len(res.Failed) != 0 {
		t.Fatalf("dimming reached %+v; want the two lit lamps", res)
	}
	if st := h.home.Light("sim:fill-light").State(); st.On {
		t.Fatal("dimming the room woke an off lamp")
	}
	if st := h.home.Light("sim:key-light").State(); st.Brightness != 20 {
		t.Fatalf("key light at %d; want 20", st.Brightness)
	}

	// A bare {on:false} is power intent: lights, the fan, everything.
	servicetest.Must[service.PowerView](t)(h.svc.SetPower(h.ctx, "Desk Fan", true))
	res = servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "office", service.RoomPatch{On: ptr(false)}))
	if len(res.Failed) != 0 || len(res.Applied) != 4 {
		t.Fatalf("power off reached %+v; want 3 lights and the fan", res)
	}
	fan := servicetest.Must[service.PowerView](t)(h.svc.GetPower(h.ctx, "Desk Fan"))
	if fan.On == nil || *fan.On {
		t.Fatal("the fan is still on")
	}
	// Explicit on with brightness wakes every lamp but leaves the fan alone.
	res = servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", service.RoomPatch{On: ptr(true), Brightness: ptr(60)}))
	if len(res.Applied) != 3 {
		t.Fatalf("on+brightness reached %+v; want the 3 lights", res)
	}
	if st := h.home.Light("sim:fill-light").State(); !st.On || st.Brightness != 60 {
		t.Fatalf("fill light %+v", st)
	}
}

func TestRoomNamesFailures(t *testing.T) {
	h := newHouse(t)
	h.home.Light("sim:key-light").SetUnreachable(true)
	res := servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", service.RoomPatch{On: ptr(true), Hex: ptr("FF0000")}))
	failed := map[string]string{}
	for _, f := range res.Failed {
		failed[f.Name] = f.Code
	}
	if failed["Key Light"] != service.EUNREACHABLE || failed["Fill Light"] != service.EUNSUPPORTED {
		t.Fatalf("failures %+v; want Key Light unreachable and Fill Light unsupported", res.Failed)
	}
	if len(res.Applied) != 1 || res.Applied[0].Name != "Desk Lamp" {
		t.Fatalf("applied %+v; want Desk Lamp", res.Applied)
	}
	// An offline light still lists, with its name and room.
	l := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light"))
	if l.Online || l.Room != "Office" || l.Capabilities.KelvinMax != 5600 {
		t.Fatalf("offline light view %+v", l)
	}
	_, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true)})
	servicetest.WantCode(t, err, service.EUNREACHABLE)
}

func TestRoomAdministration(t *testing.T) {
	h := newHouse(t)
	r := servicetest.Must[service.RoomView](t)(h.svc.CreateRoom(h.ctx, "Studio", []string{"Key Light", "Desk Fan"}))
	if len(r.Members) != 2 {
		t.Fatalf("members %+v", r.Members)
	}
	office := servicetest.Must[service.RoomView](t)(h.svc.GetRoom(h.ctx, "Office"))
	for _, m := range office.Members {
		if m.Name == "Key Light" {
			t.Fatal("Key Light is in two rooms")
		}
	}
	_, err := h.svc.CreateRoom(h.ctx, "studio", nil)
	servicetest.WantCode(t, err, service.ECONFLICT)
	_, err = h.svc.CreateRoom(h.ctx, "Attic", []string{"Nonexistent Lamp"})
	servicetest.WantCode(t, err, service.ENOTFOUND)
	if _, err := h.svc.GetRoom(h.ctx, "Attic"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatal("a failed create left a room behind")
	}
	r = servicetest.Must[service.RoomView](t)(h.svc.RenameRoom(h.ctx, "Studio", "Den"))
	r = servicetest.Must[service.RoomView](t)(h.svc.AddRoomMember(h.ctx, "Den", "Kitchen Sonos"))
	r = servicetest.Must[service.RoomView](t)(h.svc.RemoveRoomMember(h.ctx, "Den", "Desk Fan"))
	if len(r.Members) != 2 || r.Name != "Den" {
		t.Fatalf("den %+v", r)
	}
	if err := h.svc.DeleteRoom(h.ctx, "Den"); err != nil {
		t.Fatal(err)
	}
	l := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light"))
	if l.Room != "" {
		t.Fatalf("a deleted room's light still has room %q", l.Room)
	}
}

func TestSceneCaptureAndActivate(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Effect: ptr("Party"), Brightness: ptr(70)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{Hex: ptr("00FF00"), Brightness: ptr(30)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Kelvin: ptr(4500), Brightness: ptr(55)}))
	servicetest.Must[service.PowerView](t)(h.svc.SetPower(h.ctx, "Desk Fan", true))
	sc := servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Streaming", "Office"))
	if sc.Room != "Office" || len(sc.Entries) != 4 {
		t.Fatalf("scene %+v", sc)
	}
	want := map[devices.ID]devices.LightState{}
	for _, id := range []devices.ID{"sim:key-light", "sim:desk-lamp", "sim:fill-light"} {
		want[id] = h.home.Light(id).State()
	}
	servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", service.RoomPatch{On: ptr(false)}))

	res := servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "streaming"))
	if len(res.Failed) != 0 || len(res.Applied) != 4 {
		t.Fatalf("activate %+v", res)
	}
	for id, w := range want {
		got := h.home.Light(id).State()
		if got.On != w.On || got.Brightness != w.Brightness || got.Mode != w.Mode || got.Effect != w.Effect || got.Kelvin != w.Kelvin {
			t.Errorf("%s restored as %+v; want %+v", id, got, w)
		}
		if w.Color != nil && (got.Color == nil || got.Color.Hex != w.Color.Hex) {
			t.Errorf("%s colour %+v; want %+v", id, got.Color, w.Color)
		}
	}
	_, err := h.svc.CaptureScene(h.ctx, "STREAMING", "")
	servicetest.WantCode(t, err, service.ECONFLICT)
	home := servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Evening", ""))
	if home.RoomID != "" || len(home.Entries) < 9 {
		t.Fatalf("home scene has %d entries", len(home.Entries))
	}
	servicetest.Must[service.SceneView](t)(h.svc.RenameScene(h.ctx, "Evening", "Night"))
	if err := h.svc.DeleteScene(h.ctx, "Night"); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.DeleteScene(h.ctx, "Night"); err != nil {
		t.Fatalf("delete is not idempotent: %v", err)
	}
}

// TestSceneSwitchesADeviceThatBecameALight: a scene captured when a device
// was a switch (a Tasmota bulb read as a relay by an older hub) switches
// it as a light once it is one.
func TestSceneSwitchesADeviceThatBecameALight(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.PowerView](t)(h.svc.SetPower(h.ctx, "Coffee Plug", true))
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Morning", "Kitchen"))
	bulb := sim.NewLight("coffee-plug", "Coffee Plug", "Kitchen", devices.LightCaps{Dimmable: true}, sim.Options{})
	h.reg.Add(bulb)
	if err := h.svc.Sync(h.ctx); err != nil {
		t.Fatal(err)
	}
	res := servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "Morning"))
	if len(res.Failed) != 0 || !bulb.State().On {
		t.Fatalf("the scene gave %+v; the light is on: %v", res, bulb.State().On)
	}
}

func TestSceneActivationReportsPartialFailure(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Work", "Office"))
	h.home.Light("sim:desk-lamp").SetUnreachable(true)
	res := servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "Work"))
	if len(res.Failed) != 1 || res.Failed[0].Name != "Desk Lamp" || res.Failed[0].Code != service.EUNREACHABLE {
		t.Fatalf("failed %+v", res.Failed)
	}
	if len(res.Applied) != 3 {
		t.Fatalf("applied %+v", res.Applied)
	}
}

func TestMediaFavoritesGroupingAndCast(t *testing.T) {
	h := newHouse(t)
	favs := servicetest.Must[[]devices.Favorite](t)(h.svc.Favorites(h.ctx, "Living Room Sonos"))
	if len(favs) < 8 {
		t.Fatalf("%d favourites", len(favs))
	}
	fav := favs[0]
	for _, f := range favs {
		if len(f.Title) > len(fav.Title) {
			fav = f
		}
	}
	m := servicetest.Must[service.Media](t)(h.svc.PlayFavorite(h.ctx, "Living Room Sonos", strings.ToLower(fav.Title[1:len(fav.Title)-1])))
	if m.State.Transport != devices.TransportPlaying || m.State.NowPlaying == nil || m.State.NowPlaying.Title != fav.Title {
		t.Fatalf("after play: %+v", m.State)
	}
	_, err := h.svc.PlayFavorite(h.ctx, "Living Room Sonos", "no such station anywhere")
	servicetest.WantCode(t, err, service.EINVALID) // a value the command carries, not a target

	res := servicetest.Must[service.FanoutResult](t)(h.svc.Group(h.ctx, "Living Room Sonos", []string{"Kitchen Sonos"}))
	if len(res.Applied) != 1 {
		t.Fatalf("group %+v", res)
	}
	k := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Kitchen Sonos"))
	if k.State.GroupCoordinator != "sim:living-room-sonos" {
		t.Fatalf("kitchen follows %q", k.State.GroupCoordinator)
	}
	_, err = h.svc.Group(h.ctx, "Kitchen Sonos", []string{"Kitchen Sonos"})
	servicetest.WantCode(t, err, service.EINVALID)
	k = servicetest.Must[service.Media](t)(h.svc.Ungroup(h.ctx, "Kitchen Sonos"))
	if k.State.GroupCoordinator != "" {
		t.Fatal("still grouped")
	}
	_, err = h.svc.Cast(h.ctx, "Kitchen Sonos", "https://radio.example/stream.mp3", "podcast")
	servicetest.WantCode(t, err, service.EINVALID)
	servicetest.Must[service.Media](t)(h.svc.Cast(h.ctx, "Kitchen Sonos", "https://radio.example/stream.mp3", "music"))
	_, err = h.svc.SetMedia(h.ctx, "Kitchen Sonos", service.MediaPatch{Volume: ptr(101)})
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.SetMedia(h.ctx, "Kitchen Sonos", service.MediaPatch{Transport: ptr("rewind")})
	servicetest.WantCode(t, err, service.EINVALID)
}

func TestReceiverBinding(t *testing.T) {
	h := newHouse(t)
	recv := h.home.Receiver("sim:onkyo-receiver")
	servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, "Onkyo Receiver", service.MediaPatch{Power: ptr(false)}))
	tv := servicetest.Must[service.Media](t)(h.svc.BindReceiver(h.ctx, "Living Room TV", "Onkyo", "tv"))
	if tv.Receiver != "sim:onkyo-receiver" {
		t.Fatalf("binding %+v", tv)
	}
	// Powering the TV on wakes the receiver on the bound input.
	servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true)}))
	rs := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Onkyo Receiver")).State
	if !rs.Power || rs.Source != "TV" {
		t.Fatalf("receiver after TV on: %+v", rs)
	}
	// Volume on the TV goes to the receiver.
	tvVolBefore := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Living Room TV"))
	_ = tvVolBefore
	tvDev := h.home.TV("sim:living-room-tv")
	tvCommands := tvDev.Commands()
	tv = servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Volume: ptr(35)}))
	if st := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Onkyo Receiver")).State; st.Volume != 35 {
		t.Fatalf("receiver volume %d; want 35", st.Volume)
	}
	if tvDev.Commands() != tvCommands {
		t.Fatal("the volume went to the TV too")
	}
	if tv.State.Volume != 35 {
		t.Fatalf("the TV's view shows volume %d; want the receiver's 35", tv.State.Volume)
	}
	_ = recv
	// Powering the TV off takes the receiver down.
	servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(false)}))
	if st := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Onkyo Receiver")).State; st.Power {
		t.Fatal("receiver still on")
	}
	_, err := h.svc.BindReceiver(h.ctx, "Onkyo Receiver", "Onkyo Receiver", "")
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.BindReceiver(h.ctx, "Kitchen Sonos", "Living Room TV", "")
	servicetest.WantCode(t, err, service.EINVALID) // the TV is itself bound
	_, err = h.svc.BindReceiver(h.ctx, "Onkyo Receiver", "Kitchen Sonos", "")
	servicetest.WantCode(t, err, service.EINVALID) // the receiver serves the TV
	_, err = h.svc.BindReceiver(h.ctx, "Kitchen Sonos", "Onkyo Receiver", "Laserdisc")
	servicetest.WantCode(t, err, service.EINVALID)
	tv = servicetest.Must[service.Media](t)(h.svc.BindReceiver(h.ctx, "Living Room TV", "", ""))
	if tv.Receiver != "" {
		t.Fatal("unbind failed")
	}
}

func TestRemotesAndPlayOn(t *testing.T) {
	h := newHouse(t)
	remotes := servicetest.Must[[]service.RemoteView](t)(h.svc.ListRemotes(h.ctx))
	if len(remotes) != 1 || len(remotes[0].Apps) < 5 {
		t.Fatalf("remotes %+v", remotes)
	}
	r := servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(h.ctx, "Living Room TV", service.RemoteCommand{App: "youtube"}))
	if r.CurrentApp != "com.google.android.youtube.tv" {
		t.Fatalf("current app %q", r.CurrentApp)
	}
	servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(h.ctx, "tv", service.RemoteCommand{Key: "OK"}))
	_, err := h.svc.RemoteCommand(h.ctx, "tv", service.RemoteCommand{Key: "self_destruct"})
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.RemoteCommand(h.ctx, "tv", service.RemoteCommand{Key: "up", App: "Netflix"})
	servicetest.WantCode(t, err, service.EINVALID)

	res := servicetest.Must[service.PlayOnResult](t)(h.svc.PlayOn(h.ctx, "Living Room TV", "open Netflix"))
	if res.Action != "opened_app" || res.App != "com.netflix.ninja" {
		t.Fatalf("open netflix: %+v", res)
	}
	res = servicetest.Must[service.PlayOnResult](t)(h.svc.PlayOn(h.ctx, "Living Room TV", "zzqx unknown words"))
	if res.Action == "opened_app" {
		t.Fatalf("nonsense opened an app by name: %+v", res)
	}
}

func TestSensorsAndOccupancy(t *testing.T) {
	h := newHouse(t)
	sensors := servicetest.Must[[]service.SensorView](t)(h.svc.ListSensors(h.ctx))
	if len(sensors) != 3 {
		t.Fatalf("%d sensors", len(sensors))
	}
	occ := h.home.Sensor("sim:living-room-occupancy")
	if err := occ.SetPresence(true); err != nil {
		t.Fatal(err)
	}
	// The model hears the sensor's change and reads it, off this call.
	occupied := func(want bool) func() bool {
		return func() bool {
			r := servicetest.Must[service.RoomView](t)(h.svc.GetRoom(h.ctx, "Living Room"))
			return r.Occupied != nil && *r.Occupied == want
		}
	}
	servicetest.WaitFor(t, "the living room to be occupied", occupied(true))
	if err := occ.SetPresence(false); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, "the living room to be empty", occupied(false))
	if k := servicetest.Must[service.RoomView](t)(h.svc.GetRoom(h.ctx, "Kitchen")); k.Occupied != nil {
		t.Fatal("a room without presence sensors reports occupancy")
	}
	temp := servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, "Bedroom Temperature"))
	var units []string
	for _, rd := range temp.Readings {
		units = append(units, rd.Unit)
	}
	if !slices.Contains(units, "°C") || !slices.Contains(units, "%") {
		t.Fatalf("units %v", units)
	}
}

func TestDisabledDevice(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.DeviceView](t)(h.svc.UpdateDevice(h.ctx, "Coffee Plug", service.DevicePatch{Enabled: ptr(false)}))
	_, err := h.svc.SetPower(h.ctx, "Coffee Plug", true)
	servicetest.WantCode(t, err, service.ECONFLICT)
	_, err = h.svc.UpdateDevice(h.ctx, "Coffee Plug", service.DevicePatch{})
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.UpdateDevice(h.ctx, "Coffee Plug", service.DevicePatch{Name: ptr("  ")})
	servicetest.WantCode(t, err, service.EINVALID)
}

func TestAuditRecordsWhoAndResult(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true)}))
	_, _ = h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Brightness: ptr(250)})
	h.home.Light("sim:desk-lamp").SetUnreachable(true)
	_, _ = h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{On: ptr(true)})
	audit := servicetest.Must[[]service.AuditEntry](t)(h.svc.AuditLog(h.ctx, 10))
	if len(audit) != 3 {
		t.Fatalf("audit %+v; want every attempt with its result", audit)
	}
	if !strings.Contains(audit[1].Result, "out of range") {
		t.Errorf("refused write recorded as %q", audit[1].Result)
	}
	if audit[0].Target != "Desk Lamp" || audit[0].Result == "ok" || audit[0].ActorName != "tester" {
		t.Errorf("newest entry %+v", audit[0])
	}
	if audit[2].Target != "Key Light" || audit[2].Result != "ok" || audit[2].ActorKind != "user" {
		t.Errorf("oldest entry %+v", audit[2])
	}
}

func TestEventsFollowChanges(t *testing.T) {
	h := newHouse(t)
	servicetest.Run(t, h.svc)
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true)}))
	if err := h.home.Sensor("sim:office-motion").SetPresence(true); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	deadline := time.After(2 * time.Second)
	for !seen["light"] || !seen["sensor"] {
		select {
		case e := <-events:
			seen[e.Type] = true
		case <-deadline:
			t.Fatalf("events seen %v; want light and sensor", seen)
		}
	}
}

func TestUndoRestoresExactlyTheTouchedDevices(t *testing.T) {
	h := newHouse(t)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "assistant", Scope: service.ScopeControl})
	other := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k2", Name: "script", Scope: service.ScopeControl})
	_, err := h.svc.Undo(key)
	servicetest.WantCode(t, err, service.ENOTFOUND)

	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true), Kelvin: ptr(4000), Brightness: ptr(50)}))
	beforeKey := h.home.Light("sim:key-light").State()
	beforeBedside := h.home.Light("sim:bedside-lamp").State()
	servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(key, "Office", service.RoomPatch{On: ptr(true), Hex: ptr("FF00FF")}))
	// Someone else's later change is not what this key undoes.
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(other, "Bedside Lamp", service.LightPatch{Brightness: ptr(5)}))

	res := servicetest.Must[service.UndoResult](t)(h.svc.Undo(key))
	if len(res.Result.Applied) == 0 || res.Action != "room Office" {
		t.Fatalf("undo %+v", res)
	}
	got := h.home.Light("sim:key-light").State()
	if got.Mode != beforeKey.Mode || got.Kelvin != beforeKey.Kelvin || got.Brightness != beforeKey.Brightness {
		t.Fatalf("key light after undo %+v; want %+v", got, beforeKey)
	}
	if h.home.Light("sim:bedside-lamp").State().Brightness == beforeBedside.Brightness {
		t.Fatal("undo touched a device the change did not")
	}
	_, err = h.svc.Undo(key)
	servicetest.WantCode(t, err, service.ENOTFOUND)
}

func TestUndoWindow(t *testing.T) {
	now := time.Now()
	h := newHouseWith(t, func(c *service.Config, _ *sim.Home) { c.Now = func() time.Time { return now } })
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "a", Scope: service.ScopeControl})
	servicetest.Must[service.PowerView](t)(h.svc.SetPower(key, "Coffee Plug", true))
	now = now.Add(service.UndoWindow + time.Second)
	_, err := h.svc.Undo(key)
	servicetest.WantCode(t, err, service.ENOTFOUND)
}

// TestUndoForgetsOldChanges: a change past UndoWindow is not only refused
// but dropped, so the keys that come and go leave nothing in undo.
func TestUndoForgetsOldChanges(t *testing.T) {
	now := time.Now()
	h := newHouseWith(t, func(c *service.Config, _ *sim.Home) { c.Now = func() time.Time { return now } })
	as := func(id string) context.Context {
		return service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: id, Name: id, Scope: service.ScopeControl})
	}
	for i := range 50 {
		servicetest.Must[service.PowerView](t)(h.svc.SetPower(as(fmt.Sprint("gone-", i)), "Coffee Plug", i%2 == 0))
	}
	if n := service.UndoHeld(h.svc); n != 50 {
		t.Fatalf("undo holds %d changes; want the 50 keys' own", n)
	}
	now = now.Add(service.UndoWindow + time.Second)
	servicetest.Must[service.PowerView](t)(h.svc.SetPower(as("here"), "Coffee Plug", true))
	if n := service.UndoHeld(h.svc); n != 1 {
		t.Fatalf("undo holds %d changes a window on; want only the latest key's", n)
	}
	servicetest.Must[service.UndoResult](t)(h.svc.Undo(as("here")))
}

// TestAuditLogIsPruned: the audit log keeps the newest AuditKeep.Entries,
// pruned every thousand entries, and none older than AuditKeep.Age by
// the service's clock.
func TestAuditLogIsPruned(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := newHouseWith(t, func(c *service.Config, _ *sim.Home) {
		c.Now = func() time.Time { return now }
		c.AuditKeep = service.AuditKeep{Entries: 100, Age: 24 * time.Hour}
	})
	held := func() int {
		list, err := h.db.ListAudit(h.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	for i := range 2001 {
		h.svc.Audit(h.ctx, "test.entry", fmt.Sprint(i), nil, "")
	}
	if n := held(); n != 100 {
		t.Fatalf("the audit log holds %d entries after 2,001; want the newest 100", n)
	}
	now = now.Add(25 * time.Hour)
	h.svc.Audit(h.ctx, "test.entry", "late", nil, "")
	if n := held(); n != 1 {
		t.Fatalf("the audit log holds %d entries a day on; want the one of today", n)
	}
}

func TestScan(t *testing.T) {
	h := newHouseWith(t, func(c *service.Config, home *sim.Home) { c.Scanners = []devices.Scanner{home} })
	h.reg.Remove("sim:coffee-plug")
	res := servicetest.Must[service.ScanResult](t)(h.svc.Scan(h.ctx))
	if len(res.Adapters) != 1 || res.Adapters[0] != "sim" || res.Message == "" {
		t.Fatalf("scan %+v", res)
	}
	if _, ok := h.reg.Get("sim:coffee-plug"); !ok {
		t.Fatal("the scan did not find the plug again")
	}
	read := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "r", Scope: service.ScopeRead})
	_, err := h.svc.Scan(read)
	servicetest.WantCode(t, err, service.EFORBIDDEN)
}

// switchedScanner is an adapter that settings turn on and off at run time,
// as MQTT is: it counts the scans it is asked for.
type switchedScanner struct {
	on    atomic.Bool
	scans atomic.Int32
}

func (s *switchedScanner) Adapter() string { return "broker" }
func (s *switchedScanner) On() bool        { return s.on.Load() }
func (s *switchedScanner) Scan(context.Context) (time.Duration, error) {
	s.scans.Add(1)
	return 2 * time.Second, nil
}

func TestScanWithAnAdapterTurnedOnLater(t *testing.T) {
	sw := &switchedScanner{}
	h := newHouseWith(t, func(c *service.Config, home *sim.Home) { c.Scanners = []devices.Scanner{home, sw} })
	names := func() []string {
		var out []string
		for _, a := range servicetest.Must[[]service.AdapterInfo](t)(h.svc.Adapters(h.ctx)) {
			out = append(out, a.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"sim"}) {
		t.Fatalf("adapters while the broker is off: %v", got)
	}
	res := servicetest.Must[service.ScanResult](t)(h.svc.Scan(h.ctx))
	if !slices.Equal(res.Adapters, []string{"sim"}) || len(res.Failed) != 0 || sw.scans.Load() != 0 {
		t.Fatalf("scan while the broker is off: %+v, %d scans", res, sw.scans.Load())
	}
	_, err := h.svc.AddDevice(h.ctx, "broker", "10.0.0.1")
	servicetest.WantCode(t, err, service.ENOTFOUND)

	sw.on.Store(true)
	if got := names(); !slices.Equal(got, []string{"sim", "broker"}) {
		t.Fatalf("adapters once the broker is on: %v", got)
	}
	res = servicetest.Must[service.ScanResult](t)(h.svc.Scan(h.ctx))
	if !slices.Equal(res.Adapters, []string{"broker", "sim"}) || res.WaitSeconds != 2 || sw.scans.Load() != 1 {
		t.Fatalf("scan once the broker is on: %+v, %d scans", res, sw.scans.Load())
	}
}

func TestRoomOffQuietensSpeakers(t *testing.T) {
	h := newHouse(t)
	favs := servicetest.Must[[]devices.Favorite](t)(h.svc.Favorites(h.ctx, "Living Room Sonos"))
	servicetest.Must[service.Media](t)(h.svc.PlayFavorite(h.ctx, "Living Room Sonos", favs[0].ID))
	res := servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Living Room", service.RoomPatch{On: ptr(false)}))
	if len(res.Failed) != 0 {
		t.Fatalf("room off failed on %+v", res.Failed)
	}
	m := servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Living Room Sonos"))
	if m.State.Transport == devices.TransportPlaying {
		t.Fatal("the speaker still plays after the room was switched off")
	}
}

func TestGreenMagentaShift(t *testing.T) {
	h := newHouse(t)
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(4300), GM: ptr(-20)}))
	if res.State.Mode != devices.ModeTemperature || res.State.GM != -20 || res.Applied.GM == nil || *res.Applied.GM != -20 {
		t.Fatalf("kelvin with gm: %+v", res)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{GM: ptr(15)}))
	if res.State.GM != 15 || res.State.Kelvin != 4300 {
		t.Fatalf("gm alone shifts the white the light shows: %+v", res.State)
	}
	caps := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light")).Capabilities
	if !caps.GM {
		t.Fatalf("the Key Light does not say it takes gm: %+v", caps)
	}

	for _, p := range []service.LightPatch{{GM: ptr(51)}, {GM: ptr(-51)}, {GM: ptr(5), Hex: ptr("FF0000")}, {GM: ptr(5), Preset: ptr("HMI")}} {
		_, err := h.svc.SetLight(h.ctx, "Key Light", p)
		servicetest.WantCode(t, err, service.EINVALID)
	}
	_, err := h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{GM: ptr(10)})
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
	_, err = h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{GM: ptr(0)}) // alone, it asks nothing the light can do
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Kelvin: ptr(4000), GM: ptr(0)})) // neutral asks nothing

	// A room's shift reaches the lights that take one; the others take the
	// rest of the patch.
	room := servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", service.RoomPatch{Kelvin: ptr(4300), GM: ptr(15)}))
	if len(room.Failed) != 0 {
		t.Fatalf("room with gm: %+v", room)
	}
	if st := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Fill Light")).State; st == nil || st.Kelvin != 4300 {
		t.Fatalf("the Fill Light after a room kelvin with gm: %+v", st)
	}

	// A scene restores the shift, and a neutral white in a scene undoes one.
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Tinted", "Office"))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(5000), GM: ptr(0)}))
	servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "Tinted"))
	if st := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light")).State; st == nil || st.GM != 15 || st.Kelvin != 4300 {
		t.Fatalf("after the scene: %+v", st)
	}
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(4300), GM: ptr(0)}))
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Neutral", "Office"))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{GM: ptr(30)}))
	servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "Neutral"))
	if st := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light")).State; st == nil || st.GM != 0 {
		t.Fatalf("a neutral scene left the shift: %+v", st)
	}
}

func TestPresets(t *testing.T) {
	h := newHouse(t)
	presets := servicetest.Must[[]color.Preset](t)(h.svc.ListPresets(h.ctx))
	var source, gel color.Preset
	for _, p := range presets {
		switch {
		case p.Kind == color.PresetSource && p.GM != 0 && source.Name == "":
			source = p
		case p.Kind == color.PresetGel && p.Kelvin == 0 && gel.Name == "":
			gel = p
		}
	}
	if source.Name == "" || gel.Name == "" {
		t.Fatalf("catalogue lacks a tinted source or a creative gel: %+v", presets)
	}
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Preset: ptr(strings.ToUpper(source.Name))}))
	if res.Applied.Kelvin == nil || res.Applied.GM == nil || *res.Applied.GM != source.GM || !res.State.On {
		t.Fatalf("source preset on a bi-colour panel: %+v", res)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Rope Light", service.LightPatch{Preset: &gel.Name}))
	if res.State.Mode != devices.ModeColor || res.Applied.Color == nil || res.Applied.Color.Hex != gel.Hex {
		t.Fatalf("gel on an RGB strip: %+v", res)
	}
	_, err := h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Preset: &gel.Name})
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
	_, err = h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Preset: ptr("Moonbeam Unicorn")})
	servicetest.WantCode(t, err, service.EINVALID)
}

// TestGelPresets: NeewerLite's gels on each kind of lamp: a colour lamp
// takes a gel's colour, a white lamp a correction gel's white, and refuses
// a creative gel, saying why.
func TestGelPresets(t *testing.T) {
	h := newHouse(t)
	for _, c := range []struct{ light, gel, hex string }{
		{"Rope Light", "Congo Blue", "0D0DFF"},
		{"Rope Light", "CTO ½", "FFCF9E"}, // a correction gel, on a lamp with no white
		{"Rope Light", "deep-red", "FF1919"},
	} {
		res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, c.light, service.LightPatch{Preset: ptr(c.gel)}))
		if res.Applied.Color == nil || res.Applied.Color.Hex != c.hex || res.State.Mode != devices.ModeColor {
			t.Errorf("%s on the %s: %+v, want colour %s", c.gel, c.light, res, c.hex)
		}
	}
	for _, c := range []struct {
		gel        string
		kelvin, gm int
	}{
		{"CTO ½", 3870, 0},
		{"1/4 CTB", 3670, 0},
		{"Plus Green Full", 5600, -30},
	} {
		res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Preset: ptr(c.gel)}))
		if res.Applied.Kelvin == nil || *res.Applied.Kelvin != c.kelvin || res.State.Mode != devices.ModeTemperature {
			t.Errorf("%s on a bi-colour panel: %+v, want %d K", c.gel, res, c.kelvin)
		}
		res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Preset: ptr(c.gel)}))
		if res.State.Kelvin != c.kelvin || res.State.GM != c.gm {
			t.Errorf("%s on an RGB panel: %+v, want %d K, GM %d", c.gel, res.State, c.kelvin, c.gm)
		}
	}
	_, err := h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Preset: ptr("Congo Blue")})
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
	if msg := err.Error(); !strings.Contains(msg, "Fill Light has no colour") || !strings.Contains(msg, "creative gel Congo Blue") {
		t.Errorf("a creative gel on a white lamp: %q", msg)
	}
}

// TestScenesKeepWhatAPresetSet: a scene captures a light a preset set as
// the white or colour it shows, and gives it back.
func TestScenesKeepWhatAPresetSet(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Preset: ptr("Minus Green ½")}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Rope Light", service.LightPatch{Preset: ptr("Primary Blue")}))
	sc := servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Gelled", ""))
	for _, e := range sc.Entries {
		if e.Light == nil {
			continue
		}
		switch e.DeviceID {
		case servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light")).ID:
			if e.Light.Mode != devices.ModeTemperature || e.Light.Kelvin != 5600 || e.Light.GM != 15 {
				t.Errorf("the Key Light captured as %+v", e.Light)
			}
		case servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Rope Light")).ID:
			if e.Light.Mode != devices.ModeColor || e.Light.Color == nil || e.Light.Color.Hex != "0040FF" {
				t.Errorf("the Rope Light captured as %+v", e.Light)
			}
		}
	}
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(3200), GM: ptr(0)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Rope Light", service.LightPatch{Hex: ptr("FFFFFF")}))
	servicetest.Must[service.FanoutResult](t)(h.svc.ActivateScene(h.ctx, "Gelled"))
	if st := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Key Light")).State; st == nil || st.Kelvin != 5600 || st.GM != 15 {
		t.Errorf("the Key Light after the scene: %+v", st)
	}
	if st := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, "Rope Light")).State; st == nil || st.Color == nil || st.Color.Hex != "0040FF" {
		t.Errorf("the Rope Light after the scene: %+v", st)
	}
}

// lampAdder adds a simulated lamp at any address, as a real adapter adds
// what it finds at an IP or MAC address.
type lampAdder struct{ reg *devices.Registry }

func (a lampAdder) Adapter() string                             { return "lamps" }
func (a lampAdder) Scan(context.Context) (time.Duration, error) { return 0, nil }
func (a lampAdder) Add(_ context.Context, addr string) ([]devices.ID, error) {
	if !strings.HasPrefix(addr, "10.") {
		return nil, devices.Unreachable(nil, "nothing answers at %s", addr)
	}
	l := sim.NewLight("lamp-"+sim.Slug(addr), "Porch Lamp "+addr, "Garage", devices.LightCaps{Dimmable: true}, sim.Options{})
	sim.Register(a.reg, l)
	return []devices.ID{l.Info().ID}, nil
}

func TestAddDeviceByAddress(t *testing.T) {
	h := newHouseWith(t, func(c *service.Config, _ *sim.Home) {
		c.Scanners = []devices.Scanner{lampAdder{reg: c.Registry.(*devices.Registry)}}
	})
	adapters := servicetest.Must[[]service.AdapterInfo](t)(h.svc.Adapters(h.ctx))
	if len(adapters) != 1 || adapters[0].Name != "lamps" || !adapters[0].CanAdd {
		t.Fatalf("adapters %+v", adapters)
	}
	// The registry's change and the caller both record an added device;
	// the first of them creates its room, and neither fails.
	servicetest.Run(t, h.svc)
	for i := range 10 {
		found := servicetest.Must[[]service.DeviceView](t)(h.svc.AddDevice(h.ctx, "lamps", fmt.Sprintf("10.0.0.%d", i)))
		if len(found) != 1 || found[0].Room != "Garage" || !found[0].Online {
			t.Fatalf("found %+v", found)
		}
	}
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Porch Lamp 10.0.0.7", service.LightPatch{On: ptr(true)}))
	_, err := h.svc.AddDevice(h.ctx, "lamps", "192.0.2.1")
	servicetest.WantCode(t, err, service.EUNREACHABLE)
	_, err = h.svc.AddDevice(h.ctx, "hue", "10.0.0.8")
	servicetest.WantCode(t, err, service.ENOTFOUND)
	_, err = h.svc.AddDevice(h.ctx, "lamps", " ")
	servicetest.WantCode(t, err, service.EINVALID)
}

// flakyAdder adds a lamp at an address once the address has refused a
// number of tries (a player still booting when the hub starts).
type flakyAdder struct {
	lampAdder
	refuse atomic.Int32
	tries  atomic.Int32
}

func (a *flakyAdder) Add(ctx context.Context, addr string) ([]devices.ID, error) {
	a.tries.Add(1)
	if a.refuse.Add(-1) >= 0 {
		return nil, devices.Unreachable(nil, "nothing answers at %s yet", addr)
	}
	return a.lampAdder.Add(ctx, addr)
}

// TestAddedDevicesComeBackAfterARestart adds lamps by address, then starts
// a new hub (a fresh registry, the same database): the lamps are added
// again, one that does not answer at first is tried until it does, and an
// address whose devices are already known is not asked.
func TestAddedDevicesComeBackAfterARestart(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	user := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})

	reg1 := devices.NewRegistry(time.Second)
	svc1 := service.New(service.Config{Store: db, Registry: reg1, Scanners: []devices.Scanner{lampAdder{reg: reg1}}})
	for _, addr := range []string{"10.0.0.7", "10.0.0.8"} {
		servicetest.Must[[]service.DeviceView](t)(svc1.AddDevice(user, "lamps", addr))
	}
	reg1.Close()

	reg2 := devices.NewRegistry(time.Second)
	defer reg2.Close()
	adder := &flakyAdder{lampAdder: lampAdder{reg: reg2}}
	adder.refuse.Store(2)
	svc2 := service.New(service.Config{Store: db, Registry: reg2, Scanners: []devices.Scanner{adder}, AddRetry: 10 * time.Millisecond})
	// 10.0.0.8 is configured on the new hub, so it is there already.
	sim.Register(reg2, sim.NewLight("lamp-10-0-0-8", "Porch Lamp 10.0.0.8", "Garage", devices.LightCaps{Dimmable: true}, sim.Options{}))
	if err := svc2.RestoreAdded(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg2.Get("sim:lamp-10-0-0-7"); !ok {
		t.Fatalf("the lamp added at 10.0.0.7 is not back; registry %v", reg2.List())
	}
	if n := adder.tries.Load(); n != 3 {
		t.Errorf("%d tries; want 3 (two refusals, then the lamp at 10.0.0.7, and none for 10.0.0.8)", n)
	}
	servicetest.Must[service.LightResult](t)(svc2.SetLight(user, "Porch Lamp 10.0.0.7", service.LightPatch{On: ptr(true)}))

	// A hub stopped while an address still does not answer gives up.
	adder.refuse.Store(1 << 20)
	reg2.Remove("sim:lamp-10-0-0-7")
	stop, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	tries := adder.tries.Load()
	go func() { done <- svc2.RestoreAdded(stop) }()
	for deadline := time.Now().Add(10 * time.Second); adder.tries.Load() < tries+2; { // it keeps trying
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("%d tries after 10 s; want it to keep trying", adder.tries.Load()-tries)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RestoreAdded went on after its context ended")
	}

	// A device the user disabled is not added again.
	servicetest.Must[service.DeviceView](t)(svc2.UpdateDevice(user, "Porch Lamp 10.0.0.7", service.DevicePatch{Enabled: ptr(false)}))
	tries = adder.tries.Load()
	if err := svc2.RestoreAdded(ctx); err != nil {
		t.Fatal(err)
	}
	if n := adder.tries.Load(); n != tries {
		t.Errorf("a disabled device was added again (%d tries)", n-tries)
	}
}

func TestPlayOnUnderstandsRequests(t *testing.T) {
	h := newHouse(t)
	cases := []struct{ query, action, app, title string }{
		{"Netflix", "opened_app", "com.netflix.ninja", ""},
		{"please open YouTube", "opened_app", "com.google.android.youtube.tv", ""},
		{"play The Expanse", "played", "com.plexapp.android", "The Expanse"},
		{"watch stranger things on Netflix", "played", "com.netflix.ninja", "Stranger Things"},
		{"play something odd on Disney+", "opened_app", "com.disney.disneyplus", ""},
	}
	for _, c := range cases {
		res := servicetest.Must[service.PlayOnResult](t)(h.svc.PlayOn(h.ctx, "Living Room TV", c.query))
		if res.Action != c.action || res.App != c.app || res.Title != c.title {
			t.Errorf("%q: %+v; want %s %s %q", c.query, res, c.action, c.app, c.title)
		}
	}
	// Back on the home screen, an unknown title opens the app last used.
	servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(h.ctx, "Living Room TV", service.RemoteCommand{Key: "home"}))
	res := servicetest.Must[service.PlayOnResult](t)(h.svc.PlayOn(h.ctx, "Living Room TV", "play Bob's Burgers"))
	if res.Action != "opened_last_app" || res.App != "com.disney.disneyplus" {
		t.Fatalf("fallback: %+v", res)
	}
}

func TestUndoTakesBackATVsVolumeAndPowerKeys(t *testing.T) {
	h := newHouse(t)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "assistant", Scope: service.ScopeControl})
	tv := h.home.TV("sim:living-room-tv")
	servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true), Volume: ptr(20), Source: ptr("Netflix")}))

	servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(key, "Living Room TV", service.RemoteCommand{Key: "volume_up"}))
	if st := servicetest.Must[devices.MediaState](t)(tv.MediaState(h.ctx)); st.Volume == 20 {
		t.Fatalf("volume_up left the volume at %d", st.Volume)
	}
	res := servicetest.Must[service.UndoResult](t)(h.svc.Undo(key))
	st := servicetest.Must[devices.MediaState](t)(tv.MediaState(h.ctx))
	if len(res.Result.Applied) != 1 || st.Volume != 20 || st.Source != "Netflix" || !st.Power {
		t.Fatalf("after undoing volume_up the TV is %+v (%+v); want volume 20 on Netflix", st, res)
	}

	servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(key, "Living Room TV", service.RemoteCommand{Key: "power"}))
	if st := servicetest.Must[devices.MediaState](t)(tv.MediaState(h.ctx)); st.Power {
		t.Fatal("the power key left the TV on")
	}
	servicetest.Must[service.UndoResult](t)(h.svc.Undo(key))
	if st := servicetest.Must[devices.MediaState](t)(tv.MediaState(h.ctx)); !st.Power {
		t.Fatal("undoing the power key left the TV off")
	}

	// Keys that change nothing the model keeps are not undone.
	servicetest.Must[service.RemoteView](t)(h.svc.RemoteCommand(key, "Living Room TV", service.RemoteCommand{Key: "select"}))
	_, err := h.svc.Undo(key)
	servicetest.WantCode(t, err, service.ENOTFOUND)
}

func TestHoldingAKey(t *testing.T) {
	h := newHouse(t)
	_, err := h.svc.RemoteCommand(h.ctx, "Living Room TV", service.RemoteCommand{Key: "select", HoldSecs: 4})
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.RemoteCommand(h.ctx, "Living Room TV", service.RemoteCommand{Text: "x", HoldSecs: 1})
	servicetest.WantCode(t, err, service.EINVALID)
	// The simulated TV has no long press: said so, not faked.
	_, err = h.svc.RemoteCommand(h.ctx, "Living Room TV", service.RemoteCommand{Key: "select", HoldSecs: 1})
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
}

func TestColourByItsPartsAndEffectByPosition(t *testing.T) {
	h := newHouse(t)
	// A white light given only a hue takes it at full saturation.
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(4000)}))
	res := servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Hue: ptr(120.0)}))
	if res.State.Mode != devices.ModeColor || res.State.Color == nil || res.State.Color.Hex != "00FF00" {
		t.Fatalf("hue 120 on a white light: %+v; want colour 00FF00", res.State)
	}
	// Saturation alone keeps the hue; hue alone keeps the saturation.
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Saturation: ptr(50.0)}))
	if res.State.Color.Hex != "80FF80" {
		t.Fatalf("saturation 50 of green = %s; want 80FF80", res.State.Color.Hex)
	}
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Hue: ptr(240.0)}))
	if res.State.Color.Hex != "8080FF" {
		t.Fatalf("hue 240 at saturation 50 = %s; want 8080FF", res.State.Color.Hex)
	}
	// An effect by its position in the light's own list.
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{EffectNumber: ptr(2)}))
	if res.State.Mode != devices.ModeEffect || res.State.Effect != h.home.Light("sim:key-light").LightCaps().Effects[1] {
		t.Fatalf("effect number 2: %+v", res.State)
	}
	// A speed and a colour go with it; a lamp whose effects take none runs it as it is.
	res = servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{EffectNumber: ptr(3), EffectSpeed: ptr(8), EffectColor: ptr(0)}))
	if res.State.Effect != h.home.Light("sim:key-light").LightCaps().Effects[2] {
		t.Fatalf("effect number 3 at speed 8: %+v", res.State)
	}
	before := h.home.Light("sim:key-light").Commands()
	for _, c := range []struct {
		p    service.LightPatch
		code string
		says string
	}{
		{service.LightPatch{EffectNumber: ptr(99)}, service.EINVALID, "no effect number 99"},
		{service.LightPatch{EffectNumber: ptr(0)}, service.EINVALID, "from 1"},
		{service.LightPatch{Hue: ptr(400.0)}, service.EINVALID, "0–360"},
		{service.LightPatch{Saturation: ptr(-1.0)}, service.EINVALID, "0–100"},
		{service.LightPatch{Hue: ptr(10.0), Kelvin: ptr(3000)}, service.EINVALID, "only one"},
		{service.LightPatch{EffectSpeed: ptr(5)}, service.EINVALID, "go with an effect"},
		{service.LightPatch{Effect: ptr("no_effect"), EffectColor: ptr(1)}, service.EINVALID, "go with an effect"},
		{service.LightPatch{EffectNumber: ptr(2), EffectSpeed: ptr(11)}, service.EINVALID, "1 (slowest) to 10"},
		{service.LightPatch{EffectNumber: ptr(2), EffectColor: ptr(-1)}, service.EINVALID, "from 0"},
	} {
		_, err := h.svc.SetLight(h.ctx, "Key Light", c.p)
		servicetest.WantCode(t, err, c.code)
		if !strings.Contains(service.ErrorMessage(err), c.says) {
			t.Errorf("%+v: message %q does not say %q", c.p, service.ErrorMessage(err), c.says)
		}
	}
	if got := h.home.Light("sim:key-light").Commands(); got != before {
		t.Errorf("refused writes reached the lamp (%d commands)", got-before)
	}
	_, err := h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Hue: ptr(10.0)})
	servicetest.WantCode(t, err, service.EUNSUPPORTED)
}

// failingWriter fails the nth device written through it.
type failingWriter struct {
	service.InventoryWriter
	n *int
}

func (w failingWriter) UpsertDevice(ctx context.Context, d service.DeviceRecord) error {
	if *w.n--; *w.n == 0 {
		return fmt.Errorf("disk full")
	}
	return w.InventoryWriter.UpsertDevice(ctx, d)
}

// failingStore records through a failingWriter.
type failingStore struct {
	*store.DB
	n int
}

func (s *failingStore) WriteInventory(ctx context.Context, fn func(service.InventoryWriter) error) error {
	return s.DB.WriteInventory(ctx, func(w service.InventoryWriter) error {
		return fn(failingWriter{InventoryWriter: w, n: &s.n})
	})
}

// Record writes the house in one transaction: when one device cannot be
// written, none is, and a second Record writes them all.
func TestRecordIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(func() { reg.Close(); db.Close() })
	sim.NewHome(sim.Options{}).Register(reg)
	fs := &failingStore{DB: db, n: 3}
	svc := service.New(service.Config{Store: fs, Registry: reg})
	if err := svc.Record(ctx); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Record = %v, want the third device's error", err)
	}
	if list, err := db.ListDevices(ctx); err != nil || len(list) != 0 {
		t.Fatalf("after a failed Record: %d devices (%v), want none", len(list), err)
	}
	if rooms, err := db.ListRooms(ctx); err != nil || len(rooms) != 0 {
		t.Fatalf("after a failed Record: %d rooms (%v), want none", len(rooms), err)
	}
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(reg.List()); len(list) != want {
		t.Fatalf("after Record: %d devices, want %d", len(list), want)
	}
}
