package color

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestPresetsAreUsable(t *testing.T) {
	ps := Presets()
	if len(ps) < 70 {
		t.Fatalf("%d presets", len(ps))
	}
	slug := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	ids := map[string]bool{}
	kinds := map[string]int{}
	for _, p := range ps {
		if !slug.MatchString(p.ID) || ids[p.ID] {
			t.Errorf("%s: id %q is not a fresh slug", p.Name, p.ID)
		}
		ids[p.ID] = true
		kinds[p.Kind]++
		if _, err := ParseHex(p.Hex); err != nil || len(p.Hex) != 6 {
			t.Errorf("%s: hex %q", p.Name, p.Hex)
		}
		if p.GM < -50 || p.GM > 50 {
			t.Errorf("%s: GM %d", p.Name, p.GM)
		}
		switch p.Kind {
		case PresetSource:
			if p.Kelvin < 1000 || p.Kelvin > 20000 || p.Category != "" {
				t.Errorf("source %s: %d K, category %q", p.Name, p.Kelvin, p.Category)
			}
		case PresetGel:
			usable(t, p)
		default:
			t.Errorf("%s: kind %q", p.Name, p.Kind)
		}
	}
	if kinds[PresetSource] == 0 || kinds[PresetGel] == 0 {
		t.Errorf("kinds %v", kinds)
	}
}

// usable checks a gel: a correction gel has a white, a creative one none.
func usable(t *testing.T, p Preset) {
	t.Helper()
	switch p.Category {
	case GelCorrection:
		if p.Kelvin < 1000 || p.Kelvin > 20000 {
			t.Errorf("correction gel %s: %d K", p.Name, p.Kelvin)
		}
	case GelCreative:
		if p.Kelvin != 0 || p.GM != 0 {
			t.Errorf("creative gel %s has a white: %d K, GM %d", p.Name, p.Kelvin, p.GM)
		}
	default:
		t.Errorf("gel %s: category %q", p.Name, p.Category)
	}
}

// TestNoTwoPresetsShareAName: every id, name and former name finds one
// preset only, however it is typed.
func TestNoTwoPresetsShareAName(t *testing.T) {
	words, compact := map[string]int{}, map[string]int{}
	claim := func(seen map[string]int, key string, at int) {
		if was, ok := seen[key]; ok && was != at {
			t.Errorf("%q names both %s and %s", key, catalogue()[was].Name, catalogue()[at].Name)
		}
		seen[key] = at
	}
	for _, e := range index() {
		claim(words, e.key.words, e.at)
		claim(compact, e.key.compact, e.at)
	}
	for _, f := range formerNames {
		if p, ok := FindPreset(f.name); !ok || p.ID != f.id {
			t.Errorf("former name %q finds %+v, want %s", f.name, p, f.id)
		}
	}
}

func TestNeewerLiteSources(t *testing.T) {
	want := []struct {
		id, name string
		kelvin   int
	}{
		{"tungsten", "Tungsten", 3200},
		{"studio-bulb", "Studio bulb", 3300},
		{"modeling-lights", "Modeling lights", 3400},
		{"white-halogen-lights", "White halogen lights", 4300},
		{"horizon-daylight", "Horizon daylight", 5000},
		{"daylight", "Daylight", 5500},
		{"dysprosic-lamp", "Dysprosic lamp", 5600},
		{"hmi6000", "HMI6000", 6000},
		{"xenon-short-arc-lamp", "Xenon short-arc lamp", 6200},
		{"sunlight", "Sunlight", 6500},
		{"cloudy-sky", "Cloudy Sky", 7000},
	}
	sources := Sources()
	if len(sources) != len(want)+len(hubSources) {
		t.Fatalf("%d sources, want NeewerLite's %d and the hub's %d", len(sources), len(want), len(hubSources))
	}
	for i, w := range want {
		s := sources[i]
		if s.ID != w.id || s.Name != w.name || s.Kelvin != w.kelvin || s.GM != 0 || s.Kind != PresetSource {
			t.Errorf("source %d = %+v, want %s %q %d K", i+1, s, w.id, w.name, w.kelvin)
		}
	}
	theirs := map[string]bool{}
	for _, w := range want {
		theirs[strings.ToLower(w.name)] = true
	}
	for _, s := range sources[len(want):] {
		if theirs[strings.ToLower(s.Name)] {
			t.Errorf("hub source %s duplicates a NeewerLite one", s.Name)
		}
	}
}

// neewerGelIDs are NeewerLite's 39 gels in its order, the numbering its
// list_gels tool gives them.
var neewerGelIDs = []string{
	"cto-quarter", "cto-half", "cto-three-quarter", "cto-full",
	"ctb-quarter", "ctb-half", "ctb-three-quarter", "ctb-full",
	"plus-green-half", "plus-green-full", "minus-green-half", "minus-green-full", "window-green",
	"bastard-amber", "chocolate", "congo-blue", "cosmetic-peach", "cyan", "deep-amber", "deep-red",
	"double-blue", "flame", "flesh-pink", "jungle-green", "lavender", "magenta", "pale-gold",
	"pale-lavender", "primary-blue", "primary-green", "primary-red", "rose-pink", "special-lavender",
	"steel-blue", "straw", "surprise-pink", "uranium", "urban-sodium", "violet",
}

