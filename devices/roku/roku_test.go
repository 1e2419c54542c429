package roku_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

func TestIdentity(t *testing.T) {
	r := startRig(t, roku.Config{})
	tv := newFake(t, rokutest.Options{Serial: "YN00H5555555", IsTV: true, Name: "Living room", EthernetMAC: "A4:5E:60:C2:11:09"})
	player := newFake(t, rokutest.Options{Serial: "X0040000B002", FriendlyName: "Bedroom Roku", WifiMAC: "d8:31:34:aa:bb:02"})
	d := r.add(t, tv)
	info := d.Info()
	if info.ID != "roku:yn00h5555555" || info.Adapter != "roku" || info.Kind != devices.KindMedia || info.Name != "Living room" || info.Model != "TCL 55R615" {
		t.Errorf("tv info %+v", info)
	}
	if d.MAC() != "a4:5e:60:c2:11:09" {
		t.Errorf("tv MAC %q (ethernet wanted)", d.MAC())
	}
	p := r.add(t, player)
	if info := p.Info(); info.Name != "Bedroom Roku" || info.Model != "Roku Ultra" {
		t.Errorf("player info %+v", info)
	}
	if p.MAC() != "d8:31:34:aa:bb:02" {
		t.Errorf("player MAC %q (wifi wanted)", p.MAC())
	}
	if len(r.reg.List()) != 2 {
		t.Errorf("registry holds %d devices", len(r.reg.List()))
	}
	// Adding again at the same address finds the same device.
	if ids, err := r.adapter.Add(ctxFor(t), "http://"+tv.Addr()+"/"); err != nil || len(ids) != 1 || ids[0] != info.ID {
		t.Errorf("second Add: %v, %v", ids, err)
	}
	if len(r.reg.List()) != 2 {
		t.Errorf("registry holds %d devices after adding one again", len(r.reg.List()))
	}
}

func TestAddUnreachable(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	addr := f.Addr()
	f.Stop()
	_, err := r.adapter.Add(ctxFor(t), addr)
	if !errors.Is(err, devices.ErrUnreachable) || !strings.Contains(err.Error(), "GET /query/device-info") {
		t.Fatalf("Add of a silent device: %v", err)
	}
}

// The vectors of PROTOCOLS.md §4.3, through the adapter.
func TestVectors(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	ctx := ctxFor(t)
	if err := d.PressKey(ctx, "select"); err != nil {
		t.Fatal(err)
	}
	q := wait(t, f, "POST", "/keypress/Select")
	if q.Body != "" || q.RawQuery != "" {
		t.Errorf("select sent body %q query %q", q.Body, q.RawQuery)
	}
	if err := d.LaunchApp(ctx, "12"); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/launch/12")
	found, err := d.Search(ctx, "the office")
	if err != nil || len(found) != 1 {
		t.Fatalf("search: %v, %v", found, err)
	}
	if err := d.PlayContent(ctx, found[0]); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/search/browse?keyword=the%20office&launch=true")
	for _, q := range f.Commands() {
		if q.Body != "" {
			t.Errorf("%s sent a body %q", q, q.Body)
		}
	}
}

// ecpNames is §4.6's mapping, written out independently of the adapter's
// table.
var ecpNames = map[string]string{
	"up": "Up", "down": "Down", "left": "Left", "right": "Right", "select": "Select", "back": "Back",
	"home": "Home", "menu": "Info", "volume_up": "VolumeUp", "volume_down": "VolumeDown", "mute": "VolumeMute",
	"play_pause": "Play", "next": "Fwd", "previous": "Rev", "power": "Power",
	"play": "Play", "pause": "Play", "rewind": "Rev", "fast_forward": "Fwd", "info": "Info", "search": "Search",
	"channel_up": "ChannelUp", "channel_down": "ChannelDown", "input": "InputHDMI1", "backspace": "Backspace",
	"enter": "Enter", "instant_replay": "InstantReplay",
}

