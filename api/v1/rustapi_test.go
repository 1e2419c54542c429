package v1_test

// The Rust Bifrost hub's public API (its docs/api.md), route by route: the
// request bodies its documentation shows, the statuses it documents, and
// its shapes field by field (present, JSON type, allowed values), so a
// script written for it keeps working here and the shapes cannot drift.
// Every answer is also checked against our OpenAPI document (h.call), and
// the writes it answers with 204 are checked again with
// Prefer: return=representation, which answers 200 with our body.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// ---------------------------------------------------------------- harness

// representation is the preference that asks a write for our body.
const representation = "return=representation"

// sendWith is send with extra request headers (name, value pairs).
func (h *harness) sendWith(key, method, path, body string, header ...string) response {
	auth := ""
	if key != "" {
		auth = "Bearer " + key
	}
	return h.sendAuth(auth, method, path, body, header...)
}

// callWith is call with extra request headers.
func (h *harness) callWith(t testing.TB, key, method, path, body string, want int, out any, header ...string) response {
	t.Helper()
	r := h.sendWith(key, method, path, body, header...)
	h.validate(t, method, path, r)
	if r.Status != want {
		t.Fatalf("%s %s %v: status %d, want %d; body %s", method, path, header, r.Status, want, r.Body)
	}
	if out != nil {
		r.decode(t, out)
	}
	return r
}

// done sends a write as a Rust client does (no Prefer) and wants what the
// Rust hub answers: 204, with no body, and no Preference-Applied.
func (h *harness) done(t testing.TB, method, path, body string) {
	t.Helper()
	r := h.call(t, h.control, method, path, body, http.StatusNoContent, nil)
	if len(r.Body) != 0 {
		t.Fatalf("%s %s: a 204 with a body: %s", method, path, r.Body)
	}
	if got := r.Header.Get("Preference-Applied"); got != "" {
		t.Fatalf("%s %s: Preference-Applied %q on a request without Prefer", method, path, got)
	}
}

// represented sends a write with Prefer: return=representation and wants
// 200, our body (decoded into out) and Preference-Applied.
func (h *harness) represented(t testing.TB, method, path, body string, out any) response {
	t.Helper()
	r := h.callWith(t, h.control, method, path, body, http.StatusOK, out, "Prefer", representation)
	if got := r.Header.Get("Preference-Applied"); got != representation {
		t.Fatalf("%s %s: Preference-Applied %q, want %q", method, path, got, representation)
	}
	return r
}

// object GETs path and answers its JSON object.
func (h *harness) object(t testing.TB, path string) obj {
	t.Helper()
	var o obj
	h.call(t, h.read, http.MethodGet, path, "", http.StatusOK, &o)
	return o
}

// objects GETs path and answers its JSON array of objects.
func (h *harness) objects(t testing.TB, path string) []obj {
	t.Helper()
	var os []obj
	h.call(t, h.read, http.MethodGet, path, "", http.StatusOK, &os)
	return os
}

// byName finds the object named name.
func byName(t testing.TB, os []obj, name string) obj {
	t.Helper()
	for _, o := range os {
		if o["name"] == name {
			return o
		}
	}
	t.Fatalf("no %q among %d", name, len(os))
	return nil
}

// ---------------------------------------------------------------- shapes

// obj is a JSON object as decoded, pinned field by field below.
type obj = map[string]any

// JSON types as a shape names them.
const (
	jString  = "string"
	jBool    = "boolean"
	jNumber  = "number"
	jInteger = "integer" // a number without a fraction
	jNull    = "null"
	jObject  = "object"
	jArray   = "array"
)

// jsonType names the JSON type of v (an integral number is "integer").
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return jNull
	case bool:
		return jBool
	case float64:
		if v == math.Trunc(v) {
			return jInteger
		}
		return jNumber
	case string:
		return jString
	case []any:
		return jArray
	case map[string]any:
		return jObject
	}
	return fmt.Sprintf("%T", v)
}

// isType reports whether v is of one of types; an integer is a number.
func isType(v any, types ...string) bool {
	got := jsonType(v)
	return slices.Contains(types, got) || got == jInteger && slices.Contains(types, jNumber)
}

// pin fails unless o has key, of one of types, and answers its value.
func pin(t testing.TB, where string, o obj, key string, types ...string) any {
	t.Helper()
	v, ok := o[key]
	if !ok {
		t.Fatalf("%s: no %q (want %s) in %v", where, key, strings.Join(types, " or "), o)
	}
	if !isType(v, types...) {
		t.Fatalf("%s: %q is %s %v, want %s", where, key, jsonType(v), v, strings.Join(types, " or "))
	}
	return v
}

// maybe is pin for a key that may be absent; ok says it is there.
func maybe(t testing.TB, where string, o obj, key string, types ...string) (any, bool) {
	t.Helper()
	if _, ok := o[key]; !ok {
		return nil, false
	}
	return pin(t, where, o, key, types...), true
}

func pinString(t testing.TB, where string, o obj, key string) string {
	t.Helper()
	return pin(t, where, o, key, jString).(string)
}

func pinBool(t testing.TB, where string, o obj, key string) bool {
	t.Helper()
	return pin(t, where, o, key, jBool).(bool)
}

func pinNumber(t testing.TB, where string, o obj, key string) float64 {
	t.Helper()
	return pin(t, where, o, key, jNumber).(float64)
}

func pinInteger(t testing.TB, where string, o obj, key string) int {
	t.Helper()
	return int(pin(t, where, o, key, jInteger).(float64))
}

func pinObject(t testing.TB, where string, o obj, key string) obj {
	t.Helper()
	return pin(t, where, o, key, jObject).(obj)
}

// pinStrings fails unless o[key] is an array of strings (never null).
func pinStrings(t testing.TB, where string, o obj, key string) []string {
	t.Helper()
	arr := pin(t, where, o, key, jArray).([]any)
	out := make([]string, 0, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%s: %s[%d] is %s %v, want a string", where, key, i, jsonType(v), v)
		}
		out = append(out, s)
	}
	return out
}

// pinOneOf fails unless o[key] is a string among allowed.
func pinOneOf(t testing.TB, where string, o obj, key string, allowed ...string) string {
	t.Helper()
	s := pinString(t, where, o, key)
	if !slices.Contains(allowed, s) {
		t.Fatalf("%s: %q is %q, want one of %s", where, key, s, strings.Join(allowed, " | "))
	}
	return s
}

// pinRange fails unless the number v lies in [lo, hi].
func pinRange(t testing.TB, where, key string, v, lo, hi float64) {
	t.Helper()
	if v < lo || v > hi {
		t.Fatalf("%s: %q is %v, want %v–%v", where, key, v, lo, hi)
	}
}

// pinTime fails unless o[key] is an RFC 3339 time.
func pinTime(t testing.TB, where string, o obj, key string) {
	t.Helper()
	s := pinString(t, where, o, key)
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		t.Fatalf("%s: %q is %q, not an RFC 3339 time: %v", where, key, s, err)
	}
}

// pinExactly fails unless o is exactly want (same keys, equal values).
func pinExactly(t testing.TB, where string, o obj, want string) {
	t.Helper()
	var w obj
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(o)
	exp, _ := json.Marshal(w)
	if string(got) != string(exp) { // both marshalled with sorted keys
		t.Fatalf("%s is %s, want %s", where, got, exp)
	}
}

// near reports whether a and b differ by at most tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// pinProvider checks the Rust hub's provider fields: a provider (string)
// and the provider-native id under idKey, which with the provider makes
// up our id.
func pinProvider(t testing.TB, where string, o obj, idKey string) {
	t.Helper()
	id := pinString(t, where, o, "id")
	prov := pinString(t, where, o, "provider")
	native := pinString(t, where, o, idKey)
	if prov == "" || native == "" || id != prov+":"+native {
		t.Fatalf("%s: id %q, provider %q, %s %q: want id = provider:%s", where, id, prov, idKey, native, idKey)
	}
}

// ---------------------------------------------------------------- lights

// pinLight checks the Rust hub's Light: its record, capabilities and
// LightState.
func pinLight(t testing.TB, l obj) {
	t.Helper()
	where := fmt.Sprintf("light %v", l["name"])
	pinString(t, where, l, "name")
	pinProvider(t, where, l, "provider_id")
	if pinBool(t, where, l, "online") {
		pinTime(t, where, l, "last_seen")
	}
	pinLightCaps(t, where, pinObject(t, where, l, "capabilities"))
	pinLightState(t, where, pinObject(t, where, l, "state"))
}

func pinLightCaps(t testing.TB, where string, c obj) {
	t.Helper()
	where += " capabilities"
	pinBool(t, where, c, "dimmable")
	pinBool(t, where, c, "color_rgb")
	temp := pinBool(t, where, c, "color_temperature")
	if g := pin(t, where, c, "hue_gamut", jString, jNull); g != nil && !slices.Contains([]string{"A", "B", "C"}, g.(string)) {
		t.Fatalf("%s: hue_gamut %q, want A | B | C | null", where, g)
	}
	if _, ok := c["effects"]; ok {
		effects := pinStrings(t, where, c, "effects")
		if len(effects) == 0 || effects[0] != "no_effect" {
			t.Fatalf("%s: effects %v should start with no_effect (and be omitted when none)", where, effects)
		}
	}
	if _, ok := c["segments"]; ok && pinInteger(t, where, c, "segments") < 1 {
		t.Fatalf("%s: segments %v, want at least 1 (omitted when none)", where, c["segments"])
	}
	_, hasMin := maybe(t, where, c, "mirek_min", jInteger)
	_, hasMax := maybe(t, where, c, "mirek_max", jInteger)
	if hasMin != temp || hasMax != temp {
		t.Fatalf("%s: mirek_min/mirek_max present %v/%v, want %v (with colour temperature)", where, hasMin, hasMax, temp)
	}
}

