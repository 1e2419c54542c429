package session_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/service"
)

// roomID is the id of the room named name.
func (h *hub) roomID(t *testing.T, b *sessiontest.Browser, name string) string {
	t.Helper()
	var r service.RoomView
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/rooms/" + strings.ReplaceAll(name, " ", "%20"), Session: b}).Decode(t, &r)
	return r.ID
}

// addUser adds a user through the admin's session and signs them in.
func (h *hub) addUser(t *testing.T, admin *sessiontest.Browser, name string) *sessiontest.Browser {
	t.Helper()
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"` + name + `","password":"` + sessiontest.Password + `"}`, Session: admin})
	return h.Login(t, name, sessiontest.Password)
}

// layoutJSON is the layout answered to b, re-encoded so that answers
// compare as text.
func (h *hub) layoutJSON(t *testing.T, b *sessiontest.Browser) string {
	t.Helper()
	var l dashboard.Layout
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/dashboard", Session: b}).Decode(t, &l)
	out, _ := json.Marshal(l)
	return string(out)
}

func TestDashboardLayoutRoundTrip(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	const empty = `{"rooms":[],"tiles":{},"pinned":[],"hidden":[]}`
	if got := h.layoutJSON(t, admin); got != empty {
		t.Fatalf("before any save the layout is %s; want %s", got, empty)
	}
	office, living := h.roomID(t, admin, "Office"), h.roomID(t, admin, "Living Room")
	body := fmt.Sprintf(`{"rooms":[%q,%q],"tiles":{%q:["sim:desk-lamp","sim:key-light"]},"pinned":["sim:ceiling-light"],"hidden":["sim:office-motion"]}`,
		living, office, office)
	var saved dashboard.Layout
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/dashboard", Body: body, Session: admin}).Decode(t, &saved)
	want, _ := json.Marshal(saved)
	if got := h.layoutJSON(t, admin); got != string(want) || !strings.Contains(got, `"rooms":["`+living+`","`+office+`"]`) {
		t.Fatalf("read back %s; saved %s", got, want)
	}

	// Each person's layout is their own.
	bob := h.addUser(t, admin, "bob")
	if got := h.layoutJSON(t, bob); got != empty {
		t.Fatalf("bob sees %s; want his own, empty", got)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/dashboard", Body: `{"pinned":["sim:key-light"]}`, Session: bob})
	if got := h.layoutJSON(t, bob); got != `{"rooms":[],"tiles":{},"pinned":["sim:key-light"],"hidden":[]}` {
		t.Fatalf("bob's layout %s", got)
	}
	if got := h.layoutJSON(t, admin); got != string(want) {
		t.Fatalf("after bob's save the admin's layout is %s; want %s", got, want)
	}

	// A removed user's layout goes with them; the admin's stays.
	var users []struct{ ID, Username string }
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/users", Session: admin}).Decode(t, &users)
	for _, u := range users {
		if u.Username == "bob" {
			h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "DELETE", Path: "/api/users/" + u.ID, Session: admin})
		}
	}
	if got := h.layoutJSON(t, admin); got != string(want) {
		t.Fatalf("after bob was removed the admin's layout is %s", got)
	}
}

// TestDashboardLayoutRefusesBadInput sends what a layout must refuse:
// each is a 4xx whose message says what is wrong, and the saved layout
// stays as it was.
func TestDashboardLayoutRefusesBadInput(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	office := h.roomID(t, admin, "Office")
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/dashboard", Body: `{"pinned":["sim:key-light"]}`, Session: admin})
	before := h.layoutJSON(t, admin)
	ids := make([]string, dashboard.MaxIDs+1)
	for i := range ids {
		ids[i] = fmt.Sprintf(`"sim:d%d"`, i)
	}
	for _, c := range []struct {
		what, body string
		status     int
		says       string
	}{
		{"an empty body", ``, http.StatusBadRequest, "The request body is empty"},
		{"broken JSON", `{"rooms":[`, http.StatusBadRequest, "Malformed JSON"},
		{"not JSON", `rooms`, http.StatusBadRequest, "Malformed JSON at byte 1"},
		{"two objects", `{} {}`, http.StatusBadRequest, "Unexpected data after the JSON object"},
		{"an unknown field", `{"rooms":[],"order":[]}`, http.StatusUnprocessableEntity, `Unknown field "order"; a dashboard layout has rooms, tiles, pinned, hidden`},
		{"a list as a string", `{"rooms":"Office"}`, http.StatusUnprocessableEntity, "Give rooms as an array"},
		{"an id as a number", `{"pinned":[1]}`, http.StatusUnprocessableEntity, "as a string, not number"},
		{"the tiles as a list", `{"tiles":[]}`, http.StatusUnprocessableEntity, "Give tiles as an object"},
		{"too many ids", `{"hidden":[` + strings.Join(ids, ",") + `]}`, http.StatusUnprocessableEntity, "The list hidden holds 1001 ids; at most 1000"},
		{"an id too long", `{"pinned":["` + strings.Repeat("x", 201) + `"]}`, http.StatusUnprocessableEntity, "An id in pinned[0] is 201 characters long; ids are at most 200"},
		{"an empty id", `{"rooms":[""]}`, http.StatusUnprocessableEntity, "An id in rooms[0] is empty"},
		{"a duplicate", `{"pinned":["sim:key-light","sim:fill-light","sim:key-light"]}`, http.StatusUnprocessableEntity, "The list pinned names sim:key-light twice"},
		{"an unknown device", `{"pinned":["sim:nope"]}`, http.StatusUnprocessableEntity, "There is no device sim:nope; it may have been removed since the dashboard was drawn"},
		{"an unknown room", `{"rooms":["rm_nope"]}`, http.StatusUnprocessableEntity, "There is no room rm_nope"},
		{"a tile of another room", `{"tiles":{"` + office + `":["sim:ceiling-light"]}}`, http.StatusUnprocessableEntity, "Ceiling Light is in Living Room, not in Office"},
		{"pinned and hidden", `{"pinned":["sim:key-light"],"hidden":["sim:key-light"]}`, http.StatusUnprocessableEntity, "Key Light is both pinned and hidden"},
	} {
		got := h.Do(sessiontest.Req{Method: "PUT", Path: "/api/dashboard", Body: c.body, Session: admin})
		var e struct{ Error, Message string }
		_ = json.Unmarshal(got.Body, &e)
		if got.Status != c.status || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: PUT /api/dashboard = %d %s; want %d saying %q", c.what, got.Status, got.Body, c.status, c.says)
		}
	}
	if got := h.layoutJSON(t, admin); got != before {
		t.Fatalf("after the refusals the layout is %s; want %s", got, before)
	}
}

func TestDashboardLayoutIsGuarded(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	key := mintKey(t, h, admin)
	body := `{"pinned":["sim:key-light"]}`
	for _, c := range []struct {
		what   string
		r      sessiontest.Req
		status int
		says   string
	}{
		{"nobody, reading", sessiontest.Req{Method: "GET"}, http.StatusUnauthorized, "Sign in first"},
		{"nobody, writing", sessiontest.Req{Method: "PUT", Body: body}, http.StatusUnauthorized, "Sign in first"},
		{"no CSRF token", sessiontest.Req{Method: "PUT", Body: body, Session: &sessiontest.Browser{Cookie: admin.Cookie}}, http.StatusForbidden, "CSRF token is missing or wrong"},
		{"another origin", sessiontest.Req{Method: "PUT", Body: body, Session: admin, Header: map[string]string{"Origin": "http://evil.example"}}, http.StatusForbidden, "Cross-origin request refused"},
		{"an API key, reading", sessiontest.Req{Method: "GET", Header: map[string]string{"Authorization": "Bearer " + key}}, http.StatusUnauthorized, "an API key does not open the web UI's API"},
		{"an API key, writing", sessiontest.Req{Method: "PUT", Body: body, Header: map[string]string{"Authorization": "Bearer " + key}}, http.StatusUnauthorized, "an API key does not open the web UI's API"},
	} {
		c.r.Path = "/api/dashboard"
		got := h.Do(c.r)
		if got.Status != c.status || !strings.Contains(string(got.Body), c.says) {
			t.Errorf("%s: %s /api/dashboard = %d %s; want %d saying %q", c.what, c.r.Method, got.Status, got.Body, c.status, c.says)
		}
	}
	// /api/v1 has no layouts: a key's dashboard is the script's own.
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/v1/dashboard", Header: map[string]string{"Authorization": "Bearer " + key}})
	if got := h.layoutJSON(t, admin); strings.Contains(got, "sim:key-light") {
		t.Fatalf("a refused write saved %s", got)
	}
}
