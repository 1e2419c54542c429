package roku_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

func TestPowerTV(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{IsTV: true})
	d := r.add(t, f)
	ctx := ctxFor(t)
	if st, _ := d.MediaState(ctx); !st.Power {
		t.Fatalf("a TV in PowerOn reads %+v", st)
	}
	st, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(false)})
	if err != nil || st.Power || lastCommand(f) != "/keypress/PowerOff" {
		t.Fatalf("power off: %+v, %v, sent %s", st, err, lastCommand(f))
	}
	if f.PowerMode() != "DisplayOff" || !d.Online() {
		t.Errorf("power mode %s, online %v", f.PowerMode(), d.Online())
	}
	st, err = d.SetMedia(ctx, devices.MediaChange{Power: ptr(true)})
	if err != nil || !st.Power || lastCommand(f) != "/keypress/PowerOn" {
		t.Fatalf("power on: %+v, %v, sent %s", st, err, lastCommand(f))
	}
	// Switched off with its own remote, it reports off at the next poll.
	n := r.changes.count(d.Info().ID)
	f.SetPowerMode("DisplayOff")
	state(t, d, "power off seen", func(st devices.MediaState) bool { return !st.Power && st.Source == "" })
	r.changes.after(t, d.Info().ID, n)
}

func TestPowerPlayer(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{PowerMode: "Headless"})
	d := r.add(t, f)
	ctx := ctxFor(t)
	if st, _ := d.MediaState(ctx); !st.Power {
		t.Errorf("a player that answers reads off: %+v", st)
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(false)}); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("player off: %v", err)
	}
	if st, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(true)}); err != nil || !st.Power {
		t.Errorf("player on: %+v, %v", st, err)
	}
	if lastCommand(f) != "/keypress/Home" {
		t.Errorf("a player not in PowerOn got %q for power on, want Home", lastCommand(f))
	}
	f.SetPowerMode("PowerOn")
	if _, err := d.SetMedia(ctx, devices.MediaChange{}); err != nil { // polls once
		t.Fatal(err)
	}
	f.Reset()
	if _, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(true)}); err != nil || len(f.Commands()) != 0 {
		t.Errorf("an awake player switched on: %v, sent %v", err, f.Commands())
	}
}

func TestNoVolume(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{IsTV: true})
	d := r.add(t, f)
	const want = "a Roku does not report its volume: use the volume_up, volume_down and mute keys: not supported by this device"
	for _, c := range []devices.MediaChange{{Volume: ptr(30)}, {Mute: ptr(true)}, {Power: ptr(true), Mute: ptr(false)}} {
		_, err := d.SetMedia(ctxFor(t), c)
		if !errors.Is(err, devices.ErrUnsupported) || err.Error() != want {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if len(f.Commands()) != 0 {
		t.Errorf("sent %v", f.Commands())
	}
	if st, _ := d.MediaState(ctxFor(t)); st.Volume != 0 || st.Muted {
		t.Errorf("volume %d muted %v", st.Volume, st.Muted)
	}
}

func TestSourcesAndTransport(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	ctx := ctxFor(t)
	st, _ := d.MediaState(ctx)
	if want := []string{"Netflix", "Prime Video", "YouTube", "Hulu", "Disney+", "Plex"}; !slices.Equal(st.Sources, want) {
		t.Errorf("sources %q", st.Sources)
	}
	if st.Source != "" || st.Transport != "" || st.NowPlaying != nil {
		t.Errorf("home screen state %+v", st)
	}
	if n := f.Count(rokutest.Is("GET", "/query/media-player")); n != 0 {
		t.Errorf("media-player asked %d times with no app in front", n)
	}

	st, err := d.SetMedia(ctx, devices.MediaChange{Source: ptr("netflix")})
	if err != nil || st.Source != "Netflix" || st.Transport != devices.TransportStopped || st.NowPlaying == nil || st.NowPlaying.App != "Netflix" {
		t.Fatalf("source: %+v, %v", st, err)
	}
	wait(t, f, "POST", "/launch/12")
	if _, err := d.SetMedia(ctx, devices.MediaChange{Source: ptr("Betamax")}); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("unknown source: %v", err)
	}

	play := rokutest.Is("POST", "/keypress/Play")
	for i, step := range []struct {
		cmd, want string
		presses   int
	}{
		{"play", devices.TransportPlaying, 1},
		{"play", devices.TransportPlaying, 1}, // already playing: nothing pressed
		{"pause", devices.TransportPaused, 2},
		{"pause", devices.TransportPaused, 2},
		{"play", devices.TransportPlaying, 3},
	} {
		st, err := d.SetMedia(ctx, devices.MediaChange{Transport: ptr(step.cmd)})
		if err != nil || st.Transport != step.want || f.Count(play) != step.presses {
			t.Fatalf("step %d %s: %+v, %v, Play pressed %d times", i, step.cmd, st, err, f.Count(play))
		}
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Transport: ptr("next")}); err != nil || lastCommand(f) != "/keypress/Fwd" {
		t.Errorf("next: %v, sent %s", err, lastCommand(f))
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Transport: ptr("previous")}); err != nil || lastCommand(f) != "/keypress/Rev" {
		t.Errorf("previous: %v, sent %s", err, lastCommand(f))
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Transport: ptr("stop")}); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("stop: %v", err)
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Transport: ptr("eject")}); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("eject: %v", err)
	}

	// The player pausing on its own is seen, and the hub told.
	n := r.changes.count(d.Info().ID)
	f.SetPlayerState("pause")
	state(t, d, "paused", func(st devices.MediaState) bool { return st.Transport == devices.TransportPaused })
	r.changes.after(t, d.Info().ID, n)

	if err := d.PressKey(ctx, "home"); err != nil {
		t.Fatal(err)
	}
	state(t, d, "home screen", func(st devices.MediaState) bool { return st.Source == "" && st.Transport == "" })
	if app, _ := d.CurrentApp(ctx); app != roku.HomeApp {
		t.Errorf("current app %q", app)
	}
}

func TestTVInputs(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{IsTV: true})
	d := r.add(t, f)
	ctx := ctxFor(t)
	st, _ := d.MediaState(ctx)
	if len(st.Sources) != 7 || st.Sources[0] != "HDMI 1" {
		t.Errorf("sources %q", st.Sources)
	}
	apps, _ := d.Apps(ctx)
	if !slices.Contains(apps, devices.App{ID: rokutest.HDMI1, Name: "HDMI 1"}) {
		t.Errorf("apps %v", apps)
	}
	st, err := d.SetMedia(ctx, devices.MediaChange{Source: ptr("HDMI 1")})
	if err != nil || st.Source != "HDMI 1" || st.Transport != "" || st.NowPlaying != nil {
		t.Fatalf("input: %+v, %v", st, err)
	}
	wait(t, f, "POST", "/launch/tvinput.hdmi1")
	if app, _ := d.CurrentApp(ctx); app != rokutest.HDMI1 {
		t.Errorf("current app %q", app)
	}
	if _, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(false), Source: ptr("Netflix")}); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("off and a source at once: %v", err)
	}
}