func pinLightState(t testing.TB, where string, s obj) {
	t.Helper()
	where += " state"
	pinBool(t, where, s, "on")
	pinBool(t, where, s, "reachable")
	if b := pin(t, where, s, "brightness", jNumber, jNull); b != nil {
		pinRange(t, where, "brightness", b.(float64), 0, 100)
	}
	if m := pin(t, where, s, "color_temp_mirek", jInteger, jNull); m != nil {
		pinRange(t, where, "color_temp_mirek", m.(float64), 50, 1000)
	}
	if c, ok := maybe(t, where, s, "color", jObject, jNull); ok && c != nil {
		c := c.(obj)
		pinRange(t, where, "color.x", pinNumber(t, where+" color", c, "x"), 0, 1)
		pinRange(t, where, "color.y", pinNumber(t, where+" color", c, "y"), 0, 1)
		pinRange(t, where, "color.brightness", pinNumber(t, where+" color", c, "brightness"), 0, 1)
	}
	maybe(t, where, s, "effect", jString)
}

// lightState GETs a light and answers its state, checked.
func (h *harness) lightState(t testing.TB, id string) obj {
	t.Helper()
	l := h.object(t, "/api/v1/lights/"+id)
	pinLight(t, l)
	return l["state"].(obj)
}

func TestRustLightsShape(t *testing.T) {
	h := newHarness(t)
	lights := h.objects(t, "/api/v1/lights")
	if len(lights) != 6 {
		t.Fatalf("%d lights, want the sim's 6", len(lights))
	}
	for _, l := range lights {
		pinLight(t, l)
		if l["provider"] != "sim" {
			t.Fatalf("%v: provider %v, want sim", l["name"], l["provider"])
		}
	}

	key := byName(t, lights, "Key Light") // on, 80 %, 4400 K, 3200–5600 K, effects
	caps, st := key["capabilities"].(obj), key["state"].(obj)
	if caps["hue_gamut"] != nil || caps["color_rgb"] != true || caps["color_temperature"] != true || !slices.Contains(pinStrings(t, "key", caps, "effects"), "Candlelight") {
		t.Fatalf("key light capabilities %v", caps)
	}
	if lo, hi := caps["mirek_min"].(float64), caps["mirek_max"].(float64); !near(lo, 1e6/5600, 1) || !near(hi, 1e6/3200, 1) {
		t.Fatalf("key light mirek %v–%v, want ≈%v–%v", lo, hi, 1e6/5600, 1e6/3200)
	}
	if st["on"] != true || st["brightness"] != 80.0 || st["reachable"] != true || !near(st["color_temp_mirek"].(float64), 1e6/4400, 1) || st["color"] != nil {
		t.Fatalf("key light state %v, want on, 80, ≈227 mirek, no colour", st)
	}

	desk := byName(t, lights, "Desk Lamp") // off, 70 %, colour #FF8800, gamut C
	caps, st = desk["capabilities"].(obj), desk["state"].(obj)
	if caps["hue_gamut"] != "C" || caps["color_rgb"] != true {
		t.Fatalf("desk lamp capabilities %v", caps)
	}
	if st["on"] != false || st["color_temp_mirek"] != nil {
		t.Fatalf("desk lamp state %v", st)
	}
	if c, ok := st["color"].(obj); ok && !near(c["brightness"].(float64), st["brightness"].(float64)/100, 1e-9) {
		t.Fatalf("desk lamp color.brightness %v, want brightness/100 = %v", c["brightness"], st["brightness"].(float64)/100)
	}

	fill := byName(t, lights, "Fill Light") // white only
	if caps := fill["capabilities"].(obj); caps["color_rgb"] != false || caps["hue_gamut"] != nil || caps["effects"] != nil || caps["segments"] != nil {
		t.Fatalf("fill light capabilities %v: no colour, no gamut, effects and segments omitted", caps)
	}

	rope := byName(t, lights, "Rope Light") // effect Aurora, no colour temperature, 15 segments
	caps, st = rope["capabilities"].(obj), rope["state"].(obj)
	if caps["color_temperature"] != false || caps["segments"] != 15.0 || st["effect"] != "Aurora" || st["color_temp_mirek"] != nil {
		t.Fatalf("rope light %v %v", caps, st)
	}

	if one := h.object(t, "/api/v1/lights/"+key["id"].(string)); one["id"] != key["id"] {
		t.Fatalf("GET /lights/{id} answered %v", one["id"])
	}
	h.fail(t, h.read, http.MethodGet, "/api/v1/lights/sim:no-such-light", "", http.StatusNotFound, "not_found")
}

func TestRustLightUnknownState(t *testing.T) {
	h := newHarness(t)
	h.home.Light("sim:fill-light").SetUnreachable(true)
	var st obj
	eventually(t, "the fill light to read unreachable", func() bool {
		st = h.lightState(t, "sim:fill-light")
		return st["reachable"] == false
	})
	pinExactly(t, "an unreachable light's state", st,
		`{"on": false, "brightness": null, "color": null, "color_temp_mirek": null, "reachable": false}`)
}

func TestRustLightStateWrites(t *testing.T) {
	h := newHarness(t)

	// The doc's example: red at half brightness.
	h.done(t, http.MethodPut, "/api/v1/lights/sim:desk-lamp/state", `{"on":true,"brightness":50,"color":{"x":0.675,"y":0.322,"brightness":1.0}}`)
	st := h.lightState(t, "sim:desk-lamp")
	c, _ := st["color"].(obj)
	if st["on"] != true || st["brightness"] != 50.0 || c == nil || !near(c["x"].(float64), 0.675, 0.03) || !near(c["y"].(float64), 0.322, 0.03) || !near(c["brightness"].(float64), 0.5, 1e-9) || st["color_temp_mirek"] != nil {
		t.Fatalf("after red at 50 %%: %v", st)
	}
	if ls := h.home.Light("sim:desk-lamp").State(); !ls.On || ls.Brightness != 50 || ls.Mode != devices.ModeColor {
		t.Fatalf("the lamp is at %+v", ls)
	}

	// brightness as a JSON float.
	h.done(t, http.MethodPut, "/api/v1/lights/sim:fill-light/state", `{"brightness": 80.0}`)
	if ls := h.home.Light("sim:fill-light").State(); ls.Brightness != 80 {
		t.Fatalf("brightness 80.0 left the lamp at %d %%", ls.Brightness)
	}
	// Any JSON number 0–100, rounded.
	h.done(t, http.MethodPut, "/api/v1/lights/sim:fill-light/state", `{"brightness": 33.6}`)
	if ls := h.home.Light("sim:fill-light").State(); ls.Brightness != 34 {
		t.Fatalf("brightness 33.6 left the lamp at %d %%, want 34", ls.Brightness)
	}

	// The doc's LightState, sent in full: reachable (read-only) is ignored,
	// a null colour temperature leaves it alone.
	h.done(t, http.MethodPut, "/api/v1/lights/sim:ceiling-light/state",
		`{"on": true, "brightness": 80.0, "color": {"x": 0.4573, "y": 0.41, "brightness": 1.0}, "color_temp_mirek": null, "reachable": true}`)
	st = h.lightState(t, "sim:ceiling-light")
	if c, _ := st["color"].(obj); st["brightness"] != 80.0 || c == nil || !near(c["x"].(float64), 0.4573, 0.02) || !near(c["y"].(float64), 0.41, 0.02) {
		t.Fatalf("after the doc's LightState: %v", st)
	}

	// Temperature as mirek, colour null ("leave it").
	h.done(t, http.MethodPut, "/api/v1/lights/sim:ceiling-light/state",
		`{"on": true, "brightness": 40.0, "color": null, "color_temp_mirek": 250, "reachable": true}`)
	st = h.lightState(t, "sim:ceiling-light")
	if st["color_temp_mirek"] != 250.0 || st["brightness"] != 40.0 || st["color"] != nil {
		t.Fatalf("after 250 mirek at 40 %%: %v", st)
	}
	if ls := h.home.Light("sim:ceiling-light").State(); ls.Kelvin != 4000 || ls.Mode != devices.ModeTemperature {
		t.Fatalf("250 mirek left the lamp at %+v, want 4000 K", ls)
	}

	// color.brightness is linear Y, the brightness when none is given.
	h.done(t, http.MethodPut, "/api/v1/lights/sim:ceiling-light/state", `{"color": {"x": 0.3127, "y": 0.329, "brightness": 0.25}}`)
	st = h.lightState(t, "sim:ceiling-light")
	if c, _ := st["color"].(obj); st["brightness"] != 25.0 || c == nil || !near(c["brightness"].(float64), 0.25, 1e-9) {
		t.Fatalf("color.brightness 0.25: %v", st)
	}

	// on:false turns the light off (and ignores the rest).
	h.done(t, http.MethodPut, "/api/v1/lights/sim:ceiling-light/state", `{"on": false, "brightness": 90.0, "color": null, "color_temp_mirek": null, "reachable": true}`)
	if h.lightState(t, "sim:ceiling-light")["on"] != false || h.home.Light("sim:ceiling-light").State().On {
		t.Fatal("on:false did not turn the light off")
	}
}

