package sim_test

import (
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestReceiver(t *testing.T) {
	r := mustHome(t).Receiver("sim:onkyo-receiver")
	st := mediaState(t, r)
	want := []string{"TV", "BD/DVD", "GAME", "PC", "AUX", "TUNER", "PHONO", "CD", "NET", "BLUETOOTH", "Spotify", "TuneIn"}
	if st.Power || !slices.Equal(st.Sources, want) || st.NowPlaying != nil || st.Transport != "" {
		t.Fatalf("receiver in standby = %+v", st)
	}
	_, err := r.SetMedia(bg, devices.MediaChange{Volume: ptr(40)})
	wantErr(t, err, devices.ErrInvalid)
	st = setMedia(t, r, devices.MediaChange{Power: ptr(true), Source: ptr("game"), Volume: ptr(40)})
	if !st.Power || st.Source != "GAME" || st.Volume != 40 || st.Transport != "" || st.NowPlaying != nil {
		t.Errorf("on, GAME = %+v", st)
	}
	_, err = r.SetMedia(bg, devices.MediaChange{Transport: ptr("play")})
	wantErr(t, err, devices.ErrUnsupported)
	_, err = r.SetMedia(bg, devices.MediaChange{Source: ptr("XBOX")})
	wantErr(t, err, devices.ErrInvalid)
	st = setMedia(t, r, devices.MediaChange{Source: ptr("TUNER")})
	if st.NowPlaying == nil || st.NowPlaying.Title == "" || st.Transport != "" {
		t.Errorf("tuner = %+v", st)
	}
	st = setMedia(t, r, devices.MediaChange{Source: ptr("Spotify")})
	if st.Transport != devices.TransportPlaying || st.NowPlaying.App != "Spotify" {
		t.Errorf("Spotify = %+v", st)
	}
	first := st.NowPlaying.Title
	st = setMedia(t, r, devices.MediaChange{Transport: ptr("next")})
	if st.NowPlaying.Title == first {
		t.Error("next did not move on")
	}
	st = setMedia(t, r, devices.MediaChange{Transport: ptr("previous")})
	st = setMedia(t, r, devices.MediaChange{Transport: ptr("previous")})
	if st.NowPlaying.Title != "Blue in Green" {
		t.Errorf("previous from the first item wraps to the last: %+v", st.NowPlaying)
	}
	st = setMedia(t, r, devices.MediaChange{Transport: ptr("pause"), Mute: ptr(true)})
	if st.Transport != devices.TransportPaused || !st.Muted {
		t.Errorf("pause = %+v", st)
	}
	_, err = r.SetMedia(bg, devices.MediaChange{Source: ptr("TV"), Transport: ptr("stop")})
	wantErr(t, err, devices.ErrUnsupported)
	setMedia(t, r, devices.MediaChange{Source: ptr("TV")})
	t.Run("transport with a network source chosen in the same change", func(t *testing.T) {
		st := setMedia(t, r, devices.MediaChange{Source: ptr("TuneIn"), Transport: ptr("next")})
		if st.NowPlaying.Title != "KEXP 90.3 FM" {
			t.Errorf("TuneIn next = %+v", st.NowPlaying)
		}
	})
	st = setMedia(t, r, devices.MediaChange{Power: ptr(false)})
	if st.Power || st.NowPlaying != nil || st.Source != "TuneIn" {
		t.Errorf("standby = %+v", st)
	}
	if r.Commands() != 10 {
		t.Errorf("commands = %d", r.Commands())
	}
}
