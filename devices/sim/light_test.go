package sim_test

import (
	"errors"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func colourLamp() *sim.Light {
	return sim.NewLight("lamp", "Lamp", "Office", devices.LightCaps{Dimmable: true, Color: true, Gamut: "C", KelvinMin: 2000, KelvinMax: 6500, Effects: []string{"Candle", "Party"}}, sim.Options{})
}

func TestNewLightDefaults(t *testing.T) {
	l := colourLamp()
	if l.Info().ID != "sim:lamp" || l.Info().Kind != devices.KindLight || l.Info().Adapter != "sim" || l.Info().Room != "Office" {
		t.Errorf("info = %+v", l.Info())
	}
	s := l.State()
	if s.On || s.Brightness != 100 || s.Mode != devices.ModeTemperature || s.Kelvin != 4200 {
		t.Errorf("initial state = %+v", s)
	}
	if id := sim.NewLight("", "Hall Lamp", "", devices.LightCaps{}, sim.Options{}).Info().ID; id != "sim:hall-lamp" {
		t.Errorf("id from name = %q", id)
	}
	if id := sim.NewLight("sim:x", "X", "", devices.LightCaps{}, sim.Options{}).Info().ID; id != "sim:x" {
		t.Errorf("prefixed id = %q", id)
	}
	strip := sim.NewLight("strip", "Strip", "", devices.LightCaps{Color: true}, sim.Options{})
	if s := strip.State(); s.Mode != devices.ModeColor || s.Color == nil || s.Color.Hex != "FFFFFF" {
		t.Errorf("colour-only default = %+v", s)
	}
}

func TestSetLightIsSparse(t *testing.T) {
	l := colourLamp()
	s, err := l.SetLight(bg, devices.LightChange{On: ptr(true)})
	mustOK(t, err)
	if !s.On || s.Brightness != 100 || s.Kelvin != 4200 {
		t.Errorf("after on = %+v", s)
	}
	s, err = l.SetLight(bg, devices.LightChange{Brightness: ptr(30)})
	mustOK(t, err)
	if !s.On || s.Brightness != 30 || s.Mode != devices.ModeTemperature || s.Kelvin != 4200 {
		t.Errorf("after brightness = %+v", s)
	}
	s, err = l.SetLight(bg, devices.LightChange{On: ptr(false)})
	mustOK(t, err)
	if s.On || s.Brightness != 30 {
		t.Errorf("after off = %+v", s)
	}
	got, err := l.LightState(bg)
	mustOK(t, err)
	if got.On || got.Brightness != 30 || l.Commands() != 3 {
		t.Errorf("read back %+v after %d commands", got, l.Commands())
	}
}

func TestSetLightModes(t *testing.T) {
	l := colourLamp()
	s, err := l.SetLight(bg, devices.LightChange{Effect: ptr("party")})
	mustOK(t, err)
	if s.Mode != devices.ModeEffect || s.Effect != "Party" || s.Kelvin != 0 || s.Color != nil {
		t.Errorf("effect = %+v", s)
	}
	s, err = l.SetLight(bg, devices.LightChange{Color: &devices.Color{Hex: "ff0000"}})
	mustOK(t, err)
	if s.Mode != devices.ModeColor || s.Effect != "" || s.Color == nil || s.Color.Hex != "FF0000" {
		t.Fatalf("colour = %+v", s)
	}
	if x, y := s.Color.X, s.Color.Y; x < 0.6914 || x > 0.6916 || y < 0.3082 || y > 0.3084 {
		t.Errorf("red on gamut C = (%v, %v), want the red corner", x, y)
	}
	s, err = l.SetLight(bg, devices.LightChange{Kelvin: ptr(2700)})
	mustOK(t, err)
	if s.Mode != devices.ModeTemperature || s.Kelvin != 2700 || s.Color != nil || s.Effect != "" {
		t.Errorf("kelvin = %+v", s)
	}
}

func TestSetLightColourForms(t *testing.T) {
	l := colourLamp()
	s, err := l.SetLight(bg, devices.LightChange{Color: &devices.Color{X: 0.2, Y: 0.1}})
	mustOK(t, err)
	if s.Color.Hex == "" || s.Color.X != 0.2 || s.Color.Y != 0.1 {
		t.Errorf("xy only = %+v", s.Color)
	}
	s, err = l.SetLight(bg, devices.LightChange{Color: &devices.Color{Hex: "00FF00", X: 0.1, Y: 0.9}})
	mustOK(t, err)
	if want := color.GamutC.Clamp(color.Point{X: 0.1, Y: 0.9}); s.Color.X != want.X || s.Color.Y != want.Y || s.Color.Hex != "00FF00" {
		t.Errorf("out-of-gamut xy = %+v, want it fitted to %+v", s.Color, want)
	}
	hsi := sim.NewLight("hsi", "HSI", "", devices.LightCaps{Color: true}, sim.Options{})
	s, err = hsi.SetLight(bg, devices.LightChange{Color: &devices.Color{Hex: "00FF00"}})
	mustOK(t, err)
	if x, y, _ := (color.RGB{G: 255}).XY(); s.Color.X != x || s.Color.Y != y {
		t.Errorf("a lamp without gamut clamped xy: %+v", s.Color)
	}
	for _, bad := range []devices.Color{{Hex: "zz"}, {}, {X: 0.3, Y: 0}, {X: -1, Y: 0.3}, {Hex: "FFFFFF", X: 2, Y: 2}} {
		_, err := l.SetLight(bg, devices.LightChange{Color: &bad})
		wantErr(t, err, devices.ErrInvalid)
	}
}

func TestSetLightRefusals(t *testing.T) {
	white := sim.NewLight("w", "White", "", devices.LightCaps{Dimmable: true, KelvinMin: 2200, KelvinMax: 4000}, sim.Options{})
	plain := sim.NewLight("p", "Plain", "", devices.LightCaps{}, sim.Options{})
	cases := []struct {
		name   string
		light  *sim.Light
		change devices.LightChange
		want   error
	}{
		{"colour on a white lamp", white, devices.LightChange{Color: &devices.Color{Hex: "FF0000"}}, devices.ErrUnsupported},
		{"effect on a lamp without effects", white, devices.LightChange{Effect: ptr("Party")}, devices.ErrUnsupported},
		{"kelvin on a lamp without temperature", plain, devices.LightChange{Kelvin: ptr(3000)}, devices.ErrUnsupported},
		{"brightness on a lamp without dimming", plain, devices.LightChange{Brightness: ptr(50)}, devices.ErrUnsupported},
		{"unknown effect", colourLamp(), devices.LightChange{Effect: ptr("Disco")}, devices.ErrInvalid},
		{"empty effect", colourLamp(), devices.LightChange{Effect: ptr("")}, devices.ErrInvalid},
		{"kelvin below range", white, devices.LightChange{Kelvin: ptr(2000)}, devices.ErrInvalid},
		{"kelvin above range", white, devices.LightChange{Kelvin: ptr(4001)}, devices.ErrInvalid},
		{"brightness above 100", white, devices.LightChange{Brightness: ptr(101)}, devices.ErrInvalid},
		{"brightness below 0", white, devices.LightChange{Brightness: ptr(-1)}, devices.ErrInvalid},
		{"two modes", colourLamp(), devices.LightChange{Kelvin: ptr(3000), Effect: ptr("Party")}, devices.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.light.State()
			_, err := c.light.SetLight(bg, c.change)
			wantErr(t, err, c.want)
			if after := c.light.State(); after.On != before.On || after.Mode != before.Mode || after.Brightness != before.Brightness {
				t.Errorf("a refused change moved the state: %+v → %+v", before, after)
			}
		})
	}
	if white.Commands() != 0 || plain.Commands() != 0 {
		t.Error("refused commands were counted")
	}
}

