package esphome_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// More entities for the fake node: a light of each sort of colour modes,
// fans with and without speeds, and buttons.
const (
	keyRGBW   = 0x2001
	keyCWWW   = 0x2002
	keyRGBCT  = 0x2003
	keyRGBWW  = 0x2004
	keyWhite  = 0x2005
	keyOnOff  = 0x2006
	keyFan3   = 0x2101
	keyFan    = 0x2102
	keyButton = 0x2201
	keyHidden = 0x2202
)

func lightEntity(id string, key uint32, mireds bool, modes ...espwire.ColorMode) *espwire.ListEntitiesLightResponse {
	l := &espwire.ListEntitiesLightResponse{EntityInfo: espwire.EntityInfo{ObjectID: id, Key: key, Name: id}, SupportedColorModes: modes}
	if mireds {
		l.MinMireds, l.MaxMireds = 153, 500
	}
	return l
}

var moreEntities = []espwire.Entity{
	lightEntity("rgbw", keyRGBW, false, espwire.ColorModeRGBWhite),
	lightEntity("cwww", keyCWWW, true, espwire.ColorModeColdWarmWhite),
	lightEntity("rgbct", keyRGBCT, true, espwire.ColorModeRGBColorTemperature),
	lightEntity("rgbww", keyRGBWW, true, espwire.ColorModeRGBColdWarmWhite),
	lightEntity("white", keyWhite, false, espwire.ColorModeWhite),
	lightEntity("onoff", keyOnOff, false, espwire.ColorModeOnOff),
	&espwire.ListEntitiesFanResponse{EntityInfo: espwire.EntityInfo{ObjectID: "fan3", Key: keyFan3, Name: "Fan3"}, SupportsSpeed: true, SupportedSpeedCount: 3},
	&espwire.ListEntitiesFanResponse{EntityInfo: espwire.EntityInfo{ObjectID: "fan", Key: keyFan, Name: "Fan"}},
	&espwire.ListEntitiesButtonResponse{EntityInfo: espwire.EntityInfo{ObjectID: "bell", Key: keyButton, Name: "Bell"}},
	&espwire.ListEntitiesButtonResponse{EntityInfo: espwire.EntityInfo{ObjectID: "restart", Key: keyHidden, Name: "Restart"},
		DeviceClass: "restart", EntityCategory: espwire.CategoryConfig},
}

func entityID(object string) devices.ID { return devices.ID("esphome:AC:BC:32:89:0E:A9/" + object) }

// startMore runs the adapter for a fake node with moreEntities, until
// every device it makes (all but the hidden button) is online.
func startMore(t *testing.T) (*esphometest.Node, *watched) {
	t.Helper()
	fake := esphometest.Start(t, esphometest.Config{Entities: moreEntities})
	return fake, startAdapterFor(t, fake, "", 4+len(moreEntities)-1)
}

// lightCase sets a change on a light and checks what the node got and
// what the hub reads back.
type lightCase struct {
	name   string
	change devices.LightChange
	sent   func(*espwire.LightCommandRequest) bool
	read   devices.LightState // Mode, Color.Hex and Kelvin are compared
}

func runLightCases(t *testing.T, fake *esphometest.Node, reg *watched, object string, key uint32, cases []lightCase) {
	t.Helper()
	l := mustGet[devices.Light](t, reg, entityID(object))
	for _, c := range cases {
		st, err := l.SetLight(context.Background(), c.change)
		if err != nil {
			t.Fatalf("%s %s: %v", object, c.name, err)
		}
		cmd := lastLightCommand(fake, key)
		if !c.sent(cmd) {
			t.Errorf("%s %s: the node got %s", object, c.name, describe(cmd))
		}
		if !st.On || st.Mode != c.read.Mode || st.Kelvin != c.read.Kelvin || hexOf(st.Color) != hexOf(c.read.Color) {
			t.Errorf("%s %s: read back %+v (colour %s), want mode %q kelvin %d colour %s",
				object, c.name, st, hexOf(st.Color), c.read.Mode, c.read.Kelvin, hexOf(c.read.Color))
		}
		again, err := l.LightState(context.Background())
		if err != nil || again.Mode != st.Mode || again.Kelvin != st.Kelvin || hexOf(again.Color) != hexOf(st.Color) {
			t.Errorf("%s %s: LightState %+v, %v after SetLight answered %+v", object, c.name, again, err, st)
		}
	}
}

func lastLightCommand(fake *esphometest.Node, key uint32) *espwire.LightCommandRequest {
	var last *espwire.LightCommandRequest
	for _, c := range received[*espwire.LightCommandRequest](fake) {
		if c.Key == key {
			last = c
		}
	}
	return last
}

