package esphome_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// watched is a registry whose changes wake waiters.
type watched struct {
	*devices.Registry
	mu      sync.Mutex
	changed chan struct{}
	seen    map[devices.ID]int // changes per device
}

func newWatched() *watched {
	w := &watched{Registry: devices.NewRegistry(0), changed: make(chan struct{}), seen: map[devices.ID]int{}}
	w.Subscribe(func(c devices.Change) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.seen[c.ID]++
		close(w.changed)
		w.changed = make(chan struct{})
	})
	return w
}

func (w *watched) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

func (w *watched) changes(id devices.ID) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[id]
}

const (
	lampID   = devices.ID("esphome:AC:BC:32:89:0E:A9/ceiling")
	kettleID = devices.ID("esphome:AC:BC:32:89:0E:A9/kettle")
	tempID   = devices.ID("esphome:AC:BC:32:89:0E:A9/temperature")
	motionID = devices.ID("esphome:AC:BC:32:89:0E:A9/motion")
)

func startAdapter(t *testing.T, fake *esphometest.Node, key string) *watched {
	t.Helper()
	return startAdapterFor(t, fake, key, 4)
}

// startAdapterFor runs the adapter for fake until want devices are
// online.
func startAdapterFor(t *testing.T, fake *esphometest.Node, key string, want int) *watched {
	t.Helper()
	reg := newWatched()
	a, err := esphome.NewAdapter(esphome.AdapterConfig{
		Registry: reg.Registry, Hosts: []string{fake.Addr()}, Key: key,
		Backoff: devices.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	esphometest.WaitFor(t, fmt.Sprintf("%d devices online", want), reg.Changed, func() bool {
		n := 0
		for _, d := range reg.List() {
			if d.Online() {
				n++
			}
		}
		return n == want
	})
	return reg
}

func TestAdapterDevices(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: houseKey})
	reg := startAdapter(t, fake, houseKey)

	want := map[devices.ID]devices.Kind{lampID: devices.KindLight, kettleID: devices.KindPower, tempID: devices.KindSensor, motionID: devices.KindSensor}
	for id, kind := range want {
		d, ok := reg.Get(id)
		if !ok {
			t.Fatalf("no %s among %v", id, reg.List())
		}
		if i := d.Info(); i.Kind != kind || i.Room != "Kitchen" || i.Adapter != "esphome" {
			t.Errorf("%s: %+v", id, i)
		}
	}
	lamp, _ := reg.Get(lampID)
	if n := lamp.Info().Name; n != "Kitchen node Ceiling" {
		t.Errorf("name %q", n)
	}
	caps := lamp.(devices.Light).LightCaps()
	if !caps.Dimmable || !caps.Color || caps.KelvinMin != 2000 || caps.KelvinMax < 6500 || len(caps.Effects) != 2 {
		t.Errorf("caps %+v", caps)
	}
	kettle, _ := reg.Get(kettleID)
	if k := kettle.(devices.PowerDevice).PowerKind(); k != devices.PowerOutlet {
		t.Errorf("kettle is a %s", k)
	}
	temp := mustGet[devices.Sensor](t, reg, tempID)
	var r []devices.Reading
	var err error
	esphometest.WaitFor(t, "the first reading", reg.Changed, func() bool {
		r, err = temp.Readings(context.Background())
		return len(r) > 0 || err != nil
	})
	if err != nil || len(r) != 1 || r[0].Type != devices.ReadingTemperature || r[0].Value != 21.5 || r[0].Unit != "°C" {
		t.Fatalf("temperature = %+v, %v", r, err)
	}
}

func mustGet[T any](t *testing.T, reg *watched, id devices.ID) T {
	t.Helper()
	d, ok := reg.Get(id)
	if !ok {
		t.Fatalf("no %s", id)
	}
	v, ok := d.(T)
	if !ok {
		t.Fatalf("%s is a %T", id, d)
	}
	return v
}