func TestKeys(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	ctx := ctxFor(t)
	for _, k := range devices.RemoteKeys {
		if _, ok := ecpNames[k]; !ok {
			t.Fatalf("canonical key %q has no expected ECP name", k)
		}
	}
	for key, want := range ecpNames {
		if !slices.Contains(roku.Keys(), key) {
			t.Errorf("Keys lacks %q", key)
		}
		if err := d.PressKey(ctx, key); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if got := lastCommand(f); got != "/keypress/"+want {
			t.Errorf("%s sent %s, want /keypress/%s", key, got, want)
		}
	}
	if err := d.PressKey(ctx, "Volume-Up"); err != nil || lastCommand(f) != "/keypress/VolumeUp" {
		t.Errorf("Volume-Up: %v, sent %s", err, lastCommand(f))
	}
	n := len(f.Commands())
	err := d.PressKey(ctx, "launch_missiles")
	if !errors.Is(err, devices.ErrInvalid) || !strings.Contains(err.Error(), "select, back, home") || !strings.Contains(err.Error(), "instant_replay") {
		t.Errorf("unknown key: %v", err)
	}
	if len(f.Commands()) != n {
		t.Error("an unknown key was sent")
	}
}

func TestHoldKey(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	const hold = 80 * time.Millisecond
	if err := d.HoldKey(ctxFor(t), "right", hold); err != nil {
		t.Fatal(err)
	}
	cmds := f.Commands()
	if len(cmds) != 2 || cmds[0].Target() != "/keydown/Right" || cmds[1].Target() != "/keyup/Right" {
		t.Fatalf("hold sent %v", cmds)
	}
	if held := cmds[1].At.Sub(cmds[0].At); held < hold {
		t.Errorf("held for %v, want at least %v", held, hold)
	}
	// A hold cut short by its context still releases the key.
	f.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := d.HoldKey(ctx, "up", time.Minute)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > patience {
		t.Fatalf("cut short: %v after %v", err, time.Since(start))
	}
	wait(t, f, "POST", "/keyup/Up")
	if held := f.Held(); len(held) != 0 {
		t.Errorf("keys left down: %v", held)
	}
}

func TestSendText(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	const text = "hi there é€"
	if err := d.SendText(ctxFor(t), text); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/keypress/Lit_h", "/keypress/Lit_i", "/keypress/Lit_%20", "/keypress/Lit_t", "/keypress/Lit_h",
		"/keypress/Lit_e", "/keypress/Lit_r", "/keypress/Lit_e", "/keypress/Lit_%20",
		"/keypress/Lit_%C3%A9", "/keypress/Lit_%E2%82%AC",
	}
	var got []string
	for _, q := range f.Commands() {
		got = append(got, q.Target())
	}
	if !slices.Equal(got, want) {
		t.Errorf("sent\n %q\nwant\n %q", got, want)
	}
	if f.Typed() != text {
		t.Errorf("the device got %q", f.Typed())
	}
}

func TestLaunchApp(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	ctx := ctxFor(t)
	apps, err := d.Apps(ctx)
	if err != nil || len(apps) != 6 || !slices.Contains(apps, devices.App{ID: "12", Name: "Netflix"}) || !slices.Contains(apps, devices.App{ID: "291097", Name: "Disney+"}) {
		t.Fatalf("apps %v, %v", apps, err)
	}
	if app, _ := d.CurrentApp(ctx); app != roku.HomeApp {
		t.Errorf("current app %q on the home screen", app)
	}
	if err := d.LaunchApp(ctx, "837"); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/launch/837")
	eventually(t, "YouTube in front", func() bool { app, _ := d.CurrentApp(ctx); return app == "837" })
	if err := d.LaunchApp(ctx, "prime video"); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/launch/13")
	n := len(f.Commands())
	if err := d.LaunchApp(ctx, "Nope TV"); !errors.Is(err, devices.ErrInvalid) || !strings.Contains(err.Error(), "Netflix, Prime Video") {
		t.Errorf("unknown app: %v", err)
	}
	if err := d.LaunchApp(ctx, "https://www.youtube.com/watch?v=x"); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("a link: %v", err)
	}
	if len(f.Commands()) != n {
		t.Errorf("sent %v", f.Commands()[n:])
	}
	// An id the device does not have is refused by the device.
	err = d.LaunchApp(ctx, "99999")
	if !errors.Is(err, devices.ErrInvalid) || !strings.Contains(err.Error(), "POST /launch/99999: HTTP 404") {
		t.Errorf("missing app: %v", err)
	}
}