func TestNeewerLiteGels(t *testing.T) {
	gels := Gels()
	if len(neewerGelIDs) != 39 || len(gels) != 39+len(hubGels) {
		t.Fatalf("%d gels, want NeewerLite's 39 and the hub's %d", len(gels), len(hubGels))
	}
	for i, id := range neewerGelIDs {
		g := gels[i]
		if g.ID != id || g.Kind != PresetGel || g.Hue == nil || g.Saturation == nil || g.Transmission == nil {
			t.Errorf("gel %d = %+v, want %s with hue, saturation and transmission", i+1, g, id)
		}
	}
	for _, g := range gels[39:] {
		if g.Hue != nil || g.Maker != "" {
			t.Errorf("hub gel %s claims a swatch: %+v", g.Name, g)
		}
	}
}

func TestNeewerLiteGelFields(t *testing.T) {
	cases := []struct {
		id, name, maker, code, category string
		hue, sat, transmission          float64
		kelvin, gm                      int
		hex                             string
	}{
		{"cto-half", "CTO ½", "Lee", "442", GelCorrection, 30, 38, 83, 3870, 0, "FFCF9E"},
		{"cto-full", "CTO Full", "Lee", "204", GelCorrection, 30, 60, 68, 2960, 0, "FFB366"},
		{"ctb-three-quarter", "CTB ¾", "Rosco", "3202", GelCorrection, 212, 50, 69, 5190, 0, "80BBFF"},
		{"ctb-full", "CTB Full", "Lee", "201", GelCorrection, 215, 60, 60, 6510, 0, "66A6FF"},
		{"plus-green-full", "Plus Green Full", "Rosco", "3306", GelCorrection, 120, 45, 76, 5600, -30, "8CFF8C"},
		{"minus-green-half", "Minus Green ½", "Rosco", "3308", GelCorrection, 300, 22, 88, 5600, 15, "FFC7FF"},
		{"window-green", "Window Green", "Lee", "244", GelCorrection, 115, 55, 78, 5600, -37, "7EFF73"},
		{"congo-blue", "Congo Blue", "Lee", "181", GelCreative, 240, 95, 14, 0, 0, "0D0DFF"},
		{"deep-red", "Deep Red", "Lee", "027", GelCreative, 0, 90, 18, 0, 0, "FF1919"},
		{"uranium", "Uranium", "Rosco", "043", GelCreative, 85, 90, 25, 0, 0, "9FFF19"},
		{"urban-sodium", "Urban Sodium", "", "", GelCreative, 42, 80, 60, 0, 0, "FFC233"},
	}
	for _, c := range cases {
		p, ok := FindPreset(c.id)
		if !ok {
			t.Errorf("no gel %s", c.id)
			continue
		}
		got := []any{p.ID, p.Name, p.Kind, p.Maker, p.Code, p.Category, *p.Hue, *p.Saturation, *p.Transmission, p.Kelvin, p.GM, p.Hex}
		want := []any{c.id, c.name, PresetGel, c.maker, c.code, c.category, c.hue, c.sat, c.transmission, c.kelvin, c.gm, c.hex}
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got %v\nwant %v", c.id, got, want)
		}
	}
}

func TestPresetJSON(t *testing.T) {
	red, _ := FindPreset("Deep Red")
	tungsten, _ := FindPreset("Tungsten")
	for p, want := range map[*Preset]string{
		&red:      `{"id":"deep-red","name":"Deep Red","kind":"gel","hex":"FF1919","category":"creative","maker":"Lee","code":"027","hue":0,"saturation":90,"transmission":18}`,
		&tungsten: `{"id":"tungsten","name":"Tungsten","kind":"source","kelvin":3200,"hex":"FFB87B"}`,
	} {
		b, err := json.Marshal(p)
		if err != nil || string(b) != want {
			t.Errorf("%s\n got %s\nwant %s", p.Name, b, want)
		}
	}
}

