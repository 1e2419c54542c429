package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

var _ devices.Sensor = (*Sensor)(nil)

// units are the units of the readings that carry a value.
var units = map[string]string{
	devices.ReadingIlluminance: "lx",
	devices.ReadingTemperature: "°C",
	devices.ReadingHumidity:    "%",
}

// isBool reports whether readings of type typ carry a bool.
func isBool(typ string) bool {
	return typ == devices.ReadingMotion || typ == devices.ReadingOccupancy || typ == devices.ReadingContact
}

// BoolReading is a motion, occupancy or contact reading.
func BoolReading(typ string, v bool) devices.Reading {
	return devices.Reading{Type: typ, Bool: &v, Updated: time.Now()}
}

// ValueReading is an illuminance, temperature or humidity reading, in its
// unit (lx, °C, %).
func ValueReading(typ string, v float64) devices.Reading {
	return devices.Reading{Type: typ, Value: v, Unit: units[typ], Updated: time.Now()}
}

// Sensor is a simulated sensor with a fixed set of readings.
type Sensor struct {
	*link

	mu       sync.Mutex // guards readings
	readings []devices.Reading
}

// NewSensor makes a sensor reporting these readings (see BoolReading and
// ValueReading), one of each type. Its id is "sim:" + id (or the slug of
// name when id is empty).
func NewSensor(id, name, room string, readings []devices.Reading, opts Options) *Sensor {
	rs := make([]devices.Reading, len(readings))
	for i, r := range readings {
		rs[i] = copyReading(r)
	}
	return &Sensor{
		link:     newLink(id, name, room, "Simulated sensor", devices.KindSensor, opts),
		readings: rs,
	}
}

// Readings reads the sensor's current values.
func (s *Sensor) Readings(ctx context.Context) ([]devices.Reading, error) {
	if err := s.io(ctx); err != nil {
		return nil, err
	}
	return s.Current(), nil
}

// Current is the sensor's readings as the simulation holds them, without
// I/O.
func (s *Sensor) Current() []devices.Reading {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]devices.Reading, len(s.readings))
	for i, r := range s.readings {
		out[i] = copyReading(r)
	}
	return out
}

// SetReading sets the reading of type typ (for motion, occupancy and
// contact, v ≠ 0 means true) and tells the registry. A type the sensor
// does not report is an error wrapping devices.ErrInvalid.
func (s *Sensor) SetReading(typ string, v float64) error {
	s.mu.Lock()
	i := slices.IndexFunc(s.readings, func(r devices.Reading) bool { return r.Type == typ })
	if i < 0 {
		s.mu.Unlock()
		return devices.Invalid(nil, "it reports no %s", typ)
	}
	r := s.readings[i]
	if isBool(typ) {
		r = BoolReading(typ, v != 0)
	} else {
		r = ValueReading(typ, v)
	}
	s.readings[i] = r
	s.mu.Unlock()
	s.notify()
	return nil
}

// SetValues sets several value readings at once (illuminance,
// temperature, humidity, by type) and tells the registry once, as a
// sensor that reports them in one message does. A type the sensor does
// not report, or one that carries a bool, is an error wrapping
// devices.ErrInvalid, and nothing changes.
func (s *Sensor) SetValues(vs map[string]float64) error {
	s.mu.Lock()
	for typ := range vs {
		if isBool(typ) || !slices.ContainsFunc(s.readings, func(r devices.Reading) bool { return r.Type == typ }) {
			s.mu.Unlock()
			return devices.Invalid(nil, "it reports no %s value", typ)
		}
	}
	for i, r := range s.readings {
		if v, ok := vs[r.Type]; ok {
			s.readings[i] = ValueReading(r.Type, v)
		}
	}
	s.mu.Unlock()
	s.notify()
	return nil
}

// SetPresence sets the sensor's motion or occupancy reading and tells the
// registry. A sensor with neither is an error wrapping devices.ErrInvalid.
func (s *Sensor) SetPresence(present bool) error {
	v := 0.0
	if present {
		v = 1
	}
	for _, typ := range []string{devices.ReadingMotion, devices.ReadingOccupancy} {
		if s.has(typ) {
			return s.SetReading(typ, v)
		}
	}
	return devices.Invalid(nil, "it senses no presence")
}

func (s *Sensor) has(typ string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.readings, func(r devices.Reading) bool { return r.Type == typ })
}

// drift moves the readings a little, as the house lives on, and tells the
// registry when any moved.
func (s *Sensor) drift() {
	s.mu.Lock()
	moved := false
	for i, r := range s.readings {
		if next, ok := driftReading(r); ok {
			s.readings[i], moved = next, true
		}
	}
	s.mu.Unlock()
	if moved {
		s.notify()
	}
}

// driftReading is r one step later; ok is false when it did not move.
// Values wander within plausible bounds; motion fires now and then and
// clears on the next step; occupancy and contact flip rarely.
func driftReading(r devices.Reading) (devices.Reading, bool) {
	switch r.Type {
	case devices.ReadingTemperature:
		return ValueReading(r.Type, wander(r.Value, 0.1, 17, 25)), true
	case devices.ReadingHumidity:
		return ValueReading(r.Type, wander(r.Value, 0.5, 30, 65)), true
	case devices.ReadingIlluminance:
		return ValueReading(r.Type, wander(r.Value, 10, 5, 1000)), true
	case devices.ReadingMotion:
		if on := r.Bool != nil && *r.Bool; on || rand.IntN(10) == 0 {
			return BoolReading(r.Type, !on), true
		}
	case devices.ReadingOccupancy, devices.ReadingContact:
		if rand.IntN(50) == 0 {
			return BoolReading(r.Type, r.Bool == nil || !*r.Bool), true
		}
	}
	return r, false
}

// wander moves v by step up or down at random, staying within [lo, hi],
// rounded to one decimal.
func wander(v, step, lo, hi float64) float64 {
	if rand.IntN(2) == 0 {
		step = -step
	}
	switch {
	case v+step > hi:
		step = -math.Abs(step)
	case v+step < lo:
		step = math.Abs(step)
	}
	return math.Round((v+step)*10) / 10
}

// copyReading is a deep copy of r.
func copyReading(r devices.Reading) devices.Reading {
	if r.Bool != nil {
		b := *r.Bool
		r.Bool = &b
	}
	return r
}