// The doc's LightState example, whole: a colour and an effect.
func TestRustLightStateDocExample(t *testing.T) {
	h := newHarness(t)
	h.done(t, http.MethodPut, "/api/v1/lights/sim:rope-light/state",
		`{"on": true, "brightness": 80.0, "color": {"x": 0.4573, "y": 0.41, "brightness": 1.0}, "color_temp_mirek": null, "reachable": true, "effect": "candle"}`)
	if st := h.lightState(t, "sim:rope-light"); st["on"] != true || st["brightness"] != 80.0 {
		t.Fatalf("after the doc's LightState: %v", st)
	}
}

func TestRustLightEffects(t *testing.T) {
	h := newHarness(t)
	h.done(t, http.MethodPut, "/api/v1/lights/sim:rope-light/state", `{"effect": "candle"}`)
	if st := h.lightState(t, "sim:rope-light"); st["effect"] != "Candle" {
		t.Fatalf("effect candle: %v", st)
	}
	h.done(t, http.MethodPut, "/api/v1/lights/sim:rope-light/state", `{"effect": "no_effect"}`)
	if st := h.lightState(t, "sim:rope-light"); st["effect"] != nil && st["effect"] != "" {
		t.Fatalf("no_effect should clear the effect: %v", st)
	}
	if ls := h.home.Light("sim:rope-light").State(); ls.Mode == devices.ModeEffect {
		t.Fatalf("no_effect left the lamp in effect mode: %+v", ls)
	}
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/sim:rope-light/state", `{"effect": "disco inferno"}`, http.StatusUnprocessableEntity, "invalid")
}

// A state read back can be written back as it is: the Rust hub's full
// LightState writes.
func TestRustLightStateRoundTrip(t *testing.T) {
	h := newHarness(t)
	for _, id := range []string{"sim:key-light", "sim:desk-lamp", "sim:ceiling-light", "sim:rope-light"} {
		before := h.lightState(t, id)
		body, _ := json.Marshal(before)
		h.done(t, http.MethodPut, "/api/v1/lights/"+id+"/state", string(body))
		after := h.lightState(t, id)
		for _, k := range []string{"on", "brightness", "color_temp_mirek", "effect", "reachable"} {
			if fmt.Sprint(after[k]) != fmt.Sprint(before[k]) {
				t.Fatalf("%s: writing its state back moved %s from %v to %v", id, k, before[k], after[k])
			}
		}
	}
}

func TestRustLightStateErrors(t *testing.T) {
	h := newHarness(t)
	const rust = `{"on":true,"brightness":50,"color":{"x":0.675,"y":0.322,"brightness":1.0}}`
	// 404 for an unknown light, even with a valid body.
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/sim:no-such-light/state", rust, http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/8b7f0000-0000-0000-0000-000000000000/state", `{"on": true}`, http.StatusNotFound, "not_found")

	const path = "/api/v1/lights/sim:key-light/state"
	before := h.commands(t, "sim:key-light")
	for _, body := range []string{
		`{"brightness": 250}`,
		`{"brightness": -1}`,
		`{"brightness": "high"}`,
		`{"color": {"x": 0.3, "y": 0.3, "brightness": 1.5}}`,
		`{"color_temp_mirek": 250.5}`,
		`{"kelvin": 4000.5}`,
		`{"on": "yes"}`,
	} {
		e := h.fail(t, h.control, http.MethodPut, path, body, http.StatusUnprocessableEntity, "invalid")
		if !startsWithCapital(e.Message) {
			t.Fatalf("%s: message %q should start with a capital", body, e.Message)
		}
	}
	if after := h.commands(t, "sim:key-light"); after != before {
		t.Fatalf("refused writes reached the lamp %d times", after-before)
	}

	// 502 if the provider could not be reached.
	h.home.Light("sim:fill-light").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/sim:fill-light/state", `{"on": true, "brightness": 50}`, http.StatusBadGateway, "unreachable")
}

// startsWithCapital reports whether a message starts as a sentence does:
// with a capital, or with the path of the field at fault as written
// ("color.brightness 1.5 is out of range").
func startsWithCapital(s string) bool {
	first, _, _ := strings.Cut(s, " ")
	return s != "" && (strings.ToUpper(s[:1]) == s[:1] || strings.ContainsAny(first, "._["))
}

func TestRustLightStatePrefer(t *testing.T) {
	h := newHarness(t)
	var res service.LightResult
	h.represented(t, http.MethodPut, "/api/v1/lights/sim:desk-lamp/state", `{"on":true,"brightness":50,"color":{"x":0.675,"y":0.322,"brightness":1.0}}`, &res)
	if res.ID != "sim:desk-lamp" || res.Name != "Desk Lamp" || !res.State.On || res.State.Brightness != 50 || res.State.Mode != devices.ModeColor {
		t.Fatalf("our LightResult: %+v", res)
	}
	if res.Applied.Brightness == nil || *res.Applied.Brightness != 50 || res.Applied.Color == nil {
		t.Fatalf("applied %+v", res.Applied)
	}
	// Every light (ours): counts, always 200.
	var counts obj
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/all/state", `{"on": false}`, http.StatusOK, &counts)
	pinCounts(t, "all lights off", counts, 6, 0)
}

// ---------------------------------------------------------------- segments

func TestRustLightSegments(t *testing.T) {
	h := newHarness(t)
	// The doc's example: paint segments 0–2 red, 3–5 blue.
	const paint = `{"segments":[{"segment":0,"rgb":16711680},{"segment":1,"rgb":16711680},
                   {"segment":2,"rgb":16711680},{"segment":3,"rgb":255},
                   {"segment":4,"rgb":255},{"segment":5,"rgb":255}]}`
	const strip = "sim:rope-light" // an RGBIC strip of 15 segments
	caps := h.object(t, "/api/v1/lights/"+strip)["capabilities"].(obj)
	n := pinInteger(t, "rope light capabilities", caps, "segments")
	if n != 15 {
		t.Fatalf("the rope light advertises %d segments, want 15", n)
	}
	before := h.lightState(t, strip)
	path := "/api/v1/lights/" + strip + "/segments"
	h.done(t, http.MethodPut, path, paint)
	segs := h.home.Light(strip).Segments()
	for i, want := range []uint32{0xFF0000, 0xFF0000, 0xFF0000, 0x0000FF, 0x0000FF, 0x0000FF, 0xFFFFFF} {
		if segs[i].RGB != want {
			t.Fatalf("segment %d is %06X, want %06X", i, segs[i].RGB, want)
		}
	}
	// Write-only: the LightState does not report segments, nor change.
	if after := h.lightState(t, strip); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("painting segments moved the state from %v to %v", before, after)
	}

	var res struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Segments int    `json:"segments"`
	}
	h.represented(t, http.MethodPut, path, `{"segments":[{"segment":0,"rgb":65280,"brightness":50},{"segment":14,"brightness":20.0}]}`, &res)
	if res.ID != strip || res.Name != "Rope Light" || res.Segments != 2 {
		t.Fatalf("segments answer %+v", res)
	}
	if segs := h.home.Light(strip).Segments(); segs[0].RGB != 0x00FF00 || segs[0].Brightness != 50 || segs[14].Brightness != 20 || segs[14].RGB != 0xFFFFFF {
		t.Fatalf("segments 0 and 14: %+v %+v", segs[0], segs[14])
	}

	commands := h.commands(t, strip)
	for _, body := range []string{
		`{}`,
		`{"segments": []}`,
		`{"segments": "red"}`,
		`{"segments": [{"rgb": 255}]}`,
		`{"segments": [{"segment": 0}]}`,
		`{"segments": [{"segment": 0.5, "rgb": 255}]}`,
		`{"segments": [{"segment": 0, "rgb": 255.5}]}`,
		fmt.Sprintf(`{"segments":[{"segment":%d,"rgb":255}]}`, n),
		`{"segments":[{"segment":-1,"rgb":255}]}`,
		`{"segments":[{"segment":0,"rgb":16777216}]}`,
		`{"segments":[{"segment":0,"brightness":101}]}`,
	} {
		h.fail(t, h.control, http.MethodPut, path, body, http.StatusUnprocessableEntity, "invalid")
	}
	if got := h.commands(t, strip); got != commands {
		t.Fatalf("refused segment writes reached the strip %d times", got-commands)
	}

	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/sim:no-such-light/segments", paint, http.StatusNotFound, "not_found")
	// Same status codes as …/state, and 502 when the light has no segment support.
	h.fail(t, h.control, http.MethodPut, "/api/v1/lights/sim:key-light/segments", paint, http.StatusBadGateway, "device_error")
	h.home.Light(strip).SetUnreachable(true)
	h.fail(t, h.control, http.MethodPut, path, paint, http.StatusBadGateway, "unreachable")
}

// ---------------------------------------------------------------- rooms

// pinCounts checks a fan-out's answer: applied and failed are counts
// (integers) and results names each device.
func pinCounts(t testing.TB, where string, o obj, applied, failed int) {
	t.Helper()
	a, f := pinInteger(t, where, o, "applied"), pinInteger(t, where, o, "failed")
	if a != applied || f != failed {
		t.Fatalf("%s: applied %d, failed %d; want %d and %d: %v", where, a, f, applied, failed, o)
	}
	res := pinObject(t, where, o, "results")
	ra, _ := pin(t, where+" results", res, "applied", jArray).([]any)
	rf, _ := pin(t, where+" results", res, "failed", jArray).([]any)
	if len(ra) != applied || len(rf) != failed {
		t.Fatalf("%s: results name %d applied and %d failed, want %d and %d", where, len(ra), len(rf), applied, failed)
	}
}

