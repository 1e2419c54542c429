package color

import (
	"slices"
	"strings"
)

// Preset kinds.
const (
	PresetGel    = "gel"    // a colour filter
	PresetSource = "source" // a kind of white light
)

// Preset is a named look a lamp can take: a light source (a white of a
// given colour temperature and green–magenta shift) or a gel (a colour
// filter). Sources and colour-correction gels carry Kelvin and GM: a lamp
// with a colour temperature takes those (GM where it can). Every preset
// carries Hex, its colour on a lamp that takes only colour; creative gels
// have Hex alone.
type Preset struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`             // "gel" | "source"
	Kelvin int    `json:"kelvin,omitempty"` // 0 for creative gels
	GM     int    `json:"gm,omitempty"`     // −50 full green … +50 full magenta
	Hex    string `json:"hex"`              // "RRGGBB"
}

// sources are light sources by their nominal colour temperature; GM
// leans green for the discharge lamps whose spectrum does.
var sources = []Preset{
	{Name: "Candle", Kelvin: 1900},
	{Name: "Sodium Vapour", Kelvin: 2100, GM: -10},
	{Name: "Household Tungsten", Kelvin: 2700},
	{Name: "Halogen", Kelvin: 3000},
	{Name: "Warm White Fluorescent", Kelvin: 3000, GM: -10},
	{Name: "Tungsten", Kelvin: 3200},
	{Name: "Photoflood", Kelvin: 3400},
	{Name: "Golden Hour", Kelvin: 3500},
	{Name: "Cool White Fluorescent", Kelvin: 4100, GM: -15},
	{Name: "Horizon Daylight", Kelvin: 5000},
	{Name: "Sunlight", Kelvin: 5500},
	{Name: "Daylight", Kelvin: 5600},
	{Name: "Dysprosic Lamp", Kelvin: 5900},
	{Name: "HMI", Kelvin: 6000},
	{Name: "Xenon Short-Arc", Kelvin: 6200},
	{Name: "Overcast Sky", Kelvin: 6500},
	{Name: "Shade", Kelvin: 7500},
	{Name: "Blue Sky", Kelvin: 10000},
}

// correction are the colour-correction gel families as the result they
// give: the orange (CTO) ones on a 5600 K daylight source, the blue (CTB)
// ones on a 3200 K tungsten source, the green and minus-green ones on
// daylight.
var correction = []Preset{
	{Name: "Full CTO", Kelvin: 3200},
	{Name: "1/2 CTO", Kelvin: 3800},
	{Name: "1/4 CTO", Kelvin: 4600},
	{Name: "1/8 CTO", Kelvin: 5000},
	{Name: "Full CTB", Kelvin: 5600},
	{Name: "1/2 CTB", Kelvin: 4300},
	{Name: "1/4 CTB", Kelvin: 3600},
	{Name: "1/8 CTB", Kelvin: 3400},
	{Name: "Plus Green", Kelvin: 5600, GM: -30},
	{Name: "1/2 Plus Green", Kelvin: 5600, GM: -15},
	{Name: "1/4 Plus Green", Kelvin: 5600, GM: -8},
	{Name: "Minus Green", Kelvin: 5600, GM: 30},
	{Name: "1/2 Minus Green", Kelvin: 5600, GM: 15},
	{Name: "1/4 Minus Green", Kelvin: 5600, GM: 8},
}

// creative are colour gels by their common names, with the colour each
// gives a white source (approximate: a filter is a spectrum, not a hex).
var creative = []Preset{
	{Name: "Primary Red", Hex: "D7191C"},
	{Name: "Bright Red", Hex: "E4002B"},
	{Name: "Flame Red", Hex: "E03C31"},
	{Name: "Orange", Hex: "FF7F00"},
	{Name: "Deep Amber", Hex: "F5A623"},
	{Name: "Straw", Hex: "F9E3A1"},
	{Name: "Yellow", Hex: "FFE600"},
	{Name: "Lime Green", Hex: "9ACD32"},
	{Name: "Primary Green", Hex: "00A651"},
	{Name: "Peacock Blue", Hex: "00A3AD"},
	{Name: "Cyan", Hex: "00B7C3"},
	{Name: "Steel Blue", Hex: "8DB9CA"},
	{Name: "Light Blue", Hex: "3FA9F5"},
	{Name: "Medium Blue", Hex: "0072CE"},
	{Name: "Dark Blue", Hex: "1F3A93"},
	{Name: "Congo Blue", Hex: "2A0A7A"},
	{Name: "Lavender", Hex: "B57EDC"},
	{Name: "Surprise Pink", Hex: "A58BD6"},
	{Name: "Mauve", Hex: "B0307A"},
	{Name: "Magenta", Hex: "E0218A"},
	{Name: "Bright Pink", Hex: "FF3E96"},
	{Name: "Rose Pink", Hex: "FF6F91"},
	{Name: "Chocolate", Hex: "B07B52"},
}

var catalogue = buildCatalogue()

func buildCatalogue() []Preset {
	var out []Preset
	for _, p := range sources {
		p.Kind, p.Hex = PresetSource, whiteSwatch(p.Kelvin, p.GM)
		out = append(out, p)
	}
	for _, p := range correction {
		p.Kind, p.Hex = PresetGel, whiteSwatch(p.Kelvin, p.GM)
		out = append(out, p)
	}
	for _, p := range creative {
		p.Kind = PresetGel
		out = append(out, p)
	}
	return out
}

// whiteSwatch is White as hex.
func whiteSwatch(kelvin, gm int) string { return White(kelvin, gm).Hex() }

// Presets lists every preset: the light sources, then the gels.
func Presets() []Preset { return slices.Clone(catalogue) }

// FindPreset finds a preset by name, ignoring case, spaces, '-' and '_'
// ("full cto", "Full-CTO" and "FULL_CTO" are one).
func FindPreset(name string) (Preset, bool) {
	want := presetKey(name)
	if want == "" {
		return Preset{}, false
	}
	for _, p := range catalogue {
		if presetKey(p.Name) == want {
			return p, true
		}
	}
	return Preset{}, false
}

func presetKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}
