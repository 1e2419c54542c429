package artwork

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// fetcher answers the images it holds by address and counts the fetches.
type fetcher struct {
	mu     sync.Mutex
	images map[string][]byte
	hits   map[string]int
}

func (f *fetcher) FetchArtwork(_ context.Context, url string, _ int64) ([]byte, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits[url]++
	data, ok := f.images[url]
	if !ok {
		return nil, "", errors.New("not found")
	}
	return data, "image/png", nil
}

func (f *fetcher) hitsOf(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[url]
}

// TestCacheFetchesOncePerAddress notes addresses as a player reports
// them: each new address is fetched once, held under that address only,
// and said (Changed, Fetched); a failed fetch is not tried again within
// the retry pause.
func TestCacheFetchesOncePerAddress(t *testing.T) {
	f := &fetcher{images: map[string][]byte{"red": pngBytes}, hits: map[string]int{}}
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	var changed int
	var fetched []devices.ID
	c := New(Config{Fetcher: f, Now: func() time.Time { return now },
		Changed: func() { changed++ }, Fetched: func(id devices.ID) { fetched = append(fetched, id) }})

	for range 3 {
		c.Note("p", "red")
		c.Wait()
	}
	if n := f.hitsOf("red"); n != 1 {
		t.Fatalf("red fetched %d times; want once", n)
	}
	img := c.Image("p", "red")
	if img == nil || !bytes.Equal(img.Data, pngBytes) || img.ContentType != "image/png" || len(img.Version) != 12 {
		t.Fatalf("image %+v; want the PNG with a 12-digit version", img)
	}
	if c.Image("p", "blue") != nil || c.Image("q", "red") != nil {
		t.Fatal("an image answered for another address or player")
	}
	if changed != 2 || len(fetched) != 1 || fetched[0] != "p" {
		t.Fatalf("changed %d times, fetched %v; want 2 (the address, the fetch) and [p]", changed, fetched)
	}

	c.Note("p", "missing")
	c.Wait()
	c.Note("p", "missing")
	c.Wait()
	if n := f.hitsOf("missing"); n != 1 || c.Image("p", "missing") != nil {
		t.Fatalf("a failed address fetched %d times, image %v; want once, none", n, c.Image("p", "missing"))
	}
	now = now.Add(retry)
	c.Note("p", "missing")
	c.Wait()
	if n := f.hitsOf("missing"); n != 2 {
		t.Fatalf("after the retry pause, fetched %d times; want twice", n)
	}
	if c.Note("p", ""); c.Image("p", "red") != nil {
		t.Fatal("an image held after the player reported none")
	}
}
