package lightimage

import (
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// look is all a picture shows of a light, and so the key its picture is
// kept under: two lights that look alike share one picture.
type look struct {
	form Form
	// lit is true for a light that is online and on.
	lit bool
	// offline marks a light the hub cannot reach.
	offline bool
	// level is the brightness, 0–100, of a lit light.
	level int
	// colour is the colour a lit light shows (its white, for a white).
	colour color.RGB
	// effect is true while a lit light runs an effect.
	effect bool
	// segments is how many segments a strip shows, at most maxSegments.
	segments int
}

// warmWhite is what a light shows that says no colour of its own: an
// effect that reports none, a lamp that knows only on and off.
const warmWhite = 2700

// maxSegments bounds the segment marks a strip shows: more would blur
// into a dotted line.
const maxSegments = 24

// lookOf is how l looks now.
func lookOf(l service.Light) look {
	lk := look{form: FormOf(l), offline: !l.Online}
	if lk.form == FormStrip {
		lk.segments = min(l.Capabilities.Segments, maxSegments)
	}
	st := l.State
	if !l.Online || st == nil || !st.On {
		return lk
	}
	lk.lit = true
	lk.level = min(max(st.Brightness, 0), 100)
	if !l.Capabilities.Dimmable && lk.level == 0 {
		lk.level = 100 // a switch-only lamp is at full when on
	}
	lk.colour = colourOf(*st)
	lk.effect = st.Mode == devices.ModeEffect
	return lk
}

// colourOf is the colour a lit light shows: the colour of its mode, else
// whatever colour or white it last reported, else a warm white.
func colourOf(st devices.LightState) color.RGB {
	hex, hexOK := colourHex(st)
	switch {
	case st.Mode == devices.ModeTemperature && st.Kelvin > 0:
		return color.White(st.Kelvin, st.GM)
	case hexOK:
		return hex
	case st.Kelvin > 0:
		return color.White(st.Kelvin, st.GM)
	}
	return color.KelvinToRGB(warmWhite)
}

// colourHex is the light's reported colour, when it reported a valid one.
func colourHex(st devices.LightState) (color.RGB, bool) {
	if st.Color == nil || st.Color.Hex == "" {
		return color.RGB{}, false
	}
	c, err := color.ParseHex(st.Color.Hex)
	return c, err == nil
}
