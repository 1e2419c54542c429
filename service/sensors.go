package service

import (
	"context"
	"math"

	"github.com/bifrost-hub/bifrost/devices"
)

// ListSensors returns every sensor with its readings.
func (s *Service) ListSensors(ctx context.Context) ([]SensorView, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return nil, err
	}
	recs := inv.ofKind(devices.KindSensor)
	out := make([]SensorView, len(recs))
	parallel(len(recs), func(i int) { out[i] = s.sensorView(ctx, inv, recs[i]) })
	return out, nil
}

// GetSensor returns one sensor by id or name.
func (s *Service) GetSensor(ctx context.Context, ref string) (SensorView, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return SensorView{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return SensorView{}, err
	}
	rec, err := resolve("sensor", ref, inv.ofKind(devices.KindSensor), recID, recName)
	if err != nil {
		return SensorView{}, err
	}
	return s.sensorView(ctx, inv, rec), nil
}

func (s *Service) sensorView(ctx context.Context, inv inventory, rec DeviceRecord) SensorView {
	v := SensorView{DeviceView: s.view(inv, rec), Readings: []devices.Reading{}}
	rs, err := s.readings(ctx, rec)
	if err != nil {
		v.Online = false
		return v
	}
	if rs != nil {
		v.Readings = rs
	}
	return v
}

func (s *Service) readings(ctx context.Context, rec DeviceRecord) ([]devices.Reading, error) {
	d, err := s.live(rec)
	if err != nil {
		return nil, err
	}
	sn, ok := d.(devices.Sensor)
	if !ok {
		return nil, Errorf(EUNSUPPORTED, "%s is not a sensor", rec.Name)
	}
	rctx, cancel := s.readCtx(ctx)
	defer cancel()
	rs, err := sn.Readings(rctx)
	if err != nil {
		return nil, deviceError(rec.Name, err)
	}
	// A value that is not a number (NaN, ±Inf) is no reading: it could
	// not be answered as JSON, and would fail the whole answer.
	out := make([]devices.Reading, 0, len(rs))
	for _, r := range rs {
		if r.Bool != nil || (!math.IsNaN(r.Value) && !math.IsInf(r.Value, 0)) {
			out = append(out, r)
		}
	}
	return out, nil
}

// occupancy aggregates a room's presence sensors: occupied when any of them
// senses someone, unoccupied when they all answer and none does, nil when
// the room has no presence sensor that answers.
func (s *Service) occupancy(ctx context.Context, inv inventory, r Room) *bool {
	var known, present bool
	for _, rec := range membersOf(inv, r) {
		if rec.Kind != devices.KindSensor || !rec.Enabled {
			continue
		}
		rs, err := s.readings(ctx, rec)
		if err != nil {
			continue
		}
		for _, rd := range rs {
			if p, ok := rd.Presence(); ok {
				known = true
				present = present || p
			}
		}
	}
	if !known {
		return nil
	}
	return &present
}
