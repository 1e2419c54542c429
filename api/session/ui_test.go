package session_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
)

// The UI's text files go gzipped to a browser that takes gzip, and as
// they are to one that does not; images are sent as they are.
func TestTheUIIsSentCompressed(t *testing.T) {
	h := newHub(t)
	plainPage := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/", Header: map[string]string{"Accept-Encoding": "identity"}})
	m := regexp.MustCompile(`src="(/assets/[0-9a-f]{12}/app\.js)"`).FindSubmatch(plainPage.Body)
	if m == nil {
		t.Fatalf("no app.js in the page:\n%s", plainPage.Body)
	}
	for _, path := range []string{"/", string(m[1])} {
		plain := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: path, Header: map[string]string{"Accept-Encoding": "identity"}})
		zipped := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: path, Header: map[string]string{"Accept-Encoding": "br, gzip;q=0.8"}})
		if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" || zipped.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%s: encodings %q and %q, Vary %q", path, plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"), zipped.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.Body) {
			t.Fatalf("%s: the gzipped answer is not the file (%v)", path, err)
		}
		t.Logf("%s: %d bytes, %d gzipped", path, len(plain.Body), len(zipped.Body))
	}
	refused := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: string(m[1]), Header: map[string]string{"Accept-Encoding": "gzip;q=0"}})
	if refused.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent although refused with q=0")
	}
	png := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: regexp.MustCompile(`app\.js$`).ReplaceAllString(string(m[1]), "icon-192.png"),
		Header: map[string]string{"Accept-Encoding": "gzip"}})
	if png.Header.Get("Content-Encoding") != "" || png.Header.Get("Content-Type") != "image/png" {
		t.Errorf("the icon: encoding %q, type %q", png.Header.Get("Content-Encoding"), png.Header.Get("Content-Type"))
	}
}
