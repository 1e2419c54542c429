package v1_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// lightNames lists the names of a snapshot's lights.
func lightNames(h service.Home) []string {
	out := make([]string, 0, len(h.Lights))
	for _, l := range h.Lights {
		out = append(out, l.Name)
	}
	slices.Sort(out)
	return out
}

func TestHomeOfTheDemoIsTheWholeSnapshot(t *testing.T) {
	h := newHarness(t)
	var keys map[string]json.RawMessage
	h.call(t, h.read, http.MethodGet, "/api/v1/home", "", http.StatusOK, &keys)
	if len(keys) != 7 || keys["summary"] != nil {
		t.Fatalf("a small house answers its seven lists: %v", slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				yield(k)
			}
		}))
	}
}

func TestHomeFilters(t *testing.T) {
	h := newHarness(t)
	var home service.Home
	h.call(t, h.read, http.MethodGet, "/api/v1/home?room=office&kind=light", "", http.StatusOK, &home)
	if got := lightNames(home); !slices.Equal(got, []string{"Desk Lamp", "Fill Light", "Key Light"}) ||
		len(home.Rooms) != 1 || home.Rooms[0].Name != "Office" || len(home.Power)+len(home.Sensors)+len(home.Media) != 0 {
		t.Fatalf("the office's lights: %v, rooms %d, power %d, sensors %d", got, len(home.Rooms), len(home.Power), len(home.Sensors))
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/home?only_on=true&kind=light", "", http.StatusOK, &home)
	if got := lightNames(home); !slices.Equal(got, []string{"Ceiling Light", "Fill Light", "Key Light", "Rope Light"}) {
		t.Fatalf("lights that are on: %v", got)
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/home?detail=1&only_on=false", "", http.StatusOK, &home)
	if len(home.Lights) != 6 {
		t.Fatalf("detail: %d lights", len(home.Lights))
	}
}

func TestHomeRefusesBadParameters(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct{ query, field, says string }{
		{"kind=lamp", "kind", "light, media, power, remote, sensor"},
		{"only_on=maybe", "only_on", "true or false"},
		{"detail=", "detail", "true or false"},
		{"room=attic", "room", "Living Room"},
		{"room=o", "room", "more than one"},
		{"room=office&room=bedroom", "room", "once"},
		{"rooms=office", "rooms", "room, kind, only_on, detail"},
	} {
		e := h.fail(t, h.read, http.MethodGet, "/api/v1/home?"+tc.query, "", http.StatusUnprocessableEntity, service.EINVALID)
		if e.Field != tc.field || !strings.Contains(e.Message, tc.says) {
			t.Errorf("?%s: field %q, message %q; want field %q saying %q", tc.query, e.Field, e.Message, tc.field, tc.says)
		}
	}
}

// newLargeHarness is a harness over a house of 200 lights and 200 plugs
// in four rooms, with a read key.
func newLargeHarness(t *testing.T) *harness {
	t.Helper()
	l := servicetest.LargeHouse(t, 200, 200)
	srv := api.New(api.Config{Service: l.Service, Keys: l.Keys, Accounts: l.Accounts})
	h := &harness{svc: l.Service, keys: l.Keys, srv: srv, handler: srv.Handler()}
	h.read = newKey(t, l.Keys, "read", service.ScopeRead)
	h.doc, h.router = loadDocument(t, h.handler)
	return h
}

func TestHomeOfALargeHouseIsASummary(t *testing.T) {
	h := newLargeHarness(t)
	var sum struct {
		Summary homeview.Summary `json:"summary"`
		Hint    string           `json:"hint"`
	}
	r := h.call(t, h.read, http.MethodGet, "/api/v1/home", "", http.StatusOK, &sum)
	t.Logf("GET /api/v1/home, 400 devices: %d bytes", len(r.Body))
	if sum.Summary.Devices != 400 || len(sum.Summary.Rooms) != 4 || !strings.Contains(sum.Hint, "detail=true") {
		t.Fatalf("summary: %s", r.Body)
	}
	attic := sum.Summary.Rooms[slices.IndexFunc(sum.Summary.Rooms, func(r homeview.RoomSummary) bool { return r.Name == "Attic" })]
	if attic.Devices != 100 || attic.Lights.On != 25 || attic.Power.On != 16 || !slices.Equal(attic.Offline, []string{"Attic Light 50", "Attic Plug 50"}) {
		t.Fatalf("the attic: %+v", attic)
	}

	var home service.Home
	h.call(t, h.read, http.MethodGet, "/api/v1/home?detail=true", "", http.StatusOK, &home)
	if len(home.Lights) != 200 || len(home.Power) != 200 || len(home.Rooms) != 4 {
		t.Fatalf("detail: %d lights, %d power, %d rooms", len(home.Lights), len(home.Power), len(home.Rooms))
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/home?room=Attic&only_on=true", "", http.StatusOK, &home)
	if len(home.Lights) != 25 || len(home.Power) != 16 || len(home.Rooms) != 1 {
		t.Fatalf("the attic, what is on: %d lights, %d power, %d rooms", len(home.Lights), len(home.Power), len(home.Rooms))
	}
}
