package hass

import (
	"context"

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

// SetPower calls <domain>.turn_on or turn_off and waits for the state.
func (p *power) SetPower(ctx context.Context, on bool) error {
	want, service := "off", "turn_off"
	if on {
		want, service = "on", "turn_on"
	}
	st, err := p.call(ctx, p.domain, service, nil, func(st State) bool { return st.State == want })
	if err == nil && st.State != want {
		return devices.ErrTimeout
	}
	return err
}
