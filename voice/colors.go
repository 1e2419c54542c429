package voice

import (
	"fmt"
	"slices"
	"strings"
)

// colour is a colour said by name: an RGB hex, or a white as a colour
// temperature (kelvin).
type colour struct {
	hex    string
	kelvin int
}

// colours are the colours people name, as CSS names them; whites are
// colour temperatures.
var colours = map[string]colour{
	"red": {hex: "FF0000"}, "green": {hex: "00FF00"}, "blue": {hex: "0000FF"}, "yellow": {hex: "FFD700"},
	"orange": {hex: "FF8C00"}, "purple": {hex: "8000FF"}, "violet": {hex: "8F00FF"}, "pink": {hex: "FF69B4"},
	"magenta": {hex: "FF00FF"}, "cyan": {hex: "00FFFF"}, "turquoise": {hex: "40E0D0"}, "teal": {hex: "008080"},
	"lime": {hex: "7FFF00"}, "indigo": {hex: "4B0082"}, "lavender": {hex: "B57EDC"}, "gold": {hex: "FFB000"},
	"amber": {hex: "FFBF00"}, "crimson": {hex: "DC143C"}, "coral": {hex: "FF7F50"}, "salmon": {hex: "FA8072"},
	"peach": {hex: "FFB07C"}, "mint": {hex: "3EB489"}, "aqua": {hex: "00FFFF"}, "navy": {hex: "000080"},
	"maroon": {hex: "800000"}, "olive": {hex: "808000"}, "fuchsia": {hex: "FF00FF"}, "rose": {hex: "FF007F"},
	"lilac": {hex: "C8A2C8"}, "sky blue": {hex: "87CEEB"}, "royal blue": {hex: "4169E1"}, "forest green": {hex: "228B22"},
	"hot pink": {hex: "FF1493"}, "sea green": {hex: "2E8B57"}, "brown": {hex: "8B4513"},
	"white": {kelvin: 4000}, "warm white": {kelvin: 2700}, "soft white": {kelvin: 3000}, "neutral white": {kelvin: 4000},
	"natural white": {kelvin: 4000}, "cool white": {kelvin: 5000}, "cold white": {kelvin: 5500}, "bright white": {kelvin: 5000},
	"daylight": {kelvin: 6500}, "day light": {kelvin: 6500}, "warm": {kelvin: 2700}, "cool": {kelvin: 5000},
	"candle light": {kelvin: 1900}, "sunset": {kelvin: 2200},
}

// shades change a colour: "dark red", "light blue", "pale green".
var shades = map[string]func(r, g, b float64) (float64, float64, float64){
	"dark":   func(r, g, b float64) (float64, float64, float64) { return r * 0.55, g * 0.55, b * 0.55 },
	"deep":   func(r, g, b float64) (float64, float64, float64) { return r * 0.7, g * 0.7, b * 0.7 },
	"light":  mixWhite(0.45),
	"pale":   mixWhite(0.6),
	"pastel": mixWhite(0.55),
	"soft":   mixWhite(0.3),
	"bright": func(r, g, b float64) (float64, float64, float64) { return r, g, b },
}

func mixWhite(f float64) func(r, g, b float64) (float64, float64, float64) {
	return func(r, g, b float64) (float64, float64, float64) {
		return r + (255-r)*f, g + (255-g)*f, b + (255-b)*f
	}
}

// colorOf finds a colour named in ws (the longest name, with a shade
// before it), and returns it with the words around it.
func colorOf(ws []string, lightNamed func(before []string) bool) (colour, []string, bool) {
	bestAt, bestLen := -1, 0
	var best colour
	for name, c := range colours {
		nw := strings.Fields(name)
		if len(nw) <= bestLen {
			continue
		}
		if i := index(ws, nw...); i >= 0 {
			best, bestAt, bestLen = c, i, len(nw)
		}
	}
	if bestAt < 0 {
		return colour{}, nil, false
	}
	// "light" and "cool" are also other words: a colour must be what the
	// clause ends with, or be followed by "color" or joined by "to".
	end := bestAt + bestLen
	if bestLen == 1 && (ws[bestAt] == "warm" || ws[bestAt] == "cool") && end < len(ws) && ws[end] != "color" && ws[end] != "colour" {
		return colour{}, nil, false
	}
	start := bestAt
	if best.hex != "" && start > 0 {
		if shade, ok := shades[ws[start-1]]; ok && (ws[start-1] != "light" || !lightNamed(ws[:start-1])) {
			best.hex = shaded(best.hex, shade)
			start--
		}
	}
	rest := append(slices.Clone(ws[:start]), ws[end:]...)
	return best, rest, true
}

// shaded is a hex colour with a shade applied.
func shaded(hex string, shade func(r, g, b float64) (float64, float64, float64)) string {
	var r, g, b int
	fmt.Sscanf(hex, "%02X%02X%02X", &r, &g, &b)
	fr, fg, fb := shade(float64(r), float64(g), float64(b))
	return fmt.Sprintf("%02X%02X%02X", int(fr+0.5), int(fg+0.5), int(fb+0.5))
}

// colourWords are every word of every colour and shade, for the
// vocabulary.
func colourWords() []string {
	var out []string
	for name := range colours {
		out = append(out, strings.Fields(name)...)
	}
	for s := range shades {
		out = append(out, s)
	}
	return out
}
