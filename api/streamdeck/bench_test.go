package streamdeck_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/streamdeck"
)

// BenchmarkListLights is the plugin's heartbeat, once a second per Stream
// Deck: over loopback HTTP as the plugin calls it, and in process (the
// handler alone).
func BenchmarkListLights(b *testing.B) {
	h := newHub(b)
	b.Run("loopback", func(b *testing.B) {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/listLights", nil)
		req.Header.Set("User-Agent", pluginUA)
		b.ReportAllocs()
		for b.Loop() {
			res, err := h.client.Do(req)
			if err != nil || res.StatusCode != http.StatusOK {
				b.Fatal(err, res)
			}
			_, _ = io.Copy(io.Discard, res.Body) // so the connection is reused, as the plugin's agent does
			res.Body.Close()
		}
	})
	b.Run("in-process", func(b *testing.B) {
		srv := streamdeck.New(h.svc, nil)
		req := httptest.NewRequest(http.MethodGet, "/listLights", nil)
		req.Header.Set("User-Agent", pluginUA)
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
		}
	})
}

// BenchmarkBrightness is the brightness dial: one write to a Neewer light
// on the fake radio and to a Hue bulb, answered once both took it.
func BenchmarkBrightness(b *testing.B) {
	h := newHub(b)
	srv := streamdeck.New(h.svc, nil)
	bodies := []string{`{"lights":["` + keyID + `","sim:desk-lamp"],"brightness":40}`, `{"lights":["` + keyID + `","sim:desk-lamp"],"brightness":60}`}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/brightness", strings.NewReader(bodies[i%2]))
		req.Header.Set("User-Agent", pluginUA)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
		i++
	}
}
