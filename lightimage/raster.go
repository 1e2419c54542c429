package lightimage

import (
	"image"
	"math"
)

// The picture is drawn shape by shape from signed distances: each shape
// says how far a point is from its edge (negative inside), which gives
// both an anti-aliased edge (a pixel is covered by how far inside its
// centre lies) and a glow that fades with the distance from a lit face.

// rgb is a colour with channels from 0 to 255, as floats so that scaling
// and blending round once, when a pixel is written.
type rgb struct{ r, g, b float64 }

// scaled is c with every channel multiplied by k.
func (c rgb) scaled(k float64) rgb { return rgb{c.r * k, c.g * k, c.b * k} }

// toward is c moved a fraction t of the way to d.
func (c rgb) toward(d rgb, t float64) rgb {
	return rgb{c.r + (d.r-c.r)*t, c.g + (d.g-c.g)*t, c.b + (d.b-c.b)*t}
}

// shape is a region of the picture: dist is the signed distance in
// pixels from its edge, negative inside; box bounds where dist may be
// negative.
type shape struct {
	box  image.Rectangle
	dist func(x, y float64) float64
}

// boxAround is the rectangle from (x0, y0) to (x1, y1), rounded outward.
func boxAround(x0, y0, x1, y1 float64) image.Rectangle {
	return image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1)
}

// roundRect is a w×h rectangle centred on (cx, cy), its corners rounded
// with radius r.
func roundRect(cx, cy, w, h, r float64) shape {
	hw, hh := w/2-r, h/2-r
	return shape{
		box: boxAround(cx-w/2, cy-h/2, cx+w/2, cy+h/2),
		dist: func(x, y float64) float64 {
			dx, dy := math.Abs(x-cx)-hw, math.Abs(y-cy)-hh
			outside := length(max(dx, 0), max(dy, 0))
			return outside + min(max(dx, dy), 0) - r
		},
	}
}

// circle is a disc of radius r centred on (cx, cy).
func circle(cx, cy, r float64) shape {
	return shape{
		box:  boxAround(cx-r, cy-r, cx+r, cy+r),
		dist: func(x, y float64) float64 { return length(x-cx, y-cy) - r },
	}
}

// capsule is the line from (ax, ay) to (bx, by) drawn r wide on each side,
// with round ends.
func capsule(ax, ay, bx, by, r float64) shape {
	return shape{
		box:  boxAround(min(ax, bx)-r, min(ay, by)-r, max(ax, bx)+r, max(ay, by)+r),
		dist: func(x, y float64) float64 { return segmentDist(x, y, ax, ay, bx, by) - r },
	}
}

// segmentDist is how far (x, y) is from the segment (ax, ay)–(bx, by).
func segmentDist(x, y, ax, ay, bx, by float64) float64 {
	px, py, dx, dy := x-ax, y-ay, bx-ax, by-ay
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = min(max((px*dx+py*dy)/l, 0), 1)
	}
	return length(px-dx*t, py-dy*t)
}

// length is the length of the vector (x, y).
func length(x, y float64) float64 { return math.Sqrt(x*x + y*y) }

// polygon is the convex polygon through pts, given clockwise on screen
// (y down).
func polygon(pts ...[2]float64) shape {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	return shape{
		box: boxAround(x0, y0, x1, y1),
		dist: func(x, y float64) float64 {
			d, inside := math.Inf(1), true
			for i, a := range pts {
				b := pts[(i+1)%len(pts)]
				d = min(d, segmentDist(x, y, a[0], a[1], b[0], b[1]))
				// Clockwise on screen: inside lies to the right of each edge.
				if (b[0]-a[0])*(y-a[1])-(b[1]-a[1])*(x-a[0]) < 0 {
					inside = false
				}
			}
			if inside {
				return -d
			}
			return d
		},
	}
}

// path is the polyline through pts drawn r wide on each side. A point is
// measured only against the segments whose boxes lie nearer than the
// nearest segment found so far.
func path(r float64, pts ...[2]float64) shape {
	type seg struct{ ax, ay, bx, by, x0, y0, x1, y1 float64 }
	segs := make([]seg, 0, len(pts)-1)
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		segs = append(segs, seg{a[0], a[1], b[0], b[1], min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])})
	}
	box := image.Rectangle{}
	for _, s := range segs {
		box = box.Union(boxAround(s.x0-r, s.y0-r, s.x1+r, s.y1+r))
	}
	return shape{
		box: box,
		dist: func(x, y float64) float64 {
			d := math.Inf(1)
			for _, s := range segs {
				if max(s.x0-x, x-s.x1) >= d || max(s.y0-y, y-s.y1) >= d {
					continue
				}
				d = min(d, segmentDist(x, y, s.ax, s.ay, s.bx, s.by))
			}
			return d - r
		},
	}
}

// blended is the union of a and b with the seam between them rounded
// over k pixels, as glass is blown.
func blended(a, b shape, k float64) shape {
	return shape{
		box: a.box.Union(b.box).Inset(-int(math.Ceil(k))),
		dist: func(x, y float64) float64 {
			da, db := a.dist(x, y), b.dist(x, y)
			h := min(max(0.5+0.5*(db-da)/k, 0), 1)
			return db + (da-db)*h - k*h*(1-h)
		},
	}
}

