package color

import "math"

// Matrix turns linear RGB into CIE XYZ: its rows give X, Y and Z.
type Matrix [3][3]float64

// WideRGBD65 is the Philips "Wide RGB D65" matrix that Home Assistant and
// the Hue SDK notes use. RGB.XY and XYToRGB use it.
var WideRGBD65 = Matrix{
	{0.664511, 0.154324, 0.162028},
	{0.283881, 0.668433, 0.047685},
	{0.000088, 0.072310, 0.986039},
}

// SRGBD65 is the standard sRGB matrix (IEC 61966-2-1, D65 white).
var SRGBD65 = Matrix{
	{0.4124, 0.3576, 0.1805},
	{0.2126, 0.7152, 0.0722},
	{0.0193, 0.1192, 0.9505},
}

// minY keeps XYToRGB away from a division by zero at y = 0.
const minY = 1e-6

// apply multiplies the matrix by the column vector v.
func (m Matrix) apply(v [3]float64) [3]float64 {
	var out [3]float64
	for i, row := range m {
		out[i] = row[0]*v[0] + row[1]*v[1] + row[2]*v[2]
	}
	return out
}

// inverse is the matrix's inverse (by its adjugate); the matrices here are
// well conditioned, so no pivoting is needed.
func (m Matrix) inverse() Matrix {
	var adj Matrix
	for i := range 3 {
		for j := range 3 {
			a, b := m[(j+1)%3], m[(j+2)%3]
			adj[i][j] = a[(i+1)%3]*b[(i+2)%3] - a[(i+2)%3]*b[(i+1)%3]
		}
	}
	det := m[0][0]*adj[0][0] + m[0][1]*adj[1][0] + m[0][2]*adj[2][0]
	for i := range 3 {
		for j := range 3 {
			adj[i][j] /= det
		}
	}
	return adj
}

// linear undoes sRGB companding: an 8-bit channel to linear light in 0..1.
func linear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// compand applies sRGB companding: linear light in 0..1 to a gamma-encoded
// channel in 0..1.
func compand(c float64) float64 {
	if c <= 0.0031308 {
		return 12.92 * c
	}
	return 1.055*math.Pow(c, 1/2.4) - 0.055
}

// XY is the colour's CIE 1931 chromaticity through the Wide RGB D65 matrix,
// with a brightness hint in 0..255, as Home Assistant computes them. Black
// is (0, 0, 0). Fit the point to a lamp with Gamut.Clamp.
func (c RGB) XY() (x, y float64, bri int) {
	return c.XYWith(WideRGBD65)
}

// XYWith is XY through the given RGB → XYZ matrix.
func (c RGB) XYWith(m Matrix) (x, y float64, bri int) {
	xyz := m.apply([3]float64{linear(c.R), linear(c.G), linear(c.B)})
	sum := xyz[0] + xyz[1] + xyz[2]
	if sum == 0 {
		return 0, 0, 0
	}
	bri = int(math.RoundToEven(math.Min(xyz[1], 1) * 255))
	return xyz[0] / sum, xyz[1] / sum, bri
}

// XYToRGB is the full-brightness colour of a chromaticity: the inverse of
// XY through the Wide RGB D65 matrix, with negative channels (points outside
// the RGB triangle) raised to zero and the result scaled so that its largest
// channel is 255. A y at or below zero is taken as a tiny positive y; a
// point that maps to no visible colour (NaN) gives black.
func XYToRGB(x, y float64) RGB {
	if !(y > minY) {
		y = minY
	}
	xyz := [3]float64{x / y, 1, (1 - x - y) / y}
	rgb := WideRGBD65.inverse().apply(xyz)
	peak := 0.0
	for i, v := range rgb {
		rgb[i] = math.Max(v, 0)
		peak = math.Max(peak, rgb[i])
	}
	if !(peak > 0) || math.IsInf(peak, 0) {
		return RGB{}
	}
	return RGB{
		R: toByte(compand(rgb[0] / peak)),
		G: toByte(compand(rgb[1] / peak)),
		B: toByte(compand(rgb[2] / peak)),
	}
}
