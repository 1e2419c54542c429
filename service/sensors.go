package service

import (
	"context"
	"math"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// ListSensors returns every sensor with its readings.
func (s *Service) ListSensors(ctx context.Context) ([]SensorView, error) {
	return list(ctx, s, allOf(devices.KindSensor), s.sensorView)
}

// GetSensor returns one sensor by id or name.
func (s *Service) GetSensor(ctx context.Context, ref string) (SensorView, error) {
	return get(ctx, s, ref, inventory.sensor, s.sensorView)
}

func (s *Service) sensorView(inv inventory, rec DeviceRecord) SensorView {
	st := s.model.state(rec.ID)
	v := SensorView{DeviceView: s.viewWith(inv, rec, st), Readings: []devices.Reading{}}
	if st.online && st.readings != nil {
		v.Readings = st.readings
	}
	return v
}

// finiteReadings drops values that are not numbers (NaN, ±Inf): they are
// no reading, could not be answered as JSON, and would fail the whole
// answer.
func finiteReadings(rs []devices.Reading) []devices.Reading {
	out := make([]devices.Reading, 0, len(rs))
	for _, r := range rs {
		if r.Bool != nil || (!math.IsNaN(r.Value) && !math.IsInf(r.Value, 0)) {
			out = append(out, r)
		}
	}
	return out
}

// occupancy aggregates a room's presence sensors: occupied when any of them
// senses someone, unoccupied when they all answer and none does, nil when
// the room has no presence sensor that answers.
func (s *Service) occupancy(inv inventory, r Room) *bool {
	var known, present bool
	for _, rec := range membersOf(inv, r) {
		if rec.Kind != devices.KindSensor || !rec.Enabled {
			continue
		}
		st := s.model.state(rec.ID)
		if !st.online {
			continue
		}
		for _, rd := range st.readings {
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

// ReadingSink hears the readings of every sensor the model reads, as read
// at: the sensor history (a history.Recorder), given as Config.History.
// Note is called on the model's path, so it must never block.
type ReadingSink interface {
	Note(id devices.ID, rs []devices.Reading, at time.Time)
}

// noteReadings hands a sensor's readings to the history, if the hub keeps
// one. A disabled sensor's readings are not kept; what was kept stays
// until its retention ends.
func (s *Service) noteReadings(id devices.ID, rs []devices.Reading, at time.Time) {
	if s.history == nil {
		return
	}
	if inv, _ := s.model.snapshot(); !disabled(inv, id) {
		s.history.Note(id, rs, at)
	}
}

// disabled reports whether the inventory lists the device as disabled (a
// device not recorded yet is not).
func disabled(inv inventory, id devices.ID) bool {
	rec, ok := inv.byID(id)
	return ok && !rec.Enabled
}
