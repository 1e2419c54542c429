package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/bifrost-hub/bifrost/devices"
)

// Per-segment colours on addressable strips, sent as WLED's JSON API.
//
// WLED (kno.wled.ge, "MQTT") subscribes to <deviceTopic>/api and takes
// there the same JSON as its HTTP JSON API, so one message colours several
// segments: {"seg":[{"id":0,"col":[[255,0,0]],"bri":128}]} (id the
// segment, col its colour slots, primary first, bri its own brightness
// 0–255, 0 turning the segment off). What WLED does not do over MQTT is say
// how many segments it has: it publishes only <deviceTopic>/g, /c, /v and
// /status (its Home Assistant discovery went after 0.8.6), and lists its
// segments only through its HTTP JSON API (/json/state "seg").
//
// So a strip says it has segments where the hub already learns its lights:
// in its retained Home Assistant discovery config (any light schema the hub
// reads), with two keys Home Assistant does not know and drops (its
// discovery schemas remove extra keys):
//
//	"segments": 15                                  how many segments, ids 0–14
//	"segments_command_topic": "wled/a1b2c3/api"     where WLED JSON API commands go
//
// "~" works in the topic as in the others. A light that declares both
// advertises LightCaps.Segments and takes SetSegments; one that declares
// only one of them, or a count that is not a whole number from 1 to
// maxSegments, is an ordinary light (and the log says why). Segments are
// write-only: WLED reports no segment state over MQTT, so the command is
// done once the broker has it.

// maxSegments bounds a declared segment count: WLED builds allow at most
// a few dozen segments, so more is a mistake in the config.
const maxSegments = 256

// segments makes a built light a strip when its config declares segments.
func (d *discovery) segments(e *haEntity, cfg haConfig) {
	if cfg.Segments == nil && cfg.SegmentsCommandTopic == "" {
		return
	}
	n, ok := number(cfg.Segments)
	switch {
	case !ok || n != math.Trunc(n) || n < 1 || n > maxSegments:
		d.e.log.Warn("discovered light declares segments the hub cannot use; it is taken as a light without them",
			"topic", e.configTopic, "segments", cfg.Segments, "want", fmt.Sprintf("a whole number 1–%d", maxSegments))
		return
	case cfg.SegmentsCommandTopic == "":
		d.e.log.Warn("discovered light declares segments but no segments_command_topic; it is taken as a light without them",
			"topic", e.configTopic)
		return
	}
	e.light.caps.Segments = int(n) // not registered yet: nothing reads it
	e.strip = &stripLight{lightDevice: e.light, topic: cfg.SegmentsCommandTopic}
}

// stripLight is a discovered light whose segments take WLED JSON API
// commands on topic.
type stripLight struct {
	*lightDevice
	topic string
}

var _ devices.Segmenter = (*stripLight)(nil)

// SetSegments publishes the changes as one WLED JSON API command.
func (l *stripLight) SetSegments(ctx context.Context, segs []devices.SegmentChange) error {
	if err := l.ready(); err != nil {
		return err
	}
	b, err := wledSegments(segs, l.caps.Segments)
	if err != nil {
		return err
	}
	return l.env.conn.publish(ctx, l.topic, b, false)
}

// wledSegment is one entry of a WLED JSON API "seg" list.
type wledSegment struct {
	ID  int      `json:"id"`
	Col [][3]int `json:"col,omitempty"`
	Bri *int     `json:"bri,omitempty"`
}

// wledSegments encodes changes to a strip of n segments as a WLED JSON API
// state: {"seg":[…]}, one entry per change, in the order given. A change
// the strip cannot take is an error wrapping devices.ErrInvalid.
func wledSegments(segs []devices.SegmentChange, n int) ([]byte, error) {
	if len(segs) == 0 {
		return nil, devices.Invalid(nil, "no segment to change")
	}
	out := make([]wledSegment, 0, len(segs))
	for _, c := range segs {
		s, err := wledSegmentOf(c, n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return json.Marshal(struct {
		Seg []wledSegment `json:"seg"`
	}{out})
}

func wledSegmentOf(c devices.SegmentChange, n int) (wledSegment, error) {
	s := wledSegment{ID: c.Index}
	switch {
	case c.Index < 0 || c.Index >= n:
		return s, devices.Invalid(nil, "segment %d is not one of its segments 0–%d", c.Index, n-1)
	case c.RGB == nil && c.Brightness == nil:
		return s, devices.Invalid(nil, "segment %d: nothing to change", c.Index)
	case c.RGB != nil && *c.RGB > 0xFFFFFF:
		return s, devices.Invalid(nil, "segment %d: colour %#x is not 0xRRGGBB", c.Index, *c.RGB)
	case c.Brightness != nil && (*c.Brightness < 0 || *c.Brightness > 100):
		return s, devices.Invalid(nil, "segment %d: brightness %d is outside 0–100", c.Index, *c.Brightness)
	}
	if c.RGB != nil {
		rgb := int(*c.RGB)
		s.Col = [][3]int{{rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF}}
	}
	if c.Brightness != nil {
		bri := int(math.Round(float64(*c.Brightness) * 255 / 100))
		s.Bri = &bri
	}
	return s, nil
}
