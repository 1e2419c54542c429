package lightimage

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"sync"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// maxBytes is the most a picture may weigh.
const maxBytes = 64 << 10

// light is an online light of model in state st (nil: no state).
func light(model string, st *devices.LightState) service.Light {
	return service.Light{
		DeviceView:   service.DeviceView{ID: "sim:x", Name: "Test light", Kind: devices.KindLight, Adapter: "sim", Model: model, Online: true},
		Capabilities: devices.LightCaps{Dimmable: true, Color: true, KelvinMin: 2700, KelvinMax: 6500},
		State:        st,
	}
}

func warm(bri int) *devices.LightState {
	return &devices.LightState{On: true, Brightness: bri, Mode: devices.ModeTemperature, Kelvin: 3000}
}

func coloured(hex string, bri int) *devices.LightState {
	return &devices.LightState{On: true, Brightness: bri, Mode: devices.ModeColor, Color: &devices.Color{Hex: hex}}
}

var off = &devices.LightState{On: false, Brightness: 80, Mode: devices.ModeTemperature, Kelvin: 3000}

// picture draws l and decodes it, failing unless it is a PNG of Size×Size
// within maxBytes.
func picture(t testing.TB, l service.Light) *image.RGBA {
	t.Helper()
	b, err := PNG(l)
	if err != nil {
		t.Fatalf("PNG(%s): %v", l.Model, err)
	}
	if len(b) > maxBytes {
		t.Errorf("the picture of %s (%s) is %d bytes; want at most %d", l.Model, FormOf(l), len(b), maxBytes)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the picture of %s is not a PNG: %v", l.Model, err)
	}
	if r := img.Bounds(); r.Dx() != Size || r.Dy() != Size {
		t.Fatalf("the picture of %s is %v; want %d×%d", l.Model, r, Size, Size)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, image.Point{}, draw.Src)
	return rgba
}

// faceAt is the pixel nearest the middle of form f's face that lies well
// inside the face and clear of what is drawn over it.
func faceAt(f Form) image.Point {
	fx := fixtureOf(look{form: f, segments: maxSegments})
	clear := func(x, y float64) bool {
		if fx.face.dist(x, y) > -2 {
			return false
		}
		for _, o := range fx.over {
			if o.s.dist(x, y) < 2 {
				return false
			}
		}
		return true
	}
	mid := fx.face.box.Min.Add(fx.face.box.Max).Div(2)
	best, bestDist := image.Point{}, -1
	for y := fx.face.box.Min.Y; y < fx.face.box.Max.Y; y++ {
		for x := fx.face.box.Min.X; x < fx.face.box.Max.X; x++ {
			d := (x-mid.X)*(x-mid.X) + (y-mid.Y)*(y-mid.Y)
			if (bestDist < 0 || d < bestDist) && clear(float64(x)+0.5, float64(y)+0.5) {
				best, bestDist = image.Pt(x, y), d
			}
		}
	}
	if bestDist < 0 {
		panic(fmt.Sprintf("the %s has no face", f))
	}
	return best
}

func rgbAt(img *image.RGBA, p image.Point) (r, g, b uint8) {
	px := img.Pix[img.PixOffset(p.X, p.Y):]
	return px[0], px[1], px[2]
}

func samePixels(a, b *image.RGBA) bool { return bytes.Equal(a.Pix, b.Pix) }