func TestPlayContent(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	ctx := ctxFor(t)
	found, _ := d.Search(ctx, "  the office ")
	want := devices.Content{ID: "the office", Title: "the office", Kind: roku.KindSearch}
	if len(found) != 1 || found[0] != want {
		t.Fatalf("search found %+v", found)
	}
	if _, err := d.Search(ctx, " "); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("empty search: %v", err)
	}

	if err := d.PlayContent(ctx, found[0]); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/search/browse?keyword=the%20office&launch=true")
	if f.ActiveApp() != rokutest.Search {
		t.Errorf("without a provider the device shows %q", f.ActiveApp())
	}

	with := found[0]
	with.App = "13"
	if err := d.PlayContent(ctx, with); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/search/browse?keyword=the%20office&launch=true&provider-id=13")
	if f.ActiveApp() != rokutest.PrimeVideo {
		t.Errorf("with a provider the device shows %q", f.ActiveApp())
	}
	with.App = "Hulu"
	if err := d.PlayContent(ctx, with); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/search/browse?keyword=the%20office&launch=true&provider-id=2285")

	// A content id with an ECP media type is a deep link.
	if err := d.PlayContent(ctx, devices.Content{ID: "80057281", Title: "Stranger Things", App: "12", Kind: "series"}); err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/launch/12?contentId=80057281&mediaType=series")
	st := state(t, d, "Netflix playing", func(st devices.MediaState) bool {
		return st.Source == "Netflix" && st.Transport == devices.TransportPlaying
	})
	if st.NowPlaying == nil || st.NowPlaying.App != "Netflix" {
		t.Errorf("state %+v", st)
	}
	if l := f.Launches(); l[len(l)-1] != (rokutest.Launch{App: "12", ContentID: "80057281", MediaType: "series"}) {
		t.Errorf("launches %+v", l)
	}

	// Search does no I/O: it answers with the device gone.
	f.Stop()
	if found, err := d.Search(ctx, "the office"); err != nil || len(found) != 1 {
		t.Errorf("search with the device gone: %v, %v", found, err)
	}
}

const limitedText = `refuses control from the network (Roku OS "Limited" mode): on the Roku, set Settings → System → ` +
	`Advanced system settings → Control by mobile apps → Network access to Enabled (or Permissive)`

func TestLimitedMode(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	f.SetLimited(true)
	ctx := ctxFor(t)
	for name, call := range map[string]func() error{
		"key":    func() error { return d.PressKey(ctx, "select") },
		"hold":   func() error { return d.HoldKey(ctx, "select", time.Millisecond) },
		"text":   func() error { return d.SendText(ctx, "x") },
		"launch": func() error { return d.LaunchApp(ctx, "Netflix") },
		"search": func() error { return d.PlayContent(ctx, devices.Content{Title: "the office"}) },
		"source": func() error { _, err := d.SetMedia(ctx, devices.MediaChange{Source: ptr("YouTube")}); return err },
	} {
		err := call()
		if said(err) != limitedText || !errors.Is(err, devices.ErrUnsupported) || !errors.Is(err, roku.ErrLimited) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Through the hub, the device is named in front of the same text.
	err := r.reg.Do(ctx, d.Info().ID, "", func(ctx context.Context) error { return d.PressKey(ctx, "home") })
	if said(err) != limitedText || !strings.HasPrefix(err.Error(), string(d.Info().ID)+": "+limitedText) {
		t.Errorf("through the registry: %v", err)
	}
	// Queries still answer: the device stays online.
	if !d.Online() {
		t.Error("a device in Limited mode went offline")
	}
	if _, err := d.MediaState(ctx); err != nil {
		t.Error(err)
	}
	f.SetLimited(false)
	if err := d.PressKey(ctx, "select"); err != nil {
		t.Errorf("after Limited mode is lifted: %v", err)
	}
}

func TestServerErrors(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	f.Fail("/keypress", 503)
	err := d.PressKey(ctxFor(t), "select")
	if !errors.Is(err, devices.ErrUnreachable) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("503: %v", err)
	}
	f.Fail("/keypress", 400)
	err = d.PressKey(ctxFor(t), "select")
	if !errors.Is(err, devices.ErrInvalid) || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("400: %v", err)
	}
}
