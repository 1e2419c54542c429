package color

import "testing"

func TestPresetsAreUsable(t *testing.T) {
	ps := Presets()
	if len(ps) < 40 {
		t.Fatalf("%d presets", len(ps))
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, p := range ps {
		key := presetKey(p.Name)
		if seen[key] {
			t.Errorf("two presets are called %q", p.Name)
		}
		seen[key] = true
		kinds[p.Kind]++
		if _, err := ParseHex(p.Hex); err != nil || len(p.Hex) != 6 {
			t.Errorf("%s: hex %q", p.Name, p.Hex)
		}
		if p.GM < -50 || p.GM > 50 {
			t.Errorf("%s: GM %d", p.Name, p.GM)
		}
		switch p.Kind {
		case PresetSource:
			if p.Kelvin < 1000 || p.Kelvin > 20000 {
				t.Errorf("source %s: %d K", p.Name, p.Kelvin)
			}
		case PresetGel:
			if p.Kelvin != 0 && (p.Kelvin < 1000 || p.Kelvin > 20000) {
				t.Errorf("gel %s: %d K", p.Name, p.Kelvin)
			}
		default:
			t.Errorf("%s: kind %q", p.Name, p.Kind)
		}
	}
	if kinds[PresetSource] == 0 || kinds[PresetGel] == 0 {
		t.Errorf("kinds %v", kinds)
	}
}

func TestFindPreset(t *testing.T) {
	cases := []struct {
		in     string
		name   string
		kelvin int
		gm     int
	}{
		{"daylight", "Daylight", 5600, 0},
		{"TUNGSTEN", "Tungsten", 3200, 0},
		{"full cto", "Full CTO", 3200, 0},
		{"Full-CTO", "Full CTO", 3200, 0},
		{"1/2 ctb", "1/2 CTB", 4300, 0},
		{" hmi ", "HMI", 6000, 0},
		{"plus_green", "Plus Green", 5600, -30},
		{"congo blue", "Congo Blue", 0, 0},
	}
	for _, c := range cases {
		p, ok := FindPreset(c.in)
		if !ok || p.Name != c.name || p.Kelvin != c.kelvin || p.GM != c.gm {
			t.Errorf("FindPreset(%q) = %+v, %v", c.in, p, ok)
		}
	}
	for _, miss := range []string{"", "  ", "laser", "full"} {
		if _, ok := FindPreset(miss); ok {
			t.Errorf("FindPreset(%q) found something", miss)
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
	ps := Presets()
	ps[0].Name = "changed"
	if Presets()[0].Name == "changed" {
		t.Error("Presets shares its catalogue")
	}
}
