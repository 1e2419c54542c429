package neewer_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// The studio: three Neewer lights of three frame layouts.
const (
	keyMAC  = "DF:24:3A:B4:46:5D" // RGB660 PRO: classic frames, 5-parameter CCT
	fillMAC = "C4:10:00:00:00:02" // SL90 Pro: CCT with the MAC embedded
	backMAC = "C4:10:00:00:00:03" // RGB62: 17 effects without MAC
)

var studio = []struct{ mac, adv, name string }{
	{keyMAC, "NEEWER-RGB660 PRO", "Key Light"},
	{fillMAC, "NW-20220057&00000000", "Fill Light"},
	{backMAC, "NEEWER-RGB62", "Back Light"},
}

// house is a real service over real SQLite whose registry holds the Neewer
// adapter's lights, found by scanning a fake radio.
type house struct {
	svc    *service.Service
	reg    *devices.Registry
	ad     *neewer.Adapter
	radio  *neewertest.Radio
	lights map[string]*neewertest.Light
	ctx    context.Context
}

type houseOpts struct {
	dir     string
	absent  bool // the lights are not in range
	timing  neewer.Timing
	timeout time.Duration
}

func timing() neewer.Timing {
	return neewer.Timing{
		ConnectTimeout: 300 * time.Millisecond, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		ProbeInterval: time.Hour, Pace: time.Millisecond,
	}
}

func newHouse(t *testing.T, o houseOpts) *house {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	if o.timing == (neewer.Timing{}) {
		o.timing = timing()
	}
	if o.timeout == 0 {
		o.timeout = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(o.dir, "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(o.timeout)
	h := &house{reg: reg, radio: neewertest.NewRadio(), lights: map[string]*neewertest.Light{}}
	var cfgs []neewer.LightConfig
	for _, l := range studio {
		cfg, err := neewer.ParseLights(l.mac + ",name=" + l.name + ",room=Studio")
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg...)
		if !o.absent {
			h.lights[l.name] = h.radio.Add(l.mac, l.adv)
		}
	}
	h.ad = neewer.New(neewer.Config{
		Transport: h.radio, Registry: reg, Lights: cfgs, Timing: o.timing,
		ScanFor: 100 * time.Millisecond, Rescan: -1,
	})
	svc := service.New(service.Config{Store: db, Registry: reg, Scanners: []devices.Scanner{h.ad}})
	h.svc = svc
	runDone := make(chan struct{})
	go func() { defer close(runDone); _ = svc.Run(ctx) }()
	go h.ad.Run(ctx)
	t.Cleanup(func() {
		cancel()
		h.ad.Close()
		reg.Close()
		<-runDone
		db.Close()
	})
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	h.ctx = service.WithPrincipal(ctx, p)
	return h
}

// found waits until every light is in the inventory and connected.
func (h *house) found(t *testing.T) {
	t.Helper()
	eventually(t, func() bool {
		ls, err := h.svc.ListLights(h.ctx)
		return err == nil && len(ls) == len(studio)
	})
	for _, l := range h.lights {
		eventually(t, func() bool { return l.Connected() && len(l.Frames()) >= 2 })
	}
}

func eventually(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

func hexes(frames [][]byte) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = fmt.Sprintf("% X", f)
	}
	return out
}