func describe(c *espwire.LightCommandRequest) string {
	if c == nil {
		return "nothing"
	}
	s := "{"
	f := func(name string, v *float32) {
		if v != nil {
			s += fmt.Sprintf(" %s=%.3g", name, *v)
		}
	}
	if c.ColorMode != nil {
		s += fmt.Sprintf(" mode=%d", *c.ColorMode)
	}
	if c.RGB != nil {
		s += fmt.Sprintf(" rgb=%.3g,%.3g,%.3g", c.RGB.Red, c.RGB.Green, c.RGB.Blue)
	}
	f("brightness", c.Brightness)
	f("color_brightness", c.ColorBrightness)
	f("white", c.White)
	f("color_temperature", c.ColorTemperature)
	f("cold_white", c.ColdWhite)
	f("warm_white", c.WarmWhite)
	return s + " }"
}

func hexOf(c *devices.Color) string {
	if c == nil {
		return "-"
	}
	return c.Hex
}

func colorState(hex string) devices.LightState {
	return devices.LightState{Mode: devices.ModeColor, Color: &devices.Color{Hex: hex}}
}

func kelvinState(k int) devices.LightState {
	return devices.LightState{Mode: devices.ModeTemperature, Kelvin: color.MirekToKelvin(color.KelvinToMirek(k))}
}

func near(v *float32, want float32) bool { return v != nil && math.Abs(float64(*v-want)) < 0.005 }

func rgbNear(c *espwire.LightCommandRequest, r, g, b float32) bool {
	return c.RGB != nil && near(&c.RGB.Red, r) && near(&c.RGB.Green, g) && near(&c.RGB.Blue, b)
}

func modeIs(c *espwire.LightCommandRequest, m espwire.ColorMode) bool {
	return c != nil && c.ColorMode != nil && *c.ColorMode == m
}

func TestLightRGBW(t *testing.T) {
	fake, reg := startMore(t)
	caps := mustGet[devices.Light](t, reg, entityID("rgbw")).LightCaps()
	if !caps.Color || !caps.Dimmable || caps.KelvinMin != 0 {
		t.Fatalf("caps %+v", caps)
	}
	runLightCases(t, fake, reg, "rgbw", keyRGBW, []lightCase{
		{"saturated", devices.LightChange{Color: &devices.Color{Hex: "FF8000"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBWhite) && rgbNear(c, 1, 0.502, 0) && near(c.ColorBrightness, 1) && near(c.White, 0)
		}, colorState("FF8000")},
		{"pastel: its white on the white channel", devices.LightChange{Color: &devices.Color{Hex: "FFC080"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBWhite) && rgbNear(c, 1, 0.504, 0) && near(c.ColorBrightness, 0.992) && near(c.White, 1)
		}, colorState("FFC080")},
		{"white: the white channel alone", devices.LightChange{Color: &devices.Color{Hex: "FFFFFF"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBWhite) && near(c.ColorBrightness, 0) && near(c.White, 1)
		}, colorState("FFFFFF")},
		{"dark: a dim colour", devices.LightChange{Color: &devices.Color{Hex: "800000"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBWhite) && rgbNear(c, 1, 0, 0) && near(c.ColorBrightness, 0.502) && near(c.White, 0)
		}, colorState("800000")},
	})
	l := mustGet[devices.Light](t, reg, entityID("rgbw"))
	if _, err := l.SetLight(context.Background(), devices.LightChange{Kelvin: ptr(3000)}); !errors.Is(err, devices.ErrUnsupported) {
		t.Fatalf("a kelvin for an RGBW light: %v", err)
	}
}

