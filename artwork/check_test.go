package artwork

import (
	"bytes"
	"strings"
	"testing"
)

// pngBytes is the signature and header of a PNG: enough for the bytes'
// type to read as one.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 32)...)

func TestCheckArtwork(t *testing.T) {
	cases := []struct {
		name, given string
		data        []byte
		want, err   string
	}{
		{"png", "image/png", pngBytes, "image/png", ""},
		{"png sent without a type", "", pngBytes, "image/png", ""},
		{"png sent as jpeg: the bytes decide", "image/jpeg", pngBytes, "image/png", ""},
		{"jpeg", "image/jpeg; charset=binary", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg", ""},
		{"gif", "image/gif", []byte("GIF89a\x01\x00\x01\x00"), "image/gif", ""},
		{"webp", "image/webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 "), "image/webp", ""},
		{"html sent as an image", "image/png", []byte("<html><script>alert(1)</script></html>"), "", "text/html"},
		{"svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "", "not an image the hub keeps"},
		{"a png sent as a page", "text/html", pngBytes, "", "not an image"},
		{"a bad type", "image/", pngBytes, "", "not an image"},
		{"empty", "image/png", nil, "", "empty"},
		{"too large", "image/png", append(bytes.Clone(pngBytes), make([]byte, MaxBytes)...), "", "more than"},
	}
	for _, c := range cases {
		got, err := check(c.data, c.given)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %q, %v; want an error saying %q", c.name, got, err, c.err)
		}
	}
}
