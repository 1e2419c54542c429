// Package lightimage draws a light as it looks now: its fixture (a panel,
// a tube, a bulb, a strip, a lamp, a ring light, a COB spot) with the
// face lit in its colour or white at its brightness, a glow around it
// that grows with the brightness, or dark when the light is off; a light
// the hub cannot reach is drawn dark with a cross. The hub has no photos
// of products and fetches none: the picture is for eyes that want to see
// a light's state (a person's in the web UI, a vision-capable
// assistant's), not a catalogue.
//
// Pictures are PNGs of Size×Size pixels, drawn with the standard library
// alone, and kept: the picture depends only on how a light looks (its
// form, state and reachability), so the last few looks asked for are
// answered without drawing.
package lightimage

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"slices"
	"sync"

	"github.com/bifrost-hub/bifrost/service"
)

// Size is the width and height of a picture, in pixels.
const Size = 256

// PNG is the picture of l as it looks now. The bytes are the caller's.
func PNG(l service.Light) ([]byte, error) {
	lk := lookOf(l)
	if b, ok := kept.get(lk); ok {
		return slices.Clone(b), nil
	}
	b, err := encode(render(lk))
	if err != nil {
		return nil, err
	}
	kept.put(lk, b)
	return slices.Clone(b), nil
}

// encoder compresses at zlib's default level, reusing its buffers (a
// megabyte of compressor state) from one picture to the next. The
// pictures are flat areas and smooth halos, 3–35 KB at that level; the
// best level saves some 5 % and takes ten times as long, its matcher
// walking the long runs of equal bytes that flat areas filter to.
var encoder = png.Encoder{CompressionLevel: png.DefaultCompression, BufferPool: &buffers{}}

// buffers lends the encoder's buffers from one picture to the next.
type buffers struct{ pool sync.Pool }

func (b *buffers) Get() *png.EncoderBuffer {
	if eb, ok := b.pool.Get().(*png.EncoderBuffer); ok {
		return eb
	}
	return nil
}

func (b *buffers) Put(eb *png.EncoderBuffer) { b.pool.Put(eb) }

func encode(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := encoder.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// render paints lk: the housing, the glow of a lit face, the face, what
// lies over it, and the cross of a light the hub cannot reach.
func render(lk look) *image.RGBA {
	c := newCanvas(Size, Size, backdrop)
	f := fixtureOf(lk)
	for _, p := range f.body {
		c.fillFlat(p.s, p.col)
	}
	if lk.lit { // a glow 10 px wide and faint at the least brightness, 60 px and strong at full
		b := float64(lk.level) / 100
		c.glow(f.face, rgbOf(lk), 10+50*b, 0.25+0.45*b)
	}
	c.fill(f.face, withLEDs(facePaint(lk), f.pitch, lk.lit))
	for _, p := range f.over {
		c.fillFlat(p.s, p.col)
	}
	if lk.offline {
		c.fillFlat(capsule(Size-31, 13, Size-13, 31, 3), offMark)
		c.fillFlat(capsule(Size-13, 13, Size-31, 31, 3), offMark)
	}
	return c.img
}

// minIntensity is how bright a lit face is at the least brightness:
// dim, but plainly lit beside a dark one.
const minIntensity = 0.4

// intensity is how bright a face lit at level (0–100) is drawn, from
// minIntensity to 1: along a square root, as eyes and cameras see a
// dimmed lamp brighter than its power.
func intensity(level int) float64 {
	return minIntensity + (1-minIntensity)*math.Sqrt(float64(level)/100)
}

// facePaint is the paint of lk's face: dark grey when it is not lit,
// else its colour at its intensity; during an effect, that colour in
// diagonal stripes between three others.
func facePaint(lk look) func(x, y float64) rgb {
	if !lk.lit {
		return func(float64, float64) rgb { return faceOff }
	}
	k := intensity(lk.level)
	base := rgbOf(lk).scaled(k)
	if !lk.effect {
		return func(float64, float64) rgb { return base }
	}
	stripes := []rgb{base, rgb{229, 72, 77}.scaled(k), base, rgb{245, 217, 10}.scaled(k), base, rgb{62, 99, 221}.scaled(k)}
	return func(x, y float64) rgb {
		band := int(math.Floor((x - y) / 14))
		return stripes[(band%len(stripes)+len(stripes))%len(stripes)]
	}
}

// withLEDs adds to paint a grid of LEDs pitch pixels apart, brighter
// than the face around them: hot points of its colour when lit, pale
// dots when dark. A pitch of 0 leaves paint as it is.
func withLEDs(paint func(x, y float64) rgb, pitch float64, lit bool) func(x, y float64) rgb {
	if pitch == 0 {
		return paint
	}
	const radius = 2.2
	toward, by := rgb{255, 255, 255}, 0.4
	if !lit {
		toward, by = housing, 0.35
	}
	return func(x, y float64) rgb {
		dx := math.Mod(x, pitch) - pitch/2
		dy := math.Mod(y, pitch) - pitch/2
		cover := min(max(radius+0.5-length(dx, dy), 0), 1)
		c := paint(x, y)
		return c.toward(c.toward(toward, by), cover)
	}
}

// rgbOf is lk's colour at full brightness.
func rgbOf(lk look) rgb {
	return rgb{float64(lk.colour.R), float64(lk.colour.G), float64(lk.colour.B)}
}