func pinRoom(t testing.TB, r obj) {
	t.Helper()
	where := fmt.Sprintf("room %v", r["name"])
	pinString(t, where, r, "id")
	pinString(t, where, r, "name")
	pinStrings(t, where, r, "light_ids")
	pinStrings(t, where, r, "media_device_ids")
	pinStrings(t, where, r, "power_device_ids")
}

func sortedStrings(t testing.TB, o obj, key string) []string {
	t.Helper()
	s := pinStrings(t, "", o, key)
	slices.Sort(s)
	return s
}

func TestRustRoomsShape(t *testing.T) {
	h := newHarness(t)
	rooms := h.objects(t, "/api/v1/rooms")
	if len(rooms) != 4 {
		t.Fatalf("%d rooms, want the sim's 4", len(rooms))
	}
	for _, r := range rooms {
		pinRoom(t, r)
		for _, id := range pinStrings(t, "", r, "light_ids") {
			h.call(t, h.read, http.MethodGet, "/api/v1/lights/"+id, "", http.StatusOK, nil)
		}
		for _, id := range pinStrings(t, "", r, "media_device_ids") {
			h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/"+id, "", http.StatusOK, nil)
		}
		for _, id := range pinStrings(t, "", r, "power_device_ids") {
			h.call(t, h.read, http.MethodGet, "/api/v1/power/devices/"+id, "", http.StatusOK, nil)
		}
	}
	office := byName(t, rooms, "Office")
	if got := sortedStrings(t, office, "light_ids"); !slices.Equal(got, []string{"sim:desk-lamp", "sim:fill-light", "sim:key-light"}) {
		t.Fatalf("office light_ids %v", got)
	}
	if got := sortedStrings(t, office, "power_device_ids"); !slices.Equal(got, []string{"sim:desk-fan"}) {
		t.Fatalf("office power_device_ids %v", got)
	}
	if got := sortedStrings(t, office, "media_device_ids"); len(got) != 0 {
		t.Fatalf("office media_device_ids %v", got)
	}
	living := byName(t, rooms, "Living Room")
	if got := sortedStrings(t, living, "media_device_ids"); !slices.Equal(got, []string{"sim:living-room-sonos", "sim:living-room-tv", "sim:onkyo-receiver"}) {
		t.Fatalf("living room media_device_ids %v", got)
	}
	one := h.object(t, "/api/v1/rooms/"+office["id"].(string))
	pinRoom(t, one)
	h.fail(t, h.read, http.MethodGet, "/api/v1/rooms/no-such-room", "", http.StatusNotFound, "not_found")
}

func TestRustRoomState(t *testing.T) {
	h := newHarness(t)
	var counts obj
	// Office: Key Light and Fill Light on, Desk Lamp off, Desk Fan.
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"brightness": 40}`, http.StatusOK, &counts)
	pinCounts(t, "dimming the office", counts, 2, 0)
	if h.home.Light("sim:desk-lamp").State().On {
		t.Fatal("dimming the office woke the desk lamp")
	}
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": true, "brightness": 40}`, http.StatusOK, &counts)
	pinCounts(t, "the office on at 40 %", counts, 3, 0)
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": false}`, http.StatusOK, &counts)
	pinCounts(t, "a pure off", counts, 4, 0) // the lights and the fan
	if h.home.Switch("sim:desk-fan").On() {
		t.Fatal("a pure {on} should reach the room's switches")
	}

	h.home.Light("sim:fill-light").SetUnreachable(true)
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": true, "brightness": 40}`, http.StatusOK, &counts)
	pinCounts(t, "the office with the fill light down", counts, 2, 1)

	// 404 if the room has no members.
	h.call(t, h.control, http.MethodPost, "/api/v1/rooms", `{"name": "Attic"}`, http.StatusCreated, nil)
	h.fail(t, h.control, http.MethodPut, "/api/v1/rooms/Attic/state", `{"on": true}`, http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodPut, "/api/v1/rooms/no-such-room/state", `{"on": true}`, http.StatusNotFound, "not_found")
}

// ---------------------------------------------------------------- scenes

func pinScene(t testing.TB, sc obj) {
	t.Helper()
	where := fmt.Sprintf("scene %v", sc["name"])
	pinString(t, where, sc, "id")
	pinString(t, where, sc, "name")
	pinTime(t, where, sc, "created_at")
	pinInteger(t, where, sc, "lights")
	pinInteger(t, where, sc, "power")
	if pinBool(t, where, sc, "is_default") {
		t.Fatalf("%s: is_default true", where)
	}
	room := pin(t, where, sc, "room_id", jString, jNull)
	name := pin(t, where, sc, "room_name", jString, jNull)
	if (room == nil) != (name == nil) {
		t.Fatalf("%s: room_id %v with room_name %v", where, room, name)
	}
}

