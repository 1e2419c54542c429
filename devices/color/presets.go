package color

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Preset kinds.
const (
	PresetGel    = "gel"    // a colour filter
	PresetSource = "source" // a kind of white light
)

// Gel categories.
const (
	GelCorrection = "correction" // shifts a white: CTO, CTB, plus and minus green
	GelCreative   = "creative"   // colours it
)

// Preset is a named look a lamp can take: a light source (a white of a
// given colour temperature and green–magenta shift) or a gel (a colour
// filter). Sources and colour-correction gels carry Kelvin and GM: a lamp
// with a colour temperature takes those (GM where it can). Every preset
// carries Hex, its colour on a lamp that takes only colour; creative gels
// have Hex alone.
//
// A gel from a maker's swatch book also carries the maker, its code there,
// and the filter as hue, saturation and the share of light it lets
// through; its Hex is that hue and saturation at full value.
type Preset struct {
	ID     string `json:"id"` // a stable slug: "cto-half", "tungsten"
	Name   string `json:"name"`
	Kind   string `json:"kind"`             // "gel" | "source"
	Kelvin int    `json:"kelvin,omitempty"` // 0 for creative gels
	GM     int    `json:"gm,omitempty"`     // −50 full green … +50 full magenta
	Hex    string `json:"hex"`              // "RRGGBB"

	Category     string   `json:"category,omitempty"`     // gels: "correction" | "creative"
	Maker        string   `json:"maker,omitempty"`        // "Lee", "Rosco"
	Code         string   `json:"code,omitempty"`         // the maker's number: "442"
	Hue          *float64 `json:"hue,omitempty"`          // degrees, 0–360 (0 is red, not absent)
	Saturation   *float64 `json:"saturation,omitempty"`   // percent
	Transmission *float64 `json:"transmission,omitempty"` // percent of the light let through
}

// gel is a row of a maker's swatch book: hue in degrees, saturation and
// transmission in percent, and the mireds a correction gel shifts a
// white by (positive warms).
type gel struct {
	id, name, maker, code  string
	hue, sat, transmission float64
	mireds                 int
	category               string
}

// The sources a correction gel's result is given on, and the hues that
// tell a green gel from a magenta one.
const (
	daylightK  = 5600
	tungstenK  = 3200
	greenHue   = 120
	magentaHue = 300
)

func (g gel) preset() Preset {
	p := Preset{
		ID: g.id, Name: g.name, Kind: PresetGel, Hex: HSVToRGB(g.hue, g.sat/100, 1).Hex(),
		Category: g.category, Maker: g.maker, Code: g.code,
		Hue: addr(g.hue), Saturation: addr(g.sat), Transmission: addr(g.transmission),
	}
	if g.category == GelCorrection {
		p.Kelvin, p.GM = g.white()
	}
	return p
}

// white is the white a correction gel gives: a warming one (mireds > 0)
// on a daylight source, a cooling one on a tungsten source; a green or
// magenta one (no mireds) shifts daylight by two thirds of its saturation.
func (g gel) white() (kelvin, gm int) {
	switch {
	case g.mireds > 0:
		return throughGel(daylightK, g.mireds), 0
	case g.mireds < 0:
		return throughGel(tungstenK, g.mireds), 0
	}
	shift := min(int(math.Round(g.sat*2/3)), 50)
	if hueDistance(g.hue, magentaHue) < hueDistance(g.hue, greenHue) {
		return daylightK, shift
	}
	return daylightK, -shift
}

// throughGel is the colour temperature of a base source through a gel of
// the given mireds, to the nearest 10 K.
func throughGel(base, mireds int) int {
	k := 1e6 / (1e6/float64(base) + float64(mireds))
	return int(math.Round(k/10)) * 10
}

// hueDistance is the angle between two hues, 0–180°.
func hueDistance(a, b float64) float64 {
	d := math.Abs(wrapHue(a) - wrapHue(b))
	return min(d, 360-d)
}

func addr(f float64) *float64 { return &f }

