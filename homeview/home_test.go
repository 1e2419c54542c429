package homeview_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// house is the simulated home, served, and a caller who may change it.
type house struct {
	svc *service.Service
	ctx context.Context
}

func newHouse(t *testing.T) *house {
	svc, _ := servicetest.SimHouse(t)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &house{svc: svc, ctx: service.WithPrincipal(context.Background(), p)}
}

// homeNames lists the names of the devices in a home's lists, list by list.
func homeNames(h *service.Home) map[string][]string {
	out := map[string][]string{}
	for _, l := range h.Lights {
		out["lights"] = append(out["lights"], l.Name)
	}
	for _, m := range h.Media {
		out["media"] = append(out["media"], m.Name)
	}
	for _, p := range h.Power {
		out["power"] = append(out["power"], p.Name)
	}
	for _, r := range h.Remotes {
		out["remotes"] = append(out["remotes"], r.Name)
	}
	for _, s := range h.Sensors {
		out["sensors"] = append(out["sensors"], s.Name)
	}
	for _, r := range h.Rooms {
		out["rooms"] = append(out["rooms"], r.Name)
	}
	for _, s := range h.Scenes {
		out["scenes"] = append(out["scenes"], s.Name)
	}
	return out
}

// detail checks Home answered the snapshot, not a summary, and returns it.
func detail(t *testing.T) func(homeview.View, error) *service.Home {
	return func(v homeview.View, err error) *service.Home {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if v.Home == nil || v.Summary != nil {
			t.Fatalf("want the snapshot, got a summary: %+v", v.Summary)
		}
		return v.Home
	}
}

