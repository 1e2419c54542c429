package session_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
)

// lightBrightness is the brightness the session API reports for a light.
func (h *hub) lightBrightness(t *testing.T, b *sessiontest.Browser, id string) int {
	t.Helper()
	var l struct {
		State struct {
			Brightness int `json:"brightness"`
		} `json:"state"`
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/lights/" + id, Session: b}).Decode(t, &l)
	return l.State.Brightness
}

// TestUndoThroughTheSession: the web UI undoes the signed-in person's
// last change with POST /api/undo, behind the session's CSRF defence;
// another person's undo does not touch it.
func TestUndoThroughTheSession(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	bob := h.addUser(t, admin, "bob")
	before := h.lightBrightness(t, admin, "sim:key-light")
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/lights/sim:key-light/state", Body: `{"brightness": 7}`, Session: admin})
	if got := h.lightBrightness(t, admin, "sim:key-light"); got != 7 {
		t.Fatalf("the key light is at %d %%, want 7", got)
	}

	for name, r := range map[string]sessiontest.Req{
		"no CSRF token":  {Session: &sessiontest.Browser{Cookie: admin.Cookie}},
		"another origin": {Session: admin, Header: map[string]string{"Origin": "http://evil.example"}},
		"no session":     {Header: map[string]string{"X-CSRF-Token": admin.CSRF}},
	} {
		r.Method, r.Path = "POST", "/api/undo"
		if got := h.Do(r); got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
			t.Errorf("%s: POST /api/undo = %d %s; want it refused", name, got.Status, got.Body)
		}
	}
	got := h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "POST", Path: "/api/undo", Body: `{}`, Session: bob})
	if !strings.Contains(strings.ToLower(string(got.Body)), "nothing to undo") {
		t.Errorf("bob's undo answered %s; want nothing to undo", got.Body)
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
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/undo", Body: `{}`, Session: admin}).Decode(t, &res)
	if res.Action != "light Key Light" || len(res.Result.Applied) != 1 || !strings.HasPrefix(res.Message, "Undid light Key Light") {
		t.Fatalf("undo answered %+v", res)
	}
	if got := h.lightBrightness(t, admin, "sim:key-light"); got != before {
		t.Fatalf("after undo the key light is at %d %%, want %d", got, before)
	}
}
