package sim_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

// faulty is the failure injection every sim device offers.
type faulty interface {
	devices.Device
	SetUnreachable(bool)
	SetLatency(time.Duration)
	Commands() int
}

// calls are every I/O method a device has, by name.
func calls(d devices.Device) map[string]func(context.Context) error {
	out := map[string]func(context.Context) error{}
	if l, ok := d.(devices.Light); ok {
		out["LightState"] = func(ctx context.Context) error { _, err := l.LightState(ctx); return err }
		out["SetLight"] = func(ctx context.Context) error {
			_, err := l.SetLight(ctx, devices.LightChange{On: ptr(true)})
			return err
		}
	}
	if sg, ok := d.(devices.Segmenter); ok && d.(devices.Light).LightCaps().Segments > 0 {
		out["SetSegments"] = func(ctx context.Context) error {
			return sg.SetSegments(ctx, []devices.SegmentChange{{Index: 0, RGB: ptr(uint32(0xFF0000))}})
		}
	}
	if m, ok := d.(devices.MediaPlayer); ok {
		out["MediaState"] = func(ctx context.Context) error { _, err := m.MediaState(ctx); return err }
		out["SetMedia"] = func(ctx context.Context) error {
			_, err := m.SetMedia(ctx, devices.MediaChange{Power: ptr(true)})
			return err
		}
	}
	if f, ok := d.(devices.FavoritePlayer); ok {
		out["Favorites"] = func(ctx context.Context) error { _, err := f.Favorites(ctx); return err }
		out["PlayFavorite"] = func(ctx context.Context) error { return f.PlayFavorite(ctx, "FV:2/3") }
	}
	if g, ok := d.(devices.Grouper); ok {
		other := livingSonos
		if d.Info().ID == livingSonos {
			other = kitchenSonos
		}
		out["JoinGroup"] = func(ctx context.Context) error { return g.JoinGroup(ctx, other) }
		out["LeaveGroup"] = g.LeaveGroup
	}
	if c, ok := d.(devices.Caster); ok {
		out["Cast"] = func(ctx context.Context) error { return c.Cast(ctx, "http://example.com/a.mp3", "audio/mpeg") }
	}
	if p, ok := d.(devices.PowerDevice); ok {
		out["PowerState"] = func(ctx context.Context) error { _, err := p.PowerState(ctx); return err }
		out["SetPower"] = func(ctx context.Context) error { return p.SetPower(ctx, true) }
	}
	if r, ok := d.(devices.Remote); ok {
		out["PressKey"] = func(ctx context.Context) error { return r.PressKey(ctx, "power") }
		out["SendText"] = func(ctx context.Context) error { return r.SendText(ctx, "x") }
		out["LaunchApp"] = func(ctx context.Context) error { return r.LaunchApp(ctx, "com.netflix.ninja") }
		out["Apps"] = func(ctx context.Context) error { _, err := r.Apps(ctx); return err }
		out["CurrentApp"] = func(ctx context.Context) error { _, err := r.CurrentApp(ctx); return err }
	}
	if cs, ok := d.(devices.ContentSearcher); ok {
		out["Search"] = func(ctx context.Context) error { _, err := cs.Search(ctx, "andor"); return err }
		out["PlayContent"] = func(ctx context.Context) error {
			return cs.PlayContent(ctx, devices.Content{ID: "https://www.disneyplus.com/series/andor"})
		}
	}
	if s, ok := d.(devices.Sensor); ok {
		out["Readings"] = func(ctx context.Context) error { _, err := s.Readings(ctx); return err }
	}
	return out
}

func TestEveryMethodFailsWhenUnreachable(t *testing.T) {
	h := mustHome(t)
	for _, d := range h.Devices() {
		f := d.(faulty)
		f.SetUnreachable(true)
		if f.Online() {
			t.Errorf("%s is online while unreachable", d.Info().Name)
		}
		for name, call := range calls(d) {
			err := call(bg)
			if !errors.Is(err, devices.ErrUnreachable) {
				t.Errorf("%s.%s while unreachable: %v", d.Info().Name, name, err)
			}
		}
		if f.Commands() != 0 {
			t.Errorf("%s counted %d commands while unreachable", d.Info().Name, f.Commands())
		}
		f.SetUnreachable(false)
		for name, call := range calls(d) {
			if err := call(bg); errors.Is(err, devices.ErrUnreachable) {
				t.Errorf("%s.%s after coming back: %v", d.Info().Name, name, err)
			}
		}
	}
}

