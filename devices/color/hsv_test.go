package color

import (
	"math"
	"testing"
)

func TestHSV(t *testing.T) {
	cases := []struct {
		hex     string
		h, s, v float64
	}{
		{"FF0000", 0, 1, 1},
		{"00FF00", 120, 1, 1},
		{"0000FF", 240, 1, 1},
		{"FFFF00", 60, 1, 1},
		{"00FFFF", 180, 1, 1},
		{"FF00FF", 300, 1, 1},
		{"FF0080", 329.8824, 1, 1},
		{"808080", 0, 0, 128.0 / 255},
		{"000000", 0, 0, 0},
		{"FFFFFF", 0, 0, 1},
		{"FF8000", 30.1176, 1, 1},
		{"804020", 20, 0.75, 128.0 / 255},
	}
	for _, c := range cases {
		h, s, v := mustHex(t, c.hex).HSV()
		if !near(h, c.h, tolerance) || !near(s, c.s, tolerance) || !near(v, c.v, tolerance) {
			t.Errorf("%s HSV = (%.4f, %.4f, %.4f), want (%.4f, %.4f, %.4f)", c.hex, h, s, v, c.h, c.s, c.v)
		}
		if h < 0 || h >= 360 || math.Signbit(h) {
			t.Errorf("%s hue %v out of [0, 360)", c.hex, h)
		}
	}
}

func TestHSVToRGB(t *testing.T) {
	cases := []struct {
		h, s, v float64
		hex     string
	}{
		{0, 1, 1, "FF0000"},
		{120, 1, 1, "00FF00"},
		{240, 1, 1, "0000FF"},
		{360, 1, 1, "FF0000"},
		{-120, 1, 1, "0000FF"},
		{720 + 60, 1, 1, "FFFF00"},
		{30, 1, 1, "FF8000"},
		{0, 0, 0.5, "808080"},
		{200, 2, 2, "00AAFF"},
		{200, -1, 0.5, "808080"},
		{math.NaN(), 1, 1, "FF0000"},
		{math.Inf(1), math.NaN(), 1, "FFFFFF"},
	}
	for _, c := range cases {
		if got := HSVToRGB(c.h, c.s, c.v).Hex(); got != c.hex {
			t.Errorf("HSVToRGB(%v, %v, %v) = %s, want %s", c.h, c.s, c.v, got, c.hex)
		}
	}
}

func TestHSVRoundTrip(t *testing.T) {
	for r := 0; r < 256; r += 17 {
		for g := 0; g < 256; g += 17 {
			for b := 0; b < 256; b += 17 {
				in := RGB{uint8(r), uint8(g), uint8(b)}
				if out := HSVToRGB(in.HSV()); out != in {
					t.Fatalf("%s → HSV → %s", in.Hex(), out.Hex())
				}
			}
		}
	}
	for h := 0.0; h < 360; h += 7.5 {
		in := HSVToRGB(h, 0.8, 0.9)
		h2, s2, v2 := in.HSV()
		if !near(h2, h, 1) || !near(s2, 0.8, 0.01) || !near(v2, 0.9, 0.01) {
			t.Errorf("HSV(%v, 0.8, 0.9) → %s → (%.2f, %.3f, %.3f)", h, in.Hex(), h2, s2, v2)
		}
	}
}
