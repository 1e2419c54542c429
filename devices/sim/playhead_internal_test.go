package sim

import (
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestPlayheadFollowsTheTransport(t *testing.T) {
	t0 := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	h := playhead{}.retimed("a", devices.TransportPlaying, at(0))
	steps := []struct {
		name      string
		item, tr  string
		when, pos int // the change at when; the position read 10 s later
	}{
		{"plays on", "a", devices.TransportPlaying, 30, 40},
		{"a pause holds", "a", devices.TransportPaused, 60, 60},
		{"play resumes where it held", "a", devices.TransportPlaying, 100, 70},
		{"a new item starts at 0", "b", devices.TransportPlaying, 200, 10},
		{"stop goes back to 0", "b", devices.TransportStopped, 300, 0},
		{"a new item paused holds at 0", "c", devices.TransportPaused, 400, 0},
	}
	for _, s := range steps {
		h = h.retimed(s.item, s.tr, at(s.when))
		if got := h.at(at(s.when + 10)); got != time.Duration(s.pos)*time.Second {
			t.Errorf("%s: position %v; want %ds", s.name, got, s.pos)
		}
	}
	h = playhead{}.retimed("a", devices.TransportPlaying, at(0))
	if p := h.progress(90*time.Second, at(120)); p.Position != 90*time.Second || p.Duration != 90*time.Second || !p.At.Equal(at(120)) {
		t.Errorf("past the end: %+v; want the position clamped to the length", p)
	}
}

func TestTrackLengths(t *testing.T) {
	for _, title := range []string{"Morning Coffee", "Kind of Blue", "x"} {
		for tr := range 12 {
			l := trackLength(title, tr)
			if l < 150*time.Second || l >= 350*time.Second || l != trackLength(title, tr) {
				t.Fatalf("%s track %d: %v", title, tr, l)
			}
		}
	}
}
