package v1_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// ids lists the ids of outcomes, sorted.
func ids(os []service.Outcome) []devices.ID {
	out := make([]devices.ID, 0, len(os))
	for _, o := range os {
		out = append(out, o.ID)
	}
	slices.Sort(out)
	return out
}

func TestRoomDimmingTouchesOnlyLitLights(t *testing.T) {
	h := newHarness(t)
	// Office: Key Light (on), Fill Light (on), Desk Lamp (off), Desk Fan.
	var res fanoutCounts
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"brightness": 20}`, http.StatusOK, &res)
	if got, want := ids(res.Results.Applied), []devices.ID{"sim:fill-light", "sim:key-light"}; !slices.Equal(got, want) || len(res.Results.Failed) != 0 {
		t.Fatalf("dimming the office applied to %v (failed %v), want %v", got, res.Results.Failed, want)
	}
	if h.home.Light("sim:desk-lamp").State().On {
		t.Fatal("dimming woke the desk lamp")
	}
	if st := h.home.Light("sim:key-light").State(); st.Brightness != 20 {
		t.Fatalf("key light at %d %%", st.Brightness)
	}
}

func TestRoomOnIsPowerIntent(t *testing.T) {
	h := newHarness(t)
	var res fanoutCounts
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": true, "brightness": 50}`, http.StatusOK, &res)
	if got, want := ids(res.Results.Applied), []devices.ID{"sim:desk-lamp", "sim:fill-light", "sim:key-light"}; !slices.Equal(got, want) {
		t.Fatalf("on with brightness applied to %v, want every light %v", got, want)
	}
	if st := h.home.Light("sim:desk-lamp").State(); !st.On || st.Brightness != 50 {
		t.Fatalf("desk lamp %+v", st)
	}
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/office/state", `{"on": false}`, http.StatusOK, &res)
	if got, want := ids(res.Results.Applied), []devices.ID{"sim:desk-fan", "sim:desk-lamp", "sim:fill-light", "sim:key-light"}; !slices.Equal(got, want) {
		t.Fatalf("a bare off applied to %v, want lights and the fan %v", got, want)
	}
	if h.home.Switch("sim:desk-fan").On() || h.home.Light("sim:key-light").State().On {
		t.Fatal("the office is not off")
	}
}

func TestRoomReportsUnreachableLight(t *testing.T) {
	h := newHarness(t)
	h.home.Light("sim:fill-light").SetUnreachable(true)
	var res fanoutCounts
	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": true, "kelvin": 4000}`, http.StatusOK, &res)
	if got, want := ids(res.Results.Applied), []devices.ID{"sim:desk-lamp", "sim:key-light"}; !slices.Equal(got, want) {
		t.Fatalf("applied %v, want %v", got, want)
	}
	if len(res.Results.Failed) != 1 || res.Results.Failed[0].Name != "Fill Light" || res.Results.Failed[0].Code != "unreachable" || res.Results.Failed[0].Error == "" {
		t.Fatalf("failed %+v, want the fill light, unreachable, with a reason", res.Results.Failed)
	}
}

func TestRoomLifecycle(t *testing.T) {
	h := newHarness(t)
	var room service.RoomView
	h.call(t, h.control, http.MethodPost, "/api/v1/rooms", `{"name": "Study", "members": ["Desk Fan"]}`, http.StatusCreated, &room)
	if room.Name != "Study" || len(room.Members) != 1 || room.Members[0].ID != "sim:desk-fan" {
		t.Fatalf("created %+v", room)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/rooms", `{"name": "study"}`, http.StatusConflict, "conflict")
	h.fail(t, h.control, http.MethodPost, "/api/v1/rooms", `{"members": []}`, http.StatusUnprocessableEntity, "invalid")

	h.call(t, h.control, http.MethodPatch, "/api/v1/rooms/"+room.ID, `{"name": "Den"}`, http.StatusOK, &room)
	if room.Name != "Den" {
		t.Fatalf("renamed to %q", room.Name)
	}
	h.call(t, h.control, http.MethodPost, "/api/v1/rooms/Den/members", `{"device": "Key Light"}`, http.StatusOK, &room)
	if len(room.Members) != 2 {
		t.Fatalf("members %+v", room.Members)
	}
	var office service.RoomView
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms/Office", "", http.StatusOK, &office)
	for _, m := range office.Members {
		if m.ID == "sim:key-light" {
			t.Fatal("the key light is in two rooms")
		}
	}
	h.call(t, h.control, http.MethodDelete, "/api/v1/rooms/Den/members/Key%20Light", "", http.StatusOK, &room)
	if len(room.Members) != 1 {
		t.Fatalf("members after removal %+v", room.Members)
	}
	h.call(t, h.control, http.MethodDelete, "/api/v1/rooms/Den", "", http.StatusNoContent, nil)
	h.fail(t, h.read, http.MethodGet, "/api/v1/rooms/Den", "", http.StatusNotFound, "not_found")

	var rooms []service.RoomView
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms", "", http.StatusOK, &rooms)
	if len(rooms) != 4 {
		t.Fatalf("%d rooms, want the sim's 4", len(rooms))
	}
}
