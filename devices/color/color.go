// Package color converts between the forms a colour takes on its way from a
// person to a lamp: sRGB hex, HSV, CIE 1931 xy (fitted into a Hue gamut) and
// colour temperature (kelvin and mirek).
//
// It is plain arithmetic: no I/O, no state, nothing of Bifrost's imported.
// The xy conversions follow Home Assistant (Philips "Wide RGB D65"), so a
// colour set here looks the same as one set from Home Assistant.
package color

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// RGB is an sRGB colour, 8 bits a channel.
type RGB struct{ R, G, B uint8 }

// ErrInvalidHex is wrapped by every error ParseHex returns.
var ErrInvalidHex = errors.New("invalid hex colour")

// hexError says which input was refused and what a valid one looks like.
type hexError struct{ input string }

func (e *hexError) Error() string {
	return fmt.Sprintf("hex colour %q is not valid: use 6 hex digits like \"FF8800\"", e.input)
}

func (e *hexError) Unwrap() error { return ErrInvalidHex }

// ParseHex reads "RRGGBB", "#RRGGBB", "RGB" or "#RGB" in any case. Anything
// else is an error wrapping ErrInvalidHex whose message shows a valid value.
func ParseHex(s string) (RGB, error) {
	digits := strings.TrimPrefix(s, "#")
	switch len(digits) {
	case 3:
		digits = string([]byte{digits[0], digits[0], digits[1], digits[1], digits[2], digits[2]})
	case 6:
	default:
		return RGB{}, &hexError{input: s}
	}
	var b [3]byte
	if _, err := hex.Decode(b[:], []byte(digits)); err != nil {
		return RGB{}, &hexError{input: s}
	}
	return RGB{R: b[0], G: b[1], B: b[2]}, nil
}

// Hex is the colour as "RRGGBB", upper case, without '#'.
func (c RGB) Hex() string {
	return fmt.Sprintf("%02X%02X%02X", c.R, c.G, c.B)
}

// toByte rounds a channel in 0..1 to 0..255, clamping out-of-range values
// and mapping NaN to 0.
func toByte(v float64) uint8 {
	switch {
	case !(v > 0):
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}