// brightest is the highest colour channel anywhere in img.
func brightest(img *image.RGBA) uint8 {
	var most uint8
	for i := 0; i < len(img.Pix); i += 4 {
		most = max(most, img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	return most
}

func TestPicturesShowTheState(t *testing.T) {
	lit := picture(t, light("Neewer RGB660 PRO", warm(100)))
	dark := picture(t, light("Neewer RGB660 PRO", off))
	red := picture(t, light("Hue White and Color Ambiance A19", coloured("FF0000", 100)))

	if samePixels(lit, dark) || samePixels(lit, red) || samePixels(dark, red) {
		t.Fatal("a warm-white panel, an off panel and a red bulb share a picture")
	}
	if r, g, b := rgbAt(red, faceAt(FormBulb)); r < 200 || g > 40 || b > 40 {
		t.Errorf("the red bulb's glass is #%02X%02X%02X; want red", r, g, b)
	}
	if r, g, b := rgbAt(lit, faceAt(FormPanel)); r < 240 || g < 160 || b < 100 || r < b {
		t.Errorf("the warm-white panel's face is #%02X%02X%02X; want a bright warm white", r, g, b)
	}
	if most := brightest(dark); most >= 128 {
		t.Errorf("the off panel has a pixel with a channel at %d; want nothing bright", most)
	}
}

func TestBrightnessShows(t *testing.T) {
	at := func(bri int) *image.RGBA { return picture(t, light("Neewer RGB660 PRO", warm(bri))) }
	dim, full, least := at(10), at(100), at(1)
	if samePixels(dim, full) {
		t.Fatal("10 % and 100 % look the same")
	}
	p := faceAt(FormPanel)
	rDim, _, _ := rgbAt(dim, p)
	rFull, _, _ := rgbAt(full, p)
	rLeast, _, _ := rgbAt(least, p)
	rOff, _, _ := rgbAt(picture(t, light("Neewer RGB660 PRO", off)), p)
	if !(rFull > rDim && rDim > rLeast && rLeast >= rOff+60) {
		t.Errorf("face red at 100, 10, 1 %% and off: %d, %d, %d, %d; want falling, 1 %% plainly above off", rFull, rDim, rLeast, rOff)
	}
	// The glow reaches further at full brightness: just above the housing.
	glow := func(img *image.RGBA) int {
		r, g, b := rgbAt(img, image.Pt(128, 38))
		return int(r) + int(g) + int(b)
	}
	if glow(full) <= glow(dim) {
		t.Errorf("no more glow above the panel at 100 %% than at 10 %%: %d against %d", glow(full), glow(dim))
	}
}

func TestEveryFormRendersWithinItsSize(t *testing.T) {
	// The brightest states weigh the most: a white at full, and an
	// effect's stripes over a full glow.
	brightStates := map[string]*devices.LightState{
		"white":  coloured("FFFFFF", 100),
		"effect": {On: true, Brightness: 100, Mode: devices.ModeEffect, Effect: "Party"},
	}
	for _, f := range Forms() {
		dark := picture(t, formLight(f, off))
		at := faceAt(f)
		for name, st := range brightStates {
			img := picture(t, formLight(f, st))
			if samePixels(img, dark) {
				t.Errorf("%s %s looks as it does off", f, name)
			}
			if r, g, b := rgbAt(img, at); max(r, g, b) < 200 {
				t.Errorf("%s %s: face #%02X%02X%02X; want it lit", f, name, r, g, b)
			}
		}
	}
}

// formLight is an online light drawn as f, a strip with the most
// segments it marks.
func formLight(f Form, st *devices.LightState) service.Light {
	l := light(string(f), st)
	l.Model = map[Form]string{
		FormPanel: "RGB660", FormTube: "TL60 RGB", FormBulb: "A19", FormStrip: "LED strip",
		FormLamp: "Floor lamp", FormRing: "RP18B PRO", FormSpot: "CB60 RGB",
	}[f]
	l.Capabilities.Segments = 100
	if got := FormOf(l); got != f {
		panic(fmt.Sprintf("%q is drawn as %s, not %s", l.Model, got, f))
	}
	return l
}

func TestOfflineIsDarkWithACross(t *testing.T) {
	l := light("Neewer RGB660 PRO", warm(100))
	l.Online = false
	gone := picture(t, l)
	dark := picture(t, light("Neewer RGB660 PRO", off))
	if r, g, b := rgbAt(gone, faceAt(FormPanel)); max(r, g, b) > 60 {
		t.Errorf("an offline panel's face is #%02X%02X%02X; want it dark", r, g, b)
	}
	if samePixels(gone, dark) {
		t.Error("an offline panel looks like one that is merely off")
	}
	l.State = nil
	if !samePixels(picture(t, l), gone) {
		t.Error("an offline light looks different with and without a last state")
	}
}

func TestColourOfEachMode(t *testing.T) {
	face := func(st *devices.LightState) string {
		r, g, b := rgbAt(picture(t, light("A19", st)), faceAt(FormBulb))
		return fmt.Sprintf("%02X%02X%02X", r, g, b)
	}
	green := &devices.LightState{On: true, Brightness: 100, Mode: devices.ModeTemperature, Kelvin: 5600, GM: -50}
	neutral := &devices.LightState{On: true, Brightness: 100, Mode: devices.ModeTemperature, Kelvin: 5600}
	if g, n := face(green), face(neutral); g == n || g[2:4] != n[2:4] {
		t.Errorf("5600 K leaned to green %s against neutral %s; want red and blue lower, green the same", g, n)
	}
	// An effect shows its last colour in stripes; a colour that is not
	// hex falls back to a warm white rather than failing.
	withColour := &devices.LightState{On: true, Brightness: 100, Mode: devices.ModeEffect, Effect: "Pulse", Color: &devices.Color{Hex: "00FF00"}}
	if a, b := picture(t, light("A19", withColour)), picture(t, light("A19", &devices.LightState{On: true, Brightness: 100, Mode: devices.ModeEffect, Effect: "Pulse"})); samePixels(a, b) {
		t.Error("an effect looks the same whatever its colour")
	}
	if got := face(coloured("nonsense", 100)); got != face(&devices.LightState{On: true, Brightness: 100}) {
		t.Errorf("a colour that is not hex shows %s; want the warm white of a light that says none", got)
	}
}

func TestFormOf(t *testing.T) {
	cases := []struct {
		adapter, model, name string
		segments             int
		want                 Form
	}{
		{"neewer", "Neewer RGB660 PRO", "Key Light", 0, FormPanel},
		{"neewer", "Neewer SL90 Pro", "", 0, FormPanel},
		{"neewer", "Neewer GL1", "", 0, FormPanel},
		{"neewer", "Neewer RGB1", "", 0, FormPanel},
		{"neewer", "Neewer RGB168", "", 0, FormPanel},
		{"neewer", "Neewer TL60 RGB", "", 0, FormTube},
		{"neewer", "Neewer TL120C", "", 0, FormTube},
		{"neewer", "Neewer BH-30S RGB", "", 0, FormTube},
		{"neewer", "Neewer CB60 RGB", "", 0, FormSpot},
		{"neewer", "Neewer MS60C", "", 0, FormSpot},
		{"neewer", "Neewer RP18B PRO", "", 0, FormRing},
		{"neewer", "Neewer A19C(E26)", "", 0, FormBulb},
		{"neewer", "Neewer (model unknown)", "Neewer-A1B2C3", 0, FormPanel},
		{"sim", "Neewer NL660 Bi-Color", "Fill Light", 0, FormPanel},
		{"sim", "Hue Go", "Desk Lamp", 0, FormLamp},
		{"sim", "Hue White and Color Ambiance A19", "Ceiling Light", 0, FormBulb},
		{"sim", "Hue White Ambiance E27", "Bedside Lamp", 0, FormBulb}, // the model says what the device is
		{"sim", "Govee RGBIC Neon Rope Light", "Rope Light", 10, FormStrip},
		{"mqtt", "WLED", "Kitchen cabinets", 0, FormStrip},
		{"mqtt", "", "Under-shelf", 15, FormStrip},
		{"mqtt", "Tasmota light", "Reading lamp", 0, FormLamp},
		{"hass", "", "Hallway", 0, FormBulb},
		{"hass", "Philips Hue lightstrip plus", "TV backlight", 0, FormStrip},
		{"hass", "", "Studio ring light", 0, FormRing},
		{"hass", "", "Spotlight", 0, FormSpot},
	}
	for _, c := range cases {
		l := service.Light{DeviceView: service.DeviceView{Adapter: c.adapter, Model: c.model, Name: c.name}, Capabilities: devices.LightCaps{Segments: c.segments}}
		if got := FormOf(l); got != c.want {
			t.Errorf("FormOf(%s %q %q, %d segments) = %s; want %s", c.adapter, c.model, c.name, c.segments, got, c.want)
		}
	}
}

func TestCacheAnswersTheSameLookWithoutDrawing(t *testing.T) {
	kept = newCache(keptPictures) // no test runs beside this one
	l := light("Neewer RGB660 PRO", coloured("12AB34", 37))
	first, _ := PNG(l)
	first[0] = 0 // the caller's to spoil
	before := kept.len()
	again, _ := PNG(l)
	if before != 1 || kept.len() != 1 || again[0] != 0x89 {
		t.Fatalf("the same look was drawn again or handed out spoilt (kept %d → %d, first byte %#x)", before, kept.len(), again[0])
	}
	// Another name, the same look: the same picture.
	other := l
	other.Name, other.ID = "Another", "sim:y"
	if b, _ := PNG(other); !bytes.Equal(b, again) {
		t.Error("two lights that look alike have different pictures")
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := newCache(4)
	for i := range 10 {
		c.put(look{level: i}, []byte{byte(i)})
	}
	if c.len() != 4 {
		t.Fatalf("kept %d; want 4", c.len())
	}
	if _, ok := c.get(look{level: 5}); ok {
		t.Error("kept the sixth of ten pictures in a cache of four")
	}
	c.get(look{level: 6}) // now the most recent
	c.put(look{level: 10}, nil)
	if _, ok := c.get(look{level: 6}); !ok {
		t.Error("let the most recently asked-for picture go")
	}
	if _, ok := c.get(look{level: 7}); ok {
		t.Error("kept the least recently asked-for picture")
	}
}

func TestPNGIsSafeConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 8 {
				l := light("A19", coloured("FF8800", (i*8+j)%12)) // twelve looks: drawn, and kept
				if _, err := PNG(l); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if kept.len() > keptPictures {
		t.Errorf("kept %d pictures; want at most %d", kept.len(), keptPictures)
	}
}

// BenchmarkPNG draws and encodes each form in a bright effect state (its
// heaviest picture), bypassing the cache, and then asks for a picture the
// cache holds.
//
//	go test -run '^$' -bench PNG -benchmem ./lightimage/
func BenchmarkPNG(b *testing.B) {
	st := &devices.LightState{On: true, Brightness: 100, Mode: devices.ModeEffect, Effect: "Party", Color: &devices.Color{Hex: "FF0000"}}
	for _, f := range Forms() {
		lk := lookOf(formLight(f, st))
		b.Run(string(f), func(b *testing.B) {
			var n int
			for b.Loop() {
				out, err := encode(render(lk))
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.ReportMetric(float64(n), "bytes/png")
		})
	}
	b.Run("kept", func(b *testing.B) {
		l := formLight(FormPanel, st)
		if _, err := PNG(l); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := PNG(l); err != nil {
				b.Fatal(err)
			}
		}
	})
}