func TestAdapterLightModes(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{})
	reg := startAdapter(t, fake, "")
	lamp := mustGet[devices.Light](t, reg, lampID)
	ctx := context.Background()
	set := func(c devices.LightChange) devices.LightState {
		t.Helper()
		st, err := devices.Call(ctx, reg.Registry, lampID, "light", func(ctx context.Context) (devices.LightState, error) {
			return lamp.SetLight(ctx, c)
		})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	last := func() *espwire.LightCommandRequest {
		cs := received[*espwire.LightCommandRequest](fake)
		return cs[len(cs)-1]
	}

	st := set(devices.LightChange{Color: &devices.Color{Hex: "FF8000"}})
	if !st.On || st.Mode != devices.ModeColor || st.Color.Hex != "FF8000" {
		t.Fatalf("colour: %+v", st)
	}
	if c := last(); *c.State != true || *c.ColorMode != espwire.ColorModeRGB || c.RGB.Red != 1 || c.RGB.Blue != 0 || c.ColorTemperature != nil {
		t.Fatalf("the node got %+v", c)
	}

	st = set(devices.LightChange{Kelvin: ptr(4000), Brightness: ptr(40)})
	if st.Mode != devices.ModeTemperature || st.Kelvin != 4000 || st.Brightness != 40 {
		t.Fatalf("white: %+v", st)
	}
	if c := last(); *c.ColorMode != espwire.ColorModeColorTemperature || *c.ColorTemperature != 250 || *c.Brightness != 0.4 || c.RGB != nil {
		t.Fatalf("the node got %+v", c)
	}

	st = set(devices.LightChange{Effect: ptr("Rainbow")})
	if st.Mode != devices.ModeEffect || st.Effect != "Rainbow" {
		t.Fatalf("effect: %+v", st)
	}
	st = set(devices.LightChange{On: ptr(false)})
	if st.On {
		t.Fatalf("off: %+v", st)
	}
	if _, err := lamp.SetLight(ctx, devices.LightChange{Effect: ptr("Disco")}); err == nil {
		t.Fatal("an unknown effect was sent")
	}
}

func TestAdapterPowerAndReadings(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Firmware: esphometest.Firmware2024})
	reg := startAdapter(t, fake, "")
	kettle := mustGet[devices.PowerDevice](t, reg, kettleID)
	ctx := context.Background()
	if err := kettle.SetPower(ctx, true); err != nil {
		t.Fatal(err)
	}
	if on, err := kettle.PowerState(ctx); !on || err != nil {
		t.Fatalf("kettle: %v, %v", on, err)
	}
	if c := received[*espwire.SwitchCommandRequest](fake); len(c) != 1 || c[0].Key != esphometest.KeySwitch || !c[0].State {
		t.Fatalf("the node got %+v", c)
	}

	motion := mustGet[devices.Sensor](t, reg, motionID)
	present := func() bool {
		r, _ := motion.Readings(ctx)
		p, ok := false, false
		if len(r) == 1 {
			p, ok = r[0].Presence()
		}
		return ok && p
	}
	esphometest.WaitFor(t, "the first motion state", reg.Changed, func() bool { r, _ := motion.Readings(ctx); return len(r) == 1 })
	if present() {
		t.Fatal("motion before any")
	}
	before := reg.changes(motionID)
	fake.SetMotion(true)
	esphometest.WaitFor(t, "the motion change, announced", reg.Changed, func() bool { return reg.changes(motionID) > before && present() })
}

func TestAdapterAvailability(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: houseKey})
	reg := startAdapter(t, fake, houseKey)
	lamp, _ := reg.Get(lampID)
	fake.Close()
	esphometest.WaitFor(t, "the lamp offline", reg.Changed, func() bool { return !lamp.Online() })
	if _, err := lamp.(devices.Light).SetLight(context.Background(), devices.LightChange{On: ptr(true)}); err == nil {
		t.Fatal("a command to an offline node succeeded")
	}
	fake.Restart(t)
	esphometest.WaitFor(t, "the lamp back", reg.Changed, func() bool { return lamp.Online() })
	if d, _ := reg.Get(lampID); d != lamp {
		t.Error("the device was replaced although nothing about it changed")
	}
}