func TestHomeLightEffects(t *testing.T) {
	h := mustHome(t)
	key := h.Light("sim:key-light")
	s, err := key.SetLight(bg, devices.LightChange{Effect: ptr("Cop Car")})
	mustOK(t, err)
	if s.Effect != "Cop Car" {
		t.Errorf("key light effect = %q", s.Effect)
	}
	_, err = key.SetLight(bg, devices.LightChange{Effect: ptr("Rainbow")})
	wantErr(t, err, devices.ErrInvalid)
	_, err = h.Light("sim:fill-light").SetLight(bg, devices.LightChange{Color: &devices.Color{Hex: "FF0000"}})
	wantErr(t, err, devices.ErrUnsupported)
	_, err = h.Light("sim:rope-light").SetLight(bg, devices.LightChange{Kelvin: ptr(3000)})
	wantErr(t, err, devices.ErrUnsupported)
	s, err = h.Light("sim:rope-light").SetLight(bg, devices.LightChange{Effect: ptr("Meteor")})
	mustOK(t, err)
	if s.Mode != devices.ModeEffect {
		t.Errorf("rope light = %+v", s)
	}
}

func TestLightStateIsACopy(t *testing.T) {
	l := colourLamp()
	s, err := l.SetLight(bg, devices.LightChange{Color: &devices.Color{Hex: "FF0000"}})
	mustOK(t, err)
	s.Color.Hex = "000000"
	caps := l.LightCaps()
	caps.Effects[0] = "Changed"
	if l.State().Color.Hex != "FF0000" || l.LightCaps().Effects[0] != "Candle" {
		t.Error("callers can change the lamp through returned values")
	}
}