func TestRustScenes(t *testing.T) {
	h := newHarness(t)
	office := h.object(t, "/api/v1/rooms/Office")["id"].(string)

	var sc obj
	h.call(t, h.control, http.MethodPost, "/api/v1/scenes", fmt.Sprintf(`{"name": "Movie Night", "room_id": %q}`, office), http.StatusCreated, &sc)
	pinScene(t, sc)
	if sc["name"] != "Movie Night" || sc["room_id"] != office || sc["room_name"] != "Office" || sc["lights"] != 3.0 || sc["power"] != 1.0 {
		t.Fatalf("a room scene of the office: %v", sc)
	}
	roomScene := sc["id"].(string)

	h.call(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Whole House"}`, http.StatusCreated, &sc)
	pinScene(t, sc)
	if sc["room_id"] != nil || sc["room_name"] != nil || sc["lights"] != 6.0 || sc["power"] != 3.0 {
		t.Fatalf("a home scene: %v", sc)
	}
	homeScene := sc["id"].(string)

	scenes := h.objects(t, "/api/v1/scenes")
	if len(scenes) != 2 {
		t.Fatalf("%d scenes", len(scenes))
	}
	for _, s := range scenes {
		pinScene(t, s)
	}
	pinScene(t, h.object(t, "/api/v1/scenes/"+roomScene))

	for _, body := range []string{`{"name": ""}`, `{"name": "   "}`} {
		e := h.fail(t, h.control, http.MethodPost, "/api/v1/scenes", body, http.StatusUnprocessableEntity, "invalid")
		if !strings.Contains(strings.ToLower(e.Message), "scene name is required") || !startsWithCapital(e.Message) {
			t.Fatalf("%s: message %q, want \"Scene name is required\"", body, e.Message)
		}
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Nook", "room_id": "a1b2-no-such-room"}`, http.StatusNotFound, "not_found")

	// Activating re-applies what was captured.
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": false}`, http.StatusOK, nil)
	var counts obj
	h.call(t, h.control, http.MethodPost, "/api/v1/scenes/"+roomScene+"/activate", "", http.StatusOK, &counts)
	pinCounts(t, "activating the office scene", counts, 4, 0)
	if st := h.home.Light("sim:key-light").State(); !st.On || st.Brightness != 80 || st.Kelvin != 4400 {
		t.Fatalf("the key light was restored to %+v", st)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/scenes/no-such-scene/activate", "", http.StatusNotFound, "not_found")

	// DELETE is idempotent: always 204.
	h.done(t, http.MethodDelete, "/api/v1/scenes/"+homeScene, "")
	h.done(t, http.MethodDelete, "/api/v1/scenes/"+homeScene, "")
	h.done(t, http.MethodDelete, "/api/v1/scenes/f3c2-never-was", "")
	h.fail(t, h.read, http.MethodGet, "/api/v1/scenes/"+homeScene, "", http.StatusNotFound, "not_found")
}

// ---------------------------------------------------------------- media

var mediaKinds = []string{"receiver", "speaker", "tv", "zone"}

func pinMedia(t testing.TB, m obj) {
	t.Helper()
	where := fmt.Sprintf("media %v", m["name"])
	pinString(t, where, m, "name")
	pinProvider(t, where, m, "provider_id")
	pinOneOf(t, where, m, "kind", mediaKinds...)
	caps := pinObject(t, where, m, "capabilities")
	for _, k := range []string{"sources", "transport", "now_playing", "favorites", "grouping", "cast", "remote"} {
		pinBool(t, where+" capabilities", caps, k)
	}
	pin(t, where, m, "remote_id", jString, jNull)
	pin(t, where, m, "receiver_id", jString, jNull)
	pin(t, where, m, "receiver_source", jString, jNull)
	pinMediaState(t, where, pinObject(t, where, m, "state"))
}

func pinMediaState(t testing.TB, where string, s obj) {
	t.Helper()
	where += " state"
	pinBool(t, where, s, "power")
	pinBool(t, where, s, "reachable")
	if v := pin(t, where, s, "volume", jInteger, jNull); v != nil {
		pinRange(t, where, "volume", v.(float64), 0, 100)
	}
	pin(t, where, s, "mute", jBool, jNull)
	// The Rust hub's names only: not the service's muted and sources too.
	for _, k := range []string{"muted", "sources"} {
		if v, ok := s[k]; ok {
			t.Fatalf("%s: %q is %v; the state says it only as the Rust hub does", where, k, v)
		}
	}
	pin(t, where, s, "source", jString, jNull)
	if _, ok := s["source_list"]; ok {
		list := pinStrings(t, where, s, "source_list")
		if len(list) == 0 {
			t.Fatalf("%s: an empty source_list should be omitted", where)
		}
	}
	if np, ok := maybe(t, where, s, "now_playing", jObject); ok {
		np := np.(obj)
		for _, k := range []string{"title", "artist", "album"} {
			maybe(t, where+" now_playing", np, k, jString)
		}
		pinOneOf(t, where+" now_playing", np, "play_state", "playing", "paused", "stopped")
	}
}

// media GETs one media device, checked.
func (h *harness) media(t testing.TB, id string) obj {
	t.Helper()
	m := h.object(t, "/api/v1/media/devices/"+id)
	pinMedia(t, m)
	return m
}

func TestRustMediaShape(t *testing.T) {
	h := newHarness(t)
	all := h.objects(t, "/api/v1/media/devices")
	if len(all) != 4 {
		t.Fatalf("%d media devices, want the sim's 4", len(all))
	}
	for _, m := range all {
		pinMedia(t, m)
	}
	kinds := map[string]string{"Living Room Sonos": "speaker", "Kitchen Sonos": "speaker", "Onkyo Receiver": "receiver", "Living Room TV": "tv"}
	for name, kind := range kinds {
		if m := byName(t, all, name); m["kind"] != kind {
			t.Fatalf("%s is a %v, want %s", name, m["kind"], kind)
		}
	}
	living := byName(t, all, "Living Room Sonos")
	if caps := living["capabilities"].(obj); caps["favorites"] != true || caps["grouping"] != true {
		t.Fatalf("a Sonos speaker's capabilities %v", caps)
	}
	if np, _ := living["state"].(obj)["now_playing"].(obj); np == nil || np["play_state"] != "playing" {
		t.Fatalf("the living room plays the radio: %v", living["state"])
	}
	kitchen := byName(t, all, "Kitchen Sonos")
	if np, _ := kitchen["state"].(obj)["now_playing"].(obj); np == nil || np["play_state"] != "paused" || np["title"] != "Morning Coffee" {
		t.Fatalf("the kitchen is paused on Morning Coffee: %v", kitchen["state"])
	}
	if kitchen["remote_id"] != nil || kitchen["receiver_id"] != nil || kitchen["receiver_source"] != nil {
		t.Fatalf("a speaker with no remote nor receiver: %v", kitchen)
	}
	tv := byName(t, all, "Living Room TV")
	if caps := tv["capabilities"].(obj); caps["cast"] != true || caps["remote"] != true {
		t.Fatalf("the TV's capabilities %v", caps)
	}
	remote, _ := tv["remote_id"].(string)
	if remote == "" {
		t.Fatalf("the TV has a remote, so remote_id: %v", tv["remote_id"])
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/remote/devices/"+remote, "", http.StatusOK, nil)
	recv := byName(t, all, "Onkyo Receiver")
	if caps := recv["capabilities"].(obj); caps["sources"] != true || caps["favorites"] != false || caps["grouping"] != false {
		t.Fatalf("the receiver's capabilities %v", caps)
	}
	if st := recv["state"].(obj); !slices.Contains(pinStrings(t, "receiver", st, "source_list"), "NET") {
		t.Fatalf("the receiver's source_list %v", st["source_list"])
	}

	h.media(t, "sim:kitchen-sonos")
	h.fail(t, h.read, http.MethodGet, "/api/v1/media/devices/sim:no-such-player", "", http.StatusNotFound, "not_found")
}

func TestRustMediaUnknownState(t *testing.T) {
	h := newHarness(t)
	h.home.Speaker("sim:kitchen-sonos").SetUnreachable(true)
	var st obj
	eventually(t, "the kitchen speaker to read unreachable", func() bool {
		st = h.media(t, "sim:kitchen-sonos")["state"].(obj)
		return st["reachable"] == false
	})
	pinExactly(t, "an unreachable player's state", st,
		`{"power": false, "volume": null, "mute": null, "source": null, "reachable": false}`)
}

func TestRustMediaState(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/media/devices/sim:kitchen-sonos/state"
	h.done(t, http.MethodPut, path, `{"power": true, "volume": 40, "mute": false, "transport": "play"}`)
	st := h.media(t, "sim:kitchen-sonos")["state"].(obj)
	if st["volume"] != 40.0 || st["mute"] != false || st["now_playing"].(obj)["play_state"] != "playing" {
		t.Fatalf("after play at 40: %v", st)
	}
	h.done(t, http.MethodPut, path, `{"volume": 35.0}`)
	h.done(t, http.MethodPut, path, `{"transport": "toggle"}`)
	st = h.media(t, "sim:kitchen-sonos")["state"].(obj)
	if st["volume"] != 35.0 || st["now_playing"].(obj)["play_state"] != "paused" {
		t.Fatalf("after 35.0 and toggle: %v", st)
	}
	for _, cmd := range []string{"next", "previous", "pause", "stop"} {
		h.done(t, http.MethodPut, path, fmt.Sprintf(`{"transport": %q}`, cmd))
	}

	// The doc's command: a streaming service switches the receiver to it.
	h.done(t, http.MethodPut, "/api/v1/media/devices/sim:onkyo-receiver/state", `{
  "power": true,
  "volume": 40,
  "mute": false,
  "source": "spotify",
  "transport": "play"
}`)
	st = h.media(t, "sim:onkyo-receiver")["state"].(obj)
	if src, _ := st["source"].(string); st["power"] != true || st["volume"] != 40.0 || st["mute"] != false || !strings.EqualFold(src, "spotify") {
		t.Fatalf("after the doc's command: %v", st)
	}
	// Receiver inputs by the doc's names.
	h.done(t, http.MethodPut, "/api/v1/media/devices/sim:onkyo-receiver/state", `{"source": "net"}`)
	if src, _ := h.media(t, "sim:onkyo-receiver")["state"].(obj)["source"].(string); !strings.EqualFold(src, "net") {
		t.Fatalf("source net: the receiver is on %q", src)
	}

	for _, body := range []string{`{"source": "no-such-input"}`, `{"transport": "rewind"}`, `{"volume": 140}`, `{"volume": 40.5}`} {
		e := h.fail(t, h.control, http.MethodPut, "/api/v1/media/devices/sim:onkyo-receiver/state", body, http.StatusUnprocessableEntity, "invalid")
		if e.Message == "" {
			t.Fatalf("%s: no message", body)
		}
	}
	h.fail(t, h.control, http.MethodPut, "/api/v1/media/devices/sim:no-such-player/state", `{"power": true}`, http.StatusNotFound, "not_found")
	h.home.Speaker("sim:kitchen-sonos").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPut, path, `{"volume": 20}`, http.StatusBadGateway, "unreachable")
}

func TestRustCast(t *testing.T) {
	h := newHarness(t)
	h.done(t, http.MethodPost, "/api/v1/media/devices/sim:living-room-tv/cast", `{ "content_id": "https://example.com/stream.m3u8", "content_type": "url" }`)
	if st := h.media(t, "sim:living-room-tv")["state"].(obj); st["power"] != true {
		t.Fatalf("casting should wake the TV: %v", st)
	}
	// 422: the device doesn't support casting.
	r := h.call(t, h.control, http.MethodPost, "/api/v1/media/devices/sim:onkyo-receiver/cast", `{ "content_id": "https://example.com/stream.m3u8", "content_type": "url" }`, http.StatusUnprocessableEntity, nil)
	if !strings.Contains(string(r.Body), "message") {
		t.Fatalf("no message: %s", r.Body)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/sim:no-such-player/cast", `{ "content_id": "https://example.com/stream.m3u8", "content_type": "url" }`, http.StatusNotFound, "not_found")
}

func TestRustPlayOn(t *testing.T) {
	h := newHarness(t)
	// The doc's example names a TV this home does not have.
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{ "device": "bedroom TV", "query": "play Bob's Burgers" }`, http.StatusNotFound, "not_found")
	var res obj
	h.call(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{ "device": "living room tv", "query": "open Netflix" }`, http.StatusOK, &res)
	if !pinBool(t, "play-on", res, "ok") || pinString(t, "play-on", res, "said") == "" {
		t.Fatalf("open Netflix: %v", res)
	}
	h.call(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{ "device": "living room tv", "query": "play Bob's Burgers" }`, http.StatusOK, &res)
	if !pinBool(t, "play-on", res, "ok") || pinString(t, "play-on", res, "said") == "" {
		t.Fatalf("play Bob's Burgers: %v", res)
	}
	h.home.TV("sim:living-room-tv").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{ "device": "living room tv", "query": "open Netflix" }`, http.StatusBadGateway, "unreachable")
}

func TestRustReceiverBinding(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/media/devices/sim:living-room-tv/receiver"
	h.done(t, http.MethodPut, path, `{"receiver_id": "sim:onkyo-receiver", "receiver_source": "Game"}`)
	tv := h.media(t, "sim:living-room-tv")
	if src, _ := tv["receiver_source"].(string); tv["receiver_id"] != "sim:onkyo-receiver" || !strings.EqualFold(src, "Game") {
		t.Fatalf("bound: receiver_id %v, receiver_source %v", tv["receiver_id"], tv["receiver_source"])
	}
	// Volume goes to the receiver; power-on wakes it on the bound input.
	h.done(t, http.MethodPut, "/api/v1/media/devices/sim:living-room-tv/state", `{"power": true, "volume": 40}`)
	if recv := mediaState(t, h, "sim:onkyo-receiver"); !recv.Power || recv.Volume != 40 || !strings.EqualFold(recv.Source, "Game") {
		t.Fatalf("the receiver should be on Game at 40: %+v", recv)
	}
	if st := h.media(t, "sim:living-room-tv")["state"].(obj); st["volume"] != 40.0 {
		t.Fatalf("a bound source reads the receiver's volume: %v", st)
	}

	h.fail(t, h.control, http.MethodPut, path, `{"receiver_id": "sim:living-room-tv"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPut, path, `{"receiver_id": "sim:no-such-receiver"}`, http.StatusUnprocessableEntity, "invalid")
	// The TV is bound: nothing may use it as a receiver.
	h.fail(t, h.control, http.MethodPut, "/api/v1/media/devices/sim:living-room-sonos/receiver", `{"receiver_id": "sim:living-room-tv"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPut, "/api/v1/media/devices/sim:no-such-player/receiver", `{"receiver_id": "sim:onkyo-receiver"}`, http.StatusNotFound, "not_found")

	h.done(t, http.MethodPut, path, `{"receiver_id": null}`)
	if tv := h.media(t, "sim:living-room-tv"); tv["receiver_id"] != nil || tv["receiver_source"] != nil {
		t.Fatalf("unbound: receiver_id %v, receiver_source %v", tv["receiver_id"], tv["receiver_source"])
	}
}

func TestRustCompanion(t *testing.T) {
	h := newHarness(t)
	const primary = "sim:living-room-sonos"
	path := func(id string) string { return "/api/v1/media/devices/" + id + "/companion" }
	h.done(t, http.MethodPut, path("sim:kitchen-sonos"), `{"primary_id": "sim:living-room-sonos"}`)
	if m := h.media(t, "sim:kitchen-sonos"); m["companion_of"] != primary {
		t.Fatalf("a companion names its primary: companion_of %v", m["companion_of"])
	}
	h.media(t, primary)

	h.fail(t, h.control, http.MethodPut, path("sim:onkyo-receiver"), `{"primary_id": "sim:onkyo-receiver"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPut, path("sim:onkyo-receiver"), `{"primary_id": "sim:no-such-player"}`, http.StatusUnprocessableEntity, "invalid")
	// A companion cannot be a primary, nor a primary a companion.
	h.fail(t, h.control, http.MethodPut, path("sim:onkyo-receiver"), `{"primary_id": "sim:kitchen-sonos"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPut, path(primary), `{"primary_id": "sim:onkyo-receiver"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPut, path("sim:no-such-player"), `{"primary_id": "sim:living-room-sonos"}`, http.StatusNotFound, "not_found")

	h.done(t, http.MethodPut, path("sim:kitchen-sonos"), `{"primary_id": null}`)
	if m := h.media(t, "sim:kitchen-sonos"); m["companion_of"] != nil {
		t.Fatalf("unmerged, still companion_of %v", m["companion_of"])
	}
}

func TestRustFavorites(t *testing.T) {
	h := newHarness(t)
	var favs []obj
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/sim:kitchen-sonos/favorites", "", http.StatusOK, &favs)
	if len(favs) == 0 {
		t.Fatal("no favourites on a Sonos speaker")
	}
	subtitles := map[string]any{}
	for _, f := range favs {
		pinString(t, "favorite", f, "id")
		pinString(t, "favorite", f, "title")
		subtitles[f["id"].(string)] = pin(t, "favorite", f, "subtitle", jString, jNull)
	}
	// The player's second line, and null where it gives none.
	if mix, listed := subtitles["FV:2/22"]; subtitles["FV:2/3"] != "TuneIn Station" || !listed || mix != nil {
		t.Fatalf("favourites' subtitles %v", subtitles)
	}
	// Empty for providers without favorites, such as Onkyo.
	var none []obj
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/sim:onkyo-receiver/favorites", "", http.StatusOK, &none)
	if none == nil || len(none) != 0 {
		t.Fatalf("a receiver's favourites: %v, want []", none)
	}

	const play = "/api/v1/media/devices/sim:kitchen-sonos/favorites/play"
	// The doc's example id is not among this speaker's favourites: 422.
	h.fail(t, h.control, http.MethodPost, play, `{ "favorite_id": "FV:2/12" }`, http.StatusUnprocessableEntity, "invalid")
	h.done(t, http.MethodPost, play, `{ "favorite_id": "FV:2/17" }`)
	if np, _ := h.media(t, "sim:kitchen-sonos")["state"].(obj)["now_playing"].(obj); np == nil || np["title"] != "Dinner Jazz" {
		t.Fatalf("FV:2/17 should play Dinner Jazz: %v", np)
	}
	h.done(t, http.MethodPost, play, `{"favorite": "Kind of Blue"}`)
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/sim:no-such-player/favorites/play", `{ "favorite_id": "FV:2/17" }`, http.StatusNotFound, "not_found")
	h.home.Speaker("sim:kitchen-sonos").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPost, play, `{ "favorite_id": "FV:2/17" }`, http.StatusBadGateway, "unreachable")
}

func TestRustGrouping(t *testing.T) {
	h := newHarness(t)
	const kitchen = "/api/v1/media/devices/sim:kitchen-sonos"
	h.done(t, http.MethodPost, kitchen+"/group", `{ "coordinator_id": "sim:living-room-sonos" }`)
	if st := h.media(t, "sim:kitchen-sonos")["state"].(obj); st["group_coordinator"] != "sim:living-room-sonos" {
		t.Fatalf("the kitchen should follow the living room: %v", st)
	}
	h.done(t, http.MethodPost, kitchen+"/ungroup", "")
	h.done(t, http.MethodPost, kitchen+"/ungroup", "") // idempotent
	if st := h.media(t, "sim:kitchen-sonos")["state"].(obj); st["group_coordinator"] != nil {
		t.Fatalf("after ungroup: %v", st)
	}
	h.fail(t, h.control, http.MethodPost, kitchen+"/group", `{ "coordinator_id": "sim:kitchen-sonos" }`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/sim:no-such-player/group", `{ "coordinator_id": "sim:living-room-sonos" }`, http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/sim:no-such-player/ungroup", "", http.StatusNotFound, "not_found")
	h.home.Speaker("sim:kitchen-sonos").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPost, kitchen+"/group", `{ "coordinator_id": "sim:living-room-sonos" }`, http.StatusBadGateway, "unreachable")
}

// ---------------------------------------------------------------- power

var powerKinds = []string{"switch", "outlet", "fan", "toggle", "generic", "button"}

func pinPower(t testing.TB, p obj) {
	t.Helper()
	where := fmt.Sprintf("power %v", p["name"])
	pinString(t, where, p, "name")
	pinProvider(t, where, p, "device_id")
	pinOneOf(t, where, p, "kind", powerKinds...)
	st := pinObject(t, where, p, "state")
	pin(t, where+" state", st, "on", jBool, jNull)
	pinBool(t, where+" state", st, "reachable")
}

func TestRustPower(t *testing.T) {
	h := newHarness(t)
	all := h.objects(t, "/api/v1/power/devices")
	if len(all) != 3 {
		t.Fatalf("%d power devices, want the sim's 3", len(all))
	}
	for _, p := range all {
		pinPower(t, p)
	}
	for name, kind := range map[string]string{"Porch Switch": "switch", "Desk Fan": "fan", "Coffee Plug": "outlet"} {
		if p := byName(t, all, name); p["kind"] != kind {
			t.Fatalf("%s is a %v, want %s", name, p["kind"], kind)
		}
	}
	if st := byName(t, all, "Coffee Plug")["state"].(obj); st["on"] != true || st["reachable"] != true {
		t.Fatalf("the coffee plug is on: %v", st)
	}

	const path = "/api/v1/power/devices/sim:porch-switch"
	h.done(t, http.MethodPut, path+"/state", `{ "on": true }`)
	p := h.object(t, path)
	pinPower(t, p)
	if p["state"].(obj)["on"] != true || !h.home.Switch("sim:porch-switch").On() {
		t.Fatalf("the porch switch should be on: %v", p["state"])
	}
	h.done(t, http.MethodPut, path+"/state", `{ "on": false }`)
	if h.home.Switch("sim:porch-switch").On() {
		t.Fatal("the porch switch should be off")
	}
	h.fail(t, h.control, http.MethodPut, "/api/v1/power/devices/sim:no-such-switch/state", `{ "on": true }`, http.StatusNotFound, "not_found")
	h.fail(t, h.read, http.MethodGet, "/api/v1/power/devices/sim:no-such-switch", "", http.StatusNotFound, "not_found")

	h.home.Switch("sim:desk-fan").SetUnreachable(true)
	h.fail(t, h.control, http.MethodPut, "/api/v1/power/devices/sim:desk-fan/state", `{ "on": true }`, http.StatusBadGateway, "unreachable")
	var fan obj
	eventually(t, "the desk fan to read unreachable", func() bool {
		fan = h.object(t, "/api/v1/power/devices/sim:desk-fan")
		return fan["state"].(obj)["reachable"] == false
	})
	pinPower(t, fan)
	pinExactly(t, "an unreachable switch's state", fan["state"].(obj), `{"on": null, "reachable": false}`)
}

// ---------------------------------------------------------------- remotes

func pinRemoteState(t testing.TB, where string, s obj) {
	t.Helper()
	pin(t, where, s, "on", jBool, jNull)
	pin(t, where, s, "current_app", jString, jNull)
	pinBool(t, where, s, "reachable")
}

func pinRemote(t testing.TB, r obj) {
	t.Helper()
	where := fmt.Sprintf("remote %v", r["name"])
	pinString(t, where, r, "name")
	pinProvider(t, where, r, "device_id")
	pinRemoteState(t, where+" state", pinObject(t, where, r, "state"))
}

// remote GETs one remote: the Rust hub's RemoteState at the top level,
// and our record.
func (h *harness) remote(t testing.TB, id string) obj {
	t.Helper()
	r := h.object(t, "/api/v1/remote/devices/"+id)
	pin(t, "remote (RemoteState)", r, "on", jBool, jNull)
	maybe(t, "remote (RemoteState)", r, "current_app", jString, jNull)
	pinBool(t, "remote (RemoteState)", r, "reachable")
	pinRemote(t, r)
	return r
}

func TestRustRemotes(t *testing.T) {
	h := newHarness(t)
	all := h.objects(t, "/api/v1/remote/devices")
	if len(all) != 1 {
		t.Fatalf("%d remotes, want the sim's TV", len(all))
	}
	pinRemote(t, all[0])
	const id = "sim:living-room-tv"
	tv := h.home.TV(id)
	path := "/api/v1/remote/devices/" + id + "/command"

	// The doc's tagged union, variant by variant.
	h.done(t, http.MethodPost, path, `{ "power": { "on": true } }`)
	if r := h.remote(t, id); r["on"] != true || r["state"].(obj)["on"] != true {
		t.Fatalf("power on: %v", r)
	}
	h.done(t, http.MethodPost, path, `{ "key": { "key": "select", "hold_secs": 0.0 } }`)
	if tv.LastKey() != "select" {
		t.Fatalf("last key %q, want select", tv.LastKey())
	}
	h.done(t, http.MethodPost, path, `{ "text": { "text": "hello" } }`)
	if tv.Typed() != "hello" {
		t.Fatalf("typed %q, want hello", tv.Typed())
	}
	h.done(t, http.MethodPost, path, `{ "launch_app": { "activity": "com.netflix.ninja" } }`)
	if r := h.remote(t, id); r["current_app"] != "com.netflix.ninja" || r["state"].(obj)["current_app"] != "com.netflix.ninja" {
		t.Fatalf("after launching Netflix: %v", r)
	}
	h.done(t, http.MethodPost, path, `{ "launch_app": { "activity": "https://www.netflix.com/title/80057281" } }`)

	// Every canonical key (power last: it switches the TV off).
	for _, k := range []string{"up", "down", "left", "right", "select", "back", "home", "menu", "volume_up", "volume_down", "mute", "play_pause", "next", "previous", "power"} {
		h.done(t, http.MethodPost, path, fmt.Sprintf(`{"key": {"key": %q, "hold_secs": 0.0}}`, k))
		if tv.LastKey() != k {
			t.Fatalf("key %s: the TV saw %q", k, tv.LastKey())
		}
	}
	h.done(t, http.MethodPost, path, `{ "power": { "on": true } }`)
	h.done(t, http.MethodPost, path, `{ "power": { "on": false } }`)
	if r := h.remote(t, id); r["on"] != false {
		t.Fatalf("power off: %v", r)
	}

	// Exactly one variant.
	for _, body := range []string{`{}`, `{"key": {"key": "up"}, "text": {"text": "hi"}}`, `{"key": {"key": "teleport"}}`, `{"power": {}}`} {
		h.fail(t, h.control, http.MethodPost, path, body, http.StatusUnprocessableEntity, "invalid")
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/remote/devices/sim:no-such-remote/command", `{ "key": { "key": "select", "hold_secs": 0.0 } }`, http.StatusNotFound, "not_found")
	h.fail(t, h.read, http.MethodGet, "/api/v1/remote/devices/sim:no-such-remote", "", http.StatusNotFound, "not_found")

	tv.SetUnreachable(true)
	h.fail(t, h.control, http.MethodPost, path, `{ "key": { "key": "select", "hold_secs": 0.0 } }`, http.StatusBadGateway, "unreachable")
}

// Our flat commands work beside the Rust hub's.
func TestRustRemoteOurCommands(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/remote/devices/sim:living-room-tv/command"
	tv := h.home.TV("sim:living-room-tv")
	h.done(t, http.MethodPost, path, `{"app": "Netflix"}`)
	h.done(t, http.MethodPost, path, `{"key": "home", "hold_secs": 0}`)
	if tv.LastKey() != "home" {
		t.Fatalf("last key %q", tv.LastKey())
	}
	// The simulated TV cannot hold a key down.
	h.fail(t, h.control, http.MethodPost, path, `{"key": "home", "hold_secs": 0.5}`, http.StatusUnprocessableEntity, "unsupported")
	h.done(t, http.MethodPost, path, `{"text": "hi"}`)
	if tv.Typed() != "hi" {
		t.Fatalf("typed %q", tv.Typed())
	}
}

func TestRustRemoteUnknownState(t *testing.T) {
	h := newHarness(t)
	h.home.TV("sim:living-room-tv").SetUnreachable(true)
	var r obj
	eventually(t, "the TV's remote to read unreachable", func() bool {
		r = h.remote(t, "sim:living-room-tv")
		return r["reachable"] == false
	})
	pinExactly(t, "an unreachable remote's state", r["state"].(obj), `{"on": null, "current_app": null, "reachable": false}`)
	if r["on"] != nil {
		t.Fatalf("an unreachable remote reads on %v", r["on"])
	}
}

// ---------------------------------------------------------------- sensors

var sensorKinds = []string{"motion", "occupancy", "contact", "illuminance", "temperature", "humidity", "generic"}

func pinSensor(t testing.TB, s obj) {
	t.Helper()
	where := fmt.Sprintf("sensor %v", s["name"])
	pinString(t, where, s, "name")
	pinProvider(t, where, s, "device_id")
	pinOneOf(t, where, s, "kind", sensorKinds...)
	pin(t, where, s, "unit", jString, jNull)
	st := pinObject(t, where, s, "state")
	pinBool(t, where+" state", st, "reachable")
	if r := pin(t, where+" state", st, "reading", jObject, jNull); r != nil {
		r := r.(obj)
		_, isBool := r["bool"]
		_, isNumber := r["number"]
		switch {
		case len(r) == 1 && isBool:
			pinBool(t, where+" reading", r, "bool")
		case len(r) == 1 && isNumber:
			pinNumber(t, where+" reading", r, "number")
		default:
			t.Fatalf("%s: reading %v, want {\"bool\": b} or {\"number\": n}", where, r)
		}
	}
}

func TestRustSensors(t *testing.T) {
	h := newHarness(t)
	all := h.objects(t, "/api/v1/sensors/devices")
	if len(all) != 3 {
		t.Fatalf("%d sensors, want the sim's 3", len(all))
	}
	for _, s := range all {
		pinSensor(t, s)
	}
	motion := byName(t, all, "Office Motion")
	if motion["kind"] != "motion" || motion["unit"] != nil {
		t.Fatalf("office motion: kind %v, unit %v", motion["kind"], motion["unit"])
	}
	pinExactly(t, "office motion's state", motion["state"].(obj), `{"reading": {"bool": false}, "reachable": true}`)
	occupancy := byName(t, all, "Living Room Occupancy")
	if occupancy["kind"] != "occupancy" {
		t.Fatalf("living room occupancy is a %v", occupancy["kind"])
	}
	pinExactly(t, "living room occupancy's state", occupancy["state"].(obj), `{"reading": {"bool": true}, "reachable": true}`)
	temp := byName(t, all, "Bedroom Temperature")
	if temp["kind"] != "temperature" || temp["unit"] != "°C" {
		t.Fatalf("bedroom temperature: kind %v, unit %v", temp["kind"], temp["unit"])
	}
	if r, _ := temp["state"].(obj)["reading"].(obj); r == nil || !isType(r["number"], jNumber) {
		t.Fatalf("a temperature reads a number: %v", temp["state"])
	}

	one := h.object(t, "/api/v1/sensors/devices/"+temp["id"].(string))
	pinSensor(t, one)
	h.fail(t, h.read, http.MethodGet, "/api/v1/sensors/devices/sim:no-such-sensor", "", http.StatusNotFound, "not_found")
	// Read-only: there is no set-state route.
	statePath := "/api/v1/sensors/devices/" + temp["id"].(string) + "/state"
	r := h.send(h.control, http.MethodPut, statePath, `{"on": true}`)
	h.validate(t, http.MethodPut, statePath, r)
	if r.Status != http.StatusNotFound && r.Status != http.StatusMethodNotAllowed {
		t.Fatalf("PUT %s: %d, want 404 or 405 (sensors are read-only)", statePath, r.Status)
	}

	h.home.Sensor("sim:office-motion").SetUnreachable(true)
	var s obj
	eventually(t, "the motion sensor to read unreachable", func() bool {
		s = h.object(t, "/api/v1/sensors/devices/sim:office-motion")
		return s["state"].(obj)["reachable"] == false
	})
	pinSensor(t, s)
	pinExactly(t, "an unreachable sensor's state", s["state"].(obj), `{"reading": null, "reachable": false}`)
}

// ---------------------------------------------------------------- Prefer

// preferWrites are the writes the Rust hub answers with 204, each with a
// check of the body we give with Prefer: return=representation.
var preferWrites = []struct {
	method, path, body string
	check              func(t *testing.T, body obj)
}{
	{http.MethodPut, "/api/v1/lights/sim:key-light/state", `{"brightness": 30}`, func(t *testing.T, b obj) {
		if b["id"] != "sim:key-light" || b["state"].(obj)["brightness"] != 30.0 || b["applied"] == nil {
			t.Fatalf("LightResult %v", b)
		}
	}},
	{http.MethodPut, "/api/v1/media/devices/sim:kitchen-sonos/state", `{"volume": 20}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if b["id"] != "sim:kitchen-sonos" || b["state"].(obj)["volume"] != 20.0 {
			t.Fatalf("media %v", b)
		}
	}},
	{http.MethodPost, "/api/v1/media/devices/sim:living-room-tv/cast", `{"content_id": "https://example.com/stream.m3u8", "content_type": "url"}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if b["id"] != "sim:living-room-tv" || b["state"].(obj)["power"] != true {
			t.Fatalf("media %v", b)
		}
	}},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/favorites/play", `{"favorite_id": "FV:2/17"}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if np, _ := b["state"].(obj)["now_playing"].(obj); np == nil || np["title"] != "Dinner Jazz" {
			t.Fatalf("media %v", b)
		}
	}},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/group", `{"coordinator_id": "sim:living-room-sonos"}`, func(t *testing.T, b obj) {
		pinCounts(t, "group", b, 1, 0)
	}},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/ungroup", ``, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if b["state"].(obj)["group_coordinator"] != nil {
			t.Fatalf("media %v", b)
		}
	}},
	{http.MethodPut, "/api/v1/media/devices/sim:living-room-tv/receiver", `{"receiver_id": "sim:onkyo-receiver", "receiver_source": "Game"}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if src, _ := b["receiver_source"].(string); b["receiver_id"] != "sim:onkyo-receiver" || !strings.EqualFold(src, "Game") {
			t.Fatalf("media %v", b)
		}
	}},
	{http.MethodPut, "/api/v1/media/devices/sim:kitchen-sonos/companion", `{"primary_id": "sim:living-room-sonos"}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
		if b["id"] != "sim:living-room-sonos" {
			t.Fatalf("merging answers the primary, merged: %v", b)
		}
	}},
	{http.MethodPut, "/api/v1/media/devices/sim:kitchen-sonos/companion", `{"primary_id": null}`, func(t *testing.T, b obj) {
		pinMedia(t, b)
	}},
	{http.MethodPut, "/api/v1/power/devices/sim:porch-switch/state", `{"on": true}`, func(t *testing.T, b obj) {
		pinPower(t, b)
		if b["state"].(obj)["on"] != true {
			t.Fatalf("power %v", b)
		}
	}},
	{http.MethodPost, "/api/v1/remote/devices/sim:living-room-tv/command", `{"power": {"on": true}}`, func(t *testing.T, b obj) {
		pinRemote(t, b)
		if b["state"].(obj)["on"] != true {
			t.Fatalf("remote %v", b)
		}
	}},
}

