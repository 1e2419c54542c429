package onkyo_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

const mainID = devices.ID("onkyo:0009B0E74DA8")

func ptr[T any](v T) *T { return &v }

// rig is an adapter running against fake receivers.
type rig struct {
	reg     *devices.Registry
	adapter *onkyo.Adapter
	changes *changeLog
}

// deviceTimeout bounds one command to one device (the rig's registry).
const deviceTimeout = time.Second

// reportedWithin bounds how long a silent receiver takes to be reported
// unreachable: the device timeout, the round trip through the hub, and
// room for a busy machine. It stays far below what a caller would wait
// without the timeout (the HTTP or TCP stall itself never ends).
const reportedWithin = deviceTimeout + 2*time.Second

func startRig(t *testing.T, cfg onkyo.Config) *rig {
	t.Helper()
	reg := devices.NewRegistry(deviceTimeout)
	cfg.Registry = reg
	if cfg.RetryMin == 0 {
		cfg.RetryMin, cfg.RetryMax = 20*time.Millisecond, 100*time.Millisecond
	}
	a := onkyo.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	changes := watch(reg) // before the adapter adds anything
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; reg.Close() })
	return &rig{reg: reg, adapter: a, changes: changes}
}

// player waits for device id to be registered and online.
func (r *rig) player(t *testing.T, id devices.ID) devices.MediaPlayer {
	t.Helper()
	var d devices.Device
	eventually(t, 10*time.Second, string(id)+" online", func() bool {
		var ok bool
		d, ok = r.reg.Get(id)
		return ok && d.Online()
	})
	return d.(devices.MediaPlayer)
}

// set sends a change through the registry's worker, as the service does.
func (r *rig) set(id devices.ID, c devices.MediaChange) (devices.MediaState, error) {
	d, _ := r.reg.Get(id)
	res := make(chan devices.MediaState, 1)
	err := r.reg.Do(context.Background(), id, "", func(ctx context.Context) error {
		st, err := d.(devices.MediaPlayer).SetMedia(ctx, c)
		res <- st
		return err
	})
	if err != nil {
		return devices.MediaState{}, err
	}
	return <-res, nil
}

type changeLog struct {
	mu  sync.Mutex
	ids map[devices.ID]int
}

func watch(reg *devices.Registry) *changeLog {
	c := &changeLog{ids: map[devices.ID]int{}}
	reg.Subscribe(func(ch devices.Change) {
		c.mu.Lock()
		c.ids[ch.ID]++
		c.mu.Unlock()
	})
	return c
}

