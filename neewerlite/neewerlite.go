// Package neewerlite is how Bifrost answers NeewerLite's clients: how they
// name lights, the units they send, the shape they list lights in. The
// Stream Deck API (api/streamdeck) and NeewerLite's tool set on
// /mcp/neewerlite both speak through it, so the two cannot drift apart;
// the writes themselves go through the service like any other.
//
// The facts it follows are NeewerLite's (keefo/NeewerLite), as
// shared/NEEWERLITE.md records them.
package neewerlite

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// ID is a light's id as NeewerLite's clients keep it (the Stream Deck
// plugin saves it in its buttons): the hub's device id, which stays the
// same across restarts.
func ID(l service.Light) string { return string(l.ID) }

// RawName stands in for the raw Bluetooth name NeewerLite also matches:
// the light's model ("Neewer RGB660 PRO"), or its name when it has none.
func RawName(l service.Light) string {
	if l.Model != "" {
		return l.Model
	}
	return l.Name
}

// Matches reports whether entry names l as NeewerLite matches: equal,
// ignoring case, to its id, its name or its raw name. No substrings.
func Matches(l service.Light, entry string) bool {
	return strings.EqualFold(entry, ID(l)) || strings.EqualFold(entry, l.Name) || strings.EqualFold(entry, RawName(l))
}

// Lights are the lights NeewerLite's clients see: every light of the hub
// except one merged into another device (its companion is listed).
func Lights(all []service.Light) []service.Light {
	return slices.DeleteFunc(slices.Clone(all), func(l service.Light) bool { return l.CompanionOf != "" })
}

// Match returns the lights any entry names, in the hub's order, each once.
// An entry that names nothing is passed over, as NeewerLite does.
func Match(lights []service.Light, entries []string) []service.Light {
	var out []service.Light
	for _, l := range lights {
		if slices.ContainsFunc(entries, func(e string) bool { return Matches(l, e) }) {
			out = append(out, l)
		}
	}
	return out
}

// Connected reports whether the hub can reach l now: NeewerLite's
// "connected".
func Connected(l service.Light) bool { return l.Enabled && l.Online }

// IDs are the lights' ids, a write's target.
func IDs(lights []service.Light) []string {
	out := make([]string, len(lights))
	for i, l := range lights {
		out[i] = ID(l)
	}
	return out
}

// Names are the lights' names, as NeewerLite's texts list them.
func Names(lights []service.Light) []string {
	out := make([]string, len(lights))
	for i, l := range lights {
		out[i] = l.Name
	}
	return out
}

// HasRGB reports whether l takes a colour: NeewerLite's "supportRGB".
func HasRGB(l service.Light) bool { return l.Capabilities.Color }

// Effects are l's effects, numbered from 1 in this order: NeewerLite's
// FX and scene ids are positions in this list.
func Effects(l service.Light) []string { return l.Capabilities.Effects }

// FXNumber is the effect a Stream Deck FX button asks of a light with n
// effects: sceneId when given, else fx9 on a light of at most nine
// effects, else fx17. ok is false when that is not one of the light's.
func FXNumber(n int, fx9, fx17, sceneID *int) (id int, ok bool) {
	pick := fx17
	switch {
	case sceneID != nil:
		pick = sceneID
	case n <= 9:
		pick = fx9
	}
	if pick == nil {
		return 0, false
	}
	return *pick, *pick >= 1 && *pick <= n
}

// Kelvin reads a colour temperature as NeewerLite's clients send it: in
// hundreds of kelvin up to 100 (56 is 5600 K: the Stream Deck's unit and
// NeewerLite's own), in kelvin from 1000 (NeewerLite's MCP schema says
// kelvin). Between the two, the unit cannot be told, and it is refused.
func Kelvin(v float64) (int, error) {
	switch {
	case math.IsNaN(v) || v <= 0:
		return 0, fmt.Errorf("temperature %s is not a colour temperature: give hundreds of kelvin (56 is 5600 K) or kelvin (5600)", number(v))
	case v <= 100:
		return int(math.Round(v * 100)), nil
	case v >= 1000:
		return int(math.Round(v)), nil
	}
	return 0, fmt.Errorf("temperature %s is neither hundreds of kelvin (up to 100: 56 is 5600 K) nor kelvin (1000 or more)", number(v))
}

// Hundreds is k in hundreds of kelvin, rounded.
func Hundreds(k int) int { return int(math.Round(float64(k) / 100)) }

// Percent reads a saturation or brightness as NeewerLite does: above 1 it
// is a percentage, up to 1 a fraction (1 is 100 %). The result is 0–100.
func Percent(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	if v <= 1 {
		v *= 100
	}
	return min(v, 100)
}

// Level is a 0–100 value (a brightness) as NeewerLite takes it: clamped,
// and truncated to a whole number (80.9 is 80).
func Level(v float64) int { return int(math.Max(0, math.Min(100, v))) }

// HexHue is the hue (0–360°) of a colour written as NeewerLite takes it:
// "#RRGGBB", "0xRRGGBB", "RRGGBB" or the three-digit "#RGB". Only the hue
// counts; the colour's saturation and value are not used.
func HexHue(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if len(t) > 2 && strings.EqualFold(t[:2], "0x") {
		t = t[2:]
	}
	rgb, err := color.ParseHex(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a colour: give six hex digits such as FF0000 (or #F00)", s)
	}
	h, _, _ := rgb.HSV()
	return h, nil
}

// number writes v as a person would, without a needless ".0".
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
