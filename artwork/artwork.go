// Package artwork keeps the cover art of the media players: the hub holds
// the current image of each player in memory and serves it from there, so
// a read does no device I/O. When the artwork address a player reports
// changes, the image is fetched in the background (through the player's
// adapter when it is a devices.ArtworkFetcher, by a plain GET otherwise)
// and checked (its size, and the bytes' own type); an Image carries a
// version, a hash of its bytes, so an URL that names it names one image
// for good.
//
// The service owns a Cache: it notes every player's reported address, is
// told when a view should show another image, and serves what the Cache
// holds. The package depends on devices only.
package artwork

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Limits of a fetched image.
const (
	// MaxBytes is the largest image the hub keeps.
	MaxBytes = 1 << 20
	// timeout bounds one fetch.
	timeout = 10 * time.Second
	// retry is how long after a failed fetch the same address is tried
	// again, when the player reports it again.
	retry = time.Minute
)

// types are the image types the hub keeps, as the bytes' own signature
// reads (http.DetectContentType). SVG is not among them: it is a document
// that can carry script.
var types = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Image is a player's current cover art, as the hub holds it.
type Image struct {
	Data        []byte
	ContentType string
	// Version is a short hash of Data: the artwork URL carries it, so an
	// URL names one image for good.
	Version string
}

// Config configures a Cache.
type Config struct {
	// Fetcher fetches the art of players that are not
	// devices.ArtworkFetchers; a plain GET with a client of its own when
	// nil.
	Fetcher devices.ArtworkFetcher
	// Players finds a player by its id, to fetch through its own adapter
	// when it is a devices.ArtworkFetcher.
	Players interface {
		Get(id devices.ID) (devices.Device, bool)
	}
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Changed is called, under the cache's lock, whenever the image a
	// player's view shows may have changed: its address changed, or a
	// fetch ended. Optional.
	Changed func()
	// Fetched is called when an image was kept for the address the player
	// still reports, to publish the player's view again. Optional.
	Fetched func(id devices.ID)
}

// entry is what the hub knows of one player's artwork: the address the
// player last reported and, once fetched, the image there.
type entry struct {
	url      string
	img      *Image
	fetching bool
	failedAt time.Time
}

// Cache holds each player's artwork entry.
type Cache struct {
	cfg Config

	mu sync.Mutex
	by map[devices.ID]entry
	wg sync.WaitGroup // the fetches under way
}

// New returns an empty Cache.
func New(cfg Config) *Cache {
	if cfg.Fetcher == nil {
		cfg.Fetcher = devices.HTTPArtwork{Client: &http.Client{Timeout: timeout}}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Changed == nil {
		cfg.Changed = func() {}
	}
	if cfg.Fetched == nil {
		cfg.Fetched = func(devices.ID) {}
	}
	return &Cache{cfg: cfg, by: map[devices.ID]entry{}}
}

// Note is called whenever a player reports its state, with the artwork
// address it reports ("" for none): an address that changed drops the old
// image and starts a fetch of the new one.
func (c *Cache) Note(id devices.ID, url string) {
	c.mu.Lock()
	e := c.by[id]
	switch {
	case e.url != url:
		e = entry{url: url}
		c.cfg.Changed() // a view that showed the old image no longer does
	case e.img != nil || e.fetching || url == "" || c.cfg.Now().Sub(e.failedAt) < retry:
		c.mu.Unlock()
		return
	}
	e.fetching = url != ""
	c.by[id] = e
	c.mu.Unlock()
	if url != "" {
		c.wg.Go(func() { c.fetch(id, url) })
	}
}

// Image is the image held for player id at url, nil when there is none.
func (c *Cache) Image(id devices.ID, url string) *Image {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.by[id]; e.url == url {
		return e.img
	}
	return nil
}

// Wait waits for the fetches under way to finish.
func (c *Cache) Wait() { c.wg.Wait() }

// fetch reads the image at url for player id and, when the player still
// reports that address, keeps it and has the player's view published.
func (c *Cache) fetch(id devices.ID, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	img, err := c.read(ctx, id, url)
	c.mu.Lock()
	e := c.by[id]
	current := e.url == url
	if current {
		e.fetching, e.img = false, img
		if err != nil {
			e.failedAt = c.cfg.Now()
		}
		c.by[id] = e
		c.cfg.Changed()
	}
	c.mu.Unlock()
	if err != nil {
		c.cfg.Logger.Info("cover art not kept", "device", string(id), "err", err)
		return
	}
	if current {
		c.cfg.Fetched(id)
	}
}

// read fetches and checks one image.
func (c *Cache) read(ctx context.Context, id devices.ID, url string) (*Image, error) {
	f := c.cfg.Fetcher
	if c.cfg.Players != nil {
		if d, ok := c.cfg.Players.Get(id); ok {
			if af, ok := d.(devices.ArtworkFetcher); ok {
				f = af
			}
		}
	}
	data, given, err := f.FetchArtwork(ctx, url, MaxBytes)
	if err != nil {
		return nil, err
	}
	ct, err := check(data, given)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &Image{Data: data, ContentType: ct, Version: hex.EncodeToString(sum[:6])}, nil
}

// check accepts an image of at most MaxBytes whose declared type, when
// there is one, is an image type and whose bytes are one of types; it
// returns the type the bytes read as.
func check(data []byte, given string) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("the artwork is empty")
	}
	if len(data) > MaxBytes {
		return "", fmt.Errorf("the artwork is %d bytes, more than the %d kept", len(data), MaxBytes)
	}
	if given != "" {
		mt, _, err := mime.ParseMediaType(given)
		if err != nil || !strings.HasPrefix(mt, "image/") {
			return "", fmt.Errorf("the artwork was sent as %q, not an image", given)
		}
	}
	sniffed := http.DetectContentType(data)
	for _, t := range types {
		if sniffed == t {
			return t, nil
		}
	}
	return "", fmt.Errorf("the artwork's bytes read as %s, not an image the hub keeps", sniffed)
}
