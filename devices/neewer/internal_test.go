package neewer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

const keyMAC = "DF:24:3A:B4:46:5D"

func fastTiming() Timing {
	return Timing{
		ConnectTimeout: 200 * time.Millisecond, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		ProbeInterval: time.Hour, Pace: time.Millisecond, WriteTimeout: 20 * time.Second,
	}
}

// startOne runs an adapter over a fake radio holding one light and waits
// until the light is connected and has said hello.
func startOne(t *testing.T, name string) (*Light, *neewertest.Light) {
	t.Helper()
	radio := neewertest.NewRadio()
	fake := radio.Add(keyMAC, name)
	a := New(Config{Transport: radio, Timing: fastTiming(), ScanFor: 50 * time.Millisecond, Rescan: -1})
	ctx, cancel := context.WithCancel(context.Background())
	go a.Run(ctx)
	t.Cleanup(func() { cancel(); a.Close() })
	var l *Light
	eventually(t, func() bool { l, _ = a.Light(keyMAC); return l != nil })
	eventually(t, func() bool { return fake.Connected() && len(fake.Frames()) >= 2 })
	return l, fake
}

func eventually(t *testing.T, ok func() bool) {
	t.Helper()
	if !within(10*time.Second, ok) {
		t.Fatal("condition not met in time")
	}
}

// within reports whether ok holds before d has passed.
func within(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

func ptr[T any](v T) *T { return &v }

// TestCoalescingLastValueWins drives the writer deterministically: while
// one write is held at the light, 99 more brightness commands arrive one
// after another; they fold into one frame carrying the last value.
func TestCoalescingLastValueWins(t *testing.T) {
	l, fake := startOne(t, "NEEWER-RGB660 PRO")
	ctx := context.Background()
	if _, err := l.SetLight(ctx, devices.LightChange{On: ptr(true), Brightness: ptr(50)}); err != nil {
		t.Fatal(err)
	}
	fake.Reset()
	release := fake.Hold()
	base := l.push.submitted()
	var wg sync.WaitGroup
	results := make([]int, 101)
	for i := 1; i <= 100; i++ {
		wg.Go(func() {
			s, err := l.SetLight(ctx, devices.LightChange{Brightness: ptr(i)})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = s.Brightness
		})
		queued := within(10*time.Second, func() bool { return l.push.submitted() == base+uint64(i) })
		if queued && i == 1 {
			queued = within(10*time.Second, func() bool { return fake.Held() == 1 })
		}
		if !queued { // let the writes end before failing: they report to t
			held, submitted := fake.Held(), l.push.submitted()-base
			release()
			wg.Wait()
			t.Fatalf("write %d: %d submitted, %d held at the light", i, submitted, held)
		}
	}
	release()
	wg.Wait()
	enc := nwproto.Encoder{Variant: l.model.Variant}
	want := [][]byte{enc.CCT(1, 4400, 0), enc.CCT(100, 4400, 0)}
	got := fake.Frames()
	if len(got) != 2 || !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[1], want[1]) {
		t.Fatalf("100 brightness writes sent % X; want % X", got, want)
	}
	for i := 1; i <= 100; i++ {
		if results[i] != i {
			t.Errorf("caller %d got brightness %d", i, results[i])
		}
	}
	if s, _ := l.LightState(ctx); s.Brightness != 100 {
		t.Errorf("state brightness %d; want 100", s.Brightness)
	}
}

