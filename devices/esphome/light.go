package esphome

import (
	"context"
	"math"
	"slices"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// light is a light entity.
//
// Its colour modes decide what a change sends, as Home Assistant's
// ESPHome integration decides it: a colour goes as channels scaled so the
// brightest is full, with their brightness apart (color_brightness); an
// RGBW light puts the white a colour holds on its white channel; a
// colour temperature goes as mireds, which a cold/warm white light
// spreads over its two channels itself. A light whose only white is an
// RGBW white channel takes no colour temperature (Home Assistant offers
// none for it either): a kelvin for it is unsupported.
type light struct {
	*entity
	meta *espwire.ListEntitiesLightResponse
}

func (l *light) Info() devices.Info { return l.info(devices.KindLight) }

// LightCaps follow the light's colour modes: brightness, RGB colour and
// colour temperature (within its mireds) where one of its modes takes
// them.
func (l *light) LightCaps() devices.LightCaps {
	var c devices.LightCaps
	for _, m := range l.meta.SupportedColorModes {
		c.Dimmable = c.Dimmable || m.Brightness()
		c.Color = c.Color || m.RGB()
		if m.Temperature() && l.meta.MinMireds > 0 && l.meta.MaxMireds >= l.meta.MinMireds {
			c.KelvinMin = color.MirekToKelvin(int(math.Round(float64(l.meta.MaxMireds))))
			c.KelvinMax = color.MirekToKelvin(int(math.Round(float64(l.meta.MinMireds))))
		}
	}
	for _, fx := range l.meta.Effects {
		if fx != "None" {
			c.Effects = append(c.Effects, fx)
		}
	}
	return c
}

func (l *light) LightState(context.Context) (devices.LightState, error) {
	st, _ := l.node.State(l.key).(*espwire.LightStateResponse)
	if st == nil && !l.Online() {
		return devices.LightState{}, devices.Unreachable(nil, "not connected")
	}
	return l.state(st), nil
}

// state reads a node's light state; nil reads as off. A mode with RGB
// and white reads as a colour while its colour part is lit
// (color_brightness above 0) and as a colour temperature otherwise; an
// RGBW light's white channel adds white to its colour, so that white
// alone reads as #FFFFFF.
func (l *light) state(st *espwire.LightStateResponse) devices.LightState {
	if st == nil {
		return devices.LightState{}
	}
	s := devices.LightState{On: st.State, Brightness: int(math.Round(float64(st.Brightness) * 100))}
	rgb, kelvin := st.ColorMode.RGB(), st.ColorMode.Temperature()
	switch {
	case st.Effect != "" && st.Effect != "None":
		s.Mode, s.Effect = devices.ModeEffect, st.Effect
	case rgb && (!kelvin || st.ColorBrightness > 0):
		c := stateColor(st)
		x, y, _ := c.XY()
		s.Mode, s.Color = devices.ModeColor, &devices.Color{Hex: c.Hex(), X: round4(x), Y: round4(y)}
	case kelvin:
		if k, ok := l.stateKelvin(st); ok {
			s.Mode, s.Kelvin = devices.ModeTemperature, k
		}
	}
	return s
}

// stateColor is the colour a state shows: its channels times their
// brightness, and on an RGBW light the white channel added to all three
// and scaled back so that the brightest of the four stays the brightest
// (Home Assistant's RGBW to RGB).
func stateColor(st *espwire.LightStateResponse) color.RGB {
	cb := st.ColorBrightness
	r, g, b := st.Red*cb, st.Green*cb, st.Blue*cb
	if w := st.White; st.ColorMode == espwire.ColorModeRGBWhite && w > 0 {
		top := max(r, g, b, w)
		r, g, b = r+w, g+w, b+w
		k := top / max(r, g, b)
		r, g, b = r*k, g*k, b*k
	}
	return color.RGB{R: channel(r), G: channel(g), B: channel(b)}
}

// stateKelvin is the colour temperature a state shows: the mireds the
// node reports, or, from firmware that reports only the channels of a
// cold/warm white light, the warm channel's share placed across the
// light's mireds.
func (l *light) stateKelvin(st *espwire.LightStateResponse) (int, bool) {
	mired := st.ColorTemperature
	lo, hi := l.meta.MinMireds, l.meta.MaxMireds
	if sum := st.ColdWhite + st.WarmWhite; mired <= 0 && st.ColorMode.ColdWarm() && sum > 0 && hi > lo {
		mired = lo + st.WarmWhite/sum*(hi-lo)
	}
	if mired <= 0 {
		return 0, false
	}
	return color.MirekToKelvin(int(math.Round(float64(mired)))), true
}

func channel(v float32) uint8 { return uint8(math.Round(float64(min(max(v, 0), 1)) * 255)) }

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Preferred colour modes for a colour temperature and for an RGB colour:
// the plainest the light has.
var (
	temperatureModes = []espwire.ColorMode{espwire.ColorModeColorTemperature, espwire.ColorModeColdWarmWhite,
		espwire.ColorModeRGBColorTemperature, espwire.ColorModeRGBColdWarmWhite}
	rgbModes = []espwire.ColorMode{espwire.ColorModeRGB, espwire.ColorModeRGBWhite,
		espwire.ColorModeRGBColorTemperature, espwire.ColorModeRGBColdWarmWhite}
)

func (l *light) mode(prefer []espwire.ColorMode) (espwire.ColorMode, bool) {
	for _, m := range prefer {
		if slices.Contains(l.meta.SupportedColorModes, m) {
			return m, true
		}
	}
	return 0, false
}

// SetLight sends the change as one LightCommandRequest; a brightness, a
// colour, a temperature or an effect turns the light on.
func (l *light) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	cmd, err := l.lightCommand(c)
	if err != nil {
		return devices.LightState{}, err
	}
	st, err := l.command(ctx, cmd, func(st espwire.State) bool { return lightDone(cmd, st) })
	if err != nil {
		return devices.LightState{}, err
	}
	ls, _ := st.(*espwire.LightStateResponse)
	return l.state(ls), nil
}

