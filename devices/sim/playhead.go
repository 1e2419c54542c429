package sim

import (
	"bytes"
	"context"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// playhead is the position in what a player plays: it runs while the
// transport plays, holds while it is paused, and goes back to the start
// when the item changes or playback stops.
type playhead struct {
	item    string        // what it is the position in
	state   string        // the transport it last followed
	started time.Time     // while playing: when the position was 0
	held    time.Duration // while not playing: the position
}

// retimed follows a change of item or transport at now.
func (h playhead) retimed(item, transport string, now time.Time) playhead {
	switch {
	case item != h.item:
		h.started, h.held = now, 0
	case h.state == devices.TransportPlaying && transport != devices.TransportPlaying:
		h.held = now.Sub(h.started)
	case h.state != devices.TransportPlaying && transport == devices.TransportPlaying:
		h.started = now.Add(-h.held)
	}
	if transport == devices.TransportStopped {
		h.held = 0
	}
	h.item, h.state = item, transport
	return h
}

// at is the position at now.
func (h playhead) at(now time.Time) time.Duration {
	if h.state == devices.TransportPlaying {
		return now.Sub(h.started)
	}
	return h.held
}

// progress is the position read at now in an item of length (0: a live
// stream), clamped to the length.
func (h playhead) progress(length time.Duration, now time.Time) *devices.Progress {
	pos := h.at(now).Truncate(time.Millisecond)
	if length > 0 {
		pos = min(pos, length)
	}
	return &devices.Progress{Position: pos, Duration: length, At: now}
}

// trackLength is how long a simulated track is: between 2:30 and 5:50,
// the same for the same title and track.
func trackLength(title string, track int) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(title))
	h.Write([]byte{byte(track)})
	return 150*time.Second + time.Duration(h.Sum32()%200)*time.Second
}

// artworkScheme is the scheme of a simulated player's artwork address;
// the player itself draws the image (FetchArtwork).
const artworkScheme = "sim://artwork/"

// artworkURL is the address of the cover art of title.
func artworkURL(title string) string { return artworkScheme + url.PathEscape(title) }

// fetchArtwork draws the cover of an address made by artworkURL.
func fetchArtwork(raw string, max int64) ([]byte, string, error) {
	esc, ok := strings.CutPrefix(raw, artworkScheme)
	title, err := url.PathUnescape(esc)
	if !ok || err != nil || title == "" {
		return nil, "", devices.Invalid(nil, "%q is not a simulated artwork address", raw)
	}
	b := cover(title)
	return devices.ReadArtwork(bytes.NewReader(b), "image/png", max)
}

var covers sync.Map // title → PNG bytes

// cover is a small PNG for title: a diagonal blend of two colours drawn
// from the title, with a record's label in the middle, the same for the
// same title.
func cover(title string) []byte {
	if b, ok := covers.Load(title); ok {
		return b.([]byte)
	}
	h := fnv.New32a()
	h.Write([]byte(title))
	sum := h.Sum32()
	a, b := hueColor(float64(sum%360)), hueColor(float64((sum/360)%360))
	const size = 96
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			t := float64(x+y) / (2 * size)
			c := color.RGBA{mix(a.R, b.R, t), mix(a.G, b.G, t), mix(a.B, b.B, t), 255}
			if dx, dy := x-size/2, y-size/2; dx*dx+dy*dy < 14*14 {
				c = color.RGBA{250, 246, 238, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var out bytes.Buffer
	_ = png.Encode(&out, img) // encoding into memory does not fail
	v, _ := covers.LoadOrStore(title, out.Bytes())
	return v.([]byte)
}

func mix(a, b uint8, t float64) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t) }

// hueColor is a saturated, mid-light colour of hue h (degrees).
func hueColor(h float64) color.RGBA {
	f := func(n float64) uint8 {
		k := n + h/30
		for k >= 12 {
			k -= 12
		}
		v := 0.5 - 0.35*max(-1, min(k-3, 9-k, 1))
		return uint8(v * 255)
	}
	return color.RGBA{f(0), f(8), f(4), 255}
}

// artworkFetcher is the FetchArtwork of a simulated player, after its
// latency.
func artworkFetcher(l *link, ctx context.Context, raw string, max int64) ([]byte, string, error) {
	if err := l.io(ctx); err != nil {
		return nil, "", err
	}
	return fetchArtwork(raw, max)
}
