package color

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const tolerance = 1e-4

func mustHex(t *testing.T, s string) RGB {
	t.Helper()
	c, err := ParseHex(s)
	if err != nil {
		t.Fatalf("ParseHex(%q): %v", s, err)
	}
	return c
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestParseHexAccepts(t *testing.T) {
	cases := map[string]RGB{
		"FF8800":  {0xFF, 0x88, 0x00},
		"#ff8800": {0xFF, 0x88, 0x00},
		"#Ff8800": {0xFF, 0x88, 0x00},
		"F80":     {0xFF, 0x88, 0x00},
		"#f80":    {0xFF, 0x88, 0x00},
		"000000":  {},
		"#FFF":    {0xFF, 0xFF, 0xFF},
		"123abc":  {0x12, 0x3A, 0xBC},
	}
	for in, want := range cases {
		if got := mustHex(t, in); got != want {
			t.Errorf("ParseHex(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestParseHexRejects(t *testing.T) {
	for _, in := range []string{"", "#", "zz", "FF88", "FF88000", "##FFF", "GG0000", "#12345", " FF8800", "FF8800 ", "0xFF8800", "ＦＦＦ"} {
		_, err := ParseHex(in)
		if err == nil {
			t.Errorf("ParseHex(%q) accepted", in)
			continue
		}
		if !errors.Is(err, ErrInvalidHex) {
			t.Errorf("ParseHex(%q) error %v does not wrap ErrInvalidHex", in, err)
		}
		if !strings.Contains(err.Error(), `like "FF8800"`) || !strings.Contains(err.Error(), in) {
			t.Errorf("ParseHex(%q) error %q does not show the input and a valid value", in, err)
		}
	}
	_, err := ParseHex("zz")
	if want := `hex colour "zz" is not valid: use 6 hex digits like "FF8800"`; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
}

func TestHex(t *testing.T) {
	for _, s := range []string{"FF8800", "000000", "FFFFFF", "0A0B0C", "123ABC"} {
		if got := mustHex(t, s).Hex(); got != s {
			t.Errorf("Hex() = %q, want %q", got, s)
		}
	}
	if got := mustHex(t, "#abc").Hex(); got != "AABBCC" {
		t.Errorf("Hex() of #abc = %q", got)
	}
}

func TestGamutByName(t *testing.T) {
	for name, want := range map[string]Gamut{"A": GamutA, "b": GamutB, "C": GamutC, "c": GamutC} {
		got, ok := GamutByName(name)
		if !ok || got != want {
			t.Errorf("GamutByName(%q) = %+v, %v", name, got, ok)
		}
	}
	for _, name := range []string{"", "D", "other", "AB"} {
		if _, ok := GamutByName(name); ok {
			t.Errorf("GamutByName(%q) found a gamut", name)
		}
	}
}
