package androidtv_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
	"github.com/bifrost-hub/bifrost/devices/wol"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyFrames are the frames the TV receives for the keys pressed.
func keyFrames(fake *atvtest.TV) [][]byte {
	var out [][]byte
	for _, f := range fake.Frames() {
		if m, err := atvwire.NewReader(bytes.NewReader(f)).Next(); err == nil {
			if rm, err := atvwire.ParseRemote(m); err == nil && rm.KeyInject != nil {
				out = append(out, f)
			}
		}
	}
	return out
}

func TestKeysArriveAsTheProtocolFrames(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	keys := []struct{ key, frame string }{ // PROTOCOLS.md §4.2
		{"home", "06 52 04 08 03 10 03"},
		{"back", "06 52 04 08 04 10 03"},
		{"volume_up", "06 52 04 08 18 10 03"},
		{"volume_down", "06 52 04 08 19 10 03"},
		{"select", "06 52 04 08 17 10 03"},
		{"up", "06 52 04 08 13 10 03"},
		{"down", "06 52 04 08 14 10 03"},
		{"left", "06 52 04 08 15 10 03"},
		{"right", "06 52 04 08 16 10 03"},
		{"play_pause", "06 52 04 08 55 10 03"},
		{"mute", "07 52 05 08 A4 01 10 03"},
		{"POWER", "06 52 04 08 1A 10 03"},
	}
	for _, k := range keys {
		if err := tv.PressKey(ctxT(t), k.key); err != nil {
			t.Fatalf("%s: %v", k.key, err)
		}
	}
	fake.Wait(t, "every key", func() bool { return len(keyFrames(fake)) == len(keys) })
	for i, f := range keyFrames(fake) {
		if want := unhex(t, keys[i].frame); !bytes.Equal(f, want) {
			t.Errorf("%s: the TV got % X, want % X", keys[i].key, f, want)
		}
	}
	err := tv.PressKey(ctxT(t), "teleport")
	if !errors.Is(err, devices.ErrInvalid) || !contains(err, "volume_up") || !contains(err, "channel_up") {
		t.Fatalf("an unknown key: %v", err)
	}
	for _, k := range []string{"play", "pause", "stop", "rewind", "fast_forward", "info", "guide", "search",
		"channel_up", "channel_down", "input", "sleep", "wakeup", "next", "previous", "menu"} {
		if err := tv.PressKey(ctxT(t), k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	fake.WaitKey(t, atvwire.KeyTVInput)
}

func TestHoldKey(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	fake.Reset()
	begin := time.Now()
	if err := tv.HoldKey(ctxT(t), "select", 60*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d < 60*time.Millisecond {
		t.Errorf("held %v", d)
	}
	fake.Wait(t, "press and release", func() bool { return len(fake.Keys()) == 2 })
	want := []atvtest.Key{{Code: atvwire.KeyDpadCenter, Direction: atvwire.StartLong}, {Code: atvwire.KeyDpadCenter, Direction: atvwire.EndLong}}
	if got := fake.Keys(); !slices.Equal(got, want) {
		t.Fatalf("keys %+v", got)
	}

	// A hold cut short by its context still lets the key go.
	fake.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tv.HoldKey(ctx, "back", time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cut short: %v", err)
	}
	fake.Wait(t, "the release", func() bool { return len(fake.Keys()) == 2 && fake.Keys()[1].Direction == atvwire.EndLong })
}

func TestAppsAndLinks(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	for _, c := range []struct{ app, link, pkg string }{
		{"Netflix", "https://www.netflix.com/title", "com.netflix.ninja"},
		{"youtube", "https://www.youtube.com", "com.google.android.youtube.tv"},
		{"com.plexapp.android", "plex://", "com.plexapp.android"},
		{"com.example.tvapp", "market://launch?id=com.example.tvapp", "com.example.tvapp"},
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "com.google.android.youtube.tv"},
	} {
		if err := tv.LaunchApp(ctxT(t), c.app); err != nil {
			t.Fatalf("%s: %v", c.app, err)
		}
		fake.WaitLink(t, c.link)
		eventually(t, c.pkg+" in front", func() bool { app, err := tv.CurrentApp(ctxT(t)); return err == nil && app == c.pkg })
	}
	st, err := tv.MediaState(ctxT(t))
	if err != nil || st.Source != "YouTube" || st.NowPlaying == nil || st.NowPlaying.App != "YouTube" {
		t.Fatalf("state %+v, %v", st, err)
	}
	if err := tv.LaunchApp(ctxT(t), "not an app"); !errors.Is(err, devices.ErrInvalid) || !contains(err, "Netflix") {
		t.Fatalf("not an app: %v", err)
	}
	apps, err := tv.Apps(ctxT(t))
	if err != nil || len(apps) != len(androidtv.Catalogue()) || apps[0] != (devices.App{ID: "com.netflix.ninja", Name: "Netflix"}) {
		t.Fatalf("apps %v, %v", apps, err)
	}

	if err := tv.Cast(ctxT(t), "https://example.com/video.mp4", "video/mp4"); err != nil {
		t.Fatal(err)
	}
	fake.WaitLink(t, "https://example.com/video.mp4")
	if err := tv.Cast(ctxT(t), "video.mp4", ""); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("casting a non-URL: %v", err)
	}
}

func TestSearch(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	found, err := tv.Search(ctxT(t), "the office")
	if err != nil {
		t.Fatal(err)
	}
	want := []devices.Content{
		{ID: "https://www.netflix.com/search?q=the+office", Title: "the office", App: "com.netflix.ninja", Kind: "search"},
		{ID: "https://www.youtube.com/results?search_query=the+office", Title: "the office", App: "com.google.android.youtube.tv", Kind: "search"},
		{ID: "spotify:search:the+office", Title: "the office", App: "com.spotify.tv.android", Kind: "search"},
	}
	if !slices.Equal(found, want) {
		t.Fatalf("found %+v", found)
	}
	fake.SetApp("com.google.android.youtube.tv")
	eventually(t, "YouTube in front", func() bool { app, _ := tv.CurrentApp(ctxT(t)); return app == "com.google.android.youtube.tv" })
	found, _ = tv.Search(ctxT(t), "the office")
	if found[0].App != "com.google.android.youtube.tv" || found[1].App != "com.netflix.ninja" {
		t.Fatalf("the app in front is not first: %+v", found)
	}
	if err := tv.PlayContent(ctxT(t), found[0]); err != nil {
		t.Fatal(err)
	}
	fake.WaitLink(t, want[1].ID)
	if _, err := tv.Search(ctxT(t), " "); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("an empty search: %v", err)
	}
}

