package service_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

const ropeID = "sim:rope-light"

func TestSetSegmentsColoursTheStrip(t *testing.T) {
	h := newHouse(t)
	rope := h.home.Light(ropeID)
	before := rope.State()
	res := servicetest.Must[service.SegmentResult](t)(h.svc.SetSegments(h.ctx, "rope", []service.Segment{
		{Segment: 0, RGB: ptr(0xFF0000)},
		{Segment: 1, RGB: ptr(0x0000FF), Brightness: ptr(50)},
		{Segment: 14, Brightness: ptr(0)},
	}))
	if res.ID != ropeID || res.Name != "Rope Light" || res.Segments != 3 {
		t.Errorf("result %+v", res)
	}
	segs := rope.Segments()
	want := map[int]sim.Segment{0: {RGB: 0xFF0000, Brightness: 100}, 1: {RGB: 0x0000FF, Brightness: 50}, 2: {RGB: 0xFFFFFF, Brightness: 100}, 14: {RGB: 0xFFFFFF, Brightness: 0}}
	for i, w := range want {
		if segs[i] != w {
			t.Errorf("segment %d is %+v; want %+v", i, segs[i], w)
		}
	}
	if rope.Commands() != 1 {
		t.Errorf("the strip took %d commands; want one for all three segments", rope.Commands())
	}
	if after := rope.State(); after.Mode != before.Mode || after.Effect != before.Effect {
		t.Errorf("segments changed the light's state: %+v → %+v", before, after)
	}
	l := servicetest.Must[service.Light](t)(h.svc.GetLight(h.ctx, ropeID))
	if l.Capabilities.Segments != 15 {
		t.Errorf("the rope light advertises %d segments; want 15", l.Capabilities.Segments)
	}
	audit := servicetest.Must[[]service.AuditEntry](t)(h.svc.AuditLog(h.ctx, 1))
	if e := audit[0]; e.Action != "light.segments" || e.Target != "Rope Light" || e.Result != "ok" || e.Detail != "0=#FF0000 1=#0000FF@50% 14=@0%" {
		t.Errorf("audit entry %+v", e)
	}
}

func TestSetSegmentsRefusesBadEntries(t *testing.T) {
	h := newHouse(t)
	for _, tc := range []struct {
		name  string
		segs  []service.Segment
		field string
	}{
		{"empty", nil, "segments"},
		{"negative", []service.Segment{{Segment: -1, RGB: ptr(1)}}, "segments[0].segment"},
		{"past the end", []service.Segment{{Segment: 0, RGB: ptr(1)}, {Segment: 15, RGB: ptr(1)}}, "segments[1].segment"},
		{"first bad entry", []service.Segment{{Segment: 0, RGB: ptr(1)}, {Segment: 1}, {Segment: 2, RGB: ptr(0x1000000)}}, "segments[1]"},
		{"rgb above 0xFFFFFF", []service.Segment{{Segment: 0, RGB: ptr(1)}, {Segment: 1, RGB: ptr(1)}, {Segment: 2, RGB: ptr(0x1000000)}}, "segments[2].rgb"},
		{"rgb negative", []service.Segment{{Segment: 3, RGB: ptr(-1)}}, "segments[0].rgb"},
		{"brightness high", []service.Segment{{Segment: 3, Brightness: ptr(101)}}, "segments[0].brightness"},
		{"brightness low", []service.Segment{{Segment: 3, Brightness: ptr(-1)}}, "segments[0].brightness"},
		{"nothing to set", []service.Segment{{Segment: 3}}, "segments[0]"},
		{"twice", []service.Segment{{Segment: 4, RGB: ptr(1)}, {Segment: 5, RGB: ptr(1)}, {Segment: 4, Brightness: ptr(9)}}, "segments[2].segment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.svc.SetSegments(h.ctx, "Rope Light", tc.segs)
			servicetest.WantCode(t, err, service.EINVALID)
			msg := service.ErrorMessage(err)
			if !strings.Contains(msg, tc.field) || !unicode.IsUpper([]rune(msg)[0]) {
				t.Errorf("message %q should name %s and start with a capital", msg, tc.field)
			}
			if got := service.ErrorDetails(err)["field"]; got != tc.field {
				t.Errorf("detail field %v; want %s", got, tc.field)
			}
		})
	}
	if n := h.home.Light(ropeID).Commands(); n != 0 {
		t.Errorf("refused writes reached the strip %d times", n)
	}
}

func TestSetSegmentsNeedsAStrip(t *testing.T) {
	h := newHouse(t)
	seg := []service.Segment{{Segment: 0, RGB: ptr(0xFF0000)}}
	_, err := h.svc.SetSegments(h.ctx, "Desk Lamp", seg)
	servicetest.WantCode(t, err, service.EDEVICE)
	if msg := service.ErrorMessage(err); msg != "Desk Lamp has no addressable segments; only lights with capabilities.segments take them" {
		t.Errorf("message %q", msg)
	}
	if h.home.Light("sim:desk-lamp").Commands() != 0 {
		t.Error("the lamp was sent segments")
	}
	_, err = h.svc.SetSegments(h.ctx, "Garage Strip", seg)
	servicetest.WantCode(t, err, service.ENOTFOUND)
	_, err = h.svc.SetSegments(h.ctx, "Coffee Plug", seg) // not a light
	servicetest.WantCode(t, err, service.ENOTFOUND)

	read := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "ro", Scope: service.ScopeRead})
	_, err = h.svc.SetSegments(read, "Rope Light", seg)
	servicetest.WantCode(t, err, service.EFORBIDDEN)

	h.home.Light(ropeID).SetUnreachable(true)
	_, err = h.svc.SetSegments(h.ctx, "Rope Light", seg)
	servicetest.WantCode(t, err, service.EUNREACHABLE)
}

func TestSetSegmentsGoesThroughTheWorker(t *testing.T) {
	h := newHouse(t)
	rope := h.home.Light(ropeID)
	rope.SetLatency(50 * time.Millisecond)
	// A light command and a segments command to the same strip run one
	// after the other, neither superseding the other.
	done := make(chan error, 1)
	go func() {
		_, err := h.svc.SetLight(h.ctx, "Rope Light", service.LightPatch{Brightness: ptr(30)})
		done <- err
	}()
	servicetest.Must[service.SegmentResult](t)(h.svc.SetSegments(h.ctx, "Rope Light", []service.Segment{{Segment: 2, RGB: ptr(0x00FF00)}}))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rope.Commands() != 2 || rope.Segments()[2].RGB != 0x00FF00 || rope.State().Brightness != 30 {
		t.Errorf("after both: %d commands, segment 2 %+v, state %+v", rope.Commands(), rope.Segments()[2], rope.State())
	}
}

func TestSetSegmentsPublishesTheLight(t *testing.T) {
	h := newHouse(t)
	servicetest.Run(t, h.svc)
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	servicetest.Must[service.SegmentResult](t)(h.svc.SetSegments(h.ctx, "Rope Light", []service.Segment{{Segment: 2, RGB: ptr(0x00FF00)}}))
	deadline := time.After(2 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Type == "light" && e.ID == ropeID && e.Action == "changed" {
				return
			}
		case <-deadline:
			t.Fatal("no light event for the strip")
		}
	}
}