// shell is the band of half-width w along s's edge: a ring of a circle.
func shell(s shape, w float64) shape {
	return shape{
		box:  s.box.Inset(-int(math.Ceil(w))),
		dist: func(x, y float64) float64 { return math.Abs(s.dist(x, y)) - w },
	}
}

// canvas is the picture being drawn: opaque, painted over shape by shape.
type canvas struct{ img *image.RGBA }

func newCanvas(w, h int, bg rgb) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	r, g, b := byteOf(bg.r), byteOf(bg.g), byteOf(bg.b)
	for i := 0; i < len(c.img.Pix); i += 4 {
		c.img.Pix[i], c.img.Pix[i+1], c.img.Pix[i+2], c.img.Pix[i+3] = r, g, b, 0xFF
	}
	return c
}

// A shape is measured a tile at a time: a distance is never more than
// one pixel further per pixel moved, so the distance at a tile's centre
// tells a tile wholly inside or wholly outside a shape (or a glow's
// reach) from one its edge crosses, and only those are measured pixel by
// pixel.
const tile = 8

// tileReach is how far the edge of a pixel of a tile lies from the
// tile's centre, at most.
const tileReach = tile*math.Sqrt2/2 + 0.5

// fill paints s with the colour paint gives at each pixel, its edge
// anti-aliased.
func (c *canvas) fill(s shape, paint func(x, y float64) rgb) {
	c.tiles(s.box, s, func(t image.Rectangle, d float64) {
		switch {
		case d > tileReach:
			return
		case d < -tileReach:
			c.blend(t, func(x, y float64) (rgb, float64) { return paint(x, y), 1 })
			return
		}
		c.blend(t, func(x, y float64) (rgb, float64) {
			cover := min(max(0.5-s.dist(x, y), 0), 1)
			if cover == 0 {
				return rgb{}, 0
			}
			return paint(x, y), cover
		})
	})
}

// fillFlat paints s in one colour.
func (c *canvas) fillFlat(s shape, col rgb) {
	c.fill(s, func(float64, float64) rgb { return col })
}

// glowStep is the spacing of the grid a glow measures its shape on.
const glowStep = 4

// glow lays a halo of col around s, alpha strong at its edge and fading
// to nothing radius pixels out. It leaves alone the inside of s, which
// its fill covers. A halo is smooth, so s is measured on a coarse grid
// and the distance between its points interpolated; only within a grid
// step of the edge is it measured at each pixel.
func (c *canvas) glow(s shape, col rgb, radius, alpha float64) {
	box := s.box.Inset(-int(math.Ceil(radius))).Intersect(c.img.Rect)
	if box.Empty() {
		return
	}
	near := distanceGrid(s, box)
	c.blend(box, func(x, y float64) (rgb, float64) {
		d := near(x, y)
		if d < glowStep {
			d = s.dist(x, y)
		}
		if d >= radius || d < -0.5 {
			return rgb{}, 0
		}
		f := 1 - max(d, 0)/radius
		return col, alpha * f * f
	})
}

// distanceGrid measures s every glowStep pixels over box and answers the
// distance anywhere in box by bilinear interpolation.
func distanceGrid(s shape, box image.Rectangle) func(x, y float64) float64 {
	ox, oy := float64(box.Min.X)+0.5, float64(box.Min.Y)+0.5
	w, h := box.Dx()/glowStep+2, box.Dy()/glowStep+2
	grid := make([]float64, w*h)
	for j := range h {
		for i := range w {
			grid[j*w+i] = s.dist(ox+float64(i*glowStep), oy+float64(j*glowStep))
		}
	}
	return func(x, y float64) float64 {
		fx, fy := (x-ox)/glowStep, (y-oy)/glowStep
		i, j := min(int(fx), w-2), min(int(fy), h-2)
		tx, ty := fx-float64(i), fy-float64(j)
		at := grid[j*w+i:]
		top := at[0] + (at[1]-at[0])*tx
		bottom := at[w] + (at[w+1]-at[w])*tx
		return top + (bottom-top)*ty
	}
}

// tiles calls fn with each tile of box within the picture and the
// distance from s at the tile's centre.
func (c *canvas) tiles(box image.Rectangle, s shape, fn func(t image.Rectangle, d float64)) {
	box = box.Intersect(c.img.Rect)
	for y := box.Min.Y; y < box.Max.Y; y += tile {
		for x := box.Min.X; x < box.Max.X; x += tile {
			t := image.Rect(x, y, x+tile, y+tile).Intersect(box)
			fn(t, s.dist(float64(x)+tile/2, float64(y)+tile/2))
		}
	}
}

// blend lays, at every pixel of box, the colour at that pixel's centre
// with its alpha.
func (c *canvas) blend(box image.Rectangle, at func(x, y float64) (rgb, float64)) {
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			col, a := at(float64(x)+0.5, float64(y)+0.5)
			if a <= 0 {
				continue
			}
			p := c.img.Pix[c.img.PixOffset(x, y):]
			p[0] = byteOf(float64(p[0]) + (col.r-float64(p[0]))*a)
			p[1] = byteOf(float64(p[1]) + (col.g-float64(p[1]))*a)
			p[2] = byteOf(float64(p[2]) + (col.b-float64(p[2]))*a)
		}
	}
}

// byteOf rounds a channel to a byte, clamping.
func byteOf(v float64) uint8 {
	return uint8(min(max(v+0.5, 0), 255))
}
