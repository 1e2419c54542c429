package mcp

import (
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestPositionText(t *testing.T) {
	at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	view := func(transport string, pos, dur *float64) service.Media {
		return service.Media{State: &devices.MediaState{Transport: transport}, PositionSecs: pos, DurationSecs: dur, PositionAt: &at}
	}
	cases := []struct {
		name string
		m    service.Media
		now  time.Time
		want string
	}{
		{"paused holds", view(devices.TransportPaused, f(83), f(225)), at.Add(time.Minute), "1:23 of 3:45"},
		{"playing runs on", view(devices.TransportPlaying, f(83), f(225)), at.Add(10 * time.Second), "1:33 of 3:45"},
		{"never past the end", view(devices.TransportPlaying, f(220), f(225)), at.Add(time.Minute), "3:45 of 3:45"},
		{"a stream without an end", view(devices.TransportPlaying, f(754), nil), at, "12:34"},
		{"a film", view(devices.TransportPaused, f(3725), f(7200)), at, "1:02:05 of 2:00:00"},
		{"no position", view(devices.TransportPlaying, nil, f(225)), at, ""},
	}
	for _, c := range cases {
		if got := positionText(c.m, c.now); got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}