// lightDone: st shows cmd performed, as far as its state, colour mode
// and effect tell.
func lightDone(cmd *espwire.LightCommandRequest, st espwire.State) bool {
	l, ok := st.(*espwire.LightStateResponse)
	switch {
	case !ok:
		return false
	case cmd.State != nil && l.State != *cmd.State:
		return false
	case cmd.ColorMode != nil && l.ColorMode != *cmd.ColorMode:
		return false
	}
	return cmd.Effect == nil || l.Effect == *cmd.Effect
}

func (l *light) lightCommand(c devices.LightChange) (*espwire.LightCommandRequest, error) {
	cmd := &espwire.LightCommandRequest{Key: l.key, State: c.On}
	on := c.Brightness != nil || c.Kelvin != nil || c.Color != nil || c.Effect != nil
	if c.Brightness != nil {
		cmd.Brightness = ptr(float32(*c.Brightness) / 100)
	}
	if c.Kelvin != nil {
		if err := l.setKelvin(cmd, *c.Kelvin); err != nil {
			return nil, err
		}
	}
	if c.Color != nil {
		if err := l.setColor(cmd, c.Color.Hex); err != nil {
			return nil, err
		}
	}
	if c.Effect != nil {
		if *c.Effect != "None" && !slices.Contains(l.meta.Effects, *c.Effect) {
			return nil, devices.Invalid(nil, "has no effect %q", *c.Effect)
		}
		cmd.Effect = c.Effect
	}
	if on && cmd.State == nil {
		cmd.State = ptr(true)
	}
	return cmd, nil
}

// setKelvin asks for white light of a colour temperature, in mireds
// within the light's; a cold/warm white light spreads them over its
// channels itself, by its own gamma. In a mode that also has RGB the
// colour part is put out (color_brightness 0), and a separate white
// channel set full, so that only white light shows.
func (l *light) setKelvin(cmd *espwire.LightCommandRequest, kelvin int) error {
	m, ok := l.mode(temperatureModes)
	if !ok {
		return devices.Unsupported(nil, "has no colour temperature")
	}
	mired := float32(color.KelvinToMirek(kelvin))
	cmd.ColorMode, cmd.ColorTemperature = &m, ptr(min(max(mired, l.meta.MinMireds), l.meta.MaxMireds))
	if m.RGB() {
		cmd.ColorBrightness = ptr[float32](0)
	}
	if m.White() {
		cmd.White = ptr[float32](1)
	}
	return nil
}

// setColor asks for a colour: its channels scaled so that the brightest
// is full, and that channel's level as color_brightness, so that a dark
// colour is a dim one. An RGBW light takes the white the colour holds
// (the least of its channels) on its white channel; a light whose mode
// also has colour-temperature or cold/warm white has those put out, so
// that the colour shows as given.
func (l *light) setColor(cmd *espwire.LightCommandRequest, hex string) error {
	m, ok := l.mode(rgbModes)
	if !ok {
		return devices.Unsupported(nil, "takes no colour")
	}
	c, err := color.ParseHex(hex)
	if err != nil {
		return devices.Invalid(err, "%v", err)
	}
	r, g, b := float32(c.R)/255, float32(c.G)/255, float32(c.B)/255
	switch m {
	case espwire.ColorModeRGBWhite:
		var w float32
		r, g, b, w = splitWhite(r, g, b)
		cmd.White = &w
	case espwire.ColorModeRGBColorTemperature:
		cmd.White = ptr[float32](0)
	case espwire.ColorModeRGBColdWarmWhite:
		cmd.ColdWhite, cmd.WarmWhite = ptr[float32](0), ptr[float32](0)
	}
	top := max(r, g, b)
	scale := top
	if scale == 0 {
		scale = 1
	}
	cmd.ColorMode, cmd.ColorBrightness = &m, &top
	cmd.RGB = &espwire.RGB{Red: r / scale, Green: g / scale, Blue: b / scale}
	return nil
}

// splitWhite splits a colour into RGB and white, as Home Assistant does
// for an RGBW light: the least channel is the white, taken from all
// three, and the four are scaled so that the brightest is as bright as
// the colour's brightest channel.
func splitWhite(r, g, b float32) (float32, float32, float32, float32) {
	top := max(r, g, b)
	w := min(r, g, b)
	r, g, b = r-w, g-w, b-w
	if m := max(r, g, b, w); m > 0 {
		k := top / m
		r, g, b, w = r*k, g*k, b*k, w*k
	}
	return r, g, b, w
}