func TestTextEntry(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	err := tv.SendText(ctxT(t), "hello")
	if !errors.Is(err, devices.ErrInvalid) || !contains(err, "no text field is open on the TV") {
		t.Fatalf("no field open: %v", err)
	}
	fake.OpenTextField("Search")
	// The first SendText after the TV's message goes out; none before it.
	eventually(t, "text taken", func() bool { return tv.SendText(ctxT(t), "hello") == nil })
	fake.Wait(t, "the text", func() bool { v, _ := fake.TextField(); return v == "hello" })
	if texts := fake.Texts(); len(texts) != 1 || texts[0] != (atvtest.Text{ImeCounter: 1, FieldCounter: 1, Value: "hello"}) {
		t.Fatalf("texts %+v", texts)
	}
	fake.SetApp("com.netflix.ninja") // the field closes with its app
	eventually(t, "the field closed", func() bool { return tv.SendText(ctxT(t), "x") != nil })
}

func TestMediaCommands(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{VolumeMax: 50})
	_, tv := pairedRig(t, fake, config(t))
	eventually(t, "the volume", func() bool { st, _ := tv.MediaState(ctxT(t)); return st.Volume == 40 }) // 20 of 50

	st, err := tv.SetMedia(ctxT(t), devices.MediaChange{Volume: ptr(70)})
	if err != nil || st.Volume != 70 {
		t.Fatalf("volume 70: %+v, %v", st, err)
	}
	if level, _, _ := fake.Volume(); level != 35 {
		t.Fatalf("the TV's level is %d, want 35 of 50", level)
	}
	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Volume: ptr(10)}); err != nil || st.Volume != 10 {
		t.Fatalf("volume 10: %+v, %v", st, err)
	}
	fake.Reset()
	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Mute: ptr(true)}); err != nil || !st.Muted {
		t.Fatalf("mute: %+v, %v", st, err)
	}
	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Mute: ptr(true)}); err != nil || !st.Muted {
		t.Fatalf("mute again: %+v, %v", st, err)
	}
	if n := len(fake.Keys()); n != 1 {
		t.Fatalf("muting twice pressed %d keys, want 1", n)
	}

	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Power: ptr(false)}); err != nil || st.Power {
		t.Fatalf("power off: %+v, %v", st, err)
	}
	fake.WaitKey(t, atvwire.KeySleep)
	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Power: ptr(true)}); err != nil || !st.Power {
		t.Fatalf("power on: %+v, %v", st, err)
	}
	fake.WaitKey(t, atvwire.KeyWakeup)

	if st, err = tv.SetMedia(ctxT(t), devices.MediaChange{Source: ptr("Disney+")}); err != nil || st.Source != "Disney+" {
		t.Fatalf("source: %+v, %v", st, err)
	}
	fake.WaitLink(t, "https://www.disneyplus.com")
	if _, err = tv.SetMedia(ctxT(t), devices.MediaChange{Source: ptr("HDMI 9")}); !errors.Is(err, devices.ErrInvalid) || !contains(err, "Netflix") {
		t.Fatalf("an unknown source: %v", err)
	}

	for tr, code := range map[string]atvwire.KeyCode{"play": 126, "pause": 127, "stop": 86, "next": 87, "previous": 88} {
		if _, err := tv.SetMedia(ctxT(t), devices.MediaChange{Transport: ptr(tr)}); err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		fake.WaitKey(t, code)
	}
	if _, err = tv.SetMedia(ctxT(t), devices.MediaChange{Transport: ptr("eject")}); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("an unknown transport command: %v", err)
	}
}