func TestUnreachableAnswersAfterTheLatency(t *testing.T) {
	l := sim.NewLight("l", "L", "", devices.LightCaps{}, sim.Options{Latency: 30 * time.Millisecond})
	l.SetUnreachable(true)
	start := time.Now()
	_, err := l.LightState(bg)
	wantErr(t, err, devices.ErrUnreachable)
	if time.Since(start) < 30*time.Millisecond {
		t.Error("an unreachable device failed before its latency")
	}
	// The device's name is the hub's to give, as people call it.
	if want := "device unreachable"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestEveryMethodHonoursLatencyAndContext(t *testing.T) {
	h := mustHome(t)
	for _, d := range h.Devices() {
		d.(faulty).SetLatency(time.Hour)
		for name, call := range calls(d) {
			ctx, cancel := context.WithTimeout(bg, 10*time.Millisecond)
			start := time.Now()
			err := call(ctx)
			cancel()
			if !errors.Is(err, devices.ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s.%s: %v", d.Info().Name, name, err)
			}
			if time.Since(start) > time.Second {
				t.Errorf("%s.%s ignored its context", d.Info().Name, name)
			}
		}
		if n := d.(faulty).Commands(); n != 0 {
			t.Errorf("%s counted %d commands that never arrived", d.Info().Name, n)
		}
	}
}

func TestLatency(t *testing.T) {
	// A latency well above what a busy machine adds to a call, so both
	// comparisons hold however loaded the machine is.
	const latency = 300 * time.Millisecond
	sw := sim.NewSwitch("s", "S", "", devices.PowerOutlet, sim.Options{Latency: latency, Jitter: 10 * time.Millisecond})
	start := time.Now()
	mustOK(t, sw.SetPower(bg, true))
	if d := time.Since(start); d < latency {
		t.Errorf("answered in %v, before its latency", d)
	}
	sw.SetLatency(0)
	start = time.Now()
	_, err := sw.PowerState(bg)
	mustOK(t, err)
	if d := time.Since(start); d >= latency {
		t.Errorf("answered in %v with no latency", d)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	_, err = sw.PowerState(ctx)
	wantErr(t, err, context.Canceled)
}

// TestSlowRoomThroughTheRegistry sets 50 lamps of 100 ms each through their
// registry workers at once: they answer in parallel, not one after another
// (which would take 5 s).
func TestSlowRoomThroughTheRegistry(t *testing.T) {
	r := devices.NewRegistry(10 * time.Second)
	defer r.Close()
	var lights []devices.Device
	for i := range 50 {
		lights = append(lights, sim.NewLight(fmt.Sprintf("light-%d", i), fmt.Sprintf("Light %d", i), "Hall", devices.LightCaps{Dimmable: true}, sim.Options{Latency: 100 * time.Millisecond}))
	}
	sim.Register(r, lights...)
	start := time.Now()
	var wg sync.WaitGroup
	for _, d := range lights {
		wg.Go(func() {
			err := r.Do(bg, d.Info().ID, "light", func(ctx context.Context) error {
				_, err := d.(*sim.Light).SetLight(ctx, devices.LightChange{On: ptr(true), Brightness: ptr(40)})
				return err
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("50 lamps took %v", d)
	}
	for _, d := range lights {
		if l := d.(*sim.Light); l.Commands() != 1 || !l.State().On {
			t.Errorf("%s: %d commands, state %+v", l.Info().Name, l.Commands(), l.State())
		}
	}
}

func TestRegistryTimesOutASlowDevice(t *testing.T) {
	r := devices.NewRegistry(20 * time.Millisecond)
	defer r.Close()
	l := sim.NewLight("slow", "Slow", "", devices.LightCaps{}, sim.Options{Latency: time.Hour})
	sim.Register(r, l)
	err := r.Do(bg, l.Info().ID, "", func(ctx context.Context) error {
		_, err := l.LightState(ctx)
		return err
	})
	wantErr(t, err, devices.ErrTimeout)
	wantErr(t, err, devices.ErrUnreachable)
	l.SetUnreachable(true)
	err = r.Do(bg, l.Info().ID, "", func(context.Context) error { return nil })
	wantErr(t, err, devices.ErrUnreachable)
}

func TestConcurrentUse(t *testing.T) {
	h, _, _ := registered(t)
	h.SetTick(time.Millisecond)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { _ = h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }() // before the registry closes
	var wg sync.WaitGroup
	for _, d := range h.Devices() {
		for range 4 {
			wg.Go(func() {
				for i := range 50 {
					for _, call := range calls(d) {
						_ = call(ctx)
					}
					d.(faulty).SetUnreachable(i%7 == 0)
					_ = d.Online()
				}
				d.(faulty).SetUnreachable(false)
			})
		}
	}
	wg.Go(func() {
		for range 50 {
			_ = h.Trip("sim:office-motion")
			h.Switch("sim:porch-switch").Toggle()
			h.Light("sim:desk-lamp").SetState(devices.LightState{On: true, Brightness: 5})
			_ = h.Sensor("sim:bedroom-temperature").SetReading(devices.ReadingHumidity, 50)
		}
	})
	wg.Wait()
}