func TestSetStateNotifies(t *testing.T) {
	h, _, c := registered(t)
	l := h.Light("sim:bedside-lamp")
	l.SetState(devices.LightState{On: true, Brightness: 10, Mode: devices.ModeTemperature, Kelvin: 2200})
	if c.count("sim:bedside-lamp") != 1 || !l.State().On || l.Commands() != 0 {
		t.Error("SetState did not change the lamp and tell the registry, or counted as a command")
	}
}

func ropeLight(t *testing.T) *sim.Light {
	t.Helper()
	l := mustHome(t).Light("sim:rope-light")
	if l == nil {
		t.Fatal("the home has no rope light")
	}
	return l
}

func TestSetSegmentsKeepsEachSegment(t *testing.T) {
	l := ropeLight(t)
	before := l.State()
	segs := l.Segments()
	if len(segs) != 15 || segs[0] != (sim.Segment{RGB: 0xFFFFFF, Brightness: 100}) {
		t.Fatalf("initial segments = %+v", segs)
	}
	mustOK(t, l.SetSegments(bg, []devices.SegmentChange{
		{Index: 0, RGB: ptr(uint32(0xFF0000))},
		{Index: 1, RGB: ptr(uint32(0x0000FF)), Brightness: ptr(50)},
		{Index: 14, Brightness: ptr(0)},
	}))
	segs = l.Segments()
	want := map[int]sim.Segment{0: {0xFF0000, 100}, 1: {0x0000FF, 50}, 2: {0xFFFFFF, 100}, 14: {0xFFFFFF, 0}}
	for i, w := range want {
		if segs[i] != w {
			t.Errorf("segment %d = %+v, want %+v", i, segs[i], w)
		}
	}
	if l.Commands() != 1 {
		t.Errorf("%d commands; want the one SetSegments", l.Commands())
	}
	if after := l.State(); after.Mode != before.Mode || after.Effect != before.Effect || after.Brightness != before.Brightness {
		t.Errorf("segments changed the light's state: %+v → %+v", before, after)
	}
	segs[0].RGB = 0 // a copy: the lamp keeps its own
	if l.Segments()[0].RGB != 0xFF0000 {
		t.Error("Segments handed out the lamp's own slice")
	}
}

func TestSetSegmentsRefuses(t *testing.T) {
	l := ropeLight(t)
	for name, segs := range map[string][]devices.SegmentChange{
		"none":           nil,
		"negative":       {{Index: -1, RGB: ptr(uint32(1))}},
		"past the end":   {{Index: 15, RGB: ptr(uint32(1))}},
		"empty change":   {{Index: 3}},
		"not a colour":   {{Index: 3, RGB: ptr(uint32(0x1000000))}},
		"too bright":     {{Index: 3, Brightness: ptr(101)}},
		"below darkness": {{Index: 3, Brightness: ptr(-1)}},
	} {
		if err := l.SetSegments(bg, segs); !errors.Is(err, devices.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if l.Commands() != 0 {
		t.Errorf("refused changes counted %d commands", l.Commands())
	}
	err := colourLamp().SetSegments(bg, []devices.SegmentChange{{Index: 0, RGB: ptr(uint32(1))}})
	wantErr(t, err, devices.ErrUnsupported)
	if colourLamp().Segments() != nil {
		t.Error("a lamp without segments lists some")
	}
}
