package service

import (
	"context"
	"fmt"

	"github.com/bifrost-hub/bifrost/devices"
)

// ListPower returns every switch, plug and fan.
func (s *Service) ListPower(ctx context.Context) ([]PowerView, error) {
	return list(ctx, s, allOf(devices.KindPower), s.powerView)
}

// GetPower returns one power device by id or name.
func (s *Service) GetPower(ctx context.Context, ref string) (PowerView, error) {
	return get(ctx, s, ref, inventory.power, s.powerView)
}

func (s *Service) powerView(inv inventory, rec DeviceRecord) PowerView {
	st := s.model.state(rec.ID)
	caps := inv.capsOf(rec)
	v := PowerView{DeviceView: s.viewWith(inv, rec, st), PowerKind: caps.PowerKind, SpeedControl: caps.Speed}
	if v.PowerKind == "" {
		v.PowerKind = devices.PowerGeneric
	}
	if st.online {
		v.On, v.Speed = st.power, st.speed // shared: the model never changes them
	}
	return v
}

// SetFanSpeed sets a fan's speed, 0–100 %; 0 switches it off.
func (s *Service) SetFanSpeed(ctx context.Context, ref string, pct int) (PowerView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return PowerView{}, err
	}
	if pct < 0 || pct > 100 {
		return PowerView{}, Errorf(EINVALID, "The speed %d is out of range; give 0 to 100 %%", pct).With("field", "speed")
	}
	if pct == 0 {
		return s.SetPower(ctx, ref, false)
	}
	return s.writePower(ctx, ref, "power.speed", fmt.Sprintf("speed=%d", pct), func(rec DeviceRecord) error {
		return s.applySpeed(ctx, rec, pct)
	})
}

// applySpeed sets a fan's speed on its worker and records what it reports.
func (s *Service) applySpeed(ctx context.Context, rec DeviceRecord, pct int) error {
	noSpeed := aboutf(EUNSUPPORTED, "%s has no speed to set; it only switches on and off", rec.Name)
	if !decodeCaps(rec).Speed {
		return noSpeed
	}
	if err := controllable(rec); err != nil {
		return err
	}
	d, err := s.live(rec)
	if err != nil {
		return err
	}
	f, ok := d.(devices.FanSpeeder)
	if !ok {
		return noSpeed
	}
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "power", func(ctx context.Context) error {
		err := f.SetSpeed(ctx, pct)
		if err == nil {
			on := true
			s.record(rec.ID, func(ds *deviceState) {
				ds.power = &on
				if got, known := f.Speed(); known {
					ds.speed = &got
				}
			})
		}
		return err
	}))
}

// SetPower switches a power device on or off.
func (s *Service) SetPower(ctx context.Context, ref string, on bool) (PowerView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return PowerView{}, err
	}
	return s.writePower(ctx, ref, "power.set", "on="+boolText(on), func(rec DeviceRecord) error {
		return s.applyPower(ctx, rec, on)
	})
}

// writePower runs one write to the power device ref, undoable and
// audited as action with detail, and answers the device's view after it.
func (s *Service) writePower(ctx context.Context, ref, action, detail string, apply func(DeviceRecord) error) (PowerView, error) {
	inv, rec, err := find(ctx, s, ref, inventory.power)
	if err != nil {
		return PowerView{}, err
	}
	u := s.undoable(ctx, "power "+rec.Name)
	s.capture(u, rec)
	err = apply(rec)
	s.audit(ctx, action, rec.Name, err, detail)
	if err != nil {
		return PowerView{}, err
	}
	s.keep(ctx, u)
	v := s.powerView(inv, rec)
	s.publishDevice(rec.ID)
	return v, nil
}

func (s *Service) applyPower(ctx context.Context, rec DeviceRecord, on bool) error {
	if err := controllable(rec); err != nil {
		return err
	}
	d, err := s.live(rec)
	if err != nil {
		return err
	}
	p, ok := d.(devices.PowerDevice)
	if _, light := d.(devices.Light); !ok && light {
		// A device that became a light (a Tasmota bulb, once read as a
		// relay) is still switched by the scenes that knew it as one.
		v, err := ParseLightPatch(LightPatch{On: &on})
		if err == nil {
			_, err = s.applyLight(ctx, rec, v)
		}
		return err
	}
	if !ok {
		return aboutf(EUNSUPPORTED, "%s cannot be switched", rec.Name)
	}
	// Only the last on/off matters: a waiting switch is superseded. A
	// button's every press counts, and off is no command at all.
	key := "power"
	if p.PowerKind() == devices.PowerButton {
		if !on {
			return nil
		}
		key = ""
	}
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, key, func(ctx context.Context) error {
		err := p.SetPower(ctx, on)
		if err == nil {
			now := on && p.PowerKind() != devices.PowerButton // a press is over at once
			s.record(rec.ID, func(ds *deviceState) { ds.power = &now })
		}
		return err
	}))
}
