package sim_test

import (
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func homeTV(t *testing.T) *sim.TV {
	t.Helper()
	return mustHome(t).TV("sim:living-room-tv")
}

func currentApp(t *testing.T, tv *sim.TV) string {
	t.Helper()
	app, err := tv.CurrentApp(bg)
	mustOK(t, err)
	return app
}

func TestTVApps(t *testing.T) {
	apps, err := homeTV(t).Apps(bg)
	mustOK(t, err)
	want := []devices.App{
		{ID: "com.netflix.ninja", Name: "Netflix"},
		{ID: "com.google.android.youtube.tv", Name: "YouTube"},
		{ID: "com.plexapp.android", Name: "Plex"},
		{ID: "com.disney.disneyplus", Name: "Disney+"},
		{ID: "com.amazon.amazonvideo.livingroom", Name: "Prime Video"},
		{ID: "com.spotify.tv.android", Name: "Spotify"},
	}
	if !slices.Equal(apps, want) {
		t.Errorf("apps = %v", apps)
	}
}

func TestTVPowerAndKeys(t *testing.T) {
	tv := homeTV(t)
	if app := currentApp(t, tv); app != "" {
		t.Errorf("an off TV shows %q", app)
	}
	wantErr(t, tv.PressKey(bg, "home"), devices.ErrInvalid)
	wantErr(t, tv.SendText(bg, "hello"), devices.ErrInvalid)
	mustOK(t, tv.PressKey(bg, "power"))
	if st := mediaState(t, tv); !st.Power || currentApp(t, tv) != sim.LauncherApp {
		t.Fatalf("after power: %+v", st)
	}
	for _, k := range devices.RemoteKeys {
		if k == "power" {
			continue
		}
		mustOK(t, tv.PressKey(bg, k))
	}
	if tv.Presses() != len(devices.RemoteKeys) || tv.LastKey() != "previous" {
		t.Errorf("presses %d, last %q", tv.Presses(), tv.LastKey())
	}
	wantErr(t, tv.PressKey(bg, "rewind"), devices.ErrInvalid)
	wantErr(t, tv.PressKey(bg, ""), devices.ErrInvalid)
	if st := mediaState(t, tv); !st.Muted || st.Volume != 18 {
		t.Errorf("volume_up, volume_down, mute = %+v", st)
	}
	mustOK(t, tv.PressKey(bg, "MUTE"))
	if st := mediaState(t, tv); st.Muted {
		t.Errorf("MUTE did not unmute: %+v", st)
	}
	mustOK(t, tv.PressKey(bg, "mute"))
	mustOK(t, tv.PressKey(bg, "volume_up"))
	if st := mediaState(t, tv); st.Muted || st.Volume != 19 {
		t.Errorf("volume_up = %+v", st)
	}
	mustOK(t, tv.SendText(bg, "the expanse"))
	wantErr(t, tv.SendText(bg, ""), devices.ErrInvalid)
	if tv.Typed() != "the expanse" {
		t.Errorf("typed %q", tv.Typed())
	}
	mustOK(t, tv.PressKey(bg, "power"))
	if st := mediaState(t, tv); st.Power || st.Source != "" {
		t.Errorf("after power again: %+v", st)
	}
}

func TestTVLaunchApp(t *testing.T) {
	tv := homeTV(t)
	mustOK(t, tv.LaunchApp(bg, "com.plexapp.android"))
	st := mediaState(t, tv)
	if !st.Power || st.Source != "Plex" || currentApp(t, tv) != "com.plexapp.android" || st.Transport != devices.TransportStopped {
		t.Errorf("launching Plex on an off TV: %+v", st)
	}
	mustOK(t, tv.PressKey(bg, "play_pause"))
	if st := mediaState(t, tv); st.Transport != devices.TransportPlaying {
		t.Errorf("play_pause = %+v", st)
	}
	mustOK(t, tv.PressKey(bg, "home"))
	if app := currentApp(t, tv); app != "com.google.android.tvlauncher" {
		t.Errorf("home shows %q", app)
	}
	for _, bad := range []string{"Netflix", "com.example.app", "https://example.com/netflix.com", "ftp://netflix.com/x", "netflix.com/title/1", "https://notnetflix.com/title/1", ""} {
		wantErr(t, tv.LaunchApp(bg, bad), devices.ErrInvalid)
	}
}

func TestTVDeepLinks(t *testing.T) {
	tv := homeTV(t)
	links := map[string]string{
		"https://www.netflix.com/title/80057281":        "com.netflix.ninja",
		"https://youtu.be/dQw4w9WgXcQ":                  "com.google.android.youtube.tv",
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ":   "com.google.android.youtube.tv",
		"https://app.plex.tv/desktop#!/server/1":        "com.plexapp.android",
		"https://www.disneyplus.com/video/abc":          "com.disney.disneyplus",
		"https://www.primevideo.com/detail/0ABC":        "com.amazon.amazonvideo.livingroom",
		"https://open.spotify.com/track/4uLU6hMCjMI75M": "com.spotify.tv.android",
		"HTTPS://WWW.NETFLIX.COM/title/1":               "com.netflix.ninja",
	}
	for link, app := range links {
		mustOK(t, tv.LaunchApp(bg, link))
		if got := currentApp(t, tv); got != app {
			t.Errorf("%s opened %q, want %q", link, got, app)
		}
		st := mediaState(t, tv)
		if st.Transport != devices.TransportPlaying || st.NowPlaying == nil || st.NowPlaying.Title != link {
			t.Errorf("%s: %+v %+v", link, st, st.NowPlaying)
		}
	}
}

func TestTVMedia(t *testing.T) {
	tv := homeTV(t)
	_, err := tv.SetMedia(bg, devices.MediaChange{Volume: ptr(20)})
	wantErr(t, err, devices.ErrInvalid)
	_, err = tv.SetMedia(bg, devices.MediaChange{Power: ptr(true), Transport: ptr("play")})
	wantErr(t, err, devices.ErrUnsupported)
	st := setMedia(t, tv, devices.MediaChange{Power: ptr(true), Source: ptr("hdmi 2"), Volume: ptr(25)})
	if st.Source != "HDMI 2" || st.Volume != 25 || currentApp(t, tv) != sim.InputsApp {
		t.Errorf("HDMI 2 = %+v", st)
	}
	if !slices.Contains(st.Sources, "HDMI 1") || !slices.Contains(st.Sources, "Netflix") {
		t.Errorf("sources = %v", st.Sources)
	}
	st = setMedia(t, tv, devices.MediaChange{Source: ptr("Disney+"), Transport: ptr("play")})
	if st.Source != "Disney+" || st.Transport != devices.TransportPlaying || currentApp(t, tv) != "com.disney.disneyplus" {
		t.Errorf("Disney+ = %+v", st)
	}
	_, err = tv.SetMedia(bg, devices.MediaChange{Source: ptr("VHS")})
	wantErr(t, err, devices.ErrInvalid)
	st = setMedia(t, tv, devices.MediaChange{Power: ptr(false)})
	if st.Power {
		t.Error("still on")
	}
}

func TestTVCast(t *testing.T) {
	tv := homeTV(t)
	mustOK(t, tv.Cast(bg, "https://example.com/media/big_buck_bunny.mp4", "video/mp4"))
	st := mediaState(t, tv)
	if !st.Power || currentApp(t, tv) != sim.CastApp || st.NowPlaying.Title != "big_buck_bunny.mp4" || st.Transport != devices.TransportPlaying {
		t.Errorf("cast = %+v %+v", st, st.NowPlaying)
	}
	mustOK(t, tv.Cast(bg, "https://www.youtube.com/watch?v=abc", "video"))
	if app := currentApp(t, tv); app != "com.google.android.youtube.tv" {
		t.Errorf("a YouTube link cast to %q", app)
	}
	wantErr(t, tv.Cast(bg, " ", "video"), devices.ErrInvalid)
}
