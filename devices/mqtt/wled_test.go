package mqtt

import (
	"errors"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func ptr[T any](v T) *T { return &v }

// The WLED JSON API state of a segment change, byte for byte (kno.wled.ge,
// JSON API: "seg" entries with id, col as colour slots, bri 0–255).
func TestWLEDSegmentsEncoding(t *testing.T) {
	b, err := wledSegments([]devices.SegmentChange{
		{Index: 0, RGB: ptr(uint32(0xFF0000)), Brightness: ptr(50)},
		{Index: 3, RGB: ptr(uint32(0x0080FF))},
		{Index: 14, Brightness: ptr(0)},
		{Index: 7, Brightness: ptr(100)},
	}, 15)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seg":[{"id":0,"col":[[255,0,0]],"bri":128},{"id":3,"col":[[0,128,255]]},{"id":14,"bri":0},{"id":7,"bri":255}]}`
	if string(b) != want {
		t.Errorf("payload\n%s\nwant\n%s", b, want)
	}
	for name, segs := range map[string][]devices.SegmentChange{
		"none":         nil,
		"past the end": {{Index: 15, RGB: ptr(uint32(1))}},
		"negative":     {{Index: -1, RGB: ptr(uint32(1))}},
		"empty":        {{Index: 1}},
		"not RGB":      {{Index: 1, RGB: ptr(uint32(0x1000000))}},
		"too bright":   {{Index: 1, Brightness: ptr(101)}},
	} {
		if _, err := wledSegments(segs, 15); !errors.Is(err, devices.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// A discovered light is a strip only when its config declares both a
// usable segment count and where WLED JSON API commands go.
func TestDiscoveredLightDeclaresSegments(t *testing.T) {
	e, reg := testEnv(t)
	d := newDiscovery(e, "homeassistant")
	for _, tc := range []struct {
		object, extra string
		segments      int
	}{
		{"strip", `,"segments":15,"segments_command_topic":"~/api"`, 15},
		{"text", `,"segments":"8","segments_command_topic":"~/api"`, 8},
		{"plain", ``, 0},
		{"no_topic", `,"segments":15`, 0},
		{"no_count", `,"segments_command_topic":"~/api"`, 0},
		{"zero", `,"segments":0,"segments_command_topic":"~/api"`, 0},
		{"fraction", `,"segments":2.5,"segments_command_topic":"~/api"`, 0},
		{"huge", `,"segments":100000,"segments_command_topic":"~/api"`, 0},
		{"word", `,"segments":"many","segments_command_topic":"~/api"`, 0},
	} {
		cfg := `{"~":"wled/` + tc.object + `","name":"Strip","uniq_id":"w-` + tc.object + `","cmd_t":"~","bri_cmd_t":"~","bri_stat_t":"~/g","avty_t":"~/status","dev":{"ids":["w"],"mf":"WLED"}` + tc.extra + `}`
		d.handle("homeassistant/light/w/"+tc.object+"/config", []byte(cfg))
		dev, ok := reg.Get(devices.ID("mqtt:ha.w-" + tc.object))
		if !ok {
			t.Errorf("%s: no light registered", tc.object)
			continue
		}
		caps := dev.(devices.Light).LightCaps()
		_, segmenter := dev.(devices.Segmenter)
		if caps.Segments != tc.segments || segmenter != (tc.segments > 0) {
			t.Errorf("%s: %d segments, segmenter %v; want %d", tc.object, caps.Segments, segmenter, tc.segments)
		}
		if !caps.Dimmable {
			t.Errorf("%s: declaring segments lost the light's own caps: %+v", tc.object, caps)
		}
		if strip, ok := dev.(*stripLight); ok && strip.topic != "wled/"+tc.object+"/api" {
			t.Errorf("%s: commands go to %q", tc.object, strip.topic)
		}
	}
	// Removing the config removes the strip, as any light.
	d.handle("homeassistant/light/w/strip/config", nil)
	if _, ok := reg.Get("mqtt:ha.w-strip"); ok {
		t.Error("the strip outlived its config")
	}
}
