package sim_test

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func readings(t *testing.T, s *sim.Sensor) map[string]devices.Reading {
	t.Helper()
	rs, err := s.Readings(bg)
	mustOK(t, err)
	out := map[string]devices.Reading{}
	for _, r := range rs {
		out[r.Type] = r
	}
	return out
}

func TestHomeSensors(t *testing.T) {
	h := mustHome(t)
	motion := readings(t, h.Sensor("sim:office-motion"))
	if p, ok := motion[devices.ReadingMotion].Presence(); !ok || p {
		t.Errorf("motion = %+v", motion)
	}
	if lx := motion[devices.ReadingIlluminance]; lx.Unit != "lx" || lx.Value <= 0 || lx.Bool != nil {
		t.Errorf("illuminance = %+v", lx)
	}
	occ := readings(t, h.Sensor("sim:living-room-occupancy"))
	if _, ok := occ[devices.ReadingOccupancy].Presence(); !ok || len(occ) != 1 {
		t.Errorf("occupancy = %+v", occ)
	}
	climate := readings(t, h.Sensor("sim:bedroom-temperature"))
	temp, hum := climate[devices.ReadingTemperature], climate[devices.ReadingHumidity]
	if temp.Unit != "°C" || temp.Value < 15 || temp.Value > 28 || hum.Unit != "%" || hum.Value <= 0 || temp.Updated.IsZero() {
		t.Errorf("climate = %+v", climate)
	}
}

func TestSensorSetters(t *testing.T) {
	h, _, c := registered(t)
	s := h.Sensor("sim:bedroom-temperature")
	mustOK(t, s.SetReading(devices.ReadingTemperature, 23.25))
	if r := readings(t, s)[devices.ReadingTemperature]; r.Value != 23.25 || r.Unit != "°C" {
		t.Errorf("temperature = %+v", r)
	}
	wantErr(t, s.SetReading(devices.ReadingIlluminance, 3), devices.ErrInvalid)
	wantErr(t, s.SetPresence(true), devices.ErrInvalid)
	occ := h.Sensor("sim:living-room-occupancy")
	mustOK(t, occ.SetPresence(false))
	if p, _ := readings(t, occ)[devices.ReadingOccupancy].Presence(); p {
		t.Error("SetPresence(false) left it occupied")
	}
	mustOK(t, occ.SetReading(devices.ReadingOccupancy, 1))
	if p, _ := readings(t, occ)[devices.ReadingOccupancy].Presence(); !p {
		t.Error("SetReading(occupancy, 1) left it empty")
	}
	if c.count("sim:bedroom-temperature") != 1 || c.count("sim:living-room-occupancy") != 2 {
		t.Errorf("notices = %v", c.ids)
	}
}

func TestSensorSetValuesTellsOnce(t *testing.T) {
	h, _, c := registered(t)
	s := h.Sensor("sim:bedroom-temperature")
	mustOK(t, s.SetValues(map[string]float64{devices.ReadingTemperature: 19.5, devices.ReadingHumidity: 55}))
	rs := readings(t, s)
	if rs[devices.ReadingTemperature].Value != 19.5 || rs[devices.ReadingHumidity].Value != 55 || rs[devices.ReadingHumidity].Unit != "%" {
		t.Errorf("readings = %+v", rs)
	}
	wantErr(t, s.SetValues(map[string]float64{devices.ReadingTemperature: 30, devices.ReadingIlluminance: 3}), devices.ErrInvalid)
	if r := readings(t, s)[devices.ReadingTemperature]; r.Value != 19.5 {
		t.Errorf("a refused SetValues changed the temperature to %v", r.Value)
	}
	if c.count("sim:bedroom-temperature") != 1 {
		t.Errorf("notices = %v; want one for the two values", c.ids)
	}
}

func TestSensorReadingsAreCopies(t *testing.T) {
	s := sim.NewSensor("door", "Door", "", []devices.Reading{sim.BoolReading(devices.ReadingContact, true)}, sim.Options{})
	rs, err := s.Readings(bg)
	mustOK(t, err)
	*rs[0].Bool = false
	if !*s.Current()[0].Bool {
		t.Error("a caller changed the sensor through a returned reading")
	}
	if s.Info().Kind != devices.KindSensor {
		t.Errorf("kind %q", s.Info().Kind)
	}
}
