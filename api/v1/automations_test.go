package v1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
)

// officeAtNight is a rule as a script writes it: targets by name.
const officeAtNight = `{
	"name": "Office at night",
	"trigger": {"type": "sensor", "device": "Office Motion", "reading": "motion", "to": "detected"},
	"conditions": [{"type": "sun", "sun": "down"}],
	"actions": [{"type": "light", "lights": ["Desk Lamp"], "state": {"on": true, "brightness": 30}}],
	"cooldown": "2m",
	"restore_after": "5m"
}`

func TestAutomationLifecycle(t *testing.T) {
	h := newHarness(t)
	const base = "/api/v1/automations"
	var v automation.View
	h.call(t, h.control, http.MethodPost, base, officeAtNight, http.StatusCreated, &v)
	if v.ID == "" || v.Name != "Office at night" || !v.Enabled || v.Cooldown.D() != 2*time.Minute || v.RestoreAfter.D() != 5*time.Minute {
		t.Fatalf("created %+v", v)
	}
	if v.Trigger.Device != "sim:office-motion" || v.Actions[0].Lights[0] != "sim:desk-lamp" {
		t.Fatalf("targets should be kept by id: %+v", v.Rule)
	}
	if !strings.Contains(v.Sentence, "Office Motion") || !strings.Contains(v.Sentence, "Desk Lamp") {
		t.Fatalf("the sentence should name the targets: %q", v.Sentence)
	}

	var list []automation.View
	h.call(t, h.read, http.MethodGet, base, "", http.StatusOK, &list)
	if len(list) != 1 || list[0].ID != v.ID {
		t.Fatalf("list %+v", list)
	}
	var got automation.View
	h.call(t, h.read, http.MethodGet, base+"/office%20at%20night", "", http.StatusOK, &got)
	if got.ID != v.ID {
		t.Fatalf("by name: %+v", got)
	}

	// PUT replaces the whole rule: no conditions, no cooldown now.
	h.call(t, h.control, http.MethodPut, base+"/"+v.ID, `{
		"name": "Office at night",
		"trigger": {"type": "sensor", "device": "Office Motion", "to": "detected"},
		"actions": [{"type": "light", "lights": ["Desk Lamp"], "state": {"brightness": 45}}]
	}`, http.StatusOK, &got)
	if got.ID != v.ID || len(got.Conditions) != 0 || got.Cooldown != 0 || got.RestoreAfter != nil || !got.CreatedAt.Equal(v.CreatedAt) {
		t.Fatalf("replaced: %+v", got.Rule)
	}
	h.call(t, h.control, http.MethodPatch, base+"/"+v.ID, `{"name": "Desk at night", "enabled": false}`, http.StatusOK, &got)
	if got.Name != "Desk at night" || got.Enabled || len(got.Actions) != 1 {
		t.Fatalf("patched: %+v", got.Rule)
	}

	var dup automation.View
	h.call(t, h.control, http.MethodPost, base+"/Desk%20at%20night/duplicate", "", http.StatusCreated, &dup)
	if dup.ID == v.ID || dup.Name != "Desk at night (copy)" || dup.Enabled {
		t.Fatalf("duplicate: %+v", dup.Rule)
	}

	// A disabled rule still runs when asked.
	var run automation.RunResult
	h.call(t, h.control, http.MethodPost, base+"/"+v.ID+"/run", "", http.StatusOK, &run)
	if run.Outcome != "ok" || len(run.Actions) != 1 || !run.Actions[0].OK {
		t.Fatalf("run: %+v", run)
	}
	if st := h.home.Light("sim:desk-lamp").State(); !st.On || st.Brightness != 45 {
		t.Fatalf("after the run the desk lamp is %+v", st)
	}
	var trace []automation.TraceEntry
	h.call(t, h.read, http.MethodGet, base+"/"+v.ID+"/trace?limit=1", "", http.StatusOK, &trace)
	if len(trace) != 1 || trace[0].Kind != automation.Ran || trace[0].RuleID != v.ID || trace[0].Why == "" {
		t.Fatalf("trace: %+v", trace)
	}
	h.call(t, h.read, http.MethodGet, base+"/"+dup.ID+"/trace", "", http.StatusOK, &trace)
	if len(trace) != 0 {
		t.Fatalf("the copy has a trace of its own: %+v", trace)
	}

	h.call(t, h.control, http.MethodDelete, base+"/"+v.ID, "", http.StatusNoContent, nil)
	h.fail(t, h.read, http.MethodGet, base+"/"+v.ID, "", http.StatusNotFound, "not_found")
	h.call(t, h.read, http.MethodGet, base, "", http.StatusOK, &list)
	if len(list) != 1 || list[0].ID != dup.ID {
		t.Fatalf("after the delete: %+v", list)
	}
}

