package session_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/service"
)

// roomID is the id of the room named name.
func (h *hub) roomID(t *testing.T, b *browser, name string) string {
	t.Helper()
	var r service.RoomView
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/rooms/" + strings.ReplaceAll(name, " ", "%20"), session: b}).decode(t, &r)
	return r.ID
}

// addUser adds a user through the admin's session and signs them in.
func (h *hub) addUser(t *testing.T, admin *browser, name string) *browser {
	t.Helper()
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"` + name + `","password":"` + password + `"}`, session: admin})
	return h.login(t, name, password)
}

// layoutJSON is the layout answered to b, re-encoded so that answers
// compare as text.
func (h *hub) layoutJSON(t *testing.T, b *browser) string {
	t.Helper()
	var l dashboard.Layout
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/dashboard", session: b}).decode(t, &l)
	out, _ := json.Marshal(l)
	return string(out)
}

func TestDashboardLayoutRoundTrip(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	const empty = `{"rooms":[],"tiles":{},"pinned":[],"hidden":[]}`
	if got := h.layoutJSON(t, admin); got != empty {
		t.Fatalf("before any save the layout is %s; want %s", got, empty)
	}
	office, living := h.roomID(t, admin, "Office"), h.roomID(t, admin, "Living Room")
	body := fmt.Sprintf(`{"rooms":[%q,%q],"tiles":{%q:["sim:desk-lamp","sim:key-light"]},"pinned":["sim:ceiling-light"],"hidden":["sim:office-motion"]}`,
		living, office, office)
	var saved dashboard.Layout
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/dashboard", body: body, session: admin}).decode(t, &saved)
	want, _ := json.Marshal(saved)
	if got := h.layoutJSON(t, admin); got != string(want) || !strings.Contains(got, `"rooms":["`+living+`","`+office+`"]`) {
		t.Fatalf("read back %s; saved %s", got, want)
	}

	// Each person's layout is their own.
	bob := h.addUser(t, admin, "bob")
	if got := h.layoutJSON(t, bob); got != empty {
		t.Fatalf("bob sees %s; want his own, empty", got)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/dashboard", body: `{"pinned":["sim:key-light"]}`, session: bob})
	if got := h.layoutJSON(t, bob); got != `{"rooms":[],"tiles":{},"pinned":["sim:key-light"],"hidden":[]}` {
		t.Fatalf("bob's layout %s", got)
	}
	if got := h.layoutJSON(t, admin); got != string(want) {
		t.Fatalf("after bob's save the admin's layout is %s; want %s", got, want)
	}

	// A removed user's layout goes with them; the admin's stays.
	var users []struct{ ID, Username string }
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/users", session: admin}).decode(t, &users)
	for _, u := range users {
		if u.Username == "bob" {
			h.must(t, http.StatusNoContent, req{method: "DELETE", path: "/api/users/" + u.ID, session: admin})
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
	admin := h.login(t, "admin", password)
	office := h.roomID(t, admin, "Office")
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/dashboard", body: `{"pinned":["sim:key-light"]}`, session: admin})
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
		got := h.do(req{method: "PUT", path: "/api/dashboard", body: c.body, session: admin})
		var e struct{ Error, Message string }
		_ = json.Unmarshal(got.body, &e)
		if got.status != c.status || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: PUT /api/dashboard = %d %s; want %d saying %q", c.what, got.status, got.body, c.status, c.says)
		}
	}
	if got := h.layoutJSON(t, admin); got != before {
		t.Fatalf("after the refusals the layout is %s; want %s", got, before)
	}
}

func TestDashboardLayoutIsGuarded(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	key := mintKey(t, h, admin)
	body := `{"pinned":["sim:key-light"]}`
	for _, c := range []struct {
		what   string
		r      req
		status int
		says   string
	}{
		{"nobody, reading", req{method: "GET"}, http.StatusUnauthorized, "Sign in first"},
		{"nobody, writing", req{method: "PUT", body: body}, http.StatusUnauthorized, "Sign in first"},
		{"no CSRF token", req{method: "PUT", body: body, session: &browser{cookie: admin.cookie}}, http.StatusForbidden, "CSRF token is missing or wrong"},
		{"another origin", req{method: "PUT", body: body, session: admin, header: map[string]string{"Origin": "http://evil.example"}}, http.StatusForbidden, "Cross-origin request refused"},
		{"an API key, reading", req{method: "GET", header: map[string]string{"Authorization": "Bearer " + key}}, http.StatusUnauthorized, "an API key does not open the web UI's API"},
		{"an API key, writing", req{method: "PUT", body: body, header: map[string]string{"Authorization": "Bearer " + key}}, http.StatusUnauthorized, "an API key does not open the web UI's API"},
	} {
		c.r.path = "/api/dashboard"
		got := h.do(c.r)
		if got.status != c.status || !strings.Contains(string(got.body), c.says) {
			t.Errorf("%s: %s /api/dashboard = %d %s; want %d saying %q", c.what, c.r.method, got.status, got.body, c.status, c.says)
		}
	}
	// /api/v1 has no layouts: a key's dashboard is the script's own.
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/api/v1/dashboard", header: map[string]string{"Authorization": "Bearer " + key}})
	if got := h.layoutJSON(t, admin); strings.Contains(got, "sim:key-light") {
		t.Fatalf("a refused write saved %s", got)
	}
}
