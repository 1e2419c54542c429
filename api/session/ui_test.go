package session_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"testing"
)

// The UI's text files go gzipped to a browser that takes gzip, and as
// they are to one that does not; images are sent as they are.
func TestTheUIIsSentCompressed(t *testing.T) {
	h := newHub(t)
	plainPage := h.must(t, http.StatusOK, req{method: "GET", path: "/", header: map[string]string{"Accept-Encoding": "identity"}})
	m := regexp.MustCompile(`src="(/assets/[0-9a-f]{12}/app\.js)"`).FindSubmatch(plainPage.body)
	if m == nil {
		t.Fatalf("no app.js in the page:\n%s", plainPage.body)
	}
	for _, path := range []string{"/", string(m[1])} {
		plain := h.must(t, http.StatusOK, req{method: "GET", path: path, header: map[string]string{"Accept-Encoding": "identity"}})
		zipped := h.must(t, http.StatusOK, req{method: "GET", path: path, header: map[string]string{"Accept-Encoding": "br, gzip;q=0.8"}})
		if plain.header.Get("Content-Encoding") != "" || zipped.header.Get("Content-Encoding") != "gzip" || zipped.header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%s: encodings %q and %q, Vary %q", path, plain.header.Get("Content-Encoding"), zipped.header.Get("Content-Encoding"), zipped.header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.body) {
			t.Fatalf("%s: the gzipped answer is not the file (%v)", path, err)
		}
		t.Logf("%s: %d bytes, %d gzipped", path, len(plain.body), len(zipped.body))
	}
	refused := h.must(t, http.StatusOK, req{method: "GET", path: string(m[1]), header: map[string]string{"Accept-Encoding": "gzip;q=0"}})
	if refused.header.Get("Content-Encoding") != "" {
		t.Error("gzip sent although refused with q=0")
	}
	png := h.must(t, http.StatusOK, req{method: "GET", path: regexp.MustCompile(`app\.js$`).ReplaceAllString(string(m[1]), "icon-192.png"),
		header: map[string]string{"Accept-Encoding": "gzip"}})
	if png.header.Get("Content-Encoding") != "" || png.header.Get("Content-Type") != "image/png" {
		t.Errorf("the icon: encoding %q, type %q", png.header.Get("Content-Encoding"), png.header.Get("Content-Type"))
	}
}
