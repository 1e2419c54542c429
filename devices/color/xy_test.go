package color

import (
	"fmt"
	"math"
	"testing"
)

// xyVector is one row of PROTOCOLS.md §6.1: a hex colour, its raw xy under
// both matrices, the Wide brightness hint, and the Wide point fitted to each
// Hue gamut.
type xyVector struct {
	hex     string
	srgb    Point
	wide    Point
	bri     int
	a, b, c Point
}

var xyVectors = []xyVector{
	{"FF0000", Point{0.6401, 0.3300}, Point{0.7006, 0.2993}, 72, Point{0.7004, 0.2991}, Point{0.6750, 0.3220}, Point{0.6915, 0.3083}},
	{"00FF00", Point{0.3000, 0.6000}, Point{0.1724, 0.7468}, 170, Point{0.2151, 0.7106}, Point{0.4090, 0.5180}, Point{0.1700, 0.7000}},
	{"0000FF", Point{0.1500, 0.0600}, Point{0.1355, 0.0399}, 12, Point{0.1380, 0.0800}, Point{0.1670, 0.0400}, Point{0.1532, 0.0475}},
	{"FFFFFF", Point{0.3127, 0.3290}, Point{0.3227, 0.3290}, 255, Point{0.3227, 0.3290}, Point{0.3227, 0.3290}, Point{0.3227, 0.3290}},
	{"FF8000", Point{0.5430, 0.4070}, Point{0.6112, 0.3750}, 109, Point{0.6110, 0.3748}, Point{0.6083, 0.3711}, Point{0.6081, 0.3709}},
}

func assertPoint(t *testing.T, what string, got, want Point, tol float64) {
	t.Helper()
	if !near(got.X, want.X, tol) || !near(got.Y, want.Y, tol) {
		t.Errorf("%s = (%.5f, %.5f), want (%.4f, %.4f)", what, got.X, got.Y, want.X, want.Y)
	}
}

func TestXYWide(t *testing.T) {
	for _, v := range xyVectors {
		x, y, bri := mustHex(t, v.hex).XY()
		assertPoint(t, v.hex+" wide xy", Point{x, y}, v.wide, tolerance)
		if bri != v.bri {
			t.Errorf("%s brightness = %d, want %d", v.hex, bri, v.bri)
		}
	}
}

func TestXYStandardSRGB(t *testing.T) {
	for _, v := range xyVectors {
		x, y, _ := mustHex(t, v.hex).XYWith(SRGBD65)
		assertPoint(t, v.hex+" sRGB xy", Point{x, y}, v.srgb, tolerance)
	}
}

func TestWideIntoGamuts(t *testing.T) {
	for _, v := range xyVectors {
		x, y, _ := mustHex(t, v.hex).XY()
		p := Point{x, y}
		assertPoint(t, v.hex+" in gamut A", GamutA.Clamp(p), v.a, tolerance)
		assertPoint(t, v.hex+" in gamut B", GamutB.Clamp(p), v.b, tolerance)
		assertPoint(t, v.hex+" in gamut C", GamutC.Clamp(p), v.c, tolerance)
	}
}