func TestPushedStateIsReported(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	r, tv := pairedRig(t, fake, config(t))
	before := r.changes.count(fakeID)
	fake.SetVolume(60, true)
	fake.SetScreen(false)
	fake.SetApp("com.netflix.ninja")
	eventually(t, "the pushed state", func() bool {
		st, _ := tv.MediaState(ctxT(t))
		return st.Volume == 60 && st.Muted && !st.Power && st.Source == "Netflix"
	})
	if r.changes.count(fakeID) < before+3 {
		t.Errorf("%d changes reported for three pushes", r.changes.count(fakeID)-before)
	}
}

func TestADroppedLinkIsReconnected(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	_, tv := pairedRig(t, fake, config(t))
	fake.Drop()
	eventually(t, "a second session", func() bool { return fake.Accepted() >= 2 && tv.Online() })
	if err := tv.PressKey(ctxT(t), "back"); err != nil {
		t.Fatal(err)
	}
	fake.WaitKey(t, atvwire.KeyBack)
}

func TestPingsAreAnswered(t *testing.T) {
	// A TV that pings every 10 ms and drops a client silent for 300 ms.
	fake := atvtest.Start(t, atvtest.Options{PingInterval: 10 * time.Millisecond, DropAfter: 300 * time.Millisecond})
	_, tv := pairedRig(t, fake, config(t))
	fake.Wait(t, "30 pings answered", func() bool { return fake.PingAnswers() >= 30 })
	if n := fake.Accepted(); n != 1 || !tv.Online() {
		t.Fatalf("%d sessions, online %v: the link was dropped", n, tv.Online())
	}
}

func TestASilentLinkIsRedialled(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{PingInterval: 20 * time.Millisecond})
	cfg := config(t)
	cfg.PingTimeout = 300 * time.Millisecond
	_, tv := pairedRig(t, fake, cfg)
	fake.Freeze() // the connection stays open, the TV says nothing
	eventually(t, "a new session", func() bool { return fake.Accepted() >= 2 && tv.Online() })
}

