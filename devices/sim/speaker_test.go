package sim_test

import (
	"context"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

const (
	livingSonos  devices.ID = "sim:living-room-sonos"
	kitchenSonos devices.ID = "sim:kitchen-sonos"
)

func mediaState(t *testing.T, p devices.MediaPlayer) devices.MediaState {
	t.Helper()
	st, err := p.MediaState(bg)
	mustOK(t, err)
	return st
}

func setMedia(t *testing.T, p devices.MediaPlayer, c devices.MediaChange) devices.MediaState {
	t.Helper()
	st, err := p.SetMedia(bg, c)
	mustOK(t, err)
	return st
}

// threeSpeakers is a household of three idle speakers.
func threeSpeakers() (a, b, c *sim.Speaker) {
	hh := sim.NewHousehold(nil)
	return hh.NewSpeaker("a", "A", "", sim.Options{}), hh.NewSpeaker("b", "B", "", sim.Options{}), hh.NewSpeaker("c", "C", "", sim.Options{})
}

func TestSpeakerFavourites(t *testing.T) {
	h := mustHome(t)
	for _, id := range []devices.ID{livingSonos, kitchenSonos} {
		s := h.Speaker(id)
		favs, err := s.Favorites(bg)
		mustOK(t, err)
		if len(favs) < 8 {
			t.Fatalf("%s has %d favourites", id, len(favs))
		}
		kinds := map[string]bool{}
		for _, f := range favs {
			if len(f.ID) < 6 || f.ID[:5] != "FV:2/" || f.Title == "" {
				t.Errorf("favourite %+v", f)
			}
			kinds[f.Kind] = true
		}
		if !kinds["radio"] || !kinds["playlist"] {
			t.Errorf("favourite kinds %v", kinds)
		}
		for _, f := range favs {
			mustOK(t, s.PlayFavorite(bg, f.ID))
			st := mediaState(t, s)
			if st.Transport != devices.TransportPlaying || st.NowPlaying == nil || st.NowPlaying.Title != f.Title {
				t.Errorf("after playing %q: %+v %+v", f.Title, st, st.NowPlaying)
			}
		}
		wantErr(t, s.PlayFavorite(bg, "FV:2/999"), devices.ErrInvalid)
	}
}

func TestSpeakerFavouritesAreACopy(t *testing.T) {
	s := mustHome(t).Speaker(livingSonos)
	favs, _ := s.Favorites(bg)
	favs[0].Title = "changed"
	again, _ := s.Favorites(bg)
	if again[0].Title == "changed" {
		t.Error("Favorites shares its slice")
	}
}

func TestSpeakerMedia(t *testing.T) {
	a, _, _ := threeSpeakers()
	st := mediaState(t, a)
	if !st.Power || st.Volume != 20 || st.Source != "Queue" || st.Transport != devices.TransportStopped || st.NowPlaying != nil || len(st.Sources) != 4 {
		t.Fatalf("idle speaker = %+v", st)
	}
	st = setMedia(t, a, devices.MediaChange{Volume: ptr(55), Mute: ptr(true), Power: ptr(true)})
	if st.Volume != 55 || !st.Muted {
		t.Errorf("volume/mute = %+v", st)
	}
	st = setMedia(t, a, devices.MediaChange{Source: ptr("line-in")})
	if st.Source != "Line-In" || st.Transport != devices.TransportPlaying || st.NowPlaying.Title != "Line-In" {
		t.Errorf("line-in = %+v", st)
	}
	st = setMedia(t, a, devices.MediaChange{Source: ptr("Radio")})
	if st.Source != "Radio" || st.NowPlaying == nil || st.NowPlaying.Title != "Radio Paradise" {
		t.Errorf("radio = %+v", st)
	}
	st = setMedia(t, a, devices.MediaChange{Transport: ptr("pause")})
	if st.Transport != devices.TransportPaused {
		t.Errorf("pause = %+v", st)
	}
	refusals := []struct {
		c    devices.MediaChange
		want error
	}{
		{devices.MediaChange{Power: ptr(false)}, devices.ErrUnsupported},
		{devices.MediaChange{Source: ptr("Vinyl")}, devices.ErrInvalid},
		{devices.MediaChange{Volume: ptr(101)}, devices.ErrInvalid},
		{devices.MediaChange{Transport: ptr("rewind")}, devices.ErrInvalid},
		{devices.MediaChange{Transport: ptr("next")}, devices.ErrUnsupported},
	}
	for _, r := range refusals {
		_, err := a.SetMedia(bg, r.c)
		wantErr(t, err, r.want)
	}
	if st := mediaState(t, a); st.Source != "Radio" || st.Transport != devices.TransportPaused {
		t.Errorf("refusals changed the speaker: %+v", st)
	}
}

func TestSpeakerQueue(t *testing.T) {
	a, _, _ := threeSpeakers()
	_, err := a.SetMedia(bg, devices.MediaChange{Transport: ptr("play")})
	wantErr(t, err, devices.ErrInvalid)
	mustOK(t, a.PlayFavorite(bg, "FV:2/14"))
	st := setMedia(t, a, devices.MediaChange{Transport: ptr("next")})
	if st.NowPlaying.Title != "Morning Coffee (track 2)" || st.NowPlaying.Album != "Morning Coffee" {
		t.Errorf("next = %+v", st.NowPlaying)
	}
	st = setMedia(t, a, devices.MediaChange{Transport: ptr("previous")})
	st = setMedia(t, a, devices.MediaChange{Transport: ptr("previous")})
	if st.NowPlaying.Title != "Morning Coffee" || st.Transport != devices.TransportPlaying {
		t.Errorf("previous at the start = %+v", st)
	}
	mustOK(t, a.PlayFavorite(bg, "FV:2/25"))
	st = setMedia(t, a, devices.MediaChange{Transport: ptr("next")})
	if st.Transport != devices.TransportStopped || st.NowPlaying.Title != "So What" {
		t.Errorf("next past a single track = %+v", st)
	}
}

func TestSpeakerCast(t *testing.T) {
	a, _, _ := threeSpeakers()
	mustOK(t, a.Cast(bg, "http://example.com/audio/morning.mp3", "audio/mpeg"))
	st := mediaState(t, a)
	if st.Source != "Queue" || st.Transport != devices.TransportPlaying || st.NowPlaying.Title != "morning.mp3" {
		t.Errorf("after cast = %+v %+v", st, st.NowPlaying)
	}
	wantErr(t, a.Cast(bg, "", "music"), devices.ErrInvalid)
	wantErr(t, a.Cast(bg, "http://example.com/film.mp4", "video/mp4"), devices.ErrUnsupported)
}

func TestGroupFollowerMirrorsCoordinator(t *testing.T) {
	h, _, c := registered(t)
	living, kitchen := h.Speaker(livingSonos), h.Speaker(kitchenSonos)
	mustOK(t, kitchen.JoinGroup(bg, livingSonos))
	st := mediaState(t, kitchen)
	lead := mediaState(t, living)
	if st.GroupCoordinator != livingSonos || st.Transport != lead.Transport || st.NowPlaying.Title != lead.NowPlaying.Title || st.Volume != 30 {
		t.Fatalf("follower = %+v, coordinator = %+v", st, lead)
	}
	if lead.GroupCoordinator != "" {
		t.Errorf("coordinator reports a coordinator: %q", lead.GroupCoordinator)
	}
	mustOK(t, living.PlayFavorite(bg, "FV:2/17"))
	if st := mediaState(t, kitchen); st.NowPlaying.Title != "Dinner Jazz" {
		t.Errorf("follower plays %+v", st.NowPlaying)
	}
	if c.count(kitchenSonos) != 1 || c.count(livingSonos) != 0 {
		t.Errorf("notices: kitchen %d, living %d", c.count(kitchenSonos), c.count(livingSonos))
	}
	setMedia(t, kitchen, devices.MediaChange{Transport: ptr("pause"), Volume: ptr(12)})
	if st := mediaState(t, living); st.Transport != devices.TransportPaused || st.Volume != 25 {
		t.Errorf("transport from a follower did not reach the group, or volume leaked: %+v", st)
	}
	if c.count(livingSonos) != 1 {
		t.Error("the coordinator's change from a follower was not reported")
	}
}

func TestGroupRules(t *testing.T) {
	a, b, c := threeSpeakers()
	wantErr(t, a.JoinGroup(bg, a.Info().ID), devices.ErrInvalid)
	wantErr(t, a.JoinGroup(bg, "sim:nowhere"), devices.ErrInvalid)
	other := sim.NewHousehold(nil).NewSpeaker("x", "X", "", sim.Options{})
	wantErr(t, a.JoinGroup(bg, other.Info().ID), devices.ErrInvalid)
	mustOK(t, b.JoinGroup(bg, a.Info().ID))
	mustOK(t, b.JoinGroup(bg, a.Info().ID))
	err := c.JoinGroup(bg, b.Info().ID)
	wantErr(t, err, devices.ErrInvalid)
	if st := mediaState(t, c); st.GroupCoordinator != "" {
		t.Errorf("refused join left c following %q", st.GroupCoordinator)
	}
	c.SetUnreachable(true)
	wantErr(t, a.JoinGroup(bg, c.Info().ID), devices.ErrUnreachable)
	c.SetUnreachable(false)
	mustOK(t, a.JoinGroup(bg, c.Info().ID))
	if st := mediaState(t, b); st.GroupCoordinator != "" || st.Transport != devices.TransportStopped {
		t.Errorf("b should be released when its coordinator joined c: %+v", st)
	}
	if st := mediaState(t, a); st.GroupCoordinator != c.Info().ID {
		t.Errorf("a follows %q", st.GroupCoordinator)
	}
}

func TestLeaveGroup(t *testing.T) {
	a, b, c := threeSpeakers()
	mustOK(t, a.PlayFavorite(bg, "FV:2/3"))
	mustOK(t, b.JoinGroup(bg, a.Info().ID))
	mustOK(t, c.JoinGroup(bg, a.Info().ID))
	mustOK(t, b.LeaveGroup(bg))
	st := mediaState(t, b)
	if st.GroupCoordinator != "" || st.Transport != devices.TransportStopped || st.NowPlaying.Title != "Radio Paradise" {
		t.Errorf("b after leaving = %+v", st)
	}
	if st := mediaState(t, a); st.Transport != devices.TransportPlaying {
		t.Errorf("the group stopped when a follower left: %+v", st)
	}
	mustOK(t, a.LeaveGroup(bg))
	if st := mediaState(t, c); st.GroupCoordinator != "" {
		t.Errorf("c still follows %q after its coordinator left", st.GroupCoordinator)
	}
	if st := mediaState(t, a); st.Transport != devices.TransportPlaying {
		t.Errorf("a stopped when leaving: %+v", st)
	}
	mustOK(t, a.LeaveGroup(bg))
}

func TestFollowerChoosingASourceLeaves(t *testing.T) {
	a, b, _ := threeSpeakers()
	mustOK(t, a.PlayFavorite(bg, "FV:2/3"))
	mustOK(t, b.JoinGroup(bg, a.Info().ID))
	mustOK(t, b.PlayFavorite(bg, "FV:2/5"))
	if st := mediaState(t, a); st.NowPlaying.Title != "BBC Radio 6 Music" {
		t.Errorf("a favourite played on a follower did not play on the group: %+v", st.NowPlaying)
	}
	st := setMedia(t, b, devices.MediaChange{Source: ptr("TV")})
	if st.GroupCoordinator != "" || st.Source != "TV" {
		t.Errorf("b = %+v", st)
	}
	if st := mediaState(t, a); st.Source != "Radio" || st.NowPlaying.Title != "BBC Radio 6 Music" {
		t.Errorf("a follower's source change reached the coordinator: %+v", st)
	}
}

func TestGroupingUnderLoad(t *testing.T) {
	a, b, c := threeSpeakers()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	done := make(chan struct{})
	for _, s := range []*sim.Speaker{a, b, c} {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				switch i % 4 {
				case 0:
					_ = s.JoinGroup(ctx, []devices.ID{"sim:a", "sim:b", "sim:c"}[i%3])
				case 1:
					_, _ = s.SetMedia(ctx, devices.MediaChange{Transport: ptr("play"), Volume: ptr(i % 100)})
				case 2:
					_ = s.PlayFavorite(ctx, "FV:2/14")
				default:
					_ = s.LeaveGroup(ctx)
				}
				_, _ = s.MediaState(ctx)
			}
		}()
	}
	for range 3 {
		<-done
	}
	for _, s := range []*sim.Speaker{a, b, c} {
		st := mediaState(t, s)
		if st.GroupCoordinator == "" {
			continue
		}
		if lead := mediaState(t, hhMember(st.GroupCoordinator, a, b, c)); lead.GroupCoordinator != "" {
			t.Errorf("%s follows %s, which follows %s", s.Info().ID, st.GroupCoordinator, lead.GroupCoordinator)
		}
	}
}

func hhMember(id devices.ID, ss ...*sim.Speaker) *sim.Speaker {
	for _, s := range ss {
		if s.Info().ID == id {
			return s
		}
	}
	return nil
}

func TestStandaloneSpeaker(t *testing.T) {
	s := sim.NewSpeaker("", "Bathroom Speaker", "Bathroom", sim.Options{})
	if s.Info().ID != "sim:bathroom-speaker" || s.Info().Kind != devices.KindMedia {
		t.Errorf("info = %+v", s.Info())
	}
	wantErr(t, s.JoinGroup(bg, livingSonos), devices.ErrInvalid)
	mustOK(t, s.PlayFavorite(bg, "FV:2/3"))
}
