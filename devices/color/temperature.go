package color

import "math"

// KelvinToMirek converts a colour temperature to mirek (micro reciprocal
// degrees), flooring as Home Assistant does. Zero or less gives 0.
func KelvinToMirek(k int) int {
	if k <= 0 {
		return 0
	}
	return 1_000_000 / k
}

// MirekToKelvin converts mirek to a colour temperature, flooring as Home
// Assistant does. Zero or less gives 0.
func MirekToKelvin(m int) int {
	if m <= 0 {
		return 0
	}
	return 1_000_000 / m
}

// The range KelvinToRGB's curve is fitted over.
const (
	swatchMinKelvin = 1000
	swatchMaxKelvin = 40000
)

// KelvinToRGB approximates the colour of a black body at k kelvin (clamped
// to 1000–40000 K) with the curve Tanner Helland fitted to the CIE 1964
// black-body data. It is meant for swatches in a UI, not for driving lamps.
func KelvinToRGB(k int) RGB {
	t := float64(min(max(k, swatchMinKelvin), swatchMaxKelvin)) / 100
	return RGB{R: channel(swatchRed(t)), G: channel(swatchGreen(t)), B: channel(swatchBlue(t))}
}

// White is the colour of a white at kelvin (KelvinToRGB), leaned toward
// green (gm < 0) or magenta (gm > 0), gm from −50 to +50, by up to half
// a channel: toward green by dimming red and blue, toward magenta by
// dimming green.
func White(kelvin, gm int) RGB {
	c := KelvinToRGB(kelvin)
	shift := float64(min(max(gm, -50), 50)) / 100 // −0.5 … +0.5
	scale := func(v uint8, f float64) uint8 { return toByte(float64(v) / 255 * f) }
	switch {
	case gm < 0:
		c.R, c.B = scale(c.R, 1+shift), scale(c.B, 1+shift)
	case gm > 0:
		c.G = scale(c.G, 1-shift)
	}
	return c
}

// swatchRed is the red channel (0–255, unclamped) at t = kelvin/100.
func swatchRed(t float64) float64 {
	if t <= 66 {
		return 255
	}
	return 329.698727446 * math.Pow(t-60, -0.1332047592)
}

// swatchGreen is the green channel (0–255, unclamped) at t = kelvin/100.
func swatchGreen(t float64) float64 {
	if t <= 66 {
		return 99.4708025861*math.Log(t) - 161.1195681661
	}
	return 288.1221695283 * math.Pow(t-60, -0.0755148492)
}

// swatchBlue is the blue channel (0–255, unclamped) at t = kelvin/100.
func swatchBlue(t float64) float64 {
	switch {
	case t >= 66:
		return 255
	case t <= 19:
		return 0
	}
	return 138.5177312231*math.Log(t-10) - 305.0447927307
}

// channel rounds a 0–255 value to a byte, clamping.
func channel(v float64) uint8 { return toByte(v / 255) }