func TestFindPreset(t *testing.T) {
	cases := []struct {
		in     string
		id     string
		kelvin int
		gm     int
	}{
		{"daylight", "daylight", 5500, 0},
		{"TUNGSTEN", "tungsten", 3200, 0},
		{"full cto", "cto-full", 2960, 0},
		{"Full-CTO", "cto-full", 2960, 0},
		{"fullcto", "cto-full", 2960, 0},
		{"CTO Full", "cto-full", 2960, 0},
		{"cto_full", "cto-full", 2960, 0},
		{"CTO ½", "cto-half", 3870, 0},
		{"CTO 1/2", "cto-half", 3870, 0},
		{"1/2 CTO", "cto-half", 3870, 0},
		{"half CTO", "cto-half", 3870, 0},
		{"cto-half", "cto-half", 3870, 0},
		{"cto½", "cto-half", 3870, 0},
		{"ctb ¾", "ctb-three-quarter", 5190, 0},
		{"three quarter CTB", "ctb-three-quarter", 5190, 0},
		{"CTB three-quarter", "ctb-three-quarter", 5190, 0},
		{"1/4 ctb", "ctb-quarter", 3670, 0},
		{"quarter CTO", "cto-quarter", 4580, 0},
		{"1/2 ctb", "ctb-half", 4300, 0},
		{"1/8 CTO", "cto-eighth", 5000, 0},
		{"eighth cto", "cto-eighth", 5000, 0},
		{" hmi ", "hmi6000", 6000, 0},
		{"HMI6000", "hmi6000", 6000, 0},
		{"Xenon Short-Arc", "xenon-short-arc-lamp", 6200, 0},
		{"plus_green", "plus-green-full", 5600, -30},
		{"Plus Green Full", "plus-green-full", 5600, -30},
		{"1/2 Minus Green", "minus-green-half", 5600, 15},
		{"minus green ½", "minus-green-half", 5600, 15},
		{"1/4 plus green", "plus-green-quarter", 5600, -8},
		{"congo blue", "congo-blue", 0, 0},
		{"Flame", "flame", 0, 0},
		{"Flame Red", "flame-red", 0, 0},
		{"sodium vapour", "sodium-vapour", 2100, -10},
	}
	for _, c := range cases {
		p, ok := FindPreset(c.in)
		if !ok || p.ID != c.id || p.Kelvin != c.kelvin || p.GM != c.gm {
			t.Errorf("FindPreset(%q) = %+v, %v; want %s %d K GM %d", c.in, p, ok, c.id, c.kelvin, c.gm)
		}
	}
	for _, miss := range []string{"", "  ", "-", "laser", "full", "cto", "half", "three quarter"} {
		if p, ok := FindPreset(miss); ok {
			t.Errorf("FindPreset(%q) found %s", miss, p.Name)
		}
	}
}

// TestFormerNamesStillFound: every name the hub's catalogue had before
// NeewerLite's joined it still finds a preset of the same kind.
func TestFormerNamesStillFound(t *testing.T) {
	former := map[string][]string{
		PresetSource: {"Candle", "Sodium Vapour", "Household Tungsten", "Halogen", "Warm White Fluorescent",
			"Tungsten", "Photoflood", "Golden Hour", "Cool White Fluorescent", "Horizon Daylight", "Sunlight",
			"Daylight", "Dysprosic Lamp", "HMI", "Xenon Short-Arc", "Overcast Sky", "Shade", "Blue Sky"},
		PresetGel: {"Full CTO", "1/2 CTO", "1/4 CTO", "1/8 CTO", "Full CTB", "1/2 CTB", "1/4 CTB", "1/8 CTB",
			"Plus Green", "1/2 Plus Green", "1/4 Plus Green", "Minus Green", "1/2 Minus Green", "1/4 Minus Green",
			"Primary Red", "Bright Red", "Flame Red", "Orange", "Deep Amber", "Straw", "Yellow", "Lime Green",
			"Primary Green", "Peacock Blue", "Cyan", "Steel Blue", "Light Blue", "Medium Blue", "Dark Blue",
			"Congo Blue", "Lavender", "Surprise Pink", "Mauve", "Magenta", "Bright Pink", "Rose Pink", "Chocolate"},
	}
	for kind, names := range former {
		for _, name := range names {
			for _, typed := range []string{name, strings.ToUpper(name), strings.ReplaceAll(name, " ", "")} {
				if p, ok := FindPreset(typed); !ok || p.Kind != kind {
					t.Errorf("FindPreset(%q) = %+v, %v; want a %s", typed, p, ok, kind)
				}
			}
		}
	}
}

func TestPresetSwatches(t *testing.T) {
	tungsten, _ := FindPreset("Tungsten")
	daylight, _ := FindPreset("Daylight")
	tw, _ := ParseHex(tungsten.Hex)
	dw, _ := ParseHex(daylight.Hex)
	if tw.B >= dw.B {
		t.Errorf("tungsten %s is not warmer than daylight %s", tungsten.Hex, daylight.Hex)
	}
	green, _ := FindPreset("Plus Green")
	magenta, _ := FindPreset("Minus Green")
	g, _ := ParseHex(green.Hex)
	m, _ := ParseHex(magenta.Hex)
	if !(g.G > g.R && m.R > m.G) {
		t.Errorf("plus green %s and minus green %s lean the wrong way", green.Hex, magenta.Hex)
	}
}

func TestPresetsReturnsACopy(t *testing.T) {
	for _, list := range []func() []Preset{Presets, Sources, Gels} {
		ps := list()
		ps[0].Name = "changed"
		if list()[0].Name == "changed" {
			t.Error("a preset list shares its catalogue")
		}
	}
	gels := Gels()
	*gels[0].Hue = 999
	if *Gels()[0].Hue == 999 {
		t.Error("Gels shares its hues")
	}
}
