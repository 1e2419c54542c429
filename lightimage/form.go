package lightimage

import (
	"regexp"
	"sync"

	"github.com/bifrost-hub/bifrost/service"
)

// Form is the shape of a light's fixture, as the picture draws it.
type Form string

// The forms a light is drawn in.
const (
	// FormPanel is a flat rectangular panel on a yoke (Neewer RGB660,
	// SL90, GL1; a key light; the form of a Neewer light the hub cannot
	// place).
	FormPanel Form = "panel"
	// FormTube is a long bar lit along its length (Neewer TL60, TL120C,
	// BH-30S; a light bar).
	FormTube Form = "tube"
	// FormBulb is a pear-shaped bulb on a screw base (A19, E27; any light
	// the hub cannot place otherwise).
	FormBulb Form = "bulb"
	// FormStrip is a band of LEDs in a gentle wave (an LED strip, a neon
	// rope, WLED; any light with addressable segments).
	FormStrip Form = "strip"
	// FormLamp is a shaded table lamp (a desk, floor or bedside lamp, a
	// Hue Go).
	FormLamp Form = "lamp"
	// FormRing is a ring light on a stand (Neewer RP18B, GR18C).
	FormRing Form = "ring"
	// FormSpot is a round COB light in its reflector (Neewer's CB, MS and
	// FS monolights; a spotlight, a fresnel).
	FormSpot Form = "spot"
)

// Forms are every form, in the order FormOf tries them on a name.
func Forms() []Form {
	return []Form{FormStrip, FormRing, FormTube, FormSpot, FormLamp, FormBulb, FormPanel}
}

// formWords are the words, model names and product codes that place a
// light in a form, tried in the order of Forms: a "strip lamp" is a
// strip, a "floor lamp with an E27 bulb" a lamp. Neewer's model names
// carry their form in their letters: TL and BH are tubes, RP and GR ring
// lights, CB, MS and FS COB monolights, the rest (RGB660, SL90, GL1, NL660,
// CL124) panels. They are compiled at their first use, not at start.
var formWords = sync.OnceValue(func() map[Form]*regexp.Regexp {
	return map[Form]*regexp.Regexp{
		FormStrip: regexp.MustCompile(`(?i)strip|\b(rope|neon|tape|wled)\b`),
		FormRing:  regexp.MustCompile(`(?i)\bring ?lights?\b|\bring\b|\b(rp|gr)\d`),
		FormTube:  regexp.MustCompile(`(?i)\b(tubes?|wand|stick|light ?bars?)\b|\b(tl|bh)-?\d`),
		FormSpot:  regexp.MustCompile(`(?i)\b(cob|monolight|spot(light)?s?|fresnel)\b|\b(cb|ms|fs)\d`),
		FormLamp:  regexp.MustCompile(`(?i)lamp|\bhue go\b`),
		FormBulb:  regexp.MustCompile(`(?i)bulb|\b(a19c?|a60|a21|br30|par\d\d|e1[24]|e2[67]|b22|gu10|mr16)\b`),
		FormPanel: regexp.MustCompile(`(?i)panel|softbox|nanoleaf|\bkey ?light\b|\b(rgb|sl|gl|snl|nl|cl|pl)-?\d|\brgb-p\d|\brgb ?c\d`),
	}
})

// neewerAdapter is the adapter name of Neewer lights, whose unplaced
// models are drawn as panels (the form most of them have).
const neewerAdapter = "neewer"

// FormOf is the form a light is drawn in: what its model says, else what
// its name says, else a strip for a light with segments, a panel for a
// Neewer light and a bulb for anything else.
func FormOf(l service.Light) Form {
	for _, text := range []string{l.Model, l.Name} {
		if f, ok := formIn(text); ok {
			return f
		}
	}
	switch {
	case l.Capabilities.Segments > 0:
		return FormStrip
	case l.Adapter == neewerAdapter:
		return FormPanel
	}
	return FormBulb
}

// formIn is the first form whose words text has.
func formIn(text string) (Form, bool) {
	if text == "" {
		return "", false
	}
	for _, f := range Forms() {
		if formWords()[f].MatchString(text) {
			return f, true
		}
	}
	return "", false
}
