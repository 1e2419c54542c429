package v1_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// FuzzRequests sends any body, with any id in the path, to every /api/v1
// operation with a control key: the hub answers a status the document
// lists, with a body that matches it, and never a 5xx. `go test` runs the
// seeds below; `go test -fuzz FuzzRequests ./api/v1` searches further.
func FuzzRequests(f *testing.F) {
	h := newHarness(f)
	var routes []*echo.Route
	for _, r := range h.srv.Echo().Routes() {
		if r.Method != echo.RouteNotFound && strings.HasPrefix(r.Path, "/api/v1/") && r.Path != "/api/v1/events" {
			routes = append(routes, r)
		}
	}
	slices.SortFunc(routes, func(a, b *echo.Route) int { return strings.Compare(a.Method+a.Path, b.Method+b.Path) })

	ids := []string{"Key Light", "sim:key-light", "Living Room", "Living Room Sonos", "Coffee Plug", "TV", "", "..", "%", "nobody", "\x00", strings.Repeat("é", 300)}
	bodies := []string{
		"", "{}", "null", "[]", `"x"`, "{", `{"on":"yes"}`, `{"brightness":-5}`, `{"brightness":1e309}`,
		`{"brightness":50,"kelvin":2700,"hex":"#FF0000"}`, `{"hex":"#GGGGGG"}`, `{"xy":[2,-1]}`, `{"preset":"HMI","gm":99}`,
		`{"name":""}`, `{"name":"` + strings.Repeat("n", 500) + `"}`, `{"name":"Den","devices":["Key Light","Key Light"]}`,
		`{"volume":101,"mute":1}`, `{"transport":"rewind"}`, `{"source":"spotify:track:x"}`, `{"favorite":"404"}`,
		`{"members":["TV"]}`, `{"receiver":"Key Light","input":"HDMI9"}`, `{"command":"self_destruct"}`, `{"app":""}`,
		`{"adapter":"sim","address":"10.0.0.1"}`, `{"device":"Key Light"}`, `{"room":"Nowhere"}`, `{"on":true,"unknown":1}`,
	}
	for i := range routes {
		for j, id := range ids {
			f.Add(i, id, bodies[(i+j)%len(bodies)])
		}
		for _, b := range bodies {
			f.Add(i, "Key Light", b)
		}
	}

	f.Fuzz(func(t *testing.T, route int, id, body string) {
		if route < 0 {
			route = -route
		}
		r := routes[route%len(routes)]
		esc := url.PathEscape(id)
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", esc), ":device", esc)
		got := h.send(h.control, r.Method, path, body)
		if got.Status >= http.StatusInternalServerError {
			t.Fatalf("%s %s %q: %d %s", r.Method, path, body, got.Status, got.Body)
		}
		switch {
		case got.Status == http.StatusNoContent:
		case esc == "" && got.Status >= http.StatusBadRequest:
			// "/rooms/" is "/rooms", which the document's router would
			// take for a room with an empty id: only the error's shape.
			h.checkSchema(t, r.Method, path, h.doc.Components.Schemas["Error"].Value, got.Body)
		default:
			h.validate(t, r.Method, path, got)
		}
	})
}