func TestPowerFramesOnlyWhenNeeded(t *testing.T) {
	l, fake := startOne(t, "NEEWER-RGB660 PRO")
	ctx := context.Background()
	fake.Reset()
	must := func(c devices.LightChange) {
		t.Helper()
		if _, err := l.SetLight(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	must(devices.LightChange{On: ptr(true), Kelvin: ptr(3200), Brightness: ptr(40)})
	must(devices.LightChange{On: ptr(true), Brightness: ptr(60)}) // on already: no power frame
	must(devices.LightChange{On: ptr(false)})
	must(devices.LightChange{On: ptr(true)}) // bare power: always sent
	want := []string{"78 81 01 01 FB", "78 87 05 28 20 32 00 00 7E", "78 87 05 3C 20 32 00 00 92", "78 81 01 02 FC", "78 81 01 01 FB"}
	got := fake.Commands()
	if len(got) != len(want) {
		t.Fatalf("frames % X", got)
	}
	for i, w := range want {
		if g := fmt.Sprintf("% X", got[i]); g != w {
			t.Errorf("frame %d = %s; want %s", i, g, w)
		}
	}
}

func TestBackoffGrowsWithJitterWithinBounds(t *testing.T) {
	c := newConn(nil, ble.Address{MAC: keyMAC}, Timing{BackoffMin: 100 * time.Millisecond, BackoffMax: time.Second}, nil)
	for n, base := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 4: 800, 5: 1000, 9: 1000} {
		base *= time.Millisecond
		for range 20 {
			d := c.backoff(n)
			if d < base*3/4 || d > base*5/4 {
				t.Fatalf("backoff(%d) = %v; want %v ± 25%%", n, d, base)
			}
		}
	}
}

func TestDetectModel(t *testing.T) {
	cases := []struct {
		adv   string
		name  string
		typ   int
		kmin  int
		kmax  int
		rgb   bool
		cct   nwproto.CCTForm
		fx    nwproto.FXSet
		known bool
	}{
		{"NEEWER-RGB660 PRO", "RGB660 PRO", 3, 3200, 5600, true, nwproto.CCTFive, nwproto.FX9, true},
		{"NW-20220057&00000000", "SL90 Pro", 34, 2500, 10000, true, nwproto.CCTMAC, nwproto.FX17MAC, true},
		{"NW-20210012&FFFFFFFF", "CB60 RGB", 22, 2700, 6500, true, nwproto.CCTFive, nwproto.FX17MAC, true},
		{"NW-20240073&00000000", "SL90", 71, 2500, 10000, true, nwproto.CCTMAC, nwproto.FX17MAC, true},
		{"NW-20230021&00000000", "BH-30S RGB", 42, 2500, 10000, true, nwproto.CCTMAC, nwproto.FX17MAC, true},
		{"NEEWER-RGB1200", "RGB1200", 18, 3200, 5600, true, nwproto.CCTFive, nwproto.FXNone, true},
		{"NEEWER-RGB1", "RGB1", 8, 3200, 5600, true, nwproto.CCTFive, nwproto.FX17MAC, true},
		{"NW-RGB176 A1", "RGB176 A1", 20, 3200, 5600, true, nwproto.CCTFive, nwproto.FX17MAC, true},
		{"NEEWER-RGB176", "RGB176", 5, 3200, 5600, true, nwproto.CCTFive, nwproto.FX9, true},
		{"NEEWER-GL1C", "GL1C", 39, 2900, 7000, true, nwproto.CCTFive, nwproto.FX18, true},
		{"NEEWER-GL1 PRO", "GL1 PRO", 33, 2900, 7000, false, nwproto.CCTSplit, nwproto.FXNone, true},
		{"NEEWER-SNL530", "SNL530", 7, 3200, 5600, false, nwproto.CCTFive, nwproto.FXNone, true},
		{"NEEWER-RGB62", "RGB62", 40, 2500, 8500, true, nwproto.CCTFive, nwproto.FX17, true},
		{"NWR-SL80", "SL80", 6, 3200, 8500, true, nwproto.CCTTwo, nwproto.FXNone, true},
		{"NEEWER-CB200B", "CB200B", 28, 3200, 5600, false, nwproto.CCTSplit, nwproto.FXNone, true},
		{"NH-PD20250030", "NEEWER Home PD20250030", 0, 3200, 5600, true, nwproto.CCTHome, nwproto.FXHome, true},
		{"NW-20230108&00000000", "HB80C", 0, 3200, 5600, false, nwproto.CCTSplit, nwproto.FXNone, false},
		{"NEEWER-ZX900", "ZX900", 0, 3200, 5600, false, nwproto.CCTSplit, nwproto.FXNone, false},
	}
	for _, c := range cases {
		m := DetectModel(c.adv)
		if m.Name != c.name || m.Type != c.typ || m.KelvinMin != c.kmin || m.KelvinMax != c.kmax ||
			m.RGB != c.rgb || m.Variant.CCT != c.cct || m.Variant.FX != c.fx || m.Known != c.known {
			t.Errorf("%s: %+v", c.adv, m)
		}
	}
	if m := DetectModel("NW-20220057&00000000"); !m.GM || m.Variant.Power != nwproto.PowerClassic || m.Variant.HSI != nwproto.HSIClassic {
		t.Errorf("SL90 Pro: %+v", m)
	}
	if m := DetectModel("NEEWER-RGB660"); m.GM {
		t.Error("the RGB660 sends a fixed neutral GM")
	}
	if n := len(DetectModel("NEEWER-RGB62").Effects()); n != 17 {
		t.Errorf("RGB62 has %d effects", n)
	}
}

func TestIsNeewerName(t *testing.T) {
	for _, n := range []string{"NEEWER-RGB660", "NW-20220057&00000000", "NWR-RGB62", "NH-PD20250030", "neewer light", "SL90"} {
		if !IsNeewerName(n) {
			t.Errorf("%q should pass", n)
		}
	}
	for _, n := range []string{"", "Slack Phone", "JBL Flip 5", "GR18C-953999", "slim"} {
		if IsNeewerName(n) {
			t.Errorf("%q should not pass", n)
		}
	}
}

func TestParseLights(t *testing.T) {
	cs, err := ParseLights(" df:24:3a:b4:46:5d, name=Key Light ,room=Office, model=RGB660 PRO ;\nF1:2B:00:11:22:33,model=SL90 Pro,hsi=mac-short,kelvin=2500-10000,gm=false,random=true")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Address.MAC != keyMAC || cs[0].Name != "Key Light" || cs[0].Room != "Office" || cs[0].Model != "RGB660 PRO" {
		t.Fatalf("%+v", cs)
	}
	m, err := cs[1].resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if !cs[1].Address.Random || m.Type != 34 || m.Variant.HSI != nwproto.HSIMACShort || m.GM || m.KelvinMax != 10000 {
		t.Errorf("overrides: %+v %+v", cs[1], m)
	}
	for _, bad := range []string{"nonsense", keyMAC + ",cct=9", keyMAC + ",kelvin=5600", keyMAC + ",colour=red", keyMAC + ",name", keyMAC + ",rgb=maybe"} {
		if _, err := ParseLights(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if cs, err := ParseLights(""); err != nil || len(cs) != 0 {
		t.Errorf("empty list: %v %v", cs, err)
	}
	// A colour override on a bi-colour model gives it an HSI layout.
	c := LightConfig{Address: ble.Address{MAC: keyMAC}, Model: "CB200B", RGB: ptr(true)}
	if m, _ := c.resolve(""); m.Variant.HSI != nwproto.HSIClassic || !m.RGB {
		t.Errorf("rgb=true: %+v", m)
	}
}

func TestProbesLearnPowerAndDropASilencedLink(t *testing.T) {
	radio := neewertest.NewRadio()
	fake := radio.Add(keyMAC, "NEEWER-RGB660 PRO")
	mute := radio.Add("C4:10:00:00:00:07", "NEEWER-RGB176")
	mute.Silent(true) // some models never answer: their links must stay
	reg := devices.NewRegistry(time.Second)
	defer reg.Close()
	var mu sync.Mutex
	changes := 0
	reg.Subscribe(func(c devices.Change) {
		if c.ID == "neewer:"+keyMAC && !c.Added {
			mu.Lock()
			changes++
			mu.Unlock()
		}
	})
	tm := fastTiming()
	tm.ProbeInterval = 20 * time.Millisecond
	a := New(Config{Transport: radio, Registry: reg, Timing: tm, ScanFor: 50 * time.Millisecond, Rescan: -1})
	ctx, cancel := context.WithCancel(context.Background())
	go a.Run(ctx)
	defer func() { cancel(); a.Close() }()
	var l *Light
	eventually(t, func() bool { l, _ = a.Light(keyMAC); return l != nil && fake.Connected() })

	fake.Switch(true) // by hand, on the light itself
	eventually(t, func() bool { s, err := l.LightState(ctx); return err == nil && s.On })
	mu.Lock()
	told := changes
	mu.Unlock()
	if told == 0 {
		t.Error("the registry was not told the light turned on")
	}

	before := len(fake.Connects())
	fake.Silent(true) // it answered before: three silent probes drop the link
	eventually(t, func() bool { return len(fake.Connects()) > before })
	if n := len(mute.Connects()); n != 1 {
		t.Errorf("a light that never answers was reconnected: %d connects", n)
	}
	if !l.Online() {
		t.Error("a re-made link left the light offline")
	}
}

func TestSetLightRefusesWhatTheModelCannotDo(t *testing.T) {
	l, fake := startOne(t, "NEEWER-CB200B") // bi-colour, no effects
	ctx := context.Background()
	fake.Reset()
	if _, err := l.SetLight(ctx, devices.LightChange{Color: &devices.Color{Hex: "FF0000"}}); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("colour on a bi-colour panel: %v", err)
	}
	if _, err := l.SetLight(ctx, devices.LightChange{Effect: ptr("Party")}); !errors.Is(err, devices.ErrUnsupported) {
		t.Errorf("effect on a panel without effects: %v", err)
	}
	if _, err := l.SetLight(ctx, devices.LightChange{Brightness: ptr(140)}); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("brightness 140: %v", err)
	}
	if len(fake.Commands()) != 0 {
		t.Errorf("refused changes sent % X", fake.Commands())
	}
	// Kelvin is clamped to the model and rounded to its 100 K steps.
	s, err := l.SetLight(ctx, devices.LightChange{On: ptr(true), Kelvin: ptr(9000), Brightness: ptr(50)})
	if err != nil || s.Kelvin != 5600 {
		t.Fatalf("9000 K on a 3200–5600 K panel: %+v %v", s, err)
	}
	s, _ = l.SetLight(ctx, devices.LightChange{Kelvin: ptr(4449)})
	if s.Kelvin != 4400 {
		t.Errorf("4449 K applied as %d", s.Kelvin)
	}
	// The split layout: brightness and CCT frames in one write.
	cmds := fake.Commands()
	if got := fmt.Sprintf("% X", cmds[len(cmds)-1]); got != "78 82 01 32 2D 78 83 01 2C 28" {
		t.Errorf("split CCT write = %s", got)
	}
}