// TestSRGBIntoGamuts checks the §6.1 note on clamping points made with the
// standard sRGB matrix.
func TestSRGBIntoGamuts(t *testing.T) {
	cases := []struct {
		hex   string
		gamut Gamut
		name  string
		want  Point
	}{
		{"00FF00", GamutB, "B", Point{0.4090, 0.5180}},
		{"0000FF", GamutA, "A", Point{0.1418, 0.0815}},
		{"0000FF", GamutB, "B", Point{0.1716, 0.0491}},
		{"0000FF", GamutC, "C", Point{0.1535, 0.0599}},
		{"FFFFFF", GamutB, "B", Point{0.3132, 0.3288}},
	}
	for _, c := range cases {
		x, y, _ := mustHex(t, c.hex).XYWith(SRGBD65)
		assertPoint(t, fmt.Sprintf("%s sRGB in gamut %s", c.hex, c.name), c.gamut.Clamp(Point{x, y}), c.want, tolerance)
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// TestHomeAssistantVectors checks the values Home Assistant's own tests
// assert, after its rounding to 3 decimals.
func TestHomeAssistantVectors(t *testing.T) {
	cases := []struct {
		hex   string
		gamut *Gamut
		x, y  float64
		bri   int
	}{
		{"FFFFFF", nil, 0.323, 0.329, 255},
		{"0000FF", nil, 0.136, 0.04, 12},
		{"00FF00", nil, 0.172, 0.747, 170},
		{"FF0000", nil, 0.701, 0.299, 72},
		{"800000", nil, 0.701, 0.299, 16},
		{"FF0000", &GamutA, 0.7, 0.299, 72},
		{"00FF00", &GamutA, 0.215, 0.711, 170},
		{"0000FF", &GamutA, 0.138, 0.08, 12},
	}
	for _, c := range cases {
		x, y, bri := mustHex(t, c.hex).XY()
		if c.gamut != nil {
			p := c.gamut.Clamp(Point{x, y})
			x, y = p.X, p.Y
		}
		if round3(x) != c.x || round3(y) != c.y || bri != c.bri {
			t.Errorf("%s (gamut %v) = (%.3f, %.3f, %d), want (%v, %v, %d)", c.hex, c.gamut != nil, round3(x), round3(y), bri, c.x, c.y, c.bri)
		}
	}
}

func TestXYBlack(t *testing.T) {
	x, y, bri := RGB{}.XY()
	if x != 0 || y != 0 || bri != 0 {
		t.Errorf("black = (%v, %v, %v), want zeros", x, y, bri)
	}
}

func TestContains(t *testing.T) {
	for name, g := range map[string]Gamut{"A": GamutA, "B": GamutB, "C": GamutC} {
		for _, corner := range []Point{g.Red, g.Green, g.Blue} {
			if !g.Contains(corner) {
				t.Errorf("gamut %s does not contain its corner %+v", name, corner)
			}
		}
		centre := Point{(g.Red.X + g.Green.X + g.Blue.X) / 3, (g.Red.Y + g.Green.Y + g.Blue.Y) / 3}
		if !g.Contains(centre) {
			t.Errorf("gamut %s does not contain its centre", name)
		}
		for _, out := range []Point{{0, 0}, {0.9, 0.1}, {0.1, 0.9}, {1, 1}} {
			if g.Contains(out) {
				t.Errorf("gamut %s contains %+v", name, out)
			}
		}
	}
	if (Gamut{}).Contains(Point{}) {
		t.Error("a degenerate gamut contains a point")
	}
}

func TestClampLandsOnTheTriangle(t *testing.T) {
	for _, p := range []Point{{0, 0}, {0.9, 0.1}, {0.1, 0.9}, {0.5, 0.6}, {0.05, 0.3}} {
		got := GamutC.Clamp(p)
		if GamutC.Contains(p) {
			t.Fatalf("%+v is inside; pick another test point", p)
		}
		if !GamutC.Contains(got) && !onEdge(GamutC, got) {
			t.Errorf("Clamp(%+v) = %+v is not on gamut C", p, got)
		}
	}
	if got := (Gamut{}).Clamp(Point{0.3, 0.3}); got != (Point{}) {
		t.Errorf("degenerate gamut clamp = %+v", got)
	}
}

// onEdge reports whether p is on one of g's edges, within rounding.
func onEdge(g Gamut, p Point) bool {
	for _, e := range [][2]Point{{g.Red, g.Green}, {g.Green, g.Blue}, {g.Blue, g.Red}} {
		c := closestOnSegment(p, e[0], e[1])
		if near(c.X, p.X, 1e-9) && near(c.Y, p.Y, 1e-9) {
			return true
		}
	}
	return false
}

func channelsWithin(a, b RGB, d int) bool {
	diff := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return diff(a.R, b.R) <= d && diff(a.G, b.G) <= d && diff(a.B, b.B) <= d
}

func TestXYRoundTrip(t *testing.T) {
	saturated := []string{"FF0000", "00FF00", "0000FF", "FF8000", "FFFF00", "00FFFF", "FF00FF", "8000FF", "FF0080"}
	pastel := []string{"FFFFFF", "FFC0CB", "FFE4B5", "E6E6FF", "B0FFB0", "FFDAB9", "ADD8FF", "FFF5EE"}
	for _, s := range append(saturated, pastel...) {
		in := mustHex(t, s)
		x, y, _ := in.XY()
		if out := XYToRGB(x, y); !channelsWithin(in, out, 3) {
			t.Errorf("%s → (%.4f, %.4f) → %s", s, x, y, out.Hex())
		}
	}
}

func TestXYToRGBFullBrightness(t *testing.T) {
	dark := mustHex(t, "402000")
	x, y, _ := dark.XY()
	out := XYToRGB(x, y)
	if out.R != 255 {
		t.Errorf("XYToRGB of a dark orange = %s, want red at 255", out.Hex())
	}
	x2, y2, _ := out.XY()
	if !near(x, x2, 2e-3) || !near(y, y2, 2e-3) {
		t.Errorf("chromaticity moved from (%.4f, %.4f) to (%.4f, %.4f)", x, y, x2, y2)
	}
}

func TestXYToRGBGuards(t *testing.T) {
	for _, p := range []Point{{0.3, 0}, {0.3, -1}, {0, 0}, {1, 0}, {0.9, 0.9}, {-0.5, 0.2}, {2, 0.5}} {
		out := XYToRGB(p.X, p.Y)
		if out == (RGB{}) {
			t.Errorf("XYToRGB(%v, %v) is black", p.X, p.Y)
		}
	}
	if out := XYToRGB(math.NaN(), 0.3); out != (RGB{}) {
		t.Errorf("XYToRGB(NaN) = %s, want black", out.Hex())
	}
	white := XYToRGB(0.3227, 0.3290)
	if !channelsWithin(white, RGB{255, 255, 255}, 1) {
		t.Errorf("XYToRGB(white point) = %s", white.Hex())
	}
}

func TestMatrixInverse(t *testing.T) {
	inv := WideRGBD65.inverse()
	for i := range 3 {
		var v [3]float64
		v[i] = 1
		got := inv.apply(WideRGBD65.apply(v))
		for j := range 3 {
			if !near(got[j], v[j], 1e-12) {
				t.Fatalf("inverse·matrix column %d = %v", i, got)
			}
		}
	}
}
