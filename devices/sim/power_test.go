package sim_test

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func TestSwitch(t *testing.T) {
	s := sim.NewSwitch("heater", "Heater", "Bedroom", "", sim.Options{})
	if s.PowerKind() != devices.PowerGeneric || s.Info().Kind != devices.KindPower || s.Info().ID != "sim:heater" {
		t.Errorf("switch = %+v, kind %q", s.Info(), s.PowerKind())
	}
	on, err := s.PowerState(bg)
	mustOK(t, err)
	if on {
		t.Error("a new switch is on")
	}
	mustOK(t, s.SetPower(bg, true))
	mustOK(t, s.SetPower(bg, true))
	if on, _ := s.PowerState(bg); !on || s.Commands() != 2 {
		t.Errorf("on %v after %d commands", on, s.Commands())
	}
	s.Toggle()
	if s.On() || s.Commands() != 2 {
		t.Error("Toggle did not switch it off, or counted as a command")
	}
}

func TestHomeSwitchToggleNotifies(t *testing.T) {
	h, _, c := registered(t)
	fan := h.Switch("sim:desk-fan")
	mustOK(t, fan.SetPower(bg, true))
	if c.count("sim:desk-fan") != 0 {
		t.Error("a command was reported as a change on its own")
	}
	fan.Toggle()
	if c.count("sim:desk-fan") != 1 || fan.On() {
		t.Error("Toggle was not reported")
	}
}
