package v1_test

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"
)

// artworkOf waits until the hub holds the player's cover art, and returns
// the media view's artwork_url.
func artworkOf(t *testing.T, h *harness, ref string) string {
	t.Helper()
	var m struct {
		ArtworkURL string `json:"artwork_url"`
	}
	eventually(t, ref+"'s artwork_url", func() bool {
		h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/"+ref, "", http.StatusOK, &m)
		return m.ArtworkURL != ""
	})
	return m.ArtworkURL
}

func TestArtworkIsServedWithItsHeaders(t *testing.T) {
	h := newHarness(t)
	u := artworkOf(t, h, "Kitchen%20Sonos")
	if !strings.HasPrefix(u, "/api/v1/media/devices/sim:kitchen-sonos/artwork?v=") {
		t.Fatalf("artwork_url %q", u)
	}
	r := h.call(t, h.read, http.MethodGet, u, "", http.StatusOK, nil)
	if _, err := png.Decode(bytes.NewReader(r.Body)); err != nil {
		t.Fatalf("the artwork is not the PNG it says: %v", err)
	}
	for k, want := range map[string]string{
		"Content-Type": "image/png", "Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s: %q; want %q", k, got, want)
		}
	}
	// Another player's art is other bytes under another version.
	living := artworkOf(t, h, "Living%20Room%20Sonos")
	other := h.call(t, h.read, http.MethodGet, living, "", http.StatusOK, nil)
	if living == u || bytes.Equal(other.Body, r.Body) {
		t.Fatal("two players playing different things share their art")
	}
	h.call(t, "", http.MethodGet, u, "", http.StatusUnauthorized, nil)
}

func TestArtworkNotHeldIs404(t *testing.T) {
	h := newHarness(t)
	// The TV is off and the receiver plays a tuner: neither has art.
	e := h.fail(t, h.read, http.MethodGet, "/api/v1/media/devices/Living%20Room%20TV/artwork", "", http.StatusNotFound, "not_found")
	if !strings.Contains(e.Message, "Living Room TV") {
		t.Errorf("message %q does not name the player", e.Message)
	}
	if r := h.send(h.read, http.MethodGet, "/api/v1/media/devices/Living%20Room%20TV/artwork", ""); r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("a 404 is cacheable: Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	h.fail(t, h.read, http.MethodGet, "/api/v1/media/devices/Nowhere/artwork", "", http.StatusNotFound, "not_found")
}

func TestArtworkVersionFollowsTheImage(t *testing.T) {
	h := newHarness(t)
	before := artworkOf(t, h, "Kitchen%20Sonos")
	h.call(t, h.control, http.MethodPost, "/api/v1/media/devices/Kitchen%20Sonos/favorites/play", `{"favorite": "Kind of Blue"}`, http.StatusNoContent, nil)
	var after string
	eventually(t, "a new artwork_url", func() bool {
		after = artworkOf(t, h, "Kitchen%20Sonos")
		return after != before
	})
	h.fail(t, h.read, http.MethodGet, before, "", http.StatusNotFound, "not_found") // an URL never answers another image
	b := h.call(t, h.read, http.MethodGet, after, "", http.StatusOK, nil)
	if len(b.Body) == 0 {
		t.Fatal("no bytes")
	}
	var m struct {
		PositionSecs *float64   `json:"position_secs"`
		DurationSecs *float64   `json:"duration_secs"`
		PositionAt   *time.Time `json:"position_at"`
	}
	h.call(t, h.read, http.MethodGet, "/api/v1/media/devices/Kitchen%20Sonos", "", http.StatusOK, &m)
	if m.PositionSecs == nil || m.DurationSecs == nil || m.PositionAt == nil || *m.DurationSecs < 150 {
		t.Fatalf("progress %+v; want a position in a track of a length", m)
	}
}

// BenchmarkArtwork is GET …/artwork of a player whose art the hub holds:
// served from memory, through the real handler.
//
//	go test -run '^$' -bench Artwork -benchmem ./api/v1/
func BenchmarkArtwork(b *testing.B) {
	h := newHarness(b)
	var u string
	deadline := time.Now().Add(5 * time.Second)
	for u == "" {
		var m struct {
			ArtworkURL string `json:"artwork_url"`
		}
		r := h.send(h.read, http.MethodGet, "/api/v1/media/devices/Kitchen%20Sonos", "")
		r.decode(b, &m)
		u = m.ArtworkURL
		if u == "" && time.Now().After(deadline) {
			b.Fatal("no artwork_url")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := h.send(h.read, http.MethodGet, u, ""); r.Status != http.StatusOK {
			b.Fatalf("status %d", r.Status)
		}
	}
}
