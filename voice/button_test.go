package voice

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// A button is pressed when it is named, and never by "turn everything on".
func TestButtonPressedOnlyByName(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	bell := sim.NewSwitch("doorbell", "Doorbell", "", devices.PowerButton, sim.Options{})
	sim.Register(reg, bell)
	svc := servicetest.New(t, reg, 0)
	h := &house{t: t, svc: svc, c: New(svc), ctx: service.WithPrincipal(context.Background(), service.System)}
	events, stop := svc.Events().Subscribe()
	defer stop()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for p, err := svc.GetPower(h.ctx, "Doorbell"); err != nil || !p.Online; p, err = svc.GetPower(h.ctx, "Doorbell") {
		select {
		case <-events:
		case <-deadline.C:
			t.Fatalf("the doorbell never came online: %v", err)
		}
	}

	h.say("turn everything on", "")
	if n := bell.Presses(); n != 0 {
		t.Fatalf("turning everything on pressed the doorbell %d times", n)
	}
	if a := h.say("turn on the doorbell", ""); !a.OK || bell.Presses() != 1 {
		t.Fatalf("naming the doorbell: %+v, %d presses", a, bell.Presses())
	}
}
