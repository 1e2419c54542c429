package onkyo_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices/onkyo"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
)

// The hub as its clients meet it: the real service over SQLite with the
// adapter's receiver on a fake receiver, a simulated TV and a simulated
// speaker, behind the real HTTP server, driven through /api/v1 with plain
// requests and through /mcp with mcp-go's client.

// mvl2D is the packet that sets the volume to step 0x2D (45 of 100), as
// PROTOCOLS.md §3.4 spells its packets: the 16-byte header, "!1MVL2D", CR.
const mvl2D = "ISCP\x00\x00\x00\x10\x00\x00\x00\x08\x01\x00\x00\x00!1MVL2D\r"

// surface is a running hub's HTTP side, a control key for it and its
// simulated TV.
type surface struct {
	*apitest.Hub
	tv *sim.TV
}

func newSurface(t *testing.T, f *fakeReceiver) *surface {
	t.Helper()
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	r.player(t, mainID)
	tv := sim.NewTV("", "Living Room TV", "Living Room", sim.Options{})
	sim.Register(r.reg, tv, sim.NewSpeaker("", "Desk Speaker", "Office", sim.Options{}))
	h := apitest.Start(t, r.reg, deviceTimeout)
	return &surface{Hub: h, tv: tv}
}

// mcpMedia is a media player as the MCP tools answer it.
type mcpMedia struct {
	ID       string `json:"id"`
	Offline  bool   `json:"offline"`
	Volume   *int   `json:"volume"`
	Receiver string `json:"receiver"`
}

// commands lists what the receiver was told, in order: every message it
// received but the questions (the adapter's connect and keep-alive reads).
func (f *fakeReceiver) commands() []string {
	return slices.DeleteFunc(f.sent(), func(m string) bool { return strings.HasSuffix(m, "QSTN") })
}

// volumeWentToTheReceiver fails the test unless the receiver got exactly
// the one MVL2D packet, and the TV nothing, since before.
func (s *surface) volumeWentToTheReceiver(t *testing.T, f *fakeReceiver, tvBefore int) {
	t.Helper()
	if !f.sentBytes([]byte(mvl2D)) {
		t.Fatalf("no MVL2D packet %q; the receiver got %v", mvl2D, f.sent())
	}
	if got := f.commands(); len(got) != 1 || got[0] != "MVL2D" {
		t.Fatalf("the receiver was told %v; want just MVL2D", got)
	}
	if f.value("MVL") != "2D" {
		t.Fatalf("the receiver's volume is %s", f.value("MVL"))
	}
	if n := s.tv.Commands(); n != tvBefore {
		t.Fatalf("the TV took %d commands", n-tvBefore)
	}
}

func TestAPIBindsTheTVAndTurnsItsVolumeUp(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	s := newSurface(t, f)

	var tv service.Media
	s.V1(t, http.MethodPut, "/media/devices/Living%20Room%20TV/receiver", `{"receiver": "TX-NR686", "input": "TV"}`, http.StatusOK, &tv)
	if tv.Receiver != mainID || tv.State == nil || tv.State.Volume != 40 {
		t.Fatalf("binding %+v: the TV should show the receiver's volume, 40: %+v", tv, tv.State)
	}
	f.forget()
	before := s.tv.Commands()
	s.V1(t, http.MethodPut, "/media/devices/Living%20Room%20TV/state", `{"volume": 45}`, http.StatusOK, &tv)
	s.volumeWentToTheReceiver(t, f, before)
	if tv.State == nil || tv.State.Volume != 45 || tv.Receiver != mainID {
		t.Fatalf("the TV after volume up: %+v", tv.State)
	}
	var recv service.Media
	s.V1(t, http.MethodGet, "/media/devices/TX-NR686", "", http.StatusOK, &recv)
	if recv.State == nil || recv.State.Volume != 45 {
		t.Fatalf("the receiver after the TV's volume up: %+v", recv.State)
	}
}

func TestAPIReportsASilentReceiverUnreachable(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	s := newSurface(t, f)
	f.setSilent(true)
	start := time.Now()
	var e apitest.Error
	s.V1(t, http.MethodPut, "/media/devices/TX-NR686/state", `{"volume": 30}`, http.StatusBadGateway, &e)
	d := time.Since(start)
	if d > reportedWithin {
		t.Fatalf("502 after %v; the device timeout is %v", d, deviceTimeout)
	}
	if e.Error != service.EUNREACHABLE || !saysSilent(e.Message, "TX-NR686", "MVL1E") {
		t.Fatalf("error %+v", e)
	}
	t.Logf("502 after %v: %s", d, e.Message)
	var m service.Media
	s.V1(t, http.MethodPut, "/media/devices/Desk%20Speaker/state", `{"volume": 30}`, http.StatusOK, &m)
	if !m.Online || m.State == nil || m.State.Volume != 30 {
		t.Fatalf("the other device: %+v", m)
	}
}

func TestMCPBindsTheTVAndTurnsItsVolumeUp(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	s := newSurface(t, f)
	c := s.MCP(t)

	var tv mcpMedia
	apitest.ToolOK(t, c, "bind_receiver", map[string]any{"device": "Living Room TV", "receiver": "TX-NR686", "input": "TV"}, &tv)
	if tv.Receiver != string(mainID) || tv.Volume == nil || *tv.Volume != 40 {
		t.Fatalf("binding %+v", tv)
	}
	f.forget()
	before := s.tv.Commands()
	apitest.ToolOK(t, c, "set_media", map[string]any{"device": "Living Room TV", "volume": *tv.Volume + 5}, &tv)
	s.volumeWentToTheReceiver(t, f, before)
	if tv.Volume == nil || *tv.Volume != 45 {
		t.Fatalf("the TV after volume up: %+v", tv)
	}
	var recv mcpMedia
	apitest.ToolOK(t, c, "get_media_state", map[string]any{"device": "TX-NR686"}, &recv)
	if recv.Volume == nil || *recv.Volume != 45 {
		t.Fatalf("the receiver after the TV's volume up: %+v", recv)
	}
}

func TestMCPReportsASilentReceiverUnreachable(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	c := newSurface(t, f).MCP(t)
	f.setSilent(true)
	start := time.Now()
	res := apitest.Tool(t, c, "set_media", map[string]any{"device": "TX-NR686", "volume": 30})
	d := time.Since(start)
	if d > reportedWithin {
		t.Fatalf("answered after %v; the device timeout is %v", d, deviceTimeout)
	}
	if !res.IsError || !saysSilent(apitest.ToolText(res), "TX-NR686", "MVL1E") {
		t.Fatalf("isError %v, text %q", res.IsError, apitest.ToolText(res))
	}
	t.Logf("tool error after %v: %s", d, apitest.ToolText(res))
	var m mcpMedia
	apitest.ToolOK(t, c, "set_media", map[string]any{"device": "Desk Speaker", "volume": 30}, &m)
	if m.Offline || m.Volume == nil || *m.Volume != 30 {
		t.Fatalf("the other device: %+v", m)
	}
}

// saysSilent reports whether msg is what people read when name left cmd
// unanswered: the adapter's words, or the worker's when its deadline
// passed first.
func saysSilent(msg, name, cmd string) bool {
	return msg == name+" is unreachable: did not answer "+cmd || msg == name+" is unreachable: device did not answer in time"
}
