package color

import "strings"

// Point is a CIE 1931 chromaticity.
type Point struct{ X, Y float64 }

// Gamut is the triangle of chromaticities a lamp can show, given by its
// red, green and blue corners.
type Gamut struct{ Red, Green, Blue Point }

// The Hue gamuts.
var (
	// GamutA: LivingColors, Bloom, Iris, early LightStrips.
	GamutA = Gamut{Red: Point{0.704, 0.296}, Green: Point{0.2151, 0.7106}, Blue: Point{0.138, 0.08}}
	// GamutB: first-generation Hue bulbs.
	GamutB = Gamut{Red: Point{0.675, 0.322}, Green: Point{0.409, 0.518}, Blue: Point{0.167, 0.04}}
	// GamutC: current Hue colour bulbs and strips.
	GamutC = Gamut{Red: Point{0.6915, 0.3083}, Green: Point{0.17, 0.7}, Blue: Point{0.1532, 0.0475}}
)

// GamutByName returns the Hue gamut named "A", "B" or "C" (any case).
func GamutByName(name string) (Gamut, bool) {
	switch strings.ToUpper(name) {
	case "A":
		return GamutA, true
	case "B":
		return GamutB, true
	case "C":
		return GamutC, true
	}
	return Gamut{}, false
}

func (p Point) sub(q Point) Point { return Point{p.X - q.X, p.Y - q.Y} }

func cross(p, q Point) float64 { return p.X*q.Y - p.Y*q.X }

func dot(p, q Point) float64 { return p.X*q.X + p.Y*q.Y }

// Contains reports whether p lies inside the triangle or on its edges
// (a barycentric test with the red corner as origin).
func (g Gamut) Contains(p Point) bool {
	v1, v2, q := g.Green.sub(g.Red), g.Blue.sub(g.Red), p.sub(g.Red)
	d := cross(v1, v2)
	if d == 0 {
		return false
	}
	s, t := cross(q, v2)/d, cross(v1, q)/d
	return s >= 0 && t >= 0 && s+t <= 1
}

// Clamp returns p when the gamut contains it, else the closest point on the
// triangle's edges. It does not round.
func (g Gamut) Clamp(p Point) Point {
	if g.Contains(p) {
		return p
	}
	best := closestOnSegment(p, g.Red, g.Green)
	for _, e := range [][2]Point{{g.Green, g.Blue}, {g.Blue, g.Red}} {
		c := closestOnSegment(p, e[0], e[1])
		if d := p.sub(c); dot(d, d) < dot(p.sub(best), p.sub(best)) {
			best = c
		}
	}
	return best
}

// closestOnSegment projects p onto the segment from a to b.
func closestOnSegment(p, a, b Point) Point {
	ab := b.sub(a)
	n := dot(ab, ab)
	if n == 0 {
		return a
	}
	t := min(max(dot(p.sub(a), ab)/n, 0), 1)
	return Point{a.X + t*ab.X, a.Y + t*ab.Y}
}