func TestLightColdWarmWhite(t *testing.T) {
	fake, reg := startMore(t)
	l := mustGet[devices.Light](t, reg, entityID("cwww"))
	if caps := l.LightCaps(); caps.Color || caps.KelvinMin != 2000 || caps.KelvinMax != 6535 {
		t.Fatalf("caps %+v", caps)
	}
	runLightCases(t, fake, reg, "cwww", keyCWWW, []lightCase{
		{"kelvin: the node spreads it", devices.LightChange{Kelvin: ptr(4000), Brightness: ptr(60)}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeColdWarmWhite) && near(c.ColorTemperature, 250) && near(c.Brightness, 0.6) &&
				c.ColdWhite == nil && c.WarmWhite == nil && c.RGB == nil && c.ColorBrightness == nil
		}, kelvinState(4000)},
		{"past the warmest", devices.LightChange{Kelvin: ptr(1500)}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeColdWarmWhite) && near(c.ColorTemperature, 500)
		}, devices.LightState{Mode: devices.ModeTemperature, Kelvin: 2000}},
	})
	if st := fake.LightOf(keyCWWW); st.ColdWhite != 0 || st.WarmWhite != 1 {
		t.Errorf("the node's channels at its warmest: %+v", st)
	}
	if _, err := l.SetLight(context.Background(), devices.LightChange{Color: &devices.Color{Hex: "FF0000"}}); !errors.Is(err, devices.ErrUnsupported) {
		t.Fatalf("a colour for a cold/warm white light: %v", err)
	}

	// Firmware that reports only the channels: both full is the middle
	// of the light's mireds.
	fake.SendFrame(espwire.Encode(&espwire.LightStateResponse{Key: keyCWWW, State: true, Brightness: 1,
		ColorMode: espwire.ColorModeColdWarmWhite, ColdWhite: 1, WarmWhite: 1}))
	want := color.MirekToKelvin(327) // (153 + 500) / 2, rounded
	esphometest.WaitFor(t, "the channels read as a kelvin", reg.Changed, func() bool {
		st, _ := l.LightState(context.Background())
		return st.Mode == devices.ModeTemperature && st.Kelvin == want
	})
}

func TestLightRGBColorTemperature(t *testing.T) {
	fake, reg := startMore(t)
	runLightCases(t, fake, reg, "rgbct", keyRGBCT, []lightCase{
		{"kelvin: the colour out, the white full", devices.LightChange{Kelvin: ptr(2700)}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBColorTemperature) && near(c.ColorTemperature, 370) && near(c.ColorBrightness, 0) && near(c.White, 1)
		}, kelvinState(2700)},
		{"colour: the white out", devices.LightChange{Color: &devices.Color{Hex: "00FF00"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBColorTemperature) && rgbNear(c, 0, 1, 0) && near(c.ColorBrightness, 1) && near(c.White, 0)
		}, colorState("00FF00")},
	})
}

func TestLightRGBColdWarmWhite(t *testing.T) {
	fake, reg := startMore(t)
	runLightCases(t, fake, reg, "rgbww", keyRGBWW, []lightCase{
		{"kelvin: the colour out, the node spreads it", devices.LightChange{Kelvin: ptr(6500)}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBColdWarmWhite) && near(c.ColorTemperature, 153) && near(c.ColorBrightness, 0) &&
				c.ColdWhite == nil && c.WarmWhite == nil
		}, kelvinState(6500)},
		{"colour: both whites out", devices.LightChange{Color: &devices.Color{Hex: "0000FF"}}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBColdWarmWhite) && rgbNear(c, 0, 0, 1) && near(c.ColorBrightness, 1) &&
				near(c.ColdWhite, 0) && near(c.WarmWhite, 0)
		}, colorState("0000FF")},
		{"kelvin again", devices.LightChange{Kelvin: ptr(3000)}, func(c *espwire.LightCommandRequest) bool {
			return modeIs(c, espwire.ColorModeRGBColdWarmWhite) && near(c.ColorTemperature, 333) && near(c.ColorBrightness, 0)
		}, kelvinState(3000)},
	})
	if st := fake.LightOf(keyRGBWW); st.ColdWhite == 0 || st.WarmWhite != 1 {
		t.Errorf("the node's channels at 3000 K: %+v", st)
	}
}

func TestLightWhiteAndOnOff(t *testing.T) {
	fake, reg := startMore(t)
	ctx := context.Background()
	white := mustGet[devices.Light](t, reg, entityID("white"))
	if caps := white.LightCaps(); !caps.Dimmable || caps.Color || caps.KelvinMin != 0 {
		t.Fatalf("white caps %+v", caps)
	}
	st, err := white.SetLight(ctx, devices.LightChange{Brightness: ptr(30)})
	if err != nil || !st.On || st.Brightness != 30 || st.Mode != "" {
		t.Fatalf("white: %+v, %v", st, err)
	}
	if c := lastLightCommand(fake, keyWhite); c.ColorMode != nil || !near(c.Brightness, 0.3) || c.White != nil {
		t.Fatalf("the node got %s", describe(c))
	}
	for _, c := range []devices.LightChange{{Kelvin: ptr(3000)}, {Color: &devices.Color{Hex: "FF0000"}}} {
		if _, err := white.SetLight(ctx, c); !errors.Is(err, devices.ErrUnsupported) {
			t.Errorf("%+v on a white light: %v", c, err)
		}
	}

	onoff := mustGet[devices.Light](t, reg, entityID("onoff"))
	if caps := onoff.LightCaps(); caps.Dimmable || caps.Color {
		t.Fatalf("on/off caps %+v", caps)
	}
	for _, on := range []bool{true, false} {
		if st, err := onoff.SetLight(ctx, devices.LightChange{On: ptr(on)}); err != nil || st.On != on {
			t.Fatalf("on/off %v: %+v, %v", on, st, err)
		}
	}
}

