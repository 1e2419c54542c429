package service_test

import (
	"context"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// A device that is offline when the hub records it was not seen then: it
// reads as never seen, not as seen when it was added.
func TestADeviceOfflineWhenAddedWasNeverSeen(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	lamp := sim.NewLight("porch", "Porch Lamp", "", devices.LightCaps{Dimmable: true}, sim.Options{})
	lamp.SetUnreachable(true)
	plug := sim.NewSwitch("plug", "Plug", "", devices.PowerOutlet, sim.Options{})
	sim.Register(reg, lamp, plug)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.System)
	until(t, "the plug to be seen", func() bool {
		d, _ := deviceView(t, svc, ctx, "sim:plug")
		return d.Online && d.LastSeen != nil
	})
	if d, _ := deviceView(t, svc, ctx, "sim:porch"); d.Online || d.LastSeen != nil {
		t.Errorf("the offline lamp = online %v, last seen %v; want never seen", d.Online, d.LastSeen)
	}
}
