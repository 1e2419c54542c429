package v1_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

// undone is the answer of POST /api/v1/undo.
type undone struct {
	Action     string               `json:"action"`
	AgeSeconds int                  `json:"age_seconds"`
	Result     service.FanoutResult `json:"result"`
	Message    string               `json:"message"`
}

func TestUndoRestoresALight(t *testing.T) {
	h := newHarness(t)
	key := h.home.Light("sim:key-light")
	before := key.State()
	if !before.On || before.Brightness == 30 {
		t.Fatalf("the key light starts as %+v, want on and not at 30 %%", before)
	}
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/sim:key-light/state", `{"brightness": 30, "kelvin": 3200}`, http.StatusNoContent, nil)
	if st := key.State(); st.Brightness != 30 || st.Kelvin != 3200 {
		t.Fatalf("the key light did not change: %+v", st)
	}

	var res undone
	h.call(t, h.control, http.MethodPost, "/api/v1/undo", "", http.StatusOK, &res)
	if res.Action != "light Key Light" || len(res.Result.Applied) != 1 || len(res.Result.Failed) != 0 {
		t.Fatalf("undo answered %+v, want the desk lamp restored", res)
	}
	if res.Result.Applied[0].ID != "sim:key-light" || !strings.HasPrefix(res.Message, "Undid light Key Light") {
		t.Fatalf("undo answered %+v", res)
	}
	if got := key.State(); got.On != before.On || got.Brightness != before.Brightness || got.Kelvin != before.Kelvin || got.Mode != before.Mode {
		t.Fatalf("the key light is %+v after undo, want %+v", got, before)
	}

	// The change is undone once: a second undo has nothing left.
	e := h.fail(t, h.control, http.MethodPost, "/api/v1/undo", "", http.StatusNotFound, "not_found")
	if !strings.Contains(strings.ToLower(e.Message), "nothing to undo") {
		t.Fatalf("second undo said %q", e.Message)
	}
}

func TestUndoIsPerKey(t *testing.T) {
	h := newHarness(t)
	other := newKey(t, h.keys, "other", service.ScopeControl)
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/sim:desk-lamp/state", `{"on": true}`, http.StatusNoContent, nil)

	e := h.fail(t, other, http.MethodPost, "/api/v1/undo", "", http.StatusNotFound, "not_found")
	if !strings.EqualFold(e.Message, "nothing to undo: no change of yours in the last 10 minutes") {
		t.Fatalf("another key's undo said %q, want the service's message", e.Message)
	}
	if !h.home.Light("sim:desk-lamp").State().On {
		t.Fatal("another key's undo turned the desk lamp off")
	}
}

func TestUndoNeedsControl(t *testing.T) {
	h := newHarness(t)
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/sim:desk-lamp/state", `{"on": true}`, http.StatusNoContent, nil)
	h.fail(t, h.read, http.MethodPost, "/api/v1/undo", "", http.StatusForbidden, "forbidden")
	h.fail(t, "", http.MethodPost, "/api/v1/undo", "", http.StatusUnauthorized, "unauthorized")
	if !h.home.Light("sim:desk-lamp").State().On {
		t.Fatal("a refused undo turned the desk lamp off")
	}
	// The control key's change is still there to undo.
	var res undone
	h.call(t, h.control, http.MethodPost, "/api/v1/undo", "", http.StatusOK, &res)
	if h.home.Light("sim:desk-lamp").State().On {
		t.Fatalf("undo answered %+v but the desk lamp is on", res)
	}
}

// BenchmarkUndo is a keyed light write and its undo through the real
// handler, on the simulated home (no device latency): the undo's own
// cost is the op minus BenchmarkSetLightState's.
//
//	go test -run '^$' -bench Undo -benchmem ./api/v1/
func BenchmarkUndo(b *testing.B) {
	h := newHarness(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		putBrightness(b, h.handler, h.control, "sim:key-light", 1+i%100)
		if r := h.send(h.control, http.MethodPost, "/api/v1/undo", ""); r.Status != http.StatusOK {
			b.Fatalf("undo: %d %s", r.Status, r.Body)
		}
	}
}
