package devices

import (
	"math"
	"strings"
)

// The device classes Home Assistant defines for sensors are what ESPHome
// nodes, MQTT discovery and Home Assistant itself say a sensor measures.
// ClassReading and BinaryClassReading read them into the hub's readings.

// sensorClasses are the numeric device classes the hub reads.
var sensorClasses = map[string]string{
	"temperature": ReadingTemperature,
	"humidity":    ReadingHumidity,
	"illuminance": ReadingIlluminance,
	"power":       ReadingPower,
	"energy":      ReadingEnergy,
	"battery":     ReadingBattery,
}

// unitClasses name a reading from its unit when a sensor has no class.
var unitClasses = map[string]string{
	"°C": ReadingTemperature, "°F": ReadingTemperature, "lx": ReadingIlluminance,
	"W": ReadingPower, "kW": ReadingPower, "kWh": ReadingEnergy, "Wh": ReadingEnergy,
}

// binaryClasses are the binary device classes the hub reads; a contact
// reads true when closed, so an opening that is on (open) reads false.
var binaryClasses = map[string]struct {
	typ      string
	inverted bool
}{
	"motion":      {ReadingMotion, false},
	"occupancy":   {ReadingOccupancy, false},
	"presence":    {ReadingOccupancy, false},
	"door":        {ReadingContact, true},
	"window":      {ReadingContact, true},
	"opening":     {ReadingContact, true},
	"garage_door": {ReadingContact, true},
}

// ClassReading is the reading a numeric sensor of device class class (or,
// with none, of unit unit) gives for v, in the hub's unit for it (a
// temperature in °F or K in °C, a power in kW in W, an energy in Wh in
// kWh). ok is false for a class the hub does not read, a unit it cannot
// convert, or a value that is not a number.
func ClassReading(class, unit string, v float64) (r Reading, ok bool) {
	typ := sensorClasses[class]
	if class == "" {
		typ = unitClasses[unit]
	}
	if typ == "" || math.IsNaN(v) || math.IsInf(v, 0) {
		return Reading{}, false
	}
	v, ok = ToReadingUnit(typ, unit, v)
	if !ok {
		return Reading{}, false
	}
	return Reading{Type: typ, Value: math.Round(v*1000) / 1000, Unit: ReadingUnits[typ]}, true
}

// ToReadingUnit converts v from unit to the unit of a reading of type
// typ; ok is false for a unit it does not know.
func ToReadingUnit(typ, unit string, v float64) (float64, bool) {
	u := strings.TrimPrefix(unit, "°")
	switch {
	case u == "" || unit == ReadingUnits[typ]:
		return v, true
	case typ == ReadingTemperature && u == "F":
		return (v - 32) * 5 / 9, true
	case typ == ReadingTemperature && u == "K":
		return v - 273.15, true
	case typ == ReadingPower && u == "kW":
		return v * 1000, true
	case typ == ReadingEnergy && u == "Wh":
		return v / 1000, true
	case typ == ReadingEnergy && u == "MWh":
		return v * 1000, true
	}
	return 0, false
}

// BinaryClassReading is the reading a binary sensor of device class class
// gives when on; ok is false for a class the hub does not read.
func BinaryClassReading(class string, on bool) (Reading, bool) {
	c, ok := binaryClasses[class]
	if !ok {
		return Reading{}, false
	}
	v := on != c.inverted
	r := Reading{Type: c.typ, Bool: &v}
	if v {
		r.Value = 1
	}
	return r, true
}

// SensorClass is the reading type of a numeric device class the hub
// reads.
func SensorClass(class string) (typ string, ok bool) {
	typ, ok = sensorClasses[class]
	return typ, ok
}

// BinaryClass is the reading type of a binary device class the hub
// reads, and whether "on" reads false (an opening that is open).
func BinaryClass(class string) (typ string, inverted, ok bool) {
	c, ok := binaryClasses[class]
	return c.typ, c.inverted, ok
}
