package hass

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// sensor is a sensor or binary_sensor entity of a kind the hub reads: one
// reading, converted to the hub's unit.
type sensor struct {
	*entity
	kind string // the reading's type: devices.ReadingTemperature, …
}

func (s *sensor) Info() devices.Info { return s.info(devices.KindSensor) }
func (s *sensor) shape() string      { return s.kind }

// Readings is the entity's one reading; none while HA has no value.
func (s *sensor) Readings(context.Context) ([]devices.Reading, error) {
	st := s.state()
	var r devices.Reading
	var ok bool
	if s.domain == "binary_sensor" {
		r, ok = binaryReading(st)
	} else {
		r, ok = sensorReading(st)
	}
	if !ok || r.Type != s.kind || unknown(st.State) {
		return []devices.Reading{}, nil
	}
	return []devices.Reading{r}, nil
}

// unitScale converts a unit HA reports into the hub's unit of a reading.
type unitScale struct {
	unit  string // the hub's
	scale func(float64) float64
}

var identity = func(v float64) float64 { return v }

// sensorUnits are the units HA reports for each device class the hub
// reads, with their conversion.
var sensorUnits = map[string]map[string]unitScale{
	devices.ReadingTemperature: {
		"°C": {"°C", identity}, "°F": {"°C", func(v float64) float64 { return (v - 32) * 5 / 9 }},
		"K": {"°C", func(v float64) float64 { return v - 273.15 }},
	},
	devices.ReadingHumidity:    {"%": {"%", identity}},
	devices.ReadingBattery:     {"%": {"%", identity}},
	devices.ReadingIlluminance: {"lx": {"lx", identity}},
	devices.ReadingPower: {
		"W": {"W", identity}, "kW": {"W", func(v float64) float64 { return v * 1000 }},
		"mW": {"W", func(v float64) float64 { return v / 1000 }}, "MW": {"W", func(v float64) float64 { return v * 1e6 }},
	},
	devices.ReadingEnergy: {
		"kWh": {"kWh", identity}, "Wh": {"kWh", func(v float64) float64 { return v / 1000 }},
		"MWh": {"kWh", func(v float64) float64 { return v * 1000 }},
	},
}

// unitTypes name a reading from its unit when HA gives no device class.
var unitTypes = map[string]string{
	"°C": devices.ReadingTemperature, "°F": devices.ReadingTemperature, "lx": devices.ReadingIlluminance,
	"W": devices.ReadingPower, "kW": devices.ReadingPower, "kWh": devices.ReadingEnergy, "Wh": devices.ReadingEnergy,
}

// sensorReading reads a sensor entity: ok when its device class (or,
// without one, its unit) is one the hub reads, in a unit it converts.
func sensorReading(st State) (devices.Reading, bool) {
	unit := attrString(st, "unit_of_measurement")
	typ := attrString(st, "device_class")
	if typ == "" {
		typ = unitTypes[unit]
	}
	conv, ok := sensorUnits[typ][unit]
	if !ok {
		return devices.Reading{}, false
	}
	r := devices.Reading{Type: typ, Unit: conv.unit, Updated: updated(st)}
	if v, err := strconv.ParseFloat(strings.TrimSpace(st.State), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		r.Value = math.Round(conv.scale(v)*1000) / 1000
	}
	return r, true
}

// binaryTypes are the binary_sensor device classes the hub reads.
var binaryTypes = map[string]string{
	"motion": devices.ReadingMotion, "occupancy": devices.ReadingOccupancy, "presence": devices.ReadingOccupancy,
	"door": devices.ReadingContact, "window": devices.ReadingContact, "opening": devices.ReadingContact,
	"garage_door": devices.ReadingContact, "contact": devices.ReadingContact,
}

// binaryReading reads a binary_sensor: motion and occupancy are true when
// on; a contact is true when closed, which HA reports as off.
func binaryReading(st State) (devices.Reading, bool) {
	typ, ok := binaryTypes[attrString(st, "device_class")]
	if !ok {
		return devices.Reading{}, false
	}
	v := st.State == "on"
	if typ == devices.ReadingContact {
		v = st.State == "off"
	}
	r := devices.Reading{Type: typ, Bool: &v, Updated: updated(st)}
	if v {
		r.Value = 1
	}
	return r, true
}
