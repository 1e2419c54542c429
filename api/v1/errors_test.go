package v1_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBodyErrors(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/lights/sim:key-light/state"
	before := h.commands(t, "sim:key-light")

	e := h.fail(t, h.control, http.MethodPut, path, `{"on": true, "colour": "red"}`, http.StatusUnprocessableEntity, "invalid")
	if e.Field != "colour" || !strings.Contains(e.Message, "colour") {
		t.Fatalf("an unknown field should be named: %+v", e)
	}
	e = h.fail(t, h.control, http.MethodPut, path, `{"on": tru}`, http.StatusBadRequest, "bad_request")
	if !strings.Contains(e.Message, "byte") {
		t.Fatalf("malformed JSON should give the position: %q", e.Message)
	}
	h.fail(t, h.control, http.MethodPut, path, `{"on": true`, http.StatusBadRequest, "bad_request")
	h.fail(t, h.control, http.MethodPut, path, `{"on": true} {"on": false}`, http.StatusBadRequest, "bad_request")
	h.fail(t, h.control, http.MethodPut, path, ``, http.StatusBadRequest, "bad_request")
	e = h.fail(t, h.control, http.MethodPut, path, `[1, 2]`, http.StatusUnprocessableEntity, "invalid")
	if !strings.Contains(e.Message, "object") {
		t.Fatalf("an array body: %q", e.Message)
	}
	e = h.fail(t, h.control, http.MethodPut, path, `{"color": {"x": "left", "y": 0.3}}`, http.StatusUnprocessableEntity, "invalid")
	if e.Field != "color.x" {
		t.Fatalf("a nested type mismatch should name the path: %+v", e)
	}
	huge := `{"effect": "` + strings.Repeat("a", 2<<20) + `"}`
	h.fail(t, h.control, http.MethodPut, path, huge, http.StatusRequestEntityTooLarge, "too_large")
	// Without a Content-Length, the limit holds while the body is read.
	req := httptest.NewRequest(http.MethodPut, path, strings.NewReader(huge))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+h.control)
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	r := response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	h.validate(t, http.MethodPut, path, r)
	r.decode(t, &e)
	if r.Status != http.StatusRequestEntityTooLarge || e.Error != "too_large" {
		t.Fatalf("a streamed huge body: %d %s", r.Status, r.Body)
	}

	if after := h.commands(t, "sim:key-light"); after != before {
		t.Fatalf("refused bodies reached the lamp %d times", after-before)
	}
}

func TestRoutingErrorsAreJSON(t *testing.T) {
	h := newHarness(t)
	h.fail(t, h.control, http.MethodGet, "/api/v1/nope", "", http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodGet, "/nope", "", http.StatusNotFound, "not_found")
	r := h.call(t, h.control, http.MethodDelete, "/api/v1/lights", "", http.StatusMethodNotAllowed, nil)
	if !strings.Contains(r.Header.Get("Allow"), http.MethodGet) {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}
	e := h.fail(t, h.control, http.MethodPost, "/api/v1/lights/sim:key-light", "", http.StatusMethodNotAllowed, "method_not_allowed")
	if e.Message == "" {
		t.Fatal("no message")
	}
}

func TestTrailingSlashIsTheSamePath(t *testing.T) {
	h := newHarness(t)
	var lights []map[string]any
	h.call(t, h.read, http.MethodGet, "/api/v1/lights/", "", http.StatusOK, &lights)
	if len(lights) == 0 {
		t.Fatal("GET /api/v1/lights/ listed no lights")
	}
	h.represented(t, http.MethodPut, "/api/v1/lights/sim:key-light/state/", `{"brightness": 33}`, nil)
	var l struct{ State struct{ Brightness int } }
	h.call(t, h.read, http.MethodGet, "/api/v1/lights/sim:key-light", "", http.StatusOK, &l)
	if l.State.Brightness != 33 {
		t.Fatalf("brightness %d after a PUT to a path with a trailing slash", l.State.Brightness)
	}
}

func TestPathIDsAreDecoded(t *testing.T) {
	h := newHarness(t)
	var room struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	h.call(t, h.control, http.MethodPost, "/api/v1/rooms", `{"name": "A/V Closet"}`, http.StatusCreated, &room)
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms/A%2FV%20Closet", "", http.StatusOK, &room)
	if room.Name != "A/V Closet" {
		t.Fatalf("got %q", room.Name)
	}
	h.call(t, h.control, http.MethodPost, "/api/v1/rooms", `{"name": "100% Cosy"}`, http.StatusCreated, &room)
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms/100%25%20Cosy", "", http.StatusOK, &room)
	if room.Name != "100% Cosy" {
		t.Fatalf("got %q", room.Name)
	}
}

func TestRequiredFieldsAreNamed(t *testing.T) {
	h := newHarness(t)
	cases := []struct{ method, path, body, field string }{
		{http.MethodPut, "/api/v1/power/devices/Porch/state", `{}`, "on"},
		{http.MethodPost, "/api/v1/rooms", `{"members": ["Desk Fan"]}`, "name"},
		{http.MethodPatch, "/api/v1/rooms/Office", `{}`, "name"},
		{http.MethodPost, "/api/v1/rooms/Office/members", `{}`, "device"},
		{http.MethodPost, "/api/v1/scenes", `{"room": "Office"}`, "name"},
		{http.MethodPost, "/api/v1/media/devices/TV/cast", `{"content_type": "video"}`, "content_id"},
		{http.MethodPost, "/api/v1/media/devices/TV/cast", `{"content_id": "https://example.com/a.mp4"}`, "content_type"},
		{http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{}`, "favorite_id"},
		{http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/group", `{}`, "coordinator_id"},
		{http.MethodPut, "/api/v1/media/devices/TV/receiver", `{"input": "TV"}`, "receiver_id"},
		{http.MethodPost, "/api/v1/media/play-on", `{"query": "Netflix"}`, "device"},
		{http.MethodPost, "/api/v1/media/play-on", `{"device": "TV"}`, "query"},
	}
	for _, c := range cases {
		e := h.fail(t, h.control, c.method, c.path, c.body, http.StatusUnprocessableEntity, "invalid")
		if e.Field != c.field || !strings.Contains(e.Message, c.field) {
			t.Errorf("%s %s %s: %+v, want field %q named", c.method, c.path, c.body, e, c.field)
		}
	}
}

// TestErrorsQuoteLittleOfTheInput: a name or value that matches nothing is
// quoted cut short, never echoed back whole.
func TestErrorsQuoteLittleOfTheInput(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("x", 50_000)
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/api/v1/lights/" + long, ""},
		{http.MethodPut, "/api/v1/media/devices/Onkyo%20Receiver/state", `{"source": "` + long + `"}`},
		{http.MethodPut, "/api/v1/lights/Rope%20Light/state", `{"effect": "` + long + `"}`},
		{http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{"favorite_id": "` + long + `"}`},
	} {
		r := h.send(h.control, c.method, c.path, c.body)
		var e apiError
		r.decode(t, &e)
		if r.Status < 400 || len(e.Message) > 1000 || !strings.Contains(e.Message, "xxx…") {
			t.Errorf("%s %s…: %d, a message of %d bytes: %.200s", c.method, c.path[:40], r.Status, len(e.Message), e.Message)
		}
	}
}
