package service_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// A button is pressed by switching it on, reads as off after, and is
// never pressed by switching its room on.
func TestButtonIsMomentary(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	bell := sim.NewSwitch("bell", "Doorbell", "Hall", devices.PowerButton, sim.Options{})
	lamp := sim.NewLight("hall-lamp", "Hall Lamp", "Hall", devices.LightCaps{Dimmable: true}, sim.Options{})
	sim.Register(reg, bell, lamp)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.System)
	until(t, "the bell to be seen", func() bool { d, _ := deviceView(t, svc, ctx, "sim:bell"); return d.Online })

	v := servicetest.Must[service.PowerView](t)(svc.SetPower(ctx, "Doorbell", true))
	if v.PowerKind != devices.PowerButton || v.On == nil || *v.On {
		t.Fatalf("after a press: kind %s, on %v", v.PowerKind, v.On)
	}
	if bell.Presses() != 1 {
		t.Fatalf("%d presses reached the device", bell.Presses())
	}
	got, err := svc.RoomTargets(ctx, "Hall", service.RoomPatch{On: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []devices.ID{"sim:hall-lamp"}) {
		t.Fatalf("switching the hall on reaches %v", got)
	}
}

// Presses made while one is under way all reach the button, and an off
// does not take the place of a press that waits.
func TestButtonPressesAreNotMerged(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	bell := sim.NewSwitch("bell", "Doorbell", "Hall", devices.PowerButton, sim.Options{})
	sim.Register(reg, bell)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.System)
	until(t, "the bell to be seen", func() bool { d, _ := deviceView(t, svc, ctx, "sim:bell"); return d.Online })

	bell.SetLatency(100 * time.Millisecond) // a press stays under way while the next queue
	errs := make(chan error, 3)
	press := func() {
		_, err := svc.SetPower(ctx, "Doorbell", true)
		errs <- err
	}
	go press()
	go press()
	until(t, "a press to wait", func() bool { return reg.Waiting("sim:bell") >= 1 })
	go press()
	until(t, "two presses to wait", func() bool { return reg.Waiting("sim:bell") >= 2 })
	if _, err := svc.SetPower(ctx, "Doorbell", false); err != nil {
		t.Fatalf("off: %v", err)
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("a press: %v", err)
		}
	}
	if bell.Presses() != 3 {
		t.Fatalf("%d of 3 presses reached the button", bell.Presses())
	}
}

// A scene keeps no state of a button: it has none.
func TestSceneSkipsButtons(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	bell := sim.NewSwitch("bell", "Doorbell", "Hall", devices.PowerButton, sim.Options{})
	plug := sim.NewSwitch("plug", "Hall Plug", "Hall", devices.PowerOutlet, sim.Options{})
	sim.Register(reg, bell, plug)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.System)
	until(t, "the hall to be seen", func() bool {
		b, _ := deviceView(t, svc, ctx, "sim:bell")
		p, _ := deviceView(t, svc, ctx, "sim:plug")
		return b.Online && p.Online
	})
	servicetest.Must[service.PowerView](t)(svc.SetPower(ctx, "Doorbell", true))
	sc := servicetest.Must[service.SceneView](t)(svc.CaptureScene(ctx, "Hall", "Hall"))
	var ids []devices.ID
	for _, e := range sc.Entries {
		ids = append(ids, e.DeviceID)
	}
	if !slices.Equal(ids, []devices.ID{"sim:plug"}) || len(sc.Skipped) != 0 {
		t.Fatalf("the scene keeps %v, skips %+v", ids, sc.Skipped)
	}
}
