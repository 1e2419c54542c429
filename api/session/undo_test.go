package session_test

import (
	"net/http"
	"strings"
	"testing"
)

// lightBrightness is the brightness the session API reports for a light.
func (h *hub) lightBrightness(t *testing.T, b *browser, id string) int {
	t.Helper()
	var l struct {
		State struct {
			Brightness int `json:"brightness"`
		} `json:"state"`
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/lights/" + id, session: b}).decode(t, &l)
	return l.State.Brightness
}

// TestUndoThroughTheSession: the web UI undoes the signed-in person's
// last change with POST /api/undo, behind the session's CSRF defence;
// another person's undo does not touch it.
func TestUndoThroughTheSession(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	bob := h.addUser(t, admin, "bob")
	before := h.lightBrightness(t, admin, "sim:key-light")
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/lights/sim:key-light/state", body: `{"brightness": 7}`, session: admin})
	if got := h.lightBrightness(t, admin, "sim:key-light"); got != 7 {
		t.Fatalf("the key light is at %d %%, want 7", got)
	}

	for name, r := range map[string]req{
		"no CSRF token":  {session: &browser{cookie: admin.cookie}},
		"another origin": {session: admin, header: map[string]string{"Origin": "http://evil.example"}},
		"no session":     {header: map[string]string{"X-CSRF-Token": admin.csrf}},
	} {
		r.method, r.path = "POST", "/api/undo"
		if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
			t.Errorf("%s: POST /api/undo = %d %s; want it refused", name, got.status, got.body)
		}
	}
	got := h.must(t, http.StatusNotFound, req{method: "POST", path: "/api/undo", body: `{}`, session: bob})
	if !strings.Contains(strings.ToLower(string(got.body)), "nothing to undo") {
		t.Errorf("bob's undo answered %s; want nothing to undo", got.body)
	}
	if got := h.lightBrightness(t, admin, "sim:key-light"); got != 7 {
		t.Fatalf("refused undos moved the key light to %d %%", got)
	}

	var res struct {
		Action  string `json:"action"`
		Message string `json:"message"`
		Result  struct {
			Applied []struct{ ID string } `json:"applied"`
		} `json:"result"`
	}
	h.must(t, http.StatusOK, req{method: "POST", path: "/api/undo", body: `{}`, session: admin}).decode(t, &res)
	if res.Action != "light Key Light" || len(res.Result.Applied) != 1 || !strings.HasPrefix(res.Message, "Undid light Key Light") {
		t.Fatalf("undo answered %+v", res)
	}
	if got := h.lightBrightness(t, admin, "sim:key-light"); got != before {
		t.Fatalf("after undo the key light is at %d %%, want %d", got, before)
	}
}