func wantFrames(t *testing.T, who string, got [][]byte, want ...string) {
	t.Helper()
	g := hexes(got)
	if strings.Join(g, " | ") != strings.Join(want, " | ") {
		t.Errorf("%s received\n  %s\nwant\n  %s", who, strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestKeyLightTo5600At80(t *testing.T) {
	h := newHouse(t, houseOpts{})
	h.found(t)
	res, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(5600), Brightness: ptr(80)})
	if err != nil {
		t.Fatal(err)
	}
	// Hello (power and channel queries), power on, CCT 5600 K @ 80 %.
	wantFrames(t, "Key Light", h.lights["Key Light"].Frames(),
		"78 85 00 FD", "78 84 00 FC", "78 81 01 01 FB", "78 87 05 50 38 32 00 00 BE")
	if s := res.State; !s.On || s.Brightness != 80 || s.Kelvin != 5600 || s.Mode != devices.ModeTemperature {
		t.Errorf("applied state %+v", s)
	}
	l, err := h.svc.GetLight(h.ctx, "Key Light")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Capabilities
	if !l.Online || l.Room != "Studio" || c.KelvinMin != 3200 || c.KelvinMax != 5600 || !c.Color || len(c.Effects) != 9 || l.Model != "Neewer RGB660 PRO" {
		t.Errorf("light view %+v", l)
	}
	if !h.lights["Key Light"].On() {
		t.Error("the fake light is not on")
	}
}

func TestKelvinIsClampedAndColourBecomesHSI(t *testing.T) {
	h := newHouse(t, houseOpts{})
	h.found(t)
	for _, l := range h.lights {
		l.Reset()
	}
	res, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(2700), Brightness: ptr(80)})
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Kelvin != 3200 || len(res.Notes) == 0 {
		t.Errorf("2700 K on a 3200–5600 K panel: %+v", res)
	}
	res, err = h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Hex: ptr("#00FF00"), Brightness: ptr(50)})
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Mode != devices.ModeColor || res.State.Color == nil || res.State.Color.Hex != "00FF00" {
		t.Errorf("colour state %+v", res.State)
	}
	wantFrames(t, "Key Light", h.lights["Key Light"].Commands(), "78 81 01 01 FB", "78 87 05 50 20 32 00 00 A6")
	// Hue 120 (78 00 little-endian), saturation 100, intensity 50.
	wantFrames(t, "Fill Light", h.lights["Fill Light"].Commands(), "78 81 01 01 FB", "78 86 04 78 00 64 32 10")
	// GM travels in the SL90 Pro's MAC-embedding CCT frame.
	h.lights["Fill Light"].Reset()
	light := lightAt(t, h, fillMAC)
	if _, err := light.SetLight(context.Background(), devices.LightChange{Kelvin: ptr(5600), GM: ptr(-20), Brightness: ptr(80)}); err != nil {
		t.Fatal(err)
	}
	wantFrames(t, "Fill Light", h.lights["Fill Light"].Commands(), "78 90 0B C4 10 00 00 00 02 87 50 38 1E 04 1A")
}

func lightAt(t *testing.T, h *house, mac string) *neewer.Light {
	t.Helper()
	l, ok := h.ad.Light(mac)
	if !ok {
		t.Fatalf("no light at %s", mac)
	}
	return l
}