// catalogue and index are made at their first use, not at start.
var (
	catalogue = sync.OnceValue(buildCatalogue)
	index     = sync.OnceValue(buildIndex)
)

func buildCatalogue() []Preset {
	var out []Preset
	for _, p := range slices.Concat(neewerSources, hubSources) {
		p.Kind, p.Hex = PresetSource, whiteSwatch(p.Kelvin, p.GM)
		out = append(out, p)
	}
	for _, g := range neewerGels {
		out = append(out, g.preset())
	}
	for _, p := range hubGels {
		p.Kind = PresetGel
		if p.Category == GelCorrection {
			p.Hex = whiteSwatch(p.Kelvin, p.GM)
		}
		out = append(out, p)
	}
	return out
}

// whiteSwatch is White as hex.
func whiteSwatch(kelvin, gm int) string { return White(kelvin, gm).Hex() }

// Presets lists every preset: the light sources, then the gels.
func Presets() []Preset { return ofKind("") }

// Sources lists the light sources, NeewerLite's first, in a stable order.
func Sources() []Preset { return ofKind(PresetSource) }

// Gels lists the gels, NeewerLite's first, in a stable order.
func Gels() []Preset { return ofKind(PresetGel) }

// ofKind copies the presets of a kind, or all of them for "".
func ofKind(kind string) []Preset {
	var out []Preset
	for _, p := range catalogue() {
		if kind == "" || p.Kind == kind {
			out = append(out, p.clone())
		}
	}
	return out
}

// clone is a copy that shares nothing with p.
func (p Preset) clone() Preset {
	for _, f := range []**float64{&p.Hue, &p.Saturation, &p.Transmission} {
		if *f != nil {
			*f = addr(**f)
		}
	}
	return p
}

// FindPreset finds a preset by its id or name, however the name is
// written: case, word order and the separators ' ', '-' and '_' aside, with
// fractions as glyphs, digits or words ("CTO ½", "1/2 cto", "half CTO" and
// "cto-half" are one), or with no separators at all ("fullcto"). The hub's
// former names for the presets NeewerLite's replaced find those.
func FindPreset(name string) (Preset, bool) {
	want := keyOf(name)
	if want.words == "" {
		return Preset{}, false
	}
	for _, e := range index() {
		if e.key.words == want.words || e.key.compact == want.compact {
			return catalogue()[e.at].clone(), true
		}
	}
	return Preset{}, false
}

// presetKey is a name made comparable two ways: its words in sorted order
// with fractions spelt one way, and its letters with no separators.
type presetKey struct{ words, compact string }

type indexEntry struct {
	key presetKey
	at  int // in catalogue
}

// buildIndex keys every preset by id and name, then the former names.
func buildIndex() []indexEntry {
	var out []indexEntry
	at := map[string]int{}
	for i, p := range catalogue() {
		at[p.ID] = i
		out = append(out, indexEntry{keyOf(p.ID), i}, indexEntry{keyOf(p.Name), i})
	}
	for _, f := range formerNames {
		if i, ok := at[f.id]; ok {
			out = append(out, indexEntry{keyOf(f.name), i})
		}
	}
	return out
}

var (
	fractionGlyphs = strings.NewReplacer("½", " 1/2 ", "¼", " 1/4 ", "¾", " 3/4 ", "⅛", " 1/8 ")
	fractionWords  = map[string]string{"half": "1/2", "quarter": "1/4", "eighth": "1/8"}
)

func keyOf(s string) presetKey {
	fields := strings.FieldsFunc(fractionGlyphs.Replace(strings.ToLower(s)), func(r rune) bool {
		return r == '-' || r == '_' || unicode.IsSpace(r)
	})
	words := make([]string, 0, len(fields))
	for i := 0; i < len(fields); i++ {
		w := fields[i]
		switch {
		case w == "three" && i+1 < len(fields) && fields[i+1] == "quarter":
			w = "3/4"
			i++
		case fractionWords[w] != "":
			w = fractionWords[w]
		}
		words = append(words, w)
	}
	slices.Sort(words)
	return presetKey{words: strings.Join(words, " "), compact: strings.Join(fields, "")}
}
