package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// maxRGB is the largest packed 0xRRGGBB colour.
const maxRGB = 0xFFFFFF

// Segment is a change to one segment of an addressable strip: its index
// from 0, and a colour packed as 0xRRGGBB, a brightness 0–100 %, or both.
type Segment struct {
	Segment    int  `json:"segment"`
	RGB        *int `json:"rgb,omitempty"`
	Brightness *int `json:"brightness,omitempty"`
}

// SegmentResult says which strip took segment colours, and how many
// segments it was sent.
type SegmentResult struct {
	ID       devices.ID `json:"id"`
	Name     string     `json:"name"`
	Segments int        `json:"segments"`
}

// SetSegments colours the segments of one light (by id or name), each
// entry to the segment it names, in one command through the light's
// worker. Only lights with capabilities.segments take them; segment state
// is write-only (the light's state does not report it), so it is neither
// read back nor undoable.
func (s *Service) SetSegments(ctx context.Context, ref string, segs []Segment) (SegmentResult, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return SegmentResult{}, err
	}
	rec, err := inv.light(ref)
	if err != nil {
		return SegmentResult{}, err
	}
	n := s.lightView(inv, rec).Capabilities.Segments
	err = checkSegments(rec.Name, n, segs)
	if err == nil {
		err = s.applySegments(ctx, rec, segs)
	}
	s.audit(ctx, "light.segments", rec.Name, err, segmentSummary(segs))
	if err != nil {
		return SegmentResult{}, err
	}
	s.publishDevice(rec.ID)
	return SegmentResult{ID: rec.ID, Name: rec.Name, Segments: len(segs)}, nil
}

// noSegments is the error of a light without addressable segments.
func noSegments(name string) error {
	return aboutf(EDEVICE, "%s has no addressable segments; only lights with capabilities.segments take them", name)
}

// checkSegments refuses what a strip of n segments cannot take, naming the
// field at fault.
func checkSegments(name string, n int, segs []Segment) error {
	if n <= 0 {
		return noSegments(name)
	}
	if len(segs) == 0 {
		return Errorf(EINVALID, "Give at least one entry in segments, each a segment with an rgb, a brightness or both").
			With("field", "segments")
	}
	first := map[int]int{} // segment → the entry that named it first
	for i, sg := range segs {
		if err := checkSegment(name, n, i, sg); err != nil {
			return err
		}
		if j, dup := first[sg.Segment]; dup {
			return Errorf(EINVALID, "Segment %d is given twice, in segments[%d].segment and segments[%d].segment: give each segment once", sg.Segment, j, i).
				With("field", fmt.Sprintf("segments[%d].segment", i))
		}
		first[sg.Segment] = i
	}
	return nil
}

// checkSegment checks entry i of a list for a strip of n segments.
func checkSegment(name string, n, i int, sg Segment) error {
	at := fmt.Sprintf("segments[%d]", i)
	switch {
	case sg.Segment < 0 || sg.Segment >= n:
		return Errorf(EINVALID, "The segment in %s.segment, %d, is out of range: %s has %d segments, use 0–%d", at, sg.Segment, name, n, n-1).
			With("field", at+".segment").With("min", 0).With("max", n-1)
	case sg.RGB == nil && sg.Brightness == nil:
		return Errorf(EINVALID, "The entry %s changes nothing: give it an rgb, a brightness or both", at).
			With("field", at)
	case sg.RGB != nil && (*sg.RGB < 0 || *sg.RGB > maxRGB):
		return Errorf(EINVALID, "The colour in %s.rgb, %d, is out of range: use 0–%d, a colour packed as 0xRRGGBB (16711680 is red)", at, *sg.RGB, maxRGB).
			With("field", at+".rgb").With("min", 0).With("max", maxRGB)
	case sg.Brightness != nil && (*sg.Brightness < 0 || *sg.Brightness > 100):
		return Errorf(EINVALID, "The brightness in %s.brightness, %d, is out of range: use 0–100 (percent)", at, *sg.Brightness).
			With("field", at+".brightness").With("min", 0).With("max", 100)
	}
	return nil
}

// applySegments sends checked segments through the light's command worker.
func (s *Service) applySegments(ctx context.Context, rec DeviceRecord, segs []Segment) error {
	if err := controllable(rec); err != nil {
		return err
	}
	d, err := s.live(rec)
	if err != nil {
		return err
	}
	sg, ok := d.(devices.Segmenter)
	if l, light := d.(devices.Light); !ok || !light || l.LightCaps().Segments == 0 {
		return noSegments(rec.Name)
	}
	changes := segmentChanges(segs)
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, segmentKey(segs), func(ctx context.Context) error {
		err := sg.SetSegments(ctx, changes)
		if err == nil {
			s.record(rec.ID, func(*deviceState) {}) // it answered; its state is as it was
		}
		return err
	}))
}

// segmentChanges are checked segments as the device contract takes them.
func segmentChanges(segs []Segment) []devices.SegmentChange {
	out := make([]devices.SegmentChange, len(segs))
	for i, sg := range segs {
		out[i] = devices.SegmentChange{Index: sg.Segment, Brightness: sg.Brightness}
		if sg.RGB != nil {
			rgb := uint32(*sg.RGB)
			out[i].RGB = &rgb
		}
	}
	return out
}

// segmentKey is the supersede key of a segments command: a waiting one is
// replaced only by one that sets the same fields of the same segments, so
// no segment a caller asked for is lost.
func segmentKey(segs []Segment) string {
	f := make([]string, len(segs))
	for i, sg := range segs {
		f[i] = strconv.Itoa(sg.Segment) + ":"
		if sg.RGB != nil {
			f[i] += "rgb"
		}
		if sg.Brightness != nil {
			f[i] += "+brightness"
		}
	}
	slices.Sort(f)
	return "segments:" + strings.Join(f, ",")
}

// segmentSummary describes segment changes for the audit log.
func segmentSummary(segs []Segment) string {
	f := make([]string, len(segs))
	for i, sg := range segs {
		f[i] = fmt.Sprintf("%d=", sg.Segment)
		if sg.RGB != nil {
			f[i] += fmt.Sprintf("#%06X", *sg.RGB)
		}
		if sg.Brightness != nil {
			f[i] += fmt.Sprintf("@%d%%", *sg.Brightness)
		}
	}
	return strings.Join(f, " ")
}
