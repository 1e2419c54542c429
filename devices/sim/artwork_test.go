package sim_test

import (
	"bytes"
	"errors"
	"image/png"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func TestSpeakersHaveCoverArt(t *testing.T) {
	h := mustHome(t)
	living, kitchen := h.Speaker(livingSonos), h.Speaker(kitchenSonos)
	a, b := mediaState(t, living).NowPlaying, mediaState(t, kitchen).NowPlaying
	if a == nil || b == nil || a.ArtworkURL == "" || b.ArtworkURL == "" || a.ArtworkURL == b.ArtworkURL {
		t.Fatalf("now playing %+v and %+v; want art of their own", a, b)
	}
	img, ct, err := living.FetchArtwork(bg, a.ArtworkURL, 1<<20)
	mustOK(t, err)
	if ct != "image/png" {
		t.Fatalf("content type %q", ct)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("the art is not a PNG: %v", err)
	}
	again, _, _ := kitchen.FetchArtwork(bg, a.ArtworkURL, 1<<20)
	other, _, _ := kitchen.FetchArtwork(bg, b.ArtworkURL, 1<<20)
	if !bytes.Equal(img, again) || bytes.Equal(img, other) {
		t.Fatal("the same title should draw the same art, another title other art")
	}
	if _, _, err := living.FetchArtwork(bg, a.ArtworkURL, 100); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("art over the size given: %v; want ErrInvalid", err)
	}
	if _, _, err := living.FetchArtwork(bg, "http://example.com/a.png", 1<<20); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("another address: %v; want ErrInvalid", err)
	}
}

func TestSpeakerProgress(t *testing.T) {
	h := mustHome(t)
	kitchen := h.Speaker(kitchenSonos)
	paused := mediaState(t, kitchen).NowPlaying.Progress
	if paused == nil || paused.Position != 83*time.Second || paused.Duration == 0 {
		t.Fatalf("the paused speaker's progress %+v; want 1:23 of its track", paused)
	}
	st := setMedia(t, kitchen, devices.MediaChange{Transport: ptr("play")})
	start := st.NowPlaying.Progress
	waitFor(t, "the position to advance while playing", func() bool {
		return mediaState(t, kitchen).NowPlaying.Progress.Position > start.Position
	})
	st = setMedia(t, kitchen, devices.MediaChange{Transport: ptr("pause")})
	held := st.NowPlaying.Progress.Position
	living := h.Speaker(livingSonos) // plays radio: a position, no length
	radio := mediaState(t, living).NowPlaying.Progress
	if radio == nil || radio.Duration != 0 {
		t.Fatalf("radio progress %+v; want a position without a length", radio)
	}
	waitFor(t, "time to pass (the radio's position advances)", func() bool {
		return mediaState(t, living).NowPlaying.Progress.Position > radio.Position
	})
	if got := mediaState(t, kitchen).NowPlaying.Progress.Position; got != held {
		t.Fatalf("a paused speaker's position moved from %v to %v", held, got)
	}
}

func TestQueueMovesOnAtTheEndOfATrack(t *testing.T) {
	_, b, _ := threeSpeakers()
	mustOK(t, b.PlayFavorite(bg, "FV:2/14")) // a playlist
	first := mediaState(t, b).NowPlaying
	b.SkipAhead(first.Progress.Duration - 20*time.Millisecond)
	waitFor(t, "the second track", func() bool { return mediaState(t, b).NowPlaying.Title == "Morning Coffee (track 2)" })
	if p := mediaState(t, b).NowPlaying.Progress; p.Position >= 10*time.Second {
		t.Fatalf("the second track starts at %v; want near 0", p.Position)
	}
}

func TestTVProgressAndArt(t *testing.T) {
	tv := sim.NewTV("tv", "TV", "", sim.Options{})
	mustOK(t, tv.Cast(bg, "https://example.com/films/big-buck-bunny.mp4", "video"))
	np := mediaState(t, tv).NowPlaying
	if np.ArtworkURL == "" || np.Progress == nil || np.Progress.Duration < 20*time.Minute {
		t.Fatalf("a cast title: %+v; want art and a length", np)
	}
	if _, _, err := tv.FetchArtwork(bg, np.ArtworkURL, 1<<20); err != nil {
		t.Fatal(err)
	}
	setMedia(t, tv, devices.MediaChange{Transport: ptr("pause")})
	held := mediaState(t, tv).NowPlaying.Progress.Position
	setMedia(t, tv, devices.MediaChange{Transport: ptr("play")})
	waitFor(t, "the title's position to advance", func() bool {
		return mediaState(t, tv).NowPlaying.Progress.Position > held
	})
}
