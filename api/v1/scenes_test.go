package v1_test

import (
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

func TestSceneCaptureAndRestore(t *testing.T) {
	h := newHarness(t)
	var sc service.SceneView
	h.call(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Work", "room": "Office"}`, http.StatusCreated, &sc)
	if sc.Name != "Work" || sc.Room != "Office" || len(sc.Entries) != 4 {
		t.Fatalf("captured %+v, want the office's 3 lights and fan", sc)
	}
	key, desk := h.home.Light("sim:key-light"), h.home.Light("sim:desk-lamp")
	wantKey, wantDesk := key.State(), desk.State()

	h.call(t, h.control, http.MethodPut, "/api/v1/rooms/Office/state", `{"on": true, "hex": "0000FF", "brightness": 5}`, http.StatusOK, nil)
	if st := key.State(); st.Brightness != 5 || !desk.State().On {
		t.Fatalf("the office did not change: %+v", st)
	}

	var res fanoutCounts
	h.call(t, h.control, http.MethodPost, "/api/v1/scenes/Work/activate", "", http.StatusOK, &res)
	if len(res.Results.Applied) != 4 || len(res.Results.Failed) != 0 {
		t.Fatalf("activation %+v", res)
	}
	if got := key.State(); got.On != wantKey.On || got.Brightness != wantKey.Brightness || got.Kelvin != wantKey.Kelvin || got.Mode != wantKey.Mode {
		t.Fatalf("key light restored to %+v, want %+v", got, wantKey)
	}
	if got := desk.State(); got.On != wantDesk.On {
		t.Fatalf("desk lamp restored to %+v, want %+v", got, wantDesk)
	}

	var scenes []service.SceneView
	h.call(t, h.read, http.MethodGet, "/api/v1/scenes", "", http.StatusOK, &scenes)
	if len(scenes) != 1 {
		t.Fatalf("%d scenes", len(scenes))
	}
	var room service.RoomView
	h.call(t, h.read, http.MethodGet, "/api/v1/rooms/Office", "", http.StatusOK, &room)
	if len(room.Scenes) != 1 || room.Scenes[0] != sc.ID {
		t.Fatalf("the office lists scenes %v", room.Scenes)
	}
}

func TestSceneNamesAndDeletion(t *testing.T) {
	h := newHarness(t)
	var sc service.SceneView
	h.call(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Evening"}`, http.StatusCreated, &sc)
	if sc.RoomID != "" || len(sc.Entries) != 10 {
		t.Fatalf("a home scene should capture the 6 lights, 3 power devices and the TV's power: %+v", sc)
	}
	for _, e := range sc.Entries {
		if e.DeviceID == "sim:living-room-tv" && (e.Media == nil || e.Media.Volume != nil) {
			t.Fatalf("the TV's entry should keep its power only: %+v", e.Media)
		}
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Evening", "room": "Office"}`, http.StatusConflict, "conflict")
	h.fail(t, h.control, http.MethodPost, "/api/v1/scenes", `{"name": "Nook", "room": "Attic"}`, http.StatusNotFound, "not_found")

	h.call(t, h.control, http.MethodPatch, "/api/v1/scenes/Evening", `{"name": "Night"}`, http.StatusOK, &sc)
	if sc.Name != "Night" {
		t.Fatalf("renamed to %q", sc.Name)
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/scenes/"+sc.ID, "", http.StatusOK, &sc)
	h.call(t, h.control, http.MethodDelete, "/api/v1/scenes/"+sc.ID, "", http.StatusNoContent, nil)
	h.call(t, h.control, http.MethodDelete, "/api/v1/scenes/"+sc.ID, "", http.StatusNoContent, nil)
	h.fail(t, h.read, http.MethodGet, "/api/v1/scenes/"+sc.ID, "", http.StatusNotFound, "not_found")
	h.fail(t, h.control, http.MethodPost, "/api/v1/scenes/"+sc.ID+"/activate", "", http.StatusNotFound, "not_found")
}
