package hass

import (
	"context"
	"math"

	"github.com/bifrost-hub/bifrost/devices"
)

// power is a switch, input_boolean or fan entity: on and off.
type power struct{ *entity }

func (p *power) Info() devices.Info { return p.info(devices.KindPower) }

// PowerKind: a fan, an outlet (a switch of device class outlet), a helper
// toggle, or a switch.
func (p *power) PowerKind() string {
	switch p.domain {
	case "fan":
		return devices.PowerFan
	case "input_boolean":
		return devices.PowerToggle
	}
	if attrString(p.state(), "device_class") == "outlet" {
		return devices.PowerOutlet
	}
	return devices.PowerSwitch
}

func (p *power) PowerState(context.Context) (bool, error) {
	return p.state().State == "on", nil
}

func (p *power) SetPower(ctx context.Context, on bool) error { return p.switchTo(ctx, on) }

// switchTo calls <domain>.turn_on or turn_off and waits for HA to report
// the entity so; HA answering without the state following is a timeout.
func (e *entity) switchTo(ctx context.Context, on bool) error {
	want, service := "off", "turn_off"
	if on {
		want, service = "on", "turn_on"
	}
	st, err := e.call(ctx, e.domain, service, nil, func(st State) bool { return st.State == want })
	if err == nil && st.State != want {
		return devices.ErrTimeout
	}
	return err
}

// fanSetSpeed is FanEntityFeature.SET_SPEED: the fan takes a percentage.
const fanSetSpeed = 1

// speedFan is a fan entity that takes a speed (fan.set_percentage).
type speedFan struct{ *power }

func (f *speedFan) shape() string { return "speed" }

// Speed is HA's percentage attribute.
func (f *speedFan) Speed() (int, bool) {
	st := f.state()
	if st.State == "off" {
		return 0, true
	}
	pct, ok := attrNumber(st, "percentage")
	if !ok {
		return 0, false
	}
	return max(0, min(100, int(math.Round(pct)))), true
}

// SetSpeed calls fan.set_percentage and waits for HA to report the fan on
// at that speed, to within one of its steps.
func (f *speedFan) SetSpeed(ctx context.Context, pct int) error {
	step := 1.0
	if s, ok := attrNumber(f.state(), "percentage_step"); ok && s > 0 {
		step = s
	}
	st, err := f.call(ctx, "fan", "set_percentage", map[string]any{"percentage": pct}, func(st State) bool {
		got, ok := attrNumber(st, "percentage")
		return st.State == "on" && ok && math.Abs(got-float64(pct)) <= step
	})
	if err == nil && st.State != "on" {
		return devices.ErrTimeout
	}
	return err
}