func TestSceneOverThreeNeewerLights(t *testing.T) {
	h := newHouse(t, houseOpts{})
	h.found(t)
	must := func(name string, p service.LightPatch) {
		t.Helper()
		if _, err := h.svc.SetLight(h.ctx, name, p); err != nil {
			t.Fatal(err)
		}
	}
	must("Key Light", service.LightPatch{Kelvin: ptr(5600), Brightness: ptr(80)})
	must("Fill Light", service.LightPatch{Hex: ptr("FF0000"), Brightness: ptr(50)})
	must("Back Light", service.LightPatch{Effect: ptr("cop car"), Brightness: ptr(40)})
	sc, err := h.svc.CaptureScene(h.ctx, "Interview", "Studio")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Entries) != 3 {
		t.Fatalf("scene captured %d entries", len(sc.Entries))
	}
	if _, err := h.svc.SetLights(h.ctx, service.ParseLightTarget("all"), service.LightPatch{On: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	for _, l := range h.lights {
		l.Reset()
	}
	res, err := h.svc.ActivateScene(h.ctx, "Interview")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 3 || len(res.Failed) != 0 {
		t.Fatalf("activation %+v", res)
	}
	wantFrames(t, "Key Light", h.lights["Key Light"].Commands(), "78 81 01 01 FB", "78 87 05 50 38 32 00 00 BE")
	wantFrames(t, "Fill Light", h.lights["Fill Light"].Commands(), "78 81 01 01 FB", "78 86 04 00 00 64 32 98")
	// Cop car (0x0A) at 40 %, red and blue, speed 5.
	wantFrames(t, "Back Light", h.lights["Back Light"].Commands(), "78 81 01 01 FB", "78 8B 04 0A 28 02 05 40")
}

func TestAnEffectRunsAtTheSpeedAndColourAsked(t *testing.T) {
	h := newHouse(t, houseOpts{})
	h.found(t)
	back := h.lights["Back Light"]
	if _, err := h.svc.SetLight(h.ctx, "Back Light", service.LightPatch{Effect: ptr("cop car"), Brightness: ptr(40)}); err != nil {
		t.Fatal(err)
	}
	back.Reset()
	if _, err := h.svc.SetLight(h.ctx, "Back Light", service.LightPatch{Effect: ptr("Cop Car"), Brightness: ptr(40), EffectSpeed: ptr(9), EffectColor: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	// Cop car (0x0A) at 40 %, colour choice 1, speed 9.
	wantFrames(t, "Back Light", back.Commands(), "78 8B 04 0A 28 01 09 43")
	back.Reset()
	if _, err := h.svc.SetLight(h.ctx, "Back Light", service.LightPatch{Effect: ptr("cop car")}); err != nil {
		t.Fatal(err)
	}
	// Asked again without them, the effect runs at its defaults.
	wantFrames(t, "Back Light", back.Commands(), "78 8B 04 0A 28 02 05 40")
}

func TestDeadLightReconnectsWithBackoffAndGoesOffline(t *testing.T) {
	tm := timing()
	tm.ConnectTimeout, tm.BackoffMin, tm.BackoffMax = 50*time.Millisecond, 40*time.Millisecond, 400*time.Millisecond
	h := newHouse(t, houseOpts{timing: tm})
	h.found(t)
	key := h.lights["Key Light"]
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	before := len(key.Connects())
	key.Gone(true)
	eventually(t, func() bool { return !lightAt(t, h, keyMAC).Online() })
	_, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Brightness: ptr(30)})
	if service.ErrorCode(err) != service.EUNREACHABLE {
		t.Fatalf("command to a dead light: %v", err)
	}
	l, _ := h.svc.GetLight(h.ctx, "Key Light")
	if l.Online || l.Name != "Key Light" {
		t.Errorf("dead light listed as %+v", l)
	}
	eventually(t, func() bool { return len(key.Connects()) >= before+5 })
	at := key.Connects()[before:]
	var gaps []time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	// Attempt 1 is at once; then each waits out the 50 ms connection
	// timeout and a backoff of 40, 80, 160, 320 ms (± 25 %). Scheduling
	// can only add to a gap, so the lower bounds are what is checked.
	for i, g := range gaps[1:4] {
		if least := 50*time.Millisecond + time.Duration(30<<i)*time.Millisecond; g < least {
			t.Errorf("reconnect gap %d = %v; want at least %v (gaps %v)", i+1, g, least, gaps)
		}
	}
	sawOffline := false
	for len(events) > 0 {
		if e := <-events; e.ID == "neewer:"+keyMAC {
			if v, ok := e.Data.(service.Light); ok && !v.Online {
				sawOffline = true
			}
		}
	}
	if !sawOffline {
		t.Error("no event said the light went offline")
	}
	key.Gone(false)
	eventually(t, func() bool { return lightAt(t, h, keyMAC).Online() })
	key.Reset()
	if _, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Brightness: ptr(30)}); err != nil {
		t.Fatalf("after the light came back: %v", err)
	}
	if cmds := key.Commands(); len(cmds) == 0 || !bytes.Equal(cmds[len(cmds)-1], []byte{0x78, 0x87, 0x05, 0x1E, 0x2C, 0x32, 0x00, 0x00, 0x80}) {
		t.Errorf("after reconnecting: % X", cmds)
	}
}

