package v1_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestPower(t *testing.T) {
	h := newHarness(t)
	var ps []service.PowerView
	h.call(t, h.read, http.MethodGet, "/api/v1/power/devices", "", http.StatusOK, &ps)
	if len(ps) != 3 {
		t.Fatalf("%d power devices, want the sim's 3", len(ps))
	}
	var p service.PowerView
	h.represented(t, http.MethodPut, "/api/v1/power/devices/Porch/state", `{"on": true}`, &p)
	if p.On == nil || !*p.On || !h.home.Switch("sim:porch-switch").On() {
		t.Fatalf("porch switch %+v", p)
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/power/devices/sim:desk-fan", "", http.StatusOK, &p)
	if p.PowerKind != devices.PowerFan {
		t.Fatalf("desk fan is a %q", p.PowerKind)
	}
	e := h.fail(t, h.control, http.MethodPut, "/api/v1/power/devices/Porch/state", `{}`, http.StatusUnprocessableEntity, "invalid")
	if e.Field != "on" {
		t.Fatalf("a missing on should be named: %+v", e)
	}
	h.fail(t, h.control, http.MethodPut, "/api/v1/power/devices/Porch/state", `{"on": "yes"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.read, http.MethodGet, "/api/v1/power/devices/Key%20Light", "", http.StatusNotFound, "not_found")
}

func TestRemotes(t *testing.T) {
	h := newHarness(t)
	var rs []service.RemoteView
	h.call(t, h.read, http.MethodGet, "/api/v1/remote/devices", "", http.StatusOK, &rs)
	if len(rs) != 1 || rs[0].ID != "sim:living-room-tv" {
		t.Fatalf("remotes %+v", rs)
	}
	var r service.RemoteView
	h.call(t, h.read, http.MethodGet, "/api/v1/remote/devices/TV", "", http.StatusOK, &r)
	if len(r.Keys) == 0 || len(r.Apps) == 0 {
		t.Fatalf("remote %+v", r)
	}
	tv := h.home.TV("sim:living-room-tv")
	h.represented(t, http.MethodPost, "/api/v1/remote/devices/TV/command", `{"key": "power"}`, &r)
	h.represented(t, http.MethodPost, "/api/v1/remote/devices/TV/command", `{"key": "ok"}`, &r)
	if tv.LastKey() != "select" {
		t.Fatalf("last key %q, want the alias ok as select", tv.LastKey())
	}
	h.represented(t, http.MethodPost, "/api/v1/remote/devices/TV/command", `{"app": "netflix"}`, &r)
	if r.CurrentApp != "com.netflix.ninja" {
		t.Fatalf("current app %q", r.CurrentApp)
	}
	e := h.fail(t, h.control, http.MethodPost, "/api/v1/remote/devices/TV/command", `{"key": "teleport"}`, http.StatusUnprocessableEntity, "invalid")
	if !slices.Contains(e.Options, "select") {
		t.Fatalf("an unknown key should list the keys: %+v", e)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/remote/devices/TV/command", `{"key": "up", "text": "hi"}`, http.StatusUnprocessableEntity, "invalid")
}

func TestSensors(t *testing.T) {
	h := newHarness(t)
	var ss []service.SensorView
	h.call(t, h.read, http.MethodGet, "/api/v1/sensors/devices", "", http.StatusOK, &ss)
	if len(ss) != 3 {
		t.Fatalf("%d sensors, want the sim's 3", len(ss))
	}
	var s service.SensorView
	h.call(t, h.read, http.MethodGet, "/api/v1/sensors/devices/Bedroom%20Temperature", "", http.StatusOK, &s)
	if len(s.Readings) != 2 || s.Readings[0].Type != devices.ReadingTemperature || s.Readings[0].Unit == "" {
		t.Fatalf("readings %+v", s.Readings)
	}
	var room service.RoomView
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms/Living%20Room", "", http.StatusOK, &room)
	if room.Occupied == nil || !*room.Occupied {
		t.Fatalf("the living room's presence sensor says occupied; the room says %v", room.Occupied)
	}
}

func TestInventoryAndHome(t *testing.T) {
	h := newHarness(t)
	var ds []service.DeviceView
	h.call(t, h.read, http.MethodGet, "/api/v1/devices", "", http.StatusOK, &ds)
	if len(ds) != len(h.home.Devices()) {
		t.Fatalf("%d devices in the inventory, %d in the sim", len(ds), len(h.home.Devices()))
	}
	var d service.DeviceView
	h.call(t, h.control, http.MethodPatch, "/api/v1/devices/sim:porch-switch", `{"name": "Front Porch", "room": "Kitchen"}`, http.StatusOK, &d)
	if d.Name != "Front Porch" || d.Room != "Kitchen" {
		t.Fatalf("device %+v", d)
	}
	h.call(t, h.control, http.MethodPatch, "/api/v1/devices/Front%20Porch", `{"enabled": false}`, http.StatusOK, &d)
	if d.Enabled {
		t.Fatal("still enabled")
	}
	before := h.commands(t, "sim:porch-switch")
	h.fail(t, h.control, http.MethodPut, "/api/v1/power/devices/Front%20Porch/state", `{"on": true}`, http.StatusConflict, "conflict")
	if h.commands(t, "sim:porch-switch") != before {
		t.Fatal("a disabled device took a command")
	}
	h.fail(t, h.control, http.MethodPatch, "/api/v1/devices/sim:porch-switch", `{"room": "Attic"}`, http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodPatch, "/api/v1/devices/sim:porch-switch", `{}`, http.StatusUnprocessableEntity, "invalid")

	var home service.Home
	h.call(t, h.read, http.MethodGet, "/api/v1/home", "", http.StatusOK, &home)
	if len(home.Rooms) != 4 || len(home.Lights) != 6 || len(home.Media) != 4 || len(home.Power) != 3 ||
		len(home.Remotes) != 1 || len(home.Sensors) != 3 {
		t.Fatalf("home: %d rooms, %d lights, %d media, %d power, %d remotes, %d sensors",
			len(home.Rooms), len(home.Lights), len(home.Media), len(home.Power), len(home.Remotes), len(home.Sensors))
	}
}

func TestScanAndAddDevice(t *testing.T) {
	h := newHarness(t)
	var res service.ScanResult
	h.call(t, h.control, http.MethodPost, "/api/v1/devices/scan", "", http.StatusOK, &res)
	if res.Message == "" {
		t.Fatalf("scan %+v", res)
	}
	h.call(t, h.read, http.MethodPost, "/api/v1/devices/scan", "", http.StatusForbidden, nil)
	var adapters []service.AdapterInfo
	h.call(t, h.read, http.MethodGet, "/api/v1/adapters", "", http.StatusOK, &adapters)
	h.call(t, h.control, http.MethodPost, "/api/v1/devices", `{"adapter": "sonos"}`, http.StatusUnprocessableEntity, nil)
	// No adapter of the test hub adds by address: the error lists what can.
	h.call(t, h.control, http.MethodPost, "/api/v1/devices", `{"adapter": "sonos", "address": "192.0.2.1"}`, http.StatusNotFound, nil)
}