func TestHomeOfASmallHouseIsInFull(t *testing.T) {
	h := newHouse(t)
	home := detail(t)(homeview.Read(h.ctx, h.svc, homeview.Query{}))
	if len(home.Rooms) != 4 || len(home.Lights) != 6 || len(home.Media) != 4 || len(home.Power) != 3 ||
		len(home.Remotes) != 1 || len(home.Sensors) != 3 {
		t.Fatalf("home: %v", homeNames(home))
	}
	b, err := json.Marshal(homeview.View{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil || len(keys) != 7 || keys["summary"] != nil {
		t.Fatalf("a snapshot encodes as the seven lists: %s", b)
	}
}

func TestHomeSnapshot(t *testing.T) {
	h := newHouse(t)
	home := servicetest.Must[homeview.View](t)(homeview.Read(h.ctx, h.svc, homeview.Query{Detail: true}))
	if len(home.Rooms) != 4 || len(home.Lights) != 6 || len(home.Media) != 4 || len(home.Power) != 3 ||
		len(home.Remotes) != 1 || len(home.Sensors) != 3 {
		t.Fatalf("home has %d rooms, %d lights, %d media, %d power, %d remotes, %d sensors",
			len(home.Rooms), len(home.Lights), len(home.Media), len(home.Power), len(home.Remotes), len(home.Sensors))
	}
}

func TestHomeFilters(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Office work", "office"))
	servicetest.Must[service.SceneView](t)(h.svc.CaptureScene(h.ctx, "Evening", ""))

	office := homeNames(detail(t)(homeview.Read(h.ctx, h.svc, homeview.Query{Room: "office"})))
	want := map[string][]string{
		"lights":  {"Key Light", "Fill Light", "Desk Lamp"},
		"power":   {"Desk Fan"},
		"sensors": {"Office Motion"},
		"rooms":   {"Office"},
		"scenes":  {"Office work"},
	}
	sameNames(t, "room office", office, want)

	lights := homeNames(detail(t)(homeview.Read(h.ctx, h.svc, homeview.Query{Kind: "Light"})))
	if len(lights["lights"]) != 6 || len(lights["media"])+len(lights["power"])+len(lights["remotes"])+len(lights["sensors"]) != 0 {
		t.Fatalf("kind light: %v", lights)
	}
	if !slices.Contains(lights["rooms"], "Office") || slices.Contains(lights["rooms"], "Kitchen") {
		t.Fatalf("kind light keeps the rooms with lights: %v", lights["rooms"])
	}

	on := homeNames(detail(t)(homeview.Read(h.ctx, h.svc, homeview.Query{OnlyOn: true})))
	sameNames(t, "only on, lights", map[string][]string{"lights": on["lights"]},
		map[string][]string{"lights": {"Key Light", "Fill Light", "Ceiling Light", "Rope Light"}})
	if !slices.Contains(on["power"], "Coffee Plug") || slices.Contains(on["power"], "Desk Fan") ||
		!slices.Contains(on["sensors"], "Living Room Occupancy") || slices.Contains(on["sensors"], "Bedroom Temperature") {
		t.Fatalf("only on: %v", on)
	}

	both := homeNames(detail(t)(homeview.Read(h.ctx, h.svc, homeview.Query{Room: "Living", Kind: devices.KindLight, OnlyOn: true})))
	sameNames(t, "living room lights that are on", both, map[string][]string{
		"lights": {"Ceiling Light", "Rope Light"}, "rooms": {"Living Room"},
	})
}

func sameNames(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	for k := range got {
		if _, ok := want[k]; !ok && len(got[k]) > 0 {
			t.Errorf("%s: unexpected %s %v", what, k, got[k])
		}
	}
	for k, w := range want {
		if g := slices.Sorted(slices.Values(got[k])); !slices.Equal(g, slices.Sorted(slices.Values(w))) {
			t.Errorf("%s: %s %v, want %v", what, k, got[k], w)
		}
	}
}

func TestHomeRefusesBadFilters(t *testing.T) {
	h := newHouse(t)
	for _, q := range []homeview.Query{{Room: "attic"}, {Room: "room"}, {Kind: "lamp"}} {
		_, err := homeview.Read(h.ctx, h.svc, q)
		servicetest.WantCode(t, err, service.EINVALID)
		d := service.ErrorDetails(err)
		if opts, _ := d["options"].([]string); len(opts) == 0 || d["field"] == nil {
			t.Errorf("%+v: %v names no field or options: %v", q, err, d)
		}
	}
	if _, err := homeview.Read(context.Background(), h.svc, homeview.Query{}); service.ErrorCode(err) != service.EUNAUTHORIZED {
		t.Fatalf("without a principal: %v", err)
	}
}

func TestHomeSummarizesALargeHouse(t *testing.T) {
	l := servicetest.LargeHouse(t, 200, 200)
	ctx := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "reader", Scope: service.ScopeRead})
	v, err := homeview.Read(ctx, l.Service, homeview.Query{})
	if err != nil || v.Home != nil || v.Summary == nil {
		t.Fatalf("a house of 400 devices: %+v, %v", v, err)
	}
	sum := v.Summary
	if sum.Devices != 400 || len(sum.Rooms) != 4 || sum.NoRoom != nil {
		t.Fatalf("summary: %d devices, %d rooms, no room %+v", sum.Devices, len(sum.Rooms), sum.NoRoom)
	}
	for _, r := range sum.Rooms {
		lights := homeview.LightCounts{OnOff: homeview.OnOff{On: 25, Off: 24, Offline: 1}, Brightness: []int{20, 100}}
		switch {
		case !slices.Contains(servicetest.LargeRooms, r.Name) || r.Devices != 100:
			t.Errorf("room %s with %d devices", r.Name, r.Devices)
		case r.Lights == nil || r.Lights.OnOff != lights.OnOff || !slices.Equal(r.Lights.Brightness, lights.Brightness):
			t.Errorf("%s: lights %+v, want %+v", r.Name, r.Lights, lights)
		case r.Power == nil || *r.Power != (homeview.OnOff{On: 16, Off: 33, Offline: 1}):
			t.Errorf("%s: power %+v", r.Name, r.Power)
		case !slices.Equal(r.Offline, []string{r.Name + " Light 50", r.Name + " Plug 50"}) || r.MoreOffline != 0:
			t.Errorf("%s: offline %v (+%d)", r.Name, r.Offline, r.MoreOffline)
		case r.Media != nil || r.Occupied != nil:
			t.Errorf("%s: media %+v, occupied %v", r.Name, r.Media, r.Occupied)
		}
	}

	all := detail(t)(homeview.Read(ctx, l.Service, homeview.Query{Detail: true}))
	if len(all.Lights) != 200 || len(all.Power) != 200 {
		t.Fatalf("detail: %d lights, %d power", len(all.Lights), len(all.Power))
	}
	attic := detail(t)(homeview.Read(ctx, l.Service, homeview.Query{Room: "attic"}))
	if len(attic.Lights) != 50 || len(attic.Power) != 50 || len(attic.Rooms) != 1 {
		t.Fatalf("the attic: %d lights, %d power, %d rooms", len(attic.Lights), len(attic.Power), len(attic.Rooms))
	}
	plugsOn := detail(t)(homeview.Read(ctx, l.Service, homeview.Query{Kind: devices.KindPower, OnlyOn: true}))
	if len(plugsOn.Power) != 64 || len(plugsOn.Lights) != 0 || len(plugsOn.Rooms) != 4 || len(plugsOn.Rooms[0].Members) != 16 {
		t.Fatalf("plugs that are on: %d, %d lights, rooms %d", len(plugsOn.Power), len(plugsOn.Lights), len(plugsOn.Rooms))
	}
}
