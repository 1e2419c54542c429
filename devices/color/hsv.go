package color

import "math"

// HSV is the colour as hue in degrees [0, 360), saturation and value in
// [0, 1]. Greys have hue 0.
func (c RGB) HSV() (h, s, v float64) {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	hi, lo := max(r, g, b), min(r, g, b)
	d := hi - lo
	v = hi
	if hi > 0 {
		s = d / hi
	}
	if d == 0 {
		return 0, s, v
	}
	var sector float64
	switch hi {
	case r:
		sector = (g - b) / d
		if sector < 0 {
			sector += 6
		}
	case g:
		sector = (b-r)/d + 2
	default:
		sector = (r-g)/d + 4
	}
	return 60 * sector, s, v
}

// HSVToRGB is the colour of hue h in degrees (any value: it wraps),
// saturation s and value v (clamped to [0, 1]). NaN counts as 0.
func HSVToRGB(h, s, v float64) RGB {
	h, s, v = wrapHue(h), unit(s), unit(v)
	chroma := v * s
	sector := h / 60
	x := chroma * (1 - math.Abs(math.Mod(sector, 2)-1))
	var r, g, b float64
	switch int(sector) {
	case 0:
		r, g = chroma, x
	case 1:
		r, g = x, chroma
	case 2:
		g, b = chroma, x
	case 3:
		g, b = x, chroma
	case 4:
		r, b = x, chroma
	default:
		r, b = chroma, x
	}
	m := v - chroma
	return RGB{R: toByte(r + m), G: toByte(g + m), B: toByte(b + m)}
}

// wrapHue brings any angle into [0, 360).
func wrapHue(h float64) float64 {
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return 0
	}
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	if h >= 360 {
		h = 0
	}
	return h
}

// unit clamps v to [0, 1], NaN to 0.
func unit(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return math.Min(v, 1)
}
