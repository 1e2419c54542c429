package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Cover art: the hub keeps the current image of each player in memory and
// serves it from there, so a read does no device I/O. When the artwork
// address a player reports changes, the image is fetched in the background
// (through the player's adapter when it is a devices.ArtworkFetcher, by a
// plain GET otherwise), checked (size, and the bytes' own type), and the
// player's view published again with an artwork URL that names the image
// by a hash of its bytes.

// Limits of a fetched image.
const (
	// ArtworkMaxBytes is the largest image the hub keeps.
	ArtworkMaxBytes = 1 << 20
	// artworkTimeout bounds one fetch.
	artworkTimeout = 10 * time.Second
	// artworkRetry is how long after a failed fetch the same address is
	// tried again, when the player reports it again.
	artworkRetry = time.Minute
)

// artworkTypes are the image types the hub keeps, as the bytes' own
// signature reads (http.DetectContentType). SVG is not among them: it is
// a document that can carry script.
var artworkTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Artwork is a player's current cover art, as the hub holds it.
type Artwork struct {
	Data        []byte
	ContentType string
	// Version is a short hash of Data: the artwork URL carries it, so an
	// URL names one image for good.
	Version string
}

// artEntry is what the hub knows of one player's artwork: the address the
// player last reported and, once fetched, the image there.
type artEntry struct {
	url      string
	img      *Artwork
	fetching bool
	failedAt time.Time
}

// artStore holds each player's artwork entry.
type artStore struct {
	mu sync.Mutex
	by map[devices.ID]artEntry
	wg sync.WaitGroup // the fetches under way
}

// noteArtwork is called whenever the model records a player's media state:
// an address that changed drops the old image and starts a fetch of the
// new one.
func (s *Service) noteArtwork(id devices.ID, st *devices.MediaState) {
	url := ""
	if st != nil && st.NowPlaying != nil {
		url = st.NowPlaying.ArtworkURL
	}
	s.art.mu.Lock()
	e := s.art.by[id]
	switch {
	case e.url != url:
		e = artEntry{url: url}
		s.model.gen.Add(1) // a view that showed the old image no longer does
	case e.img != nil || e.fetching || url == "" || s.now().Sub(e.failedAt) < artworkRetry:
		s.art.mu.Unlock()
		return
	}
	e.fetching = url != ""
	s.art.by[id] = e
	s.art.mu.Unlock()
	if url != "" {
		s.art.wg.Go(func() { s.fetchArtwork(id, url) })
	}
}

// fetchArtwork reads the image at url for player id and, when the player
// still reports that address, keeps it and publishes the player's view.
func (s *Service) fetchArtwork(id devices.ID, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), artworkTimeout)
	defer cancel()
	img, err := s.readArtwork(ctx, id, url)
	s.art.mu.Lock()
	e := s.art.by[id]
	current := e.url == url
	if current {
		e.fetching, e.img = false, img
		if err != nil {
			e.failedAt = s.now()
		}
		s.art.by[id] = e
		s.model.gen.Add(1)
	}
	s.art.mu.Unlock()
	if err != nil {
		s.log.Info("cover art not kept", "device", string(id), "err", err)
		return
	}
	if current {
		s.publishDevice(id)
	}
}

// readArtwork fetches and checks one image.
func (s *Service) readArtwork(ctx context.Context, id devices.ID, url string) (*Artwork, error) {
	f := s.artFetch
	if d, ok := s.reg.Get(id); ok {
		if af, ok := d.(devices.ArtworkFetcher); ok {
			f = af
		}
	}
	data, given, err := f.FetchArtwork(ctx, url, ArtworkMaxBytes)
	if err != nil {
		return nil, err
	}
	ct, err := checkArtwork(data, given)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &Artwork{Data: data, ContentType: ct, Version: hex.EncodeToString(sum[:6])}, nil
}

// checkArtwork accepts an image of at most ArtworkMaxBytes whose declared
// type, when there is one, is an image type and whose bytes are one of
// artworkTypes; it returns the type the bytes read as.
func checkArtwork(data []byte, given string) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("the artwork is empty")
	}
	if len(data) > ArtworkMaxBytes {
		return "", fmt.Errorf("the artwork is %d bytes, more than the %d kept", len(data), ArtworkMaxBytes)
	}
	if given != "" {
		mt, _, err := mime.ParseMediaType(given)
		if err != nil || !strings.HasPrefix(mt, "image/") {
			return "", fmt.Errorf("the artwork was sent as %q, not an image", given)
		}
	}
	sniffed := http.DetectContentType(data)
	for _, t := range artworkTypes {
		if sniffed == t {
			return t, nil
		}
	}
	return "", fmt.Errorf("the artwork's bytes read as %s, not an image the hub keeps", sniffed)
}

// artworkOf is the image the view of rec shows for now playing np: the one
// held for the member of rec (itself, or a companion) that reports np's
// address.
func (s *Service) artworkOf(inv inventory, rec DeviceRecord, np *devices.NowPlaying) *Artwork {
	if np == nil || np.ArtworkURL == "" {
		return nil
	}
	s.art.mu.Lock()
	defer s.art.mu.Unlock()
	for _, m := range members(inv, rec) {
		if e := s.art.by[m.ID]; e.url == np.ArtworkURL && e.img != nil {
			return e.img
		}
	}
	return nil
}

// withPlayback fills a media view's artwork and progress from its state.
func (s *Service) withPlayback(inv inventory, rec DeviceRecord, m Media) Media {
	if m.State == nil || m.State.NowPlaying == nil {
		return m
	}
	np := m.State.NowPlaying
	if img := s.artworkOf(inv, rec, np); img != nil {
		m.ArtworkURL = ArtworkPath(rec.ID, img.Version)
	}
	if p := np.Progress; p != nil {
		pos, at := secs(p.Position), p.At.UTC()
		m.PositionSecs, m.PositionAt = &pos, &at
		if p.Duration > 0 {
			d := secs(p.Duration)
			m.DurationSecs = &d
		}
	}
	return m
}

// ArtworkPath is where /api/v1 serves a player's artwork, version naming
// the image.
func ArtworkPath(id devices.ID, version string) string {
	return "/api/v1/media/devices/" + url.PathEscape(string(id)) + "/artwork?v=" + version
}

// secs is d in seconds, to a tenth.
func secs(d time.Duration) float64 { return math.Round(d.Seconds()*10) / 10 }

// GetArtwork returns a player's current cover art, from memory: a player
// that has none the hub holds is ENOTFOUND, and so is a version (from an
// artwork URL) that is not the current image's, so an URL never answers
// another image. An empty version asks for the current image.
func (s *Service) GetArtwork(ctx context.Context, ref, version string) (Artwork, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return Artwork{}, err
	}
	inv, rec, err := s.findMediaToRead(ctx, ref)
	if err != nil {
		return Artwork{}, err
	}
	m := s.mediaView(inv, rec)
	if m.State == nil || m.State.NowPlaying == nil {
		return Artwork{}, Errorf(ENOTFOUND, "%s is playing nothing with cover art", rec.Name)
	}
	img := s.artworkOf(inv, rec, m.State.NowPlaying)
	if img == nil {
		return Artwork{}, Errorf(ENOTFOUND, "%s has no cover art for what it plays", rec.Name)
	}
	if version != "" && version != img.Version {
		return Artwork{}, Errorf(ENOTFOUND, "The cover art version %q is no longer what %s plays; its media view's artwork_url names the current one", Clip(version), rec.Name)
	}
	return *img, nil
}
