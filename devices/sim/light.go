package sim

import (
	"context"
	"slices"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

var (
	_ devices.Light     = (*Light)(nil)
	_ devices.Segmenter = (*Light)(nil)
)

// Light is a simulated lamp: a dimmable white, a tunable white, a Hue-style
// colour bulb, an HSI panel or an RGB strip, depending on its caps. A strip
// whose caps give it segments keeps a colour and brightness per segment.
type Light struct {
	*link
	caps devices.LightCaps

	mu       sync.Mutex // guards state and segments
	state    devices.LightState
	segments []Segment
}

// Segment is one segment of a strip as the simulation holds it.
type Segment struct {
	RGB        uint32 // 0xRRGGBB
	Brightness int    // 0–100 %
}

// NewLight makes a lamp that can do what caps says. Its id is "sim:" + id
// (or the slug of name when id is empty). It starts off, at full
// brightness, in the middle of its colour-temperature range (or white, for
// a colour-only lamp). Its segments, if caps gives it any, start white at
// full brightness.
func NewLight(id, name, room string, caps devices.LightCaps, opts Options) *Light {
	caps.Effects = slices.Clone(caps.Effects)
	caps.Segments = max(caps.Segments, 0)
	segs := make([]Segment, caps.Segments)
	for i := range segs {
		segs[i] = Segment{RGB: 0xFFFFFF, Brightness: 100}
	}
	return &Light{
		link:     newLink(id, name, room, "Simulated light", devices.KindLight, opts),
		caps:     caps,
		state:    initialLightState(caps),
		segments: segs,
	}
}

func initialLightState(caps devices.LightCaps) devices.LightState {
	s := devices.LightState{Brightness: 100}
	switch {
	case caps.HasTemperature():
		s.Mode = devices.ModeTemperature
		s.Kelvin = (caps.KelvinMin + caps.KelvinMax) / 200 * 100
	case caps.Color:
		s.Mode = devices.ModeColor
		s.Color = colorOf(color.RGB{R: 255, G: 255, B: 255}, caps.Gamut)
	}
	return s
}

// LightCaps says what the lamp can do.
func (l *Light) LightCaps() devices.LightCaps {
	caps := l.caps
	caps.Effects = slices.Clone(caps.Effects)
	return caps
}

// LightState reads the lamp's state from the device.
func (l *Light) LightState(ctx context.Context) (devices.LightState, error) {
	if err := l.io(ctx); err != nil {
		return devices.LightState{}, err
	}
	return l.State(), nil
}

// SetLight applies a sparse change and returns the resulting state. Only
// the fields given change; in particular brightness or a colour do not
// switch the lamp on by themselves. Kelvin selects temperature mode and
// clears colour and effect; Color selects colour mode (the lamp reports xy
// fitted to its gamut); Effect selects effect mode. A field the lamp cannot
// take is an error wrapping devices.ErrUnsupported; a value it refuses (an
// unknown effect, a kelvin outside its range) wraps devices.ErrInvalid.
func (l *Light) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	c, err := l.prepare(c)
	if err != nil {
		return devices.LightState{}, err
	}
	if err := l.io(ctx); err != nil {
		return devices.LightState{}, err
	}
	l.mu.Lock()
	applyLight(&l.state, c, l.caps)
	s := copyLightState(l.state)
	l.mu.Unlock()
	l.applied()
	return s, nil
}

// SetSegments colours the strip's segments, each change to the segment it
// names, in one command that counts in Commands. The lamp's LightState
// does not change: segments are write-only, as on the strips it stands
// for. A lamp without segments answers with an error wrapping
// devices.ErrUnsupported; a change naming a segment it lacks, or a value
// out of range, wraps devices.ErrInvalid. Both are refused before any I/O.
func (l *Light) SetSegments(ctx context.Context, segs []devices.SegmentChange) error {
	if err := l.checkSegments(segs); err != nil {
		return err
	}
	if err := l.io(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	for _, c := range segs {
		s := &l.segments[c.Index]
		if c.RGB != nil {
			s.RGB = *c.RGB
		}
		if c.Brightness != nil {
			s.Brightness = *c.Brightness
		}
	}
	l.mu.Unlock()
	l.applied()
	return nil
}

// Segments is each segment's colour and brightness as the simulation holds
// them, without I/O; nil for a lamp without segments.
func (l *Light) Segments() []Segment {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.segments) == 0 {
		return nil
	}
	return slices.Clone(l.segments)
}

// checkSegments checks segment changes against the lamp's caps.
func (l *Light) checkSegments(segs []devices.SegmentChange) error {
	n := l.caps.Segments
	if n == 0 {
		return devices.Unsupported(nil, "it has no addressable segments")
	}
	if len(segs) == 0 {
		return devices.Invalid(nil, "no segment to change")
	}
	for _, c := range segs {
		switch {
		case c.Index < 0 || c.Index >= n:
			return devices.Invalid(nil, "segment %d is not one of its segments 0–%d", c.Index, n-1)
		case c.RGB == nil && c.Brightness == nil:
			return devices.Invalid(nil, "segment %d: nothing to change", c.Index)
		case c.RGB != nil && *c.RGB > 0xFFFFFF:
			return devices.Invalid(nil, "segment %d: colour %#x is not 0xRRGGBB", c.Index, *c.RGB)
		case c.Brightness != nil && (*c.Brightness < 0 || *c.Brightness > 100):
			return devices.Invalid(nil, "segment %d: brightness %d is outside 0–100", c.Index, *c.Brightness)
		}
	}
	return nil
}