func (c *changeLog) count(id devices.ID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

func state(t *testing.T, p devices.MediaPlayer) devices.MediaState {
	t.Helper()
	st, err := p.MediaState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStateOnConnectAndPushes(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	if info := p.Info(); info.Name != "TX-NR686" || info.Adapter != "onkyo" || info.Kind != devices.KindMedia {
		t.Errorf("info %+v", info)
	}
	eventually(t, 10*time.Second, "the first state", func() bool { return state(t, p).Source == "TV" })
	st := state(t, p)
	if !st.Power || st.Volume != 40 || st.Muted || st.Transport != "" {
		t.Fatalf("state %+v", st)
	}
	before := r.changes.count(mainID)
	f.push("MVL", "32")
	eventually(t, 10*time.Second, "the pushed volume", func() bool { return state(t, p).Volume == 50 })
	f.push("AMT", "01")
	eventually(t, 10*time.Second, "the pushed mute", func() bool { return state(t, p).Muted })
	if r.changes.count(mainID) <= before {
		t.Error("pushes were not reported to the registry")
	}
	f.push("PWR", "00")
	eventually(t, 10*time.Second, "standby", func() bool { return !state(t, p).Power })
}

func TestCommandsAreTheRightFrames(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	r.player(t, mainID)
	st, err := r.set(mainID, devices.MediaChange{Volume: ptr(45)})
	if err != nil {
		t.Fatal(err)
	}
	if !f.sentBytes(eiscp.NewMessage("MVL", "2D").Encode()) || st.Volume != 45 {
		t.Fatalf("volume 45: sent %v, state %+v", f.sent(), st)
	}
	if _, err := r.set(mainID, devices.MediaChange{Mute: ptr(true), Source: ptr("bd/dvd")}); err != nil {
		t.Fatal(err)
	}
	if !f.received("AMT01") || f.value("SLI") != "10" {
		t.Fatalf("mute and source: sent %v", f.sent())
	}
	st, err = r.set(mainID, devices.MediaChange{Source: ptr("Spotify")})
	if err != nil {
		t.Fatal(err)
	}
	if !f.received("SLI2B") || st.Source != "Spotify" {
		t.Fatalf("Spotify: sent %v, state %+v", f.sent(), st)
	}
	eventually(t, 10*time.Second, "NSV0A0", func() bool { return f.received("NSV0A0") })
	if _, err := r.set(mainID, devices.MediaChange{Transport: ptr("next")}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "NTCTRUP", func() bool { return f.received("NTCTRUP") })
}

func TestRefusals(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	r.player(t, mainID)
	_, err := r.set(mainID, devices.MediaChange{Source: ptr("Laserdisc")})
	wantErr(t, err, devices.ErrInvalid)
	_, err = r.set(mainID, devices.MediaChange{Volume: ptr(101)})
	wantErr(t, err, devices.ErrInvalid)
	_, err = r.set(mainID, devices.MediaChange{Transport: ptr("next")})
	wantErr(t, err, devices.ErrUnsupported) // TV has no transport
	if _, err := r.set(mainID, devices.MediaChange{Power: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	_, err = r.set(mainID, devices.MediaChange{Volume: ptr(10)})
	wantErr(t, err, devices.ErrInvalid) // standby
	f.forget()
	st, err := r.set(mainID, devices.MediaChange{Power: ptr(true), Volume: ptr(10)})
	if err != nil || !st.Power || st.Volume != 10 {
		t.Fatalf("power on with volume: %+v %v", st, err)
	}
	if !f.received("PWR01") || !f.received("MVL0A") {
		t.Fatalf("sent %v", f.sent())
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v; want one wrapping %v", err, target)
	}
}

func TestZone2IsItsOwnDevice(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	z := r.player(t, mainID+":zone2")
	if z.Info().Name != "TX-NR686 Zone 2" {
		t.Errorf("name %q", z.Info().Name)
	}
	// Zone 2 is listed when its power answers; its volume follows.
	eventually(t, 10*time.Second, "zone 2's volume", func() bool { st := state(t, z); return !st.Power && st.Volume == 20 })
	if _, err := r.set(mainID+":zone2", devices.MediaChange{Power: ptr(true), Volume: ptr(30), Source: ptr("CD")}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ZPW01", "ZVL1E", "SLZ23"} {
		if !f.received(m) {
			t.Errorf("%s not sent; sent %v", m, f.sent())
		}
	}
	_, err := r.set(mainID+":zone2", devices.MediaChange{Transport: ptr("play")})
	wantErr(t, err, devices.ErrUnsupported)
	if main := state(t, r.player(t, mainID)); main.Source != "TV" || main.Volume != 40 {
		t.Errorf("zone 2 commands moved the main zone: %+v", main)
	}
}

func TestNoZone2(t *testing.T) {
	s := defaultState()
	delete(s, "ZPW")
	f := newFakeReceiver(t, s)
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	r.player(t, mainID)
	eventually(t, 10*time.Second, "the connect queries", func() bool { return f.received("NRIQSTN") })
	time.Sleep(20 * time.Millisecond)
	if _, ok := r.reg.Get(mainID + ":zone2"); ok {
		t.Fatal("a receiver without zone 2 got a zone 2 device")
	}
}

func TestSelfDescription(t *testing.T) {
	s := defaultState()
	s["NRI"] = `<?xml version="1.0" encoding="utf-8"?><response status="ok"><device id="TX-NR686"><model>TX-NR686</model>` +
		`<netservicelist count="1"><netservice id="0e" value="1" name="TuneIn Radio" zone="03"/></netservicelist>` +
		`<zonelist count="2"><zone id="1" value="1" name="Main" volmax="80"/><zone id="2" value="1" name="Zone2" volmax="80"/></zonelist>` +
		`<selectorlist count="2"><selector id="12" value="1" name="TV" zone="03"/><selector id="10" value="1" name="Apple TV" zone="03"/></selectorlist>` +
		`</device></response>`
	s["MVL"] = "28" // 40 of 80 steps
	f := newFakeReceiver(t, s)
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	eventually(t, 10*time.Second, "the self-description", func() bool { return len(state(t, p).Sources) == 3 })
	st := state(t, p)
	if st.Volume != 50 || st.Sources[1] != "Apple TV" || st.Sources[2] != "TuneIn Radio" {
		t.Fatalf("state %+v", st)
	}
	if _, err := r.set(mainID, devices.MediaChange{Volume: ptr(100)}); err != nil {
		t.Fatal(err)
	}
	if !f.received("MVL50") {
		t.Fatalf("100 %% of 80 steps: sent %v", f.sent())
	}
	if _, err := r.set(mainID, devices.MediaChange{Source: ptr("tunein radio")}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "NSV0E0", func() bool { return f.received("NSV0E0") })
}

func TestNetworkPlayerState(t *testing.T) {
	s := defaultState()
	s["SLI"], s["NLT"], s["NST"] = "2B", "0A000000000E0000FFFF00Spotify", "P--"
	s["NTI"], s["NAT"], s["NAL"] = "So What", "Miles Davis", "Kind of Blue"
	f := newFakeReceiver(t, s)
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	want := devices.NowPlaying{Title: "So What", Artist: "Miles Davis", Album: "Kind of Blue", App: "Spotify"}
	eventually(t, 10*time.Second, "now playing", func() bool {
		st := state(t, p)
		return st.NowPlaying != nil && *st.NowPlaying == want
	})
	if st := state(t, p); st.Transport != devices.TransportPlaying || st.Source != "Spotify" {
		t.Fatalf("state %+v", st)
	}
	f.push("NST", "p--")
	eventually(t, 10*time.Second, "paused", func() bool { return state(t, p).Transport == devices.TransportPaused })
	if _, err := r.set(mainID, devices.MediaChange{Transport: ptr("play")}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "playing", func() bool { return state(t, p).Transport == devices.TransportPlaying })
}

func TestDroppedConnectionReconnects(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	f.push("MVL", "30")
	f.dropConnections()
	eventually(t, 10*time.Second, "a second connection", func() bool { return f.dialCount() >= 2 })
	p = r.player(t, mainID)
	if _, err := r.set(mainID, devices.MediaChange{Volume: ptr(12)}); err != nil {
		t.Fatal(err)
	}
	if f.value("MVL") != "0C" || state(t, p).Volume != 12 {
		t.Fatalf("after reconnecting: MVL %s", f.value("MVL"))
	}
}

func TestSilentReceiverIsUnreachable(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	f.setSilent(true)
	start := time.Now()
	_, err := r.set(mainID, devices.MediaChange{Volume: ptr(30)})
	wantErr(t, err, devices.ErrUnreachable)
	if d := time.Since(start); d > reportedWithin {
		t.Fatalf("unreachable after %v; the timeout is %v", d, deviceTimeout)
	}
	eventually(t, 10*time.Second, "offline", func() bool { return !p.Online() })
	_, err = p.MediaState(context.Background())
	wantErr(t, err, devices.ErrUnreachable)
	f.setSilent(false)
	r.player(t, mainID)
}

func TestScanFindsReceivers(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{ScanTargets: []string{f.udp.LocalAddr().String()}, ScanTime: time.Second})
	var wait time.Duration
	eventually(t, 10*time.Second, "the adapter to run", func() bool {
		var err error
		wait, err = r.adapter.Scan(context.Background())
		return err == nil
	})
	if wait != time.Second || r.adapter.Adapter() != "onkyo" {
		t.Errorf("scan lasts %v", wait)
	}
	r.player(t, mainID)
}

func TestAddByAddress(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	r := startRig(t, onkyo.Config{})
	var ids []devices.ID
	eventually(t, 10*time.Second, "the adapter to run", func() bool {
		var err error
		ids, err = r.adapter.Add(context.Background(), f.addr())
		return err == nil
	})
	if len(ids) != 1 || ids[0] != mainID {
		t.Fatalf("ids %v", ids)
	}
	r.player(t, mainID)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := r.adapter.Add(ctx, "127.0.0.1:1")
	wantErr(t, err, devices.ErrUnreachable)
}

// A zone whose self-description says volstep="0" counts its volume in
// half steps: 0.5 dB each, so twice the displayed volume, and its volmax
// (displayed) is 2×volmax raw. volstep="1" is whole steps.
func TestHalfStepVolume(t *testing.T) {
	s := defaultState()
	s["NRI"] = `<?xml version="1.0" encoding="utf-8"?><response status="ok"><device id="TX-RZ50"><model>TX-RZ50</model>` +
		`<zonelist count="2"><zone id="1" value="1" name="Main" volmax="80" volstep="0"/>` +
		`<zone id="2" value="1" name="Zone2" volmax="80" volstep="1"/></zonelist></device></response>`
	s["MVL"] = "50" // 80 half steps: 40 of 80 displayed
	s["ZVL"] = "28" // 40 of 80
	f := newFakeReceiver(t, s)
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	p := r.player(t, mainID)
	z := r.player(t, mainID+":zone2")
	eventually(t, 10*time.Second, "50 % on both zones", func() bool { return state(t, p).Volume == 50 && state(t, z).Volume == 50 })
	if _, err := r.set(mainID, devices.MediaChange{Volume: ptr(100)}); err != nil {
		t.Fatal(err)
	}
	if !f.received("MVLA0") {
		t.Fatalf("100 %% of 80 in half steps is A0 (160): sent %v", f.sent())
	}
	st, err := r.set(mainID, devices.MediaChange{Volume: ptr(45)})
	if err != nil {
		t.Fatal(err)
	}
	if !f.received("MVL48") || st.Volume != 45 {
		t.Fatalf("45 %% of 160 half steps is 48 (72): sent %v, state %+v", f.sent(), st)
	}
}
