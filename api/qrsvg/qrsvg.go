// Package qrsvg draws a QR code as vector graphics: the dark modules as
// one SVG path on a grid of one unit a module, with the four-module
// quiet zone the standard asks for, so it scales to any size without
// blur. The encoding itself is github.com/skip2/go-qrcode's.
package qrsvg

import (
	"fmt"
	"strings"

	"github.com/skip2/go-qrcode"
)

// quiet is the width of the light margin, in modules.
const quiet = 4

// Code is a QR code to draw: Size modules square (the quiet zone
// included), the dark modules as the SVG path Path.
type Code struct {
	Size int    `json:"size"`
	Path string `json:"path"`
}

// Encode encodes text (at error correction level M, which survives a
// screen's glare) as a QR code.
func Encode(text string) (Code, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return Code{}, fmt.Errorf("encoding a QR code: %w", err)
	}
	q.DisableBorder = true
	bits := q.Bitmap()
	var b strings.Builder
	for y, row := range bits {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			start := x
			for x < len(row) && row[x] {
				x++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", start+quiet, y+quiet, x-start, x-start)
		}
	}
	return Code{Size: len(bits) + 2*quiet, Path: b.String()}, nil
}

// SVG is the code as a standalone SVG document, black on white.
func (c Code) SVG() string {
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`, c.Size, c.Size, c.Size, c.Size, c.Path)
}
