package v1_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestMediaListAndState(t *testing.T) {
	h := newHarness(t)
	var media []service.Media
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices", "", http.StatusOK, &media)
	if len(media) != 4 {
		t.Fatalf("%d media players, want the sim's 4", len(media))
	}
	var m service.Media
	h.represented(t, http.MethodPut, "/api/v1/media/devices/Kitchen%20Sonos/state", `{"volume": 12, "transport": "play"}`, &m)
	if m.State == nil || m.State.Volume != 12 || m.State.Transport != devices.TransportPlaying {
		t.Fatalf("state %+v", m.State)
	}
	e := h.fail(t, h.control, http.MethodPut, "/api/v1/media/devices/Kitchen%20Sonos/state", `{"transport": "rewind"}`, http.StatusUnprocessableEntity, "invalid")
	if len(e.Options) == 0 {
		t.Fatalf("an unknown transport should list the valid ones: %+v", e)
	}
}

func TestPlayFavoriteBySubstring(t *testing.T) {
	h := newHarness(t)
	var favs []devices.Favorite
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/Kitchen%20Sonos/favorites", "", http.StatusOK, &favs)
	if len(favs) == 0 {
		t.Fatal("no favourites")
	}
	var m service.Media
	h.represented(t, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{"favorite": "jazz"}`, &m)
	if m.State == nil || m.State.NowPlaying == nil || m.State.NowPlaying.Title != "Dinner Jazz" {
		t.Fatalf("now playing %+v", m.State)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{"favorite": "radio"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{"favorite": "polka"}`, http.StatusUnprocessableEntity, "invalid")
	// A player without favourites lists none, as the Rust hub answers.
	var none []devices.Favorite
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/Onkyo%20Receiver/favorites", "", http.StatusOK, &none)
	if none == nil || len(none) != 0 {
		t.Fatalf("a receiver's favourites: %v", none)
	}
}

func TestGroupSpeakers(t *testing.T) {
	h := newHarness(t)
	var res fanoutCounts
	h.represented(t, http.MethodPost, "/api/v1/media/devices/Living%20Room%20Sonos/group", `{"members": ["Kitchen Sonos"]}`, &res)
	if len(res.Results.Applied) != 1 || res.Results.Applied[0].ID != "sim:kitchen-sonos" || len(res.Results.Failed) != 0 {
		t.Fatalf("group %+v", res)
	}
	var m service.Media
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/sim:kitchen-sonos", "", http.StatusOK, &m)
	if m.State == nil || m.State.GroupCoordinator != "sim:living-room-sonos" {
		t.Fatalf("kitchen follows %+v", m.State)
	}
	h.represented(t, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/ungroup", "", &m)
	if m.State == nil || m.State.GroupCoordinator != "" {
		t.Fatalf("after ungroup %+v", m.State)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/group", `{"members": []}`, http.StatusUnprocessableEntity, "invalid")
}

func TestReceiverBinding(t *testing.T) {
	h := newHarness(t)
	const tvPath = "/api/v1/media/devices/Living%20Room%20TV"
	var m service.Media
	h.represented(t, http.MethodPut, tvPath+"/receiver", `{"receiver": "Onkyo", "input": "TV"}`, &m)
	if m.Receiver != "sim:onkyo-receiver" {
		t.Fatalf("bound to %q", m.Receiver)
	}
	tvBefore := mediaState(t, h, "sim:living-room-tv")
	h.represented(t, http.MethodPut, tvPath+"/state", `{"power": true, "volume": 40}`, &m)
	recv := mediaState(t, h, "sim:onkyo-receiver")
	if recv.Volume != 40 || !recv.Power || recv.Source != "TV" {
		t.Fatalf("the receiver should have taken the volume and woken on TV: %+v", recv)
	}
	if tv := mediaState(t, h, "sim:living-room-tv"); tv.Volume != tvBefore.Volume {
		t.Fatalf("the TV's own volume moved from %d to %d", tvBefore.Volume, tv.Volume)
	}
	if m.State == nil || m.State.Volume != 40 {
		t.Fatalf("the TV should show the receiver's volume: %+v", m.State)
	}

	h.fail(t, h.control, http.MethodPut, tvPath+"/receiver", `{"input": "TV"}`, http.StatusUnprocessableEntity, "invalid")
	h.represented(t, http.MethodPut, tvPath+"/receiver", `{"receiver": ""}`, &m)
	if m.Receiver != "" {
		t.Fatalf("still bound to %q", m.Receiver)
	}
}

func mediaState(t *testing.T, h *harness, id devices.ID) devices.MediaState {
	t.Helper()
	for _, d := range h.home.Devices() {
		if d.Info().ID == id {
			st, err := d.(devices.MediaPlayer).MediaState(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
	}
	t.Fatalf("no media player %s", id)
	return devices.MediaState{}
}

func TestCast(t *testing.T) {
	h := newHarness(t)
	var m service.Media
	h.represented(t, http.MethodPost, "/api/v1/media/devices/Living%20Room%20TV/cast",
		`{"content_id": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "content_type": "video"}`, &m)
	if m.State == nil || !m.State.Power || m.State.Source != "YouTube" {
		t.Fatalf("after cast %+v", m.State)
	}
	e := h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/Living%20Room%20TV/cast",
		`{"content_id": "x", "content_type": "hologram"}`, http.StatusUnprocessableEntity, "invalid")
	if len(e.Options) == 0 {
		t.Fatalf("an unknown content type should list the valid ones: %+v", e)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/cast",
		`{"content_id": "https://example.com/film.mp4", "content_type": "video"}`, http.StatusUnprocessableEntity, "unsupported")
}

func TestPlayOn(t *testing.T) {
	h := newHarness(t)
	var res service.PlayOnResult
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{"device": "TV", "query": "Bob's Burgers"}`, http.StatusNotFound, "not_found")
	h.call(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{"device": "Living Room TV", "query": "open Netflix"}`, http.StatusOK, &res)
	if res.Action != "opened_app" || res.App != "com.netflix.ninja" || res.Message == "" {
		t.Fatalf("open Netflix: %+v", res)
	}
	h.call(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{"device": "TV", "query": "Bob's Burgers"}`, http.StatusOK, &res)
	if res.Action != "opened_last_app" || res.App != "com.netflix.ninja" {
		t.Fatalf("an unknown title should reopen the last app: %+v", res)
	}
	h.fail(t, h.control, http.MethodPost, "/api/v1/media/play-on", `{"device": "TV"}`, http.StatusUnprocessableEntity, "invalid")
	h.fail(t, h.read, http.MethodPost, "/api/v1/media/play-on", `{"device": "TV", "query": "Netflix"}`, http.StatusForbidden, "forbidden")
}
