package v1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestListAndGetLights(t *testing.T) {
	h := newHarness(t)
	var lights []service.Light
	h.call(t, h.read, http.MethodGet, "/api/v1/lights", "", http.StatusOK, &lights)
	if len(lights) != 6 {
		t.Fatalf("%d lights, want the sim's 6", len(lights))
	}
	for _, l := range lights {
		if l.State == nil || !l.Online {
			t.Fatalf("%s: no live state", l.Name)
		}
	}
	var l service.Light
	h.call(t, h.read, http.MethodGet, "/api/v1/lights/sim:key-light", "", http.StatusOK, &l)
	if l.Name != "Key Light" || l.Room != "Office" || len(l.Capabilities.Effects) == 0 {
		t.Fatalf("got %+v", l)
	}
}

func TestSetLightIsSparse(t *testing.T) {
	h := newHarness(t)
	const id = "sim:key-light" // on, 80 %, 4400 K
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/"+id+"/state", `{"brightness": 30}`, &res)
	if res.State.Brightness != 30 || !res.State.On || res.State.Kelvin != 4400 {
		t.Fatalf("state %+v: only brightness should have changed", res.State)
	}
	if res.Applied.Brightness == nil || *res.Applied.Brightness != 30 || res.Applied.Kelvin != nil {
		t.Fatalf("applied %+v", res.Applied)
	}
	if st := h.home.Light(id).State(); st.Brightness != 30 || st.Kelvin != 4400 {
		t.Fatalf("the lamp is at %+v", st)
	}
}

func TestSetLightColourImpliesOn(t *testing.T) {
	h := newHarness(t)
	const id = "sim:desk-lamp" // off
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/"+id+"/state", `{"hex": "#00FF00"}`, &res)
	if res.Applied.On == nil || !*res.Applied.On || !res.State.On || res.State.Mode != devices.ModeColor {
		t.Fatalf("a colour should switch the lamp on: applied %+v, state %+v", res.Applied, res.State)
	}
	if !h.home.Light(id).State().On {
		t.Fatal("the lamp is still off")
	}
}

func TestSetLightReportsClamping(t *testing.T) {
	h := newHarness(t)
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/sim:fill-light/state", `{"kelvin": 2700}`, &res)
	if res.Applied.Kelvin == nil || *res.Applied.Kelvin != 3200 || res.State.Kelvin != 3200 {
		t.Fatalf("2700 K on a 3200–5600 K lamp: applied %+v, state %+v", res.Applied, res.State)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "3200") {
		t.Fatalf("notes %q should say the value was clamped", res.Notes)
	}
}

func TestSetLightRefusesNonsense(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/lights/sim:key-light/state"
	before := h.commands(t, "sim:key-light")

	e := h.fail(t, h.control, http.MethodPut, path, `{"brightness": 250}`, http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(e.Message, "0–100") {
		t.Fatalf("brightness 250: %q", e.Message)
	}
	e = h.fail(t, h.control, http.MethodPut, path, `{"hex": "zz"}`, http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(e.Message, "zz") {
		t.Fatalf("hex zz: %q", e.Message)
	}
	e = h.fail(t, h.control, http.MethodPut, path, `{"effect": "Disco"}`, http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(e.Message, "Candlelight") || !slices.Contains(e.Options, "Party") {
		t.Fatalf("unknown effect should list the valid ones: %q %v", e.Message, e.Options)
	}
	e = h.fail(t, h.control, http.MethodPut, path, `{"brightness": "high"}`, http.StatusUnprocessableEntity, "invalid")
	if e.Field != "brightness" || !strings.Contains(e.Message, "brightness") {
		t.Fatalf("a string brightness should name the field: %+v", e)
	}
	h.fail(t, h.control, http.MethodPut, path, `{}`, http.StatusUnprocessableEntity, "invalid")

	if after := h.commands(t, "sim:key-light"); after != before {
		t.Fatalf("refused writes reached the lamp %d times", after-before)
	}
}

func TestUnknownLightListsOptions(t *testing.T) {
	h := newHarness(t)
	e := h.fail(t, h.read, http.MethodGet, "/api/v1/lights/sim:nope", "", http.StatusNotFound, "not_found")
	if !slices.Contains(e.Options, "Key Light") || !strings.Contains(e.Message, "Key Light") {
		t.Fatalf("404 should list the lights: %+v", e)
	}
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/Chandelier/state", `{"on": true}`, http.StatusNotFound, "not_found")
}

func TestLightNameResolution(t *testing.T) {
	h := newHarness(t)
	var l service.Light
	h.call(t, h.read, http.MethodGet, "/api/v1/lights/desk%20lamp", "", http.StatusOK, &l)
	if l.ID != "sim:desk-lamp" {
		t.Fatalf("exact name (any case) resolved to %s", l.ID)
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/lights/Rope", "", http.StatusOK, &l)
	if l.ID != "sim:rope-light" {
		t.Fatalf("unique substring resolved to %s", l.ID)
	}
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/Bedside%20Lamp/state", `{"on": true}`, &res)
	if res.ID != "sim:bedside-lamp" || !h.home.Light("sim:bedside-lamp").State().On {
		t.Fatalf("set by name: %+v", res)
	}
	e := h.fail(t, h.read, http.MethodGet, "/api/v1/lights/lamp", "", http.StatusUnprocessableEntity, "invalid")
	if !slices.Contains(e.Options, "Desk Lamp") || !slices.Contains(e.Options, "Bedside Lamp") {
		t.Fatalf("an ambiguous name should list the candidates: %+v", e)
	}
}

func TestSetAllLights(t *testing.T) {
	h := newHarness(t)
	var res fanoutCounts
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/all/state", `{"on": false}`, http.StatusOK, &res)
	if len(res.Results.Applied) != 6 || len(res.Results.Failed) != 0 {
		t.Fatalf("all lights off: %+v", res)
	}
	for _, d := range h.home.Devices() {
		if l := h.home.Light(d.Info().ID); l != nil && l.State().On {
			t.Fatalf("%s is still on", d.Info().Name)
		}
	}
}

func TestPresetsListedAndApplied(t *testing.T) {
	h := newHarness(t)
	var presets []struct {
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Kelvin int    `json:"kelvin"`
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/presets", "", http.StatusOK, &presets)
	if len(presets) < 10 {
		t.Fatalf("%d presets", len(presets))
	}
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/Key%20Light/state", `{"preset": "tungsten"}`, &res)
	if res.State.Kelvin != 3200 {
		t.Fatalf("tungsten preset gave %+v", res.State)
	}
}
