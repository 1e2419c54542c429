package sim

import (
	"context"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
)

var _ devices.PowerDevice = (*Switch)(nil)

// Switch is a simulated on/off device: a wall switch, a smart plug or a
// fan, as its power kind says. A button is momentary: on presses it, and
// it stays off.
type Switch struct {
	*link
	kind string

	mu      sync.Mutex // guards on and presses
	on      bool
	presses int
}

// NewSwitch makes a switch that is off. powerKind is one of the devices
// Power… kinds ("switch", "outlet", "fan", …; "" means generic). Its id is
// "sim:" + id (or the slug of name when id is empty).
func NewSwitch(id, name, room, powerKind string, opts Options) *Switch {
	if powerKind == "" {
		powerKind = devices.PowerGeneric
	}
	return &Switch{
		link: newLink(id, name, room, "Simulated "+powerKind, devices.KindPower, opts),
		kind: powerKind,
	}
}

// PowerKind says what sort of power device it is.
func (s *Switch) PowerKind() string { return s.kind }

// PowerState reads whether it is on.
func (s *Switch) PowerState(ctx context.Context) (bool, error) {
	if err := s.io(ctx); err != nil {
		return false, err
	}
	return s.On(), nil
}

// SetPower switches it on or off; a button it presses for on.
func (s *Switch) SetPower(ctx context.Context, on bool) error {
	if err := s.io(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	if s.kind == devices.PowerButton {
		if on {
			s.presses++
		}
	} else {
		s.on = on
	}
	s.mu.Unlock()
	s.applied()
	return nil
}

// On reports whether it is on, without I/O.
func (s *Switch) On() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// Presses is how many times a button has been pressed.
func (s *Switch) Presses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.presses
}

// Toggle flips it by hand, as at the wall, and tells the registry.
func (s *Switch) Toggle() {
	s.mu.Lock()
	s.on = !s.on
	s.mu.Unlock()
	s.notify()
}
