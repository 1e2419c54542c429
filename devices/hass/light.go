package hass

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// light is a light entity. Its capabilities come from
// supported_color_modes, min/max_color_temp_kelvin and effect_list.
type light struct {
	*entity
	caps  devices.LightCaps
	modes []string // supported_color_modes
}

// HA's colour modes that take a colour, and that take one in xy or hs.
var colourModes = []string{"hs", "xy", "rgb", "rgbw", "rgbww"}

func newLight(e *entity, st State) *light {
	l := &light{entity: e, modes: attrStrings(st, "supported_color_modes")}
	for _, m := range l.modes {
		switch {
		case m == "onoff":
		case m == "color_temp":
			l.caps.Dimmable = true
			lo, okLo := attrNumber(st, "min_color_temp_kelvin")
			hi, okHi := attrNumber(st, "max_color_temp_kelvin")
			if !okLo || !okHi || lo <= 0 || hi < lo {
				lo, hi = 2000, 6500 // HA's default range
			}
			l.caps.KelvinMin, l.caps.KelvinMax = int(math.Round(lo)), int(math.Round(hi))
		case slices.Contains(colourModes, m):
			l.caps.Dimmable, l.caps.Color = true, true
		default: // brightness, white
			l.caps.Dimmable = true
		}
	}
	for _, fx := range attrStrings(st, "effect_list") {
		if fx = strings.TrimSpace(fx); fx != "" && !slices.Contains(l.caps.Effects, fx) {
			l.caps.Effects = append(l.caps.Effects, fx)
		}
	}
	return l
}

func (l *light) Info() devices.Info           { return l.info(devices.KindLight) }
func (l *light) LightCaps() devices.LightCaps { return l.caps }
func (l *light) shape() string                { return fmt.Sprint(l.caps, l.modes) }

// LightState reads the last state HA reported.
func (l *light) LightState(context.Context) (devices.LightState, error) {
	return l.stateOf(l.state()), nil
}

func (l *light) stateOf(st State) devices.LightState {
	var ls devices.LightState
	ls.On = st.State == "on"
	if !ls.On {
		return ls
	}
	ls.Brightness = 100
	if b, ok := attrNumber(st, "brightness"); ok && l.caps.Dimmable {
		ls.Brightness = pctOf255(b)
	}
	if fx := attrString(st, "effect"); fx != "" && !strings.EqualFold(fx, "off") && !strings.EqualFold(fx, "none") && slices.Contains(l.caps.Effects, fx) {
		ls.Mode, ls.Effect = devices.ModeEffect, fx
		return ls
	}
	mode := attrString(st, "color_mode")
	switch {
	case mode == "color_temp":
		if k, ok := attrNumber(st, "color_temp_kelvin"); ok {
			ls.Mode, ls.Kelvin = devices.ModeTemperature, int(math.Round(k))
		}
	case slices.Contains(colourModes, mode):
		if c, ok := colourOf(st); ok {
			ls.Mode, ls.Color = devices.ModeColor, &c
		}
	}
	return ls
}

// colourOf reads the colour HA reports: rgb_color for the hex, xy_color
// for x and y (each derived from the other when HA gives only one).
func colourOf(st State) (devices.Color, bool) {
	rgb, xy := attrNumbers(st, "rgb_color"), attrNumbers(st, "xy_color")
	var c devices.Color
	switch {
	case len(rgb) == 3:
		v := color.RGB{R: byte255(rgb[0]), G: byte255(rgb[1]), B: byte255(rgb[2])}
		c.Hex = v.Hex()
		c.X, c.Y, _ = v.XY()
	case len(xy) == 2:
		c.Hex = color.XYToRGB(xy[0], xy[1]).Hex()
	default:
		if hs := attrNumbers(st, "hs_color"); len(hs) == 2 {
			v := color.HSVToRGB(hs[0], hs[1]/100, 1)
			c.Hex = v.Hex()
			c.X, c.Y, _ = v.XY()
			return c, true
		}
		return c, false
	}
	if len(xy) == 2 {
		c.X, c.Y = xy[0], xy[1]
	}
	return c, true
}

func byte255(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(255, v)))) }

// pctOf255 is HA's 0–255 brightness as a percentage; a lit lamp is at
// least 1 %.
func pctOf255(b float64) int {
	return max(1, min(100, int(math.Round(b*100/255))))
}

// SetLight turns the change into light.turn_on or light.turn_off and
// waits for HA to report the state that results.
func (l *light) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	if c.On != nil && !*c.On {
		st, err := l.call(ctx, "light", "turn_off", nil, func(st State) bool { return st.State == "off" })
		return l.stateOf(st), err
	}
	data := map[string]any{}
	if c.Brightness != nil {
		data["brightness_pct"] = *c.Brightness
	}
	switch {
	case c.Kelvin != nil:
		data["color_temp_kelvin"] = *c.Kelvin
	case c.Color != nil:
		k, v := l.colourData(*c.Color)
		data[k] = v
	case c.Effect != nil:
		data["effect"] = *c.Effect
	}
	want := c
	st, err := l.call(ctx, "light", "turn_on", data, func(st State) bool { return l.reached(l.stateOf(st), want) })
	return l.stateOf(st), err
}

// colourData is the colour in the form the lamp's colour modes take it:
// xy when it takes xy, hs when it takes hs, rgb otherwise.
func (l *light) colourData(c devices.Color) (string, any) {
	switch {
	case slices.Contains(l.modes, "xy") && (c.X > 0 || c.Y > 0):
		return "xy_color", []float64{round4(c.X), round4(c.Y)}
	case slices.Contains(l.modes, "hs"):
		rgb, err := color.ParseHex(c.Hex)
		if err == nil {
			h, s, _ := rgb.HSV()
			return "hs_color", []float64{math.Round(h*10) / 10, math.Round(s*1000) / 10}
		}
	}
	rgb, err := color.ParseHex(c.Hex)
	if err != nil {
		rgb = color.XYToRGB(c.X, c.Y)
	}
	return "rgb_color", []int{int(rgb.R), int(rgb.G), int(rgb.B)}
}

func round4(v float64) float64 { return math.Round(v*10000) / 10000 }

// reached reports whether the lamp shows what was asked, as far as HA
// reports it: on, the brightness within a percent, the mode asked.
func (l *light) reached(ls devices.LightState, c devices.LightChange) bool {
	if !ls.On {
		return false
	}
	if c.Brightness != nil && l.caps.Dimmable && abs(ls.Brightness-max(1, *c.Brightness)) > 1 {
		return false
	}
	switch {
	case c.Kelvin != nil:
		return ls.Mode == devices.ModeTemperature && abs(ls.Kelvin-*c.Kelvin) <= 50
	case c.Color != nil:
		return ls.Mode == devices.ModeColor
	case c.Effect != nil:
		return ls.Effect == *c.Effect
	}
	return true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
