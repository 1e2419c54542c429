package devices_test

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestClassReading(t *testing.T) {
	cases := []struct {
		class, unit string
		v           float64
		typ         string
		want        float64
		ok          bool
	}{
		{"temperature", "°C", 21.5, devices.ReadingTemperature, 21.5, true},
		{"temperature", "°F", 212, devices.ReadingTemperature, 100, true},
		{"", "°C", 20, devices.ReadingTemperature, 20, true},
		{"power", "kW", 1.5, devices.ReadingPower, 1500, true},
		{"energy", "Wh", 2500, devices.ReadingEnergy, 2.5, true},
		{"humidity", "%", 40, devices.ReadingHumidity, 40, true},
		{"voltage", "V", 230, "", 0, false},
		{"temperature", "furlongs", 1, "", 0, false},
	}
	for _, c := range cases {
		r, ok := devices.ClassReading(c.class, c.unit, c.v)
		if ok != c.ok || r.Type != c.typ || r.Value != c.want {
			t.Errorf("ClassReading(%q, %q, %v) = %+v, %v", c.class, c.unit, c.v, r, ok)
		}
	}
}

func TestBinaryClassReading(t *testing.T) {
	r, ok := devices.BinaryClassReading("motion", true)
	if !ok || r.Type != devices.ReadingMotion || !*r.Bool || r.Value != 1 {
		t.Fatalf("motion = %+v", r)
	}
	r, ok = devices.BinaryClassReading("door", true) // open
	if !ok || r.Type != devices.ReadingContact || *r.Bool {
		t.Fatalf("open door = %+v", r)
	}
	if _, ok := devices.BinaryClassReading("problem", true); ok {
		t.Fatal("a class the hub does not read")
	}
}
