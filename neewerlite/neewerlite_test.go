package neewerlite_test

import (
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/neewerlite"
	"github.com/bifrost-hub/bifrost/service"
)

func TestKelvinTakesHundredsAndKelvin(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want int
		err  string
	}{
		{56, 5600, ""}, {25, 2500, ""}, {100, 10000, ""}, {32.5, 3250, ""},
		{1000, 1000, ""}, {5600, 5600, ""}, {8500.4, 8500, ""},
		{0, 0, "not a colour temperature"}, {-3, 0, "not a colour temperature"},
		{101, 0, "neither"}, {560, 0, "neither"}, {999, 0, "neither"},
	} {
		got, err := neewerlite.Kelvin(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Kelvin(%v) = %d, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Kelvin(%v) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	if h := neewerlite.Hundreds(5649); h != 56 {
		t.Errorf("Hundreds(5649) = %d; want 56", h)
	}
}

func TestPercentReadsFractionsAndPercentages(t *testing.T) {
	for in, want := range map[float64]float64{0: 0, 0.5: 50, 1: 100, 1.5: 1.5, 50: 50, 100: 100, 250: 100, -4: 0} {
		if got := neewerlite.Percent(in); got != want {
			t.Errorf("Percent(%v) = %v; want %v", in, got, want)
		}
	}
}

func TestHexHue(t *testing.T) {
	for in, want := range map[string]float64{"#FF0000": 0, "00ff00": 120, "0x0000FF": 240, "#0F0": 120, "0XFFFF00": 60, "#808000": 60} {
		if got, err := neewerlite.HexHue(in); err != nil || got != want {
			t.Errorf("HexHue(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "#12", "red", "#GG0000", "0x", "#FF00000"} {
		if _, err := neewerlite.HexHue(bad); err == nil || !strings.Contains(err.Error(), "FF0000") {
			t.Errorf("HexHue(%q): %v; want an error showing a valid colour", bad, err)
		}
	}
}

func TestFXNumberFollowsNeewerLite(t *testing.T) {
	p := func(v int) *int { return &v }
	for _, c := range []struct {
		n                int
		fx9, fx17, scene *int
		want             int
		ok               bool
	}{
		{9, p(3), p(12), nil, 3, true},     // nine effects: fx9
		{17, p(3), p(12), nil, 12, true},   // seventeen: fx17
		{17, p(3), p(12), p(5), 5, true},   // sceneId wins
		{9, p(3), p(12), p(10), 10, false}, // beyond the light's list
		{17, p(1), p(0), nil, 0, false},
		{0, p(1), p(1), nil, 1, false}, // no effects at all
		{17, p(1), nil, nil, 0, false},
	} {
		got, ok := neewerlite.FXNumber(c.n, c.fx9, c.fx17, c.scene)
		if got != c.want || ok != c.ok {
			t.Errorf("FXNumber(%d, …) = %d, %v; want %d, %v", c.n, got, ok, c.want, c.ok)
		}
	}
}

func light(id, name, model string, caps devices.LightCaps, st *devices.LightState) service.Light {
	return service.Light{
		DeviceView:   service.DeviceView{ID: devices.ID(id), Name: name, Model: model, Kind: devices.KindLight, Enabled: true, Online: true},
		Capabilities: caps, State: st,
	}
}

func TestMatchingAndListing(t *testing.T) {
	key := light("neewer:F1:2B:3C:4D:5E:6F", "Key Light", "Neewer RGB660 PRO",
		devices.LightCaps{Dimmable: true, Color: true, KelvinMin: 3200, KelvinMax: 5600, Effects: []string{"A", "B"}},
		&devices.LightState{On: true, Brightness: 80, Mode: devices.ModeTemperature, Kelvin: 4450})
	bulb := light("hass:light.hall", "Hall", "", devices.LightCaps{Dimmable: true, Color: true}, &devices.LightState{On: false, Brightness: 40})
	plain := light("mqtt:lamp", "Lamp", "", devices.LightCaps{}, nil)
	gone := light("sim:x", "Gone", "", devices.LightCaps{Dimmable: true, KelvinMin: 2700, KelvinMax: 6500}, &devices.LightState{On: true})
	gone.Online = false
	all := []service.Light{key, bulb, plain, gone}

	got := neewerlite.Names(neewerlite.Match(all, []string{"key light", "NEEWER RGB660 PRO", "hass:LIGHT.hall", "Hal", "nobody"}))
	if strings.Join(got, ",") != "Key Light,Hall" {
		t.Errorf("matched %q; want Key Light (by name and model, once) and Hall (by id), nothing by a substring", got)
	}
	for _, c := range []struct {
		l    service.Light
		want neewerlite.Listed
	}{
		{key, neewerlite.Listed{ID: "neewer:F1:2B:3C:4D:5E:6F", Name: "Key Light", CCTRange: "32-56", Brightness: "80", Temperature: "45", SupportRGB: "1", MaxChannel: "2", State: "1"}},
		{bulb, neewerlite.Listed{ID: "hass:light.hall", Name: "Hall", CCTRange: "20-65", Brightness: "40", Temperature: "43", SupportRGB: "1", MaxChannel: "0", State: "0"}},
		{plain, neewerlite.Listed{ID: "mqtt:lamp", Name: "Lamp", CCTRange: "", Brightness: "0", Temperature: "0", SupportRGB: "0", MaxChannel: "0", State: "-1"}},
		{gone, neewerlite.Listed{ID: "sim:x", Name: "Gone", CCTRange: "27-65", Brightness: "0", Temperature: "46", SupportRGB: "0", MaxChannel: "0", State: "-1"}},
	} {
		if got := neewerlite.List(c.l); got != c.want {
			t.Errorf("List(%s) =\n %+v; want\n %+v", c.l.Name, got, c.want)
		}
	}
}

func TestLevelClampsAndTruncates(t *testing.T) {
	for in, want := range map[float64]int{-3: 0, 0: 0, 80.9: 80, 100: 100, 250: 100} {
		if got := neewerlite.Level(in); got != want {
			t.Errorf("Level(%v) = %d; want %d", in, got, want)
		}
	}
}