// Each write answers 204 without Prefer (and with return=minimal), and 200
// with our body with Prefer: return=representation.
func TestRustPreferRepresentation(t *testing.T) {
	h := newHarness(t)
	for _, w := range preferWrites {
		h.done(t, w.method, w.path, w.body)
		r := h.callWith(t, h.control, w.method, w.path, w.body, http.StatusNoContent, nil, "Prefer", "return=minimal")
		if len(r.Body) != 0 || r.Header.Get("Preference-Applied") == representation {
			t.Fatalf("%s %s with return=minimal: %q %s", w.method, w.path, r.Header.Get("Preference-Applied"), r.Body)
		}
		var body obj
		h.represented(t, w.method, w.path, w.body, &body)
		w.check(t, body)
	}
	// RFC 7240 allows several preferences in one header.
	var body obj
	r := h.callWith(t, h.control, http.MethodPut, "/api/v1/power/devices/sim:porch-switch/state", `{"on": false}`, http.StatusOK, &body, "Prefer", "respond-async, return=representation")
	if r.Header.Get("Preference-Applied") != representation || body["state"].(obj)["on"] != false {
		t.Fatalf("Prefer with two preferences: %q %v", r.Header.Get("Preference-Applied"), body)
	}
}

// ---------------------------------------------------------------- status codes, authentication

