package service_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/artwork"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// artPlayer is a media player whose now playing names cover art at an
// address the test sets.
type artPlayer struct {
	reg *devices.Registry

	mu       sync.Mutex
	volume   int
	art      string
	progress *devices.Progress
}

func (p *artPlayer) Info() devices.Info {
	return devices.Info{ID: "test:player", Adapter: "test", Kind: devices.KindMedia, Name: "Player"}
}
func (p *artPlayer) Online() bool { return true }

func (p *artPlayer) MediaState(context.Context) (devices.MediaState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return devices.MediaState{Power: true, Volume: p.volume, Transport: devices.TransportPlaying,
		NowPlaying: &devices.NowPlaying{Title: "So What", ArtworkURL: p.art, Progress: p.progress}}, nil
}

func (p *artPlayer) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	return p.MediaState(ctx)
}

// change sets what the player reports and tells the registry.
func (p *artPlayer) change(fn func(p *artPlayer)) {
	p.mu.Lock()
	fn(p)
	p.mu.Unlock()
	p.reg.Changed(p.Info().ID)
}

// artServer serves images by path and counts the requests for each.
type artServer struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	files map[string]artFile
}

type artFile struct {
	contentType string
	data        []byte
}

func newArtServer(t *testing.T) *artServer {
	s := &artServer{hits: map[string]int{}, files: map[string]artFile{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		f, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.contentType)
		w.Write(f.data)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *artServer) put(path, contentType string, data []byte) string {
	s.mu.Lock()
	s.files[path] = artFile{contentType, data}
	s.mu.Unlock()
	return s.URL + path
}

func (s *artServer) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// pngOf is a small PNG of one colour.
func pngOf(t *testing.T, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type artHouse struct {
	svc    *service.Service
	ctx    context.Context
	player *artPlayer
	srv    *artServer
}

func newArtHouse(t *testing.T) *artHouse {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	p := &artPlayer{reg: reg, volume: 10}
	reg.Add(p)
	ctx := service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeRead})
	return &artHouse{svc: servicetest.New(t, reg, 0), ctx: ctx, player: p, srv: newArtServer(t)}
}

func (h *artHouse) media(t *testing.T) service.Media {
	t.Helper()
	return servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, "Player"))
}

// show makes the player report art (and volume, to tell the read that
// carries it from those before) and waits until the hub has read it and
// finished fetching what it fetches.
func (h *artHouse) show(t *testing.T, art string, volume int) service.Media {
	t.Helper()
	h.player.change(func(p *artPlayer) { p.art, p.volume = art, volume })
	servicetest.WaitFor(t, "the player's new state", func() bool { return h.media(t).State.Volume == volume })
	service.WaitArtwork(h.svc)
	return h.media(t)
}