func TestSplitAndCoalescedWrites(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{WriteChunk: true, PingInterval: 20 * time.Millisecond, DropAfter: 500 * time.Millisecond})
	_, tv := pairedRig(t, fake, config(t))
	fake.SetVolume(33, false)
	fake.SetApp("com.plexapp.android")
	eventually(t, "the pushed state", func() bool {
		st, _ := tv.MediaState(ctxT(t))
		return st.Volume == 33 && st.Source == "Plex"
	})
	fake.Wait(t, "pings answered", func() bool { return fake.PingAnswers() >= 5 })
	if err := tv.PressKey(ctxT(t), "home"); err != nil {
		t.Fatal(err)
	}
	fake.WaitKey(t, atvwire.KeyHome)
}

// udpListener is a Wake-on-LAN target.
func udpListener(t *testing.T) *net.UDPConn {
	t.Helper()
	l, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestWakeOnLAN(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	target := udpListener(t)
	cfg := config(t)
	cfg.WakeTargets = []string{target.LocalAddr().String()}
	_, tv := pairedRig(t, fake, cfg)
	fake.SetScreen(false)
	eventually(t, "the screen off", func() bool { st, _ := tv.MediaState(ctxT(t)); return !st.Power })
	fake.Close() // asleep, off the network
	eventually(t, "offline", func() bool { return !tv.Online() })

	type result struct {
		st  devices.MediaState
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		st, err := tv.SetMedia(ctx, devices.MediaChange{Power: ptr(true)})
		done <- result{st, err}
	}()
	target.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 200)
	n, _, err := target.ReadFromUDP(buf)
	if err != nil {
		t.Fatal(err)
	}
	mac, _ := devices.ParseMAC("AA:BB:CC:DD:EE:FF")
	if !bytes.Equal(buf[:n], wol.Packet(mac)) {
		t.Fatalf("magic packet % X", buf[:n])
	}
	if err := fake.Restart(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || !res.st.Power {
		t.Fatalf("power on: %+v, %v", res.st, res.err)
	}
	fake.WaitKey(t, atvwire.KeyWakeup)
	if !fake.Screen() {
		t.Fatal("the screen stayed off")
	}
}

func TestAnOfflineTVFailsWithinTheDeadline(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t)
	cfg.WakeTargets = []string{udpListener(t).LocalAddr().String()}
	_, tv := pairedRig(t, fake, cfg)
	fake.Close()
	eventually(t, "offline", func() bool { return !tv.Online() })
	const deadline = 300 * time.Millisecond
	for name, cmd := range map[string]func(context.Context) error{
		"key": func(ctx context.Context) error { return tv.PressKey(ctx, "home") },
		"power on": func(ctx context.Context) error {
			_, err := tv.SetMedia(ctx, devices.MediaChange{Power: ptr(true)})
			return err
		},
		"power": func(ctx context.Context) error { return tv.PressKey(ctx, "power") },
		"app":   func(ctx context.Context) error { return tv.LaunchApp(ctx, "Netflix") },
		"read":  func(ctx context.Context) error { _, err := tv.MediaState(ctx); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		begin := time.Now()
		err := cmd(ctx)
		cancel()
		if !errors.Is(err, devices.ErrUnreachable) {
			t.Errorf("%s: %v, want unreachable", name, err)
		}
		if d := time.Since(begin); d > deadline+200*time.Millisecond {
			t.Errorf("%s took %v", name, d)
		}
	}
}

func TestATVWithoutAMAC(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{HideMAC: true})
	r := start(t, config(t, fake.Addr()))
	id := devices.ID("androidtv:" + fake.Addr())
	tv := r.tv(t, id)
	if tv.MAC() != "" {
		t.Fatalf("MAC %q", tv.MAC())
	}
	pair(t, tv, fake)
	fake.Close()
	eventually(t, "offline", func() bool { return !tv.Online() })
	_, err := tv.SetMedia(ctxT(t), devices.MediaChange{Power: ptr(true)})
	if !errors.Is(err, devices.ErrUnreachable) || !contains(err, "MAC address") {
		t.Fatalf("power on without a MAC: %v", err)
	}
	tv.SetMAC("a4-5e-60-c2-11-09")
	if tv.MAC() != "a4:5e:60:c2:11:09" {
		t.Fatalf("MAC %q", tv.MAC())
	}
	tv.SetMAC("")
	if tv.MAC() != "" {
		t.Fatalf("MAC %q after clearing", tv.MAC())
	}
}