// rustRoutes are the Rust hub's /api/v1 routes, with a valid body each.
var rustRoutes = []struct{ method, path, body string }{
	{http.MethodGet, "/api/v1/lights", ""},
	{http.MethodGet, "/api/v1/lights/sim:key-light", ""},
	{http.MethodPut, "/api/v1/lights/sim:key-light/state", `{"on":true,"brightness":50,"color":{"x":0.675,"y":0.322,"brightness":1.0}}`},
	{http.MethodPut, "/api/v1/lights/sim:key-light/segments", `{"segments":[{"segment":0,"rgb":16711680}]}`},
	{http.MethodGet, "/api/v1/rooms", ""},
	{http.MethodPut, "/api/v1/rooms/Office/state", `{"brightness": 40}`},
	{http.MethodGet, "/api/v1/scenes", ""},
	{http.MethodPost, "/api/v1/scenes", `{"name": "Movie Night"}`},
	{http.MethodPost, "/api/v1/scenes/x/activate", ""},
	{http.MethodDelete, "/api/v1/scenes/x", ""},
	{http.MethodGet, "/api/v1/media/devices", ""},
	{http.MethodGet, "/api/v1/media/devices/sim:kitchen-sonos", ""},
	{http.MethodPut, "/api/v1/media/devices/sim:kitchen-sonos/state", `{"volume": 40}`},
	{http.MethodPost, "/api/v1/media/devices/sim:living-room-tv/cast", `{ "content_id": "https://example.com/stream.m3u8", "content_type": "url" }`},
	{http.MethodPost, "/api/v1/media/play-on", `{ "device": "bedroom TV", "query": "play Bob's Burgers" }`},
	{http.MethodGet, "/api/v1/media/devices/sim:kitchen-sonos/favorites", ""},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/favorites/play", `{ "favorite_id": "FV:2/12" }`},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/group", `{ "coordinator_id": "sim:living-room-sonos" }`},
	{http.MethodPost, "/api/v1/media/devices/sim:kitchen-sonos/ungroup", ""},
	{http.MethodPut, "/api/v1/media/devices/sim:living-room-tv/receiver", `{"receiver_id": "sim:onkyo-receiver", "receiver_source": "Game"}`},
	{http.MethodPut, "/api/v1/media/devices/sim:kitchen-sonos/companion", `{"primary_id": "sim:living-room-sonos"}`},
	{http.MethodGet, "/api/v1/power/devices", ""},
	{http.MethodGet, "/api/v1/power/devices/sim:porch-switch", ""},
	{http.MethodPut, "/api/v1/power/devices/sim:porch-switch/state", `{ "on": true }`},
	{http.MethodGet, "/api/v1/remote/devices", ""},
	{http.MethodGet, "/api/v1/remote/devices/sim:living-room-tv", ""},
	{http.MethodPost, "/api/v1/remote/devices/sim:living-room-tv/command", `{ "key": { "key": "select", "hold_secs": 0.0 } }`},
	{http.MethodGet, "/api/v1/sensors/devices", ""},
	{http.MethodGet, "/api/v1/sensors/devices/sim:office-motion", ""},
}