func TestAutomationFiresOnItsTrigger(t *testing.T) {
	h := newHarness(t)
	var v automation.View
	h.call(t, h.control, http.MethodPost, "/api/v1/automations", `{
		"name": "Desk on motion",
		"trigger": {"type": "sensor", "device": "office motion", "to": "detected"},
		"actions": [{"type": "light", "lights": ["desk lamp"], "state": {"brightness": 30}}]
	}`, http.StatusCreated, &v)
	if err := h.home.Trip("sim:office-motion"); err != nil {
		t.Fatal(err)
	}
	var trace []automation.TraceEntry
	eventually(t, "the rule to fire", func() bool {
		h.call(t, h.read, http.MethodGet, "/api/v1/automations/"+v.ID+"/trace", "", http.StatusOK, &trace)
		return len(trace) > 0
	})
	if trace[0].Kind != automation.Fired || len(trace[0].Actions) != 1 || !trace[0].Actions[0].OK {
		t.Fatalf("trace: %+v", trace)
	}
	if st := h.home.Light("sim:desk-lamp").State(); !st.On || st.Brightness != 30 {
		t.Fatalf("the desk lamp is %+v", st)
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/automations/"+v.ID, "", http.StatusOK, &v)
	if v.LastRun == nil || v.LastOutcome != "ok" {
		t.Fatalf("last run %v %q", v.LastRun, v.LastOutcome)
	}
}

func TestAutomationBodiesAreCheckedAndErrorsSayHowToCorrect(t *testing.T) {
	h := newHarness(t)
	const base = "/api/v1/automations"
	with := func(old, new string) string { return strings.Replace(officeAtNight, old, new, 1) }

	for _, tc := range []struct{ body, field string }{
		{with(`"name"`, `"id": "x", "name"`), "id"},
		{with(`"name"`, `"sentence": "x", "name"`), "sentence"},
		{with(`"to": "detected"`, `"goes": "detected"`), "goes"},
		{with(`"state"`, `"colour": "red", "state"`), "colour"},
		{with(`"lights": ["Desk Lamp"]`, `"lights": "Desk Lamp"`), "actions.lights"},
	} {
		e := h.fail(t, h.control, http.MethodPost, base, tc.body, http.StatusUnprocessableEntity, "invalid")
		if e.Field != tc.field || !strings.Contains(e.Message, strings.TrimPrefix(tc.field, "actions.")) {
			t.Errorf("%s: %+v", tc.field, e)
		}
	}
	// A bad duration says what a duration is, and names its field.
	for _, bad := range []string{`"5 minutes later"`, `true`} {
		e := h.fail(t, h.control, http.MethodPost, base, with(`"5m"`, bad), http.StatusUnprocessableEntity, "invalid")
		if !strings.Contains(e.Message, "duration") || e.Field != "restore_after" || !strings.Contains(e.Message, "restore_after") {
			t.Errorf("restore_after %s: %+v", bad, e)
		}
	}
	h.fail(t, h.control, http.MethodPost, base, `{"name": "x",`, http.StatusBadRequest, "bad_request")

	// The engine's own checks name the field and, where there is a
	// choice, the valid values.
	e := h.fail(t, h.control, http.MethodPost, base, with(`"type": "sensor"`, `"type": "doorbell"`), http.StatusUnprocessableEntity, "invalid")
	if e.Field == "" || !slices.Contains(e.Options, "occupancy") {
		t.Errorf("an unknown trigger type: %+v", e)
	}
	// An unknown target is a fault of the body: a 422 naming the field.
	e = h.fail(t, h.control, http.MethodPost, base, with(`"Office Motion"`, `"Hallway Motion"`), http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(e.Message, "Hallway Motion") || !slices.Contains(e.Options, "Office Motion") || e.Field != "trigger.device" {
		t.Errorf("an unknown sensor: %+v", e)
	}
	h.fail(t, h.control, http.MethodPost, base, with(`"actions": [{"type": "light", "lights": ["Desk Lamp"], "state": {"on": true, "brightness": 30}}]`, `"actions": []`),
		http.StatusUnprocessableEntity, "invalid")

	h.call(t, h.control, http.MethodPost, base, officeAtNight, http.StatusCreated, nil)
	h.fail(t, h.control, http.MethodPost, base, with(`"Office at night"`, `"office AT night"`), http.StatusConflict, "conflict")
	e = h.fail(t, h.control, http.MethodPatch, base+"/Office%20at%20night", `{"enabled": "no"}`, http.StatusUnprocessableEntity, "invalid")
	if e.Field != "enabled" {
		t.Errorf("a patch of the wrong type: %+v", e)
	}
	h.fail(t, h.control, http.MethodPatch, base+"/Office%20at%20night", `{"enable": false}`, http.StatusUnprocessableEntity, "invalid")
	e = h.fail(t, h.read, http.MethodGet, base+"/Bedroom%20at%20dawn", "", http.StatusNotFound, "not_found")
	if !slices.Contains(e.Options, "Office at night") {
		t.Errorf("an unknown automation should list the rules: %+v", e)
	}
	for _, limit := range []string{"0", "101", "ten", "-1"} {
		e = h.fail(t, h.read, http.MethodGet, base+"/Office%20at%20night/trace?limit="+limit, "", http.StatusUnprocessableEntity, "invalid")
		if e.Field != "limit" {
			t.Errorf("limit=%s: %+v", limit, e)
		}
	}
}

func TestAReadKeyReadsAutomationsAndChangesNone(t *testing.T) {
	h := newHarness(t)
	const base = "/api/v1/automations"
	var v automation.View
	h.call(t, h.control, http.MethodPost, base, officeAtNight, http.StatusCreated, &v)
	one := base + "/" + v.ID

	h.call(t, h.read, http.MethodGet, base, "", http.StatusOK, nil)
	h.call(t, h.read, http.MethodGet, one, "", http.StatusOK, nil)
	h.call(t, h.read, http.MethodGet, one+"/trace", "", http.StatusOK, nil)
	before := h.commands(t, "sim:desk-lamp")
	for _, c := range []struct{ method, path, body string }{
		{http.MethodPost, base, strings.Replace(officeAtNight, "Office at night", "Sneaky", 1)},
		{http.MethodPut, one, officeAtNight},
		{http.MethodPatch, one, `{"enabled": false}`},
		{http.MethodDelete, one, ""},
		{http.MethodPost, one + "/run", ""},
		{http.MethodPost, one + "/duplicate", ""},
	} {
		h.fail(t, h.read, c.method, c.path, c.body, http.StatusForbidden, "forbidden")
		h.fail(t, "", c.method, c.path, c.body, http.StatusUnauthorized, "unauthorized")
	}
	if after := h.commands(t, "sim:desk-lamp"); after != before {
		t.Fatalf("a read key's run reached the desk lamp %d times", after-before)
	}
	var list []automation.View
	h.call(t, h.read, http.MethodGet, base, "", http.StatusOK, &list)
	if len(list) != 1 || !list[0].Enabled || list[0].Name != "Office at night" {
		t.Fatalf("a read key changed the rules: %+v", list)
	}
}

// TestTheSessionAPIServesTheSameAutomationRoutes: the web UI reaches the
// rules through the handlers /api/v1 mounts.
func TestTheSessionAPIServesTheSameAutomationRoutes(t *testing.T) {
	h := newHarness(t)
	routes := map[string]bool{}
	for _, r := range h.srv.Echo().Routes() {
		routes[r.Method+" "+r.Path] = true
	}
	for _, want := range []string{
		"GET /automations", "POST /automations", "GET /automations/:id", "PUT /automations/:id",
		"PATCH /automations/:id", "DELETE /automations/:id", "POST /automations/:id/run",
		"POST /automations/:id/duplicate", "GET /automations/:id/trace",
	} {
		method, path, _ := strings.Cut(want, " ")
		for _, prefix := range []string{"/api/v1", "/api"} {
			if !routes[method+" "+prefix+path] {
				t.Errorf("%s %s%s is not served", method, prefix, path)
			}
		}
	}
}

// eventually waits, up to 10 s, until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
