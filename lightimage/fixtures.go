package lightimage

import "math"

// fixture is a form as drawn: its housing, the face that emits, and
// what lies over the face (a bulb's screw base, a strip's segment marks).
// A face of LEDs behind a clear cover shows them in a grid, pitch pixels
// apart (0: a diffused face, one flat colour).
type fixture struct {
	body  []part
	face  shape
	pitch float64
	over  []part
}

// part is a shape in one colour.
type part struct {
	s   shape
	col rgb
}

// The palette: a dark neutral backdrop, housings in greys.
var (
	backdrop    = rgb{24, 25, 28}
	housing     = rgb{88, 92, 99}
	housingDark = rgb{56, 59, 65}
	faceOff     = rgb{40, 42, 46}
	offMark     = rgb{150, 64, 66}
)

// fixtureOf draws the fixture of lk's form, centred on the picture.
func fixtureOf(lk look) fixture {
	switch lk.form {
	case FormTube:
		return tube()
	case FormBulb:
		return bulb()
	case FormStrip:
		return strip(lk.segments)
	case FormLamp:
		return lamp()
	case FormRing:
		return ring()
	case FormSpot:
		return spot()
	}
	return panel()
}

// yoke is the U-bracket a panel or a monolight hangs in, with its stand.
func yoke(top, bottom, left, right float64) []part {
	return []part{
		{capsule(left, top, left, bottom, 4), housingDark},
		{capsule(right, top, right, bottom, 4), housingDark},
		{capsule(left, bottom, right, bottom, 4), housingDark},
		{capsule(128, bottom, 128, 248, 5), housingDark},
		{circle(left, top, 8), housing},
		{circle(right, top, 8), housing},
	}
}

// panel: a flat panel in its yoke, with two knobs under the face.
func panel() fixture {
	return fixture{
		body:  append(yoke(112, 200, 26, 230), part{roundRect(128, 112, 184, 136, 10), housing}),
		face:  roundRect(128, 106, 164, 104, 4),
		pitch: 12,
		over:  []part{{circle(190, 169, 4), housingDark}, {circle(206, 169, 4), housingDark}},
	}
}

// tube: a bar lit between its end caps, leaning as one stood in a
// corner.
func tube() fixture {
	const ax, ay, bx, by = 38.0, 206.0, 218.0, 50.0
	along := func(t float64) (float64, float64) { return ax + (bx-ax)*t, ay + (by-ay)*t }
	x0, y0 := along(0.08)
	x1, y1 := along(0.92)
	return fixture{
		body: []part{{capsule(ax, ay, bx, by, 15), housing}},
		face: capsule(x0, y0, x1, y1, 9),
	}
}

// bulb: a pear of glass on a threaded base.
func bulb() fixture {
	glass := blended(circle(128, 92, 62), polygon([2]float64{102, 136}, [2]float64{154, 136}, [2]float64{148, 180}, [2]float64{108, 180}), 18)
	over := []part{{roundRect(128, 196, 46, 40, 6), housing}, {roundRect(128, 222, 20, 14, 6), housingDark}}
	for _, y := range []float64{186, 196, 206} {
		over = append(over, part{capsule(108, y, 148, y+4, 1.5), housingDark})
	}
	return fixture{face: glass, over: over}
}

// strip: a band of LEDs in a wave, with a mark between segments.
func strip(segments int) fixture {
	const x0, x1, mid, amp = 24.0, 232.0, 128.0, 34.0
	wave := func(x float64) float64 { return mid + amp*math.Sin((x-x0)/(x1-x0)*2*math.Pi) }
	var pts [][2]float64
	for i := 0; i <= 32; i++ {
		x := x0 + (x1-x0)*float64(i)/32
		pts = append(pts, [2]float64{x, wave(x)})
	}
	f := fixture{body: []part{{path(11, pts...), housing}}, face: path(6, pts...)}
	for i := 1; i < segments; i++ {
		x := x0 + (x1-x0)*float64(i)/float64(segments)
		slope := amp * 2 * math.Pi / (x1 - x0) * math.Cos((x-x0)/(x1-x0)*2*math.Pi)
		nx, ny := -slope/math.Hypot(1, slope), 1/math.Hypot(1, slope) // across the band
		y := wave(x)
		f.over = append(f.over, part{capsule(x-nx*7, y-ny*7, x+nx*7, y+ny*7, 1.2), housing})
	}
	return f
}

// lamp: a glowing shade over a stem on a round foot.
func lamp() fixture {
	shade := polygon([2]float64{98, 44}, [2]float64{158, 44}, [2]float64{194, 132}, [2]float64{62, 132})
	return fixture{
		body: []part{
			{capsule(128, 130, 128, 214, 5), housing},
			{roundRect(128, 220, 100, 16, 8), housing},
		},
		face: rounded(shade, 3),
	}
}

// ring: a lit ring on a stand, a phone mount in its middle.
func ring() fixture {
	const cx, cy, r = 128.0, 112.0, 76.0
	return fixture{
		body: []part{
			{capsule(cx, cy+r, cx, 248, 5), housingDark},
			{capsule(cx, cy+r-12, cx, cy+24, 3), housingDark},
			{roundRect(cx, cy, 28, 50, 6), housingDark},
			{shell(circle(cx, cy, r), 17), housing},
		},
		face: shell(circle(cx, cy, r), 11),
	}
}

// spot: a COB emitter in a round reflector, in its yoke.
func spot() fixture {
	const cx, cy = 128.0, 118.0
	body := append(yoke(cy, 206, 34, 222), part{circle(cx, cy, 84), housing}, part{circle(cx, cy, 70), housingDark})
	for _, r := range []float64{44, 58} {
		body = append(body, part{shell(circle(cx, cy, r), 1), housing})
	}
	return fixture{body: body, face: circle(cx, cy, 30)}
}

// rounded is s grown by r on every side, its corners rounded.
func rounded(s shape, r float64) shape {
	return shape{
		box:  s.box.Inset(-int(math.Ceil(r))),
		dist: func(x, y float64) float64 { return s.dist(x, y) - r },
	}
}