// State is the lamp's state as the simulation holds it, without I/O.
func (l *Light) State() devices.LightState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return copyLightState(l.state)
}

// SetState replaces the lamp's state as if changed by hand (a wall switch,
// the vendor's app) and tells the registry.
func (l *Light) SetState(s devices.LightState) {
	l.mu.Lock()
	l.state = copyLightState(s)
	l.mu.Unlock()
	l.notify()
}

// prepare checks a change against the lamp's caps and returns it with the
// effect name as the lamp spells it and the colour completed (hex and xy,
// xy fitted to the gamut).
func (l *Light) prepare(c devices.LightChange) (devices.LightChange, error) {
	if (c.Kelvin != nil && c.Color != nil) || (c.Kelvin != nil && c.Effect != nil) || (c.Color != nil && c.Effect != nil) {
		return c, devices.Invalid(nil, "set at most one of kelvin, colour and effect")
	}
	if err := l.checkBrightness(c.Brightness); err != nil {
		return c, err
	}
	if err := l.checkKelvin(c.Kelvin); err != nil {
		return c, err
	}
	if c.Color != nil {
		col, err := l.prepareColor(*c.Color)
		if err != nil {
			return c, err
		}
		c.Color = &col
	}
	if c.Effect != nil {
		e, err := l.canonicalEffect(*c.Effect)
		if err != nil {
			return c, err
		}
		c.Effect = &e
	}
	return c, nil
}

func (l *Light) checkBrightness(b *int) error {
	switch {
	case b == nil:
		return nil
	case !l.caps.Dimmable:
		return devices.Unsupported(nil, "it cannot be dimmed")
	case *b < 0 || *b > 100:
		return devices.Invalid(nil, "brightness %d is outside 0–100", *b)
	}
	return nil
}

func (l *Light) checkKelvin(k *int) error {
	switch {
	case k == nil:
		return nil
	case !l.caps.HasTemperature():
		return devices.Unsupported(nil, "it has no colour temperature")
	case *k < l.caps.KelvinMin || *k > l.caps.KelvinMax:
		return devices.Invalid(nil, "%d K is outside its range %d–%d K", *k, l.caps.KelvinMin, l.caps.KelvinMax)
	}
	return nil
}

// prepareColor completes a colour given by hex, by xy or by both, and fits
// its xy into the lamp's gamut, as a Hue lamp reports it.
func (l *Light) prepareColor(c devices.Color) (devices.Color, error) {
	if !l.caps.Color {
		return c, devices.Unsupported(nil, "it takes no colour")
	}
	var rgb color.RGB
	if c.Hex != "" {
		var err error
		if rgb, err = color.ParseHex(c.Hex); err != nil {
			return c, devices.Invalid(nil, "%v", err)
		}
		if c.X == 0 && c.Y == 0 {
			return *colorOf(rgb, l.caps.Gamut), nil
		}
	}
	if !(c.X >= 0 && c.X <= 1 && c.Y > 0 && c.Y <= 1) {
		return c, devices.Invalid(nil, "colour xy (%v, %v) is not a chromaticity", c.X, c.Y)
	}
	if c.Hex == "" {
		rgb = color.XYToRGB(c.X, c.Y)
	}
	return fitColor(rgb, c.X, c.Y, l.caps.Gamut), nil
}

// colorOf is rgb as a devices.Color, with its xy fitted to gamut.
func colorOf(rgb color.RGB, gamut string) *devices.Color {
	x, y, _ := rgb.XY()
	c := fitColor(rgb, x, y, gamut)
	return &c
}

// fitColor pairs rgb with (x, y) fitted to the named gamut ("" = any xy).
func fitColor(rgb color.RGB, x, y float64, gamut string) devices.Color {
	if g, ok := color.GamutByName(gamut); ok {
		p := g.Clamp(color.Point{X: x, Y: y})
		x, y = p.X, p.Y
	}
	return devices.Color{Hex: rgb.Hex(), X: x, Y: y}
}

// canonicalEffect finds an effect by name, ignoring case.
func (l *Light) canonicalEffect(name string) (string, error) {
	if len(l.caps.Effects) == 0 {
		return "", devices.Unsupported(nil, "it has no effects")
	}
	if e := choose(name, l.caps.Effects); e != "" {
		return e, nil
	}
	return "", devices.Invalid(nil, "effect %q is not one of its %d effects", name, len(l.caps.Effects))
}

// applyLight applies a prepared change to s.
func applyLight(s *devices.LightState, c devices.LightChange, caps devices.LightCaps) {
	if c.On != nil {
		s.On = *c.On
	}
	if c.Brightness != nil {
		s.Brightness = *c.Brightness
	}
	gm := s.GM
	if c.GM != nil {
		gm = *c.GM
	}
	switch {
	case c.Kelvin != nil:
		*s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeTemperature, Kelvin: *c.Kelvin}
	case c.Color != nil:
		col := *c.Color
		*s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeColor, Color: &col}
	case c.Effect != nil:
		*s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeEffect, Effect: *c.Effect}
	}
	s.GM = 0
	if caps.GM && s.Mode == devices.ModeTemperature {
		s.GM = min(max(gm, -50), 50) // the shift shows in white only
	}
}

// copyLightState is a deep copy of s.
func copyLightState(s devices.LightState) devices.LightState {
	if s.Color != nil {
		c := *s.Color
		s.Color = &c
	}
	return s
}
