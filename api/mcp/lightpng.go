package mcp

import (
	"bytes"
	"image"
	stdcolor "image/color"
	"image/png"

	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// lightPNG is a picture of l: for now a swatch of the colour it shows,
// dark when it is off.
func lightPNG(l service.Light) ([]byte, error) {
	c := stdcolor.RGBA{R: 0x20, G: 0x20, B: 0x20, A: 0xFF}
	if st := l.State; st != nil && st.On {
		rgb := color.RGB{R: 0xFF, G: 0xF4, B: 0xE5}
		if st.Color != nil {
			if p, err := color.ParseHex(st.Color.Hex); err == nil {
				rgb = p
			}
		}
		scale := func(v uint8) uint8 { return uint8(int(v) * max(st.Brightness, 10) / 100) }
		c = stdcolor.RGBA{R: scale(rgb.R), G: scale(rgb.G), B: scale(rgb.B), A: 0xFF}
	}
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	err := png.Encode(&b, img)
	return b.Bytes(), err
}