func TestFanSpeeds(t *testing.T) {
	fake, reg := startMore(t)
	ctx := context.Background()
	if _, ok := mustGet[devices.PowerDevice](t, reg, entityID("fan")).(devices.FanSpeeder); ok {
		t.Fatal("a fan without speeds takes a speed")
	}
	fan := mustGet[devices.PowerDevice](t, reg, entityID("fan3"))
	speeder, ok := fan.(devices.FanSpeeder)
	if !ok || fan.PowerKind() != devices.PowerFan {
		t.Fatalf("the fan with speeds is a %T of kind %s", fan, fan.PowerKind())
	}
	esphometest.WaitFor(t, "the fan's first state", reg.Changed, func() bool { _, known := speeder.Speed(); return known })
	if pct, _ := speeder.Speed(); pct != 0 {
		t.Fatalf("off: speed %d", pct)
	}
	// A percentage takes the level it reaches into; a level reads as its
	// share of three.
	for _, c := range []struct {
		pct        int
		level      int32
		readsAsPct int
	}{{50, 2, 66}, {1, 1, 33}, {33, 1, 33}, {34, 2, 66}, {66, 2, 66}, {67, 3, 100}, {100, 3, 100}} {
		if err := speeder.SetSpeed(ctx, c.pct); err != nil {
			t.Fatalf("%d%%: %v", c.pct, err)
		}
		cmds := received[*espwire.FanCommandRequest](fake)
		if got := cmds[len(cmds)-1]; got.Key != keyFan3 || got.State == nil || !*got.State || got.SpeedLevel == nil || *got.SpeedLevel != c.level {
			t.Errorf("%d%%: the node got %+v", c.pct, got)
		}
		if pct, known := speeder.Speed(); !known || pct != c.readsAsPct {
			t.Errorf("%d%%: reads %d%%, %v", c.pct, pct, known)
		}
	}
	for _, bad := range []int{0, -5, 101} {
		if err := speeder.SetSpeed(ctx, bad); !errors.Is(err, devices.ErrInvalid) {
			t.Errorf("speed %d%%: %v", bad, err)
		}
	}
	if err := fan.SetPower(ctx, false); err != nil {
		t.Fatal(err)
	}
	if pct, known := speeder.Speed(); !known || pct != 0 {
		t.Fatalf("off again: %d%%, %v", pct, known)
	}
	if err := fan.SetPower(ctx, true); err != nil {
		t.Fatal(err)
	}
	if pct, _ := speeder.Speed(); pct != 100 || fake.Fan(keyFan3).SpeedLevel != 3 {
		t.Fatalf("on again at %d%%; the node: %+v", pct, fake.Fan(keyFan3))
	}
}

func TestButtons(t *testing.T) {
	fake, reg := startMore(t)
	ctx := context.Background()
	if _, ok := reg.Get(entityID("restart")); ok {
		t.Fatal("a configuration button became a device")
	}
	bell := mustGet[devices.PowerDevice](t, reg, entityID("bell"))
	if i := bell.Info(); i.Kind != devices.KindPower || bell.PowerKind() != devices.PowerButton || i.Name != "Kitchen node Bell" {
		t.Fatalf("bell: %+v, kind %s", i, bell.PowerKind())
	}
	// Off does nothing; on presses, every time; it never reads as on.
	for _, on := range []bool{false, true, false, true} {
		if err := bell.SetPower(ctx, on); err != nil {
			t.Fatalf("SetPower(%v): %v", on, err)
		}
		if st, err := bell.PowerState(ctx); st || err != nil {
			t.Fatalf("after SetPower(%v): %v, %v", on, st, err)
		}
	}
	presses := waitReceived(t, fake, "two presses", func(p []*espwire.ButtonCommandRequest) bool { return len(p) >= 2 })
	if len(presses) != 2 || presses[0].Key != keyButton || presses[1].Key != keyButton {
		t.Fatalf("the node got %+v", presses)
	}
}

// A fan's speed read back and set again keeps its level, whatever the
// number of levels.
func TestSpeedRoundTrip(t *testing.T) {
	for _, levels := range []int32{1, 2, 3, 4, 5, 6, 7, 10, 99} {
		for level := int32(1); level <= levels; level++ {
			pct := esphome.LevelPercent(level, levels)
			if got := esphome.PercentLevel(pct, levels); got != level {
				t.Errorf("%d levels: level %d reads %d%%, which sets level %d", levels, level, pct, got)
			}
		}
	}
}