// TestBurstOfBrightnessWritesCoalesces sends 100 brightness writes through
// the service at once while the light holds the first frame: the other 99
// wait on one queued command, so two frames go out in all, the last one
// the state the hub reports.
func TestBurstOfBrightnessWritesCoalesces(t *testing.T) {
	h := newHouse(t, houseOpts{timeout: 30 * time.Second})
	h.found(t)
	key := h.lights["Key Light"]
	if _, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Kelvin: ptr(5600), Brightness: ptr(50)}); err != nil {
		t.Fatal(err)
	}
	key.Reset()
	release := key.Hold()
	id := devices.ID("neewer:" + studio[0].mac)
	var wg sync.WaitGroup
	// waitFor polls until ok; when 20 s pass first, it lets the light go,
	// waits for the writes, and fails the test.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				held, waiting := key.Held(), h.reg.Waiting(id)
				release()
				wg.Wait()
				t.Fatalf("%s: %d frames held, %d writes waiting", what, held, waiting)
			}
			time.Sleep(time.Millisecond)
		}
	}
	write := func(i int) {
		wg.Go(func() {
			if _, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Brightness: ptr(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	// The first write reaches the light alone and is held there; the
	// other 99 arrive while it is held and queue behind it.
	write(1)
	waitFor("the first write never reached the light", func() bool { return key.Held() >= 1 })
	for i := 2; i <= 100; i++ {
		write(i)
	}
	waitFor("with the first frame held, the other 99 writes never all queued", func() bool { return h.reg.Waiting(id) >= 99 })
	release()
	wg.Wait()
	frames := key.Commands()
	if len(frames) != 2 {
		t.Fatalf("100 brightness writes sent %d frames; want the held one and one more", len(frames))
	}
	last := frames[len(frames)-1]
	l, err := h.svc.GetLight(h.ctx, "Key Light")
	if err != nil {
		t.Fatal(err)
	}
	if l.State == nil || int(last[3]) != l.State.Brightness {
		t.Errorf("the light ends at %d %%, the hub says %+v", last[3], l.State)
	}
	t.Logf("100 writes → %d frames", len(frames))
}

func TestOneUnreachableLightDelaysNoOther(t *testing.T) {
	tm := timing()
	tm.ConnectTimeout = 10 * time.Second // far longer than the command timeout
	h := newHouse(t, houseOpts{timing: tm, timeout: time.Second})
	h.found(t)
	h.lights["Fill Light"].Gone(true)
	start := time.Now()
	res, err := h.svc.SetLights(h.ctx, service.ParseLightTarget("Key Light", "Fill Light", "Back Light"), service.LightPatch{Brightness: ptr(70)})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if len(res.Applied) != 2 || len(res.Failed) != 1 || res.Failed[0].Name != "Fill Light" || res.Failed[0].Code != service.EUNREACHABLE {
		t.Fatalf("fan-out %+v", res)
	}
	if took > 5*time.Second {
		t.Errorf("the fan-out took %v; the dead light's command timeout is 1 s, its connect timeout 10 s", took)
	}
	// While the dead light's command waits out its timeout, another light
	// answers: the Fill Light's call is still pending when the Key Light's
	// returns.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{Brightness: ptr(20)})
	}()
	if _, err := h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{Brightness: ptr(20)}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Error("the Key Light answered only after the dead Fill Light's command ended")
	default:
	}
	<-done
}

func TestLightSeenOnceStaysListedOffline(t *testing.T) {
	dir := t.TempDir()
	first := newHouse(t, houseOpts{dir: dir})
	first.found(t)
	if _, err := first.svc.UpdateDevice(first.ctx, "Back Light", service.DevicePatch{Name: ptr("Hair Light")}); err != nil {
		t.Fatal(err)
	}
	first.ad.Close()
	first.reg.Close()

	// Restart with every light gone: the inventory still lists them.
	second := newHouse(t, houseOpts{dir: dir, absent: true})
	time.Sleep(150 * time.Millisecond) // the start-up scan finds nothing
	ls, err := second.svc.ListLights(second.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 {
		t.Fatalf("%d lights listed after the restart", len(ls))
	}
	for _, l := range ls {
		if l.Online || l.Room != "Studio" || l.Capabilities.KelvinMax == 0 {
			t.Errorf("%+v", l)
		}
	}
	if _, err := second.svc.GetLight(second.ctx, "Hair Light"); err != nil {
		t.Errorf("the renamed light is lost: %v", err)
	}
	_, err = second.svc.SetLight(second.ctx, "Key Light", service.LightPatch{On: ptr(true)})
	if service.ErrorCode(err) != service.EUNREACHABLE {
		t.Errorf("command to a light not in range: %v", err)
	}
}

func TestScanThroughTheService(t *testing.T) {
	h := newHouse(t, houseOpts{absent: true})
	res, err := h.svc.Scan(h.ctx)
	if err != nil || len(res.Adapters) != 1 || res.Adapters[0] != "neewer" || res.WaitSeconds < 1 {
		t.Fatalf("scan %+v %v", res, err)
	}
	// A light switched on later is found by the next scan.
	h.lights["Key Light"] = h.radio.Add(keyMAC, "NEEWER-RGB660 PRO")
	time.Sleep(150 * time.Millisecond) // the running scan ends
	if _, err := h.svc.Scan(h.ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { _, err := h.svc.GetLight(h.ctx, "Key Light"); return err == nil })
}

func TestScanReport(t *testing.T) {
	radio := neewertest.NewRadio()
	radio.Add(keyMAC, "NEEWER-RGB660 PRO")
	radio.Add(fillMAC, "NW-20220057&00000000")
	radio.Add("C4:10:00:00:00:09", "JBL Flip 5")
	var out bytes.Buffer
	// The scan ends once all three are heard (by the one radio).
	heard := map[string]bool{}
	enough := func(mac string, radios int) bool {
		heard[mac] = radios == 1
		return len(heard) == 3 && heard[keyMAC] && heard[fillMAC] && heard["C4:10:00:00:00:09"]
	}
	err := neewer.ScanReport(context.Background(), radio, &out, neewer.ScanOptions{Duration: 30 * time.Second, Probe: true, Enough: enough})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{keyMAC, "RGB660 PRO", "power=classic cct=5 hsi=classic fx=fx9", fillMAC, "SL90 Pro", "cct=mac", "power: standby", "hci0 -60", "BIFROST_NEEWER_LIGHTS"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "JBL") {
		t.Errorf("a speaker listed as a light:\n%s", text)
	}
}

func TestBluetoothOff(t *testing.T) {
	reg := devices.NewRegistry(time.Second)
	defer reg.Close()
	ad, err := neewer.Open(context.Background(), neewer.Options{BLE: "off", Lights: keyMAC + ",model=RGB660 PRO,name=Key Light", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go ad.Run(ctx)
	defer func() { cancel(); ad.Close() }()
	eventually(t, func() bool { _, ok := reg.Get("neewer:" + keyMAC); return ok })
	eventually(t, func() bool { d, _ := reg.Get("neewer:" + keyMAC); return !d.Online() })
	if _, err := ad.Scan(context.Background()); err == nil {
		t.Error("a scan without Bluetooth must say so")
	}
	if _, err := neewer.Open(context.Background(), neewer.Options{BLE: "usb"}); err == nil {
		t.Error("a bad BIFROST_BLE must be refused")
	}
	if _, err := neewer.Open(context.Background(), neewer.Options{BLE: "off", Lights: "not-an-address"}); err == nil {
		t.Error("a bad BIFROST_NEEWER_LIGHTS must be refused")
	}
}