// Missing or unknown keys get 401 on every endpoint, and nothing moves.
func TestRustAuthentication(t *testing.T) {
	h := newHarness(t)
	keys := map[string]string{"no key": "", "unknown key": "bfr_" + strings.Repeat("0f", 32), "foreign key": foreignKey(t)}
	for _, r := range rustRoutes {
		for name, key := range keys {
			got := h.send(key, r.method, r.path, r.body)
			h.validate(t, r.method, r.path, got)
			if got.Status != http.StatusUnauthorized {
				t.Fatalf("%s %s with %s: %d, want 401: %s", r.method, r.path, name, got.Status, got.Body)
			}
			var e apiError
			got.decode(t, &e)
			if e.Error != "unauthorized" || e.Message == "" {
				t.Fatalf("%s %s with %s: %s", r.method, r.path, name, got.Body)
			}
		}
	}
	if n := h.commands(t, "sim:key-light"); n != 0 {
		t.Fatalf("the key light took %d commands without a key", n)
	}
	// A revoked key is refused on the very next request.
	k, err := h.keys.CreateKey(system, "script", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	h.call(t, k.Key, http.MethodGet, "/api/v1/lights", "", http.StatusOK, nil)
	if _, err := h.keys.RevokeKey(system, k.ID); err != nil {
		t.Fatal(err)
	}
	h.fail(t, k.Key, http.MethodGet, "/api/v1/lights", "", http.StatusUnauthorized, "unauthorized")
}

// With a valid key every route answers one of the Rust hub's statuses.
func TestRustStatusCodes(t *testing.T) {
	h := newHarness(t)
	documented := []int{http.StatusOK, http.StatusCreated, http.StatusNoContent, http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusBadGateway}
	for _, r := range rustRoutes {
		got := h.send(h.control, r.method, r.path, r.body)
		h.validate(t, r.method, r.path, got)
		if !slices.Contains(documented, got.Status) {
			t.Fatalf("%s %s: %d is not a status the Rust hub documents: %s", r.method, r.path, got.Status, got.Body)
		}
	}
	// 404: unknown device, room or scene.
	for _, path := range []string{
		"/api/v1/lights/sim:nope", "/api/v1/rooms/nope", "/api/v1/scenes/nope", "/api/v1/media/devices/sim:nope",
		"/api/v1/power/devices/sim:nope", "/api/v1/remote/devices/sim:nope", "/api/v1/sensors/devices/sim:nope",
	} {
		h.fail(t, h.read, http.MethodGet, path, "", http.StatusNotFound, "not_found")
	}
}
