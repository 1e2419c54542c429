package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMediaArtAndProgress: on the demo's dashboard, a speaker that plays
// shows its cover art (the very bytes /api/v1 answers for it) on its tile
// and, large, in its details, with a progress bar that runs while it plays
// and holds while another is paused; a player without art keeps a
// placeholder of the same size. At 375 and 1280 px, light and dark.
func TestMediaArtAndProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives chromium; skipped with -short")
	}
	_, b, api := signedIn(t, "media")
	const living, kitchen = "sim:living-room-sonos", "sim:kitchen-sonos"
	api.must(http.StatusOK, http.MethodPost, "/api/v1/media/devices/"+living+"/favorites/play", map[string]string{"favorite": "Dinner Jazz"}, nil)
	art := waitArtwork(t, api, living, "Dinner Jazz")

	b.navigate("#/")
	tile := fmt.Sprintf(`document.querySelector('[data-device=%q]')`, living)
	paused := fmt.Sprintf(`document.querySelector('[data-device=%q]')`, kitchen)
	b.waitJS("the living room's art on its tile", fmt.Sprintf(`((img) => !!img && img.complete && img.naturalWidth > 0 && img.getAttribute('src') === %q)(%s.querySelector('.np-art img'))`,
		"/api/"+art[len("/api/v1/"):], tile))
	b.sameBytes(api, tile+`.querySelector('.np-art img')`, art)

	// The bar runs while the living room plays; the kitchen's holds at
	// 1:23, where it was paused.
	bar := func(el string) string { return el + `.querySelector('progress.np-bar')` }
	start := run(b, "the bar's value", chromedp.Evaluate[float64](bar(tile)+`.value`))
	b.waitJS("the living room's bar to advance", fmt.Sprintf(`%s.value >= %f + 2`, bar(tile), start))
	held := run(b, "the kitchen's position", chromedp.Evaluate[string](bar(paused)+`.getAttribute('aria-valuetext')`))
	if !regexp.MustCompile(`^1:23 of \d+:\d\d$`).MatchString(held) {
		t.Fatalf("the paused kitchen says %q; want 1:23 of its length", held)
	}
	b.waitJS("two more seconds of the living room's track", fmt.Sprintf(`%s.value >= %f + 4`, bar(tile), start))
	if now := run(b, "the kitchen's position", chromedp.Evaluate[string](bar(paused)+`.getAttribute('aria-valuetext')`)); now != held {
		t.Fatalf("the paused kitchen's position moved from %q to %q", held, now)
	}

	for _, v := range []struct {
		name string
		w, h int64
		dark bool
		opts []chromedp.EmulateViewportOption
	}{
		{"media-desktop", 1280, 900, false, nil},
		{"media-desktop-dark", 1280, 900, true, nil},
		{"media-phone", 375, 812, false, phoneViewport},
		{"media-phone-dark", 375, 812, true, phoneViewport},
	} {
		b.emulate(v.name, v.w, v.h, v.dark, v.opts...)
		b.do("scroll the living room into view", chromedp.Evaluate[chromedp.Void](tile+`.scrollIntoView({ block: 'center' })`))
		b.shot(v.name, v.w, v.h, v.dark, false, v.opts...)
		if width := run(b, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); width > int(v.w) {
			t.Errorf("%s: the page is %d px wide", v.name, width)
		}
		b.mediaDetails(api, v.name, v.w, v.h, v.dark, v.opts, art)
	}
	b.resetViewport()
	b.checkConsole()
}

// mediaDetails opens the living room's details: the large art has loaded,
// the bar says where the track is, and the receiver (no art) keeps a
// placeholder of the same size.
func (b *browser) mediaDetails(api client, name string, w, h int64, dark bool, opts []chromedp.EmulateViewportOption, art string) {
	b.t.Helper()
	b.openDetails("Living Room Sonos")
	dlg := `document.querySelector('button[aria-label="Close Living Room Sonos"]').closest('dialog')`
	b.waitJS("the large art", `((img) => img.complete && img.naturalWidth > 0)(`+dlg+`.querySelector('.np-art.large img'))`)
	b.sameBytes(api, dlg+`.querySelector('.np-art.large img')`, art)
	text := run(b, "the dialog's position", chromedp.Evaluate[string](dlg+`.querySelector('progress').getAttribute('aria-valuetext')`))
	if !regexp.MustCompile(`^\d+:\d\d of \d+:\d\d$`).MatchString(text) {
		b.t.Errorf("%s: the dialog's bar says %q", name, text)
	}
	b.shot(name+"-details", w, h, dark, false, opts...)
	size := run(b, "the art's size", chromedp.Evaluate[string](`((r) => r.width + 'x' + r.height)(`+dlg+`.querySelector('.np-art.large').getBoundingClientRect())`))
	b.closeDetails("Living Room Sonos")
	b.openDetails("Onkyo Receiver")
	recv := `document.querySelector('button[aria-label="Close Onkyo Receiver"]').closest('dialog')`
	placeholder := run(b, "the placeholder's size", chromedp.Evaluate[string](`((a) => a.classList.contains('has-art') ? 'art' : ((r) => r.width + 'x' + r.height)(a.getBoundingClientRect()))(`+recv+`.querySelector('.np-art.large'))`))
	if placeholder != size {
		b.t.Errorf("%s: the placeholder is %s, the art %s; want the same size", name, placeholder, size)
	}
	b.closeDetails("Onkyo Receiver")
}

// sameBytes checks that the image el shows is, byte for byte, what the
// test's API client gets at artwork.
func (b *browser) sameBytes(api client, el, artwork string) {
	b.t.Helper()
	status, want, err := api.send(http.MethodGet, artwork, nil)
	if err != nil || status != http.StatusOK || len(want) == 0 {
		b.t.Fatalf("GET %s: %d, %d bytes, %v", artwork, status, len(want), err)
	}
	got := run(b, "the shown image's bytes", chromedp.Evaluate[string](`(async () => {
		const r = await fetch(`+el+`.src);
		const a = new Uint8Array(await r.arrayBuffer());
		let s = '';
		for (const c of a) s += String.fromCharCode(c);
		return btoa(s);
	})()`, chromedp.EvalAwaitPromise))
	raw, err := base64.StdEncoding.DecodeString(got)
	if err != nil || !bytes.Equal(raw, want) {
		b.t.Fatalf("the page shows %d bytes; /api/v1 answers %d other bytes", len(raw), len(want))
	}
}

// waitArtwork waits until the player's artwork_url is the art of what
// now plays, title, and returns it.
func waitArtwork(t *testing.T, api client, id, title string) string {
	t.Helper()
	var m struct {
		ArtworkURL string `json:"artwork_url"`
		State      struct {
			NowPlaying struct {
				Title string `json:"title"`
			} `json:"now_playing"`
		} `json:"state"`
	}
	deadline := time.Now().Add(8 * time.Second)
	for {
		api.must(http.StatusOK, http.MethodGet, "/api/v1/media/devices/"+id, nil, &m)
		if m.ArtworkURL != "" && m.State.NowPlaying.Title == title {
			return m.ArtworkURL
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no art for %q (artwork_url %q, playing %q)", id, title, m.ArtworkURL, m.State.NowPlaying.Title)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