func TestArtworkIsFetchedOncePerChangeAndServedFromMemory(t *testing.T) {
	h := newArtHouse(t)
	red, blue := pngOf(t, color.RGBA{200, 0, 0, 255}), pngOf(t, color.RGBA{0, 0, 200, 255})
	redURL := h.srv.put("/red.png", "image/png", red)
	blueURL := h.srv.put("/blue.png", "image/png", blue)

	m := h.show(t, redURL, 11)
	if !strings.HasPrefix(m.ArtworkURL, "/api/v1/media/devices/test:player/artwork?v=") {
		t.Fatalf("artwork_url %q; want the hub's path with a version", m.ArtworkURL)
	}
	redVersion := m.ArtworkURL
	for v := 12; v < 15; v++ { // more reads with the same art fetch nothing
		if m = h.show(t, redURL, v); m.ArtworkURL != redVersion {
			t.Fatalf("artwork_url moved to %q with the same art", m.ArtworkURL)
		}
	}
	if n := h.srv.hitsOf("/red.png"); n != 1 {
		t.Fatalf("the art was fetched %d times; want once", n)
	}
	art := servicetest.Must[artwork.Image](t)(h.svc.GetArtwork(h.ctx, "Player", ""))
	if !bytes.Equal(art.Data, red) || art.ContentType != "image/png" {
		t.Fatalf("served %d bytes of %s; want the red PNG", len(art.Data), art.ContentType)
	}
	if _, err := h.svc.GetArtwork(h.ctx, "Player", art.Version); err != nil {
		t.Fatalf("the current version: %v", err)
	}
	_, err := h.svc.GetArtwork(h.ctx, "Player", "0123456789ab")
	servicetest.WantCode(t, err, service.ENOTFOUND) // another version is never answered with this image
	for range 3 {                                   // served from memory
		servicetest.Must[artwork.Image](t)(h.svc.GetArtwork(h.ctx, "Player", ""))
	}
	if n := h.srv.hitsOf("/red.png"); n != 1 {
		t.Fatalf("serving the art fetched it again: %d fetches", n)
	}

	m = h.show(t, blueURL, 20)
	if m.ArtworkURL == "" || m.ArtworkURL == redVersion {
		t.Fatalf("artwork_url %q after the art changed; want a new version", m.ArtworkURL)
	}
	if art := servicetest.Must[artwork.Image](t)(h.svc.GetArtwork(h.ctx, "Player", "")); !bytes.Equal(art.Data, blue) {
		t.Fatal("the hub serves the old art after a change")
	}

	// The same address with other bytes is the same art until the player
	// reports another address; back to red, red is fetched again.
	if m = h.show(t, redURL, 21); m.ArtworkURL != redVersion {
		t.Fatalf("artwork_url %q back on the red art; want %q", m.ArtworkURL, redVersion)
	}
	if n := h.srv.hitsOf("/red.png"); n != 2 {
		t.Fatalf("the red art was fetched %d times in all; want twice (once per change)", n)
	}

	if m = h.show(t, "", 22); m.ArtworkURL != "" {
		t.Fatalf("artwork_url %q with no art", m.ArtworkURL)
	}
	_, err = h.svc.GetArtwork(h.ctx, "Player", "")
	servicetest.WantCode(t, err, service.ENOTFOUND)
}

func TestArtworkThatIsNotAnImageIsNotKept(t *testing.T) {
	h := newArtHouse(t)
	page := h.srv.put("/page.png", "image/png", []byte("<!doctype html><html><script>alert(1)</script></html>"))
	sent := h.srv.put("/sent-as-html", "text/html", pngOf(t, color.RGBA{0, 200, 0, 255}))
	huge := h.srv.put("/huge.png", "image/png", append(pngOf(t, color.RGBA{1, 2, 3, 255}), make([]byte, artwork.MaxBytes)...))
	missing := h.srv.URL + "/missing.png"
	for i, u := range []string{page, sent, huge, missing, "file:///etc/passwd"} {
		m := h.show(t, u, 30+i)
		if m.ArtworkURL != "" {
			t.Errorf("%s: artwork_url %q; want none", u, m.ArtworkURL)
		}
		_, err := h.svc.GetArtwork(h.ctx, "Player", "")
		servicetest.WantCode(t, err, service.ENOTFOUND)
	}
	for _, p := range []string{"/page.png", "/sent-as-html", "/huge.png", "/missing.png"} {
		if n := h.srv.hitsOf(p); n != 1 {
			t.Errorf("%s fetched %d times; want once", p, n)
		}
	}
}

func TestMediaViewCarriesProgress(t *testing.T) {
	h := newArtHouse(t)
	at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	h.player.change(func(p *artPlayer) {
		p.volume, p.progress = 40, &devices.Progress{Position: 83 * time.Second, Duration: 225 * time.Second, At: at}
	})
	servicetest.WaitFor(t, "the progress", func() bool { return h.media(t).PositionSecs != nil })
	m := h.media(t)
	if *m.PositionSecs != 83 || m.DurationSecs == nil || *m.DurationSecs != 225 || !m.PositionAt.Equal(at) {
		t.Fatalf("progress %v of %v at %v; want 83 of 225 at %v", *m.PositionSecs, m.DurationSecs, m.PositionAt, at)
	}
	h.player.change(func(p *artPlayer) { p.progress = &devices.Progress{Position: 5 * time.Second, At: at} })
	servicetest.WaitFor(t, "the live stream's progress", func() bool { return h.media(t).DurationSecs == nil })
	if m := h.media(t); *m.PositionSecs != 5 {
		t.Fatalf("position %v; want 5", *m.PositionSecs)
	}
}
