package service_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// companionHouse is the simulated home with a second view of its TV: a
// player that knows what plays ("TV Audio", a simulated speaker), as a
// Roku or Home Assistant entity of the same set would.
type companionHouse struct {
	svc   *service.Service
	ctx   context.Context
	tv    *sim.TV
	audio *sim.Speaker
	recv  *sim.Receiver
}

const (
	tvID    devices.ID = "sim:living-room-tv"
	audioID devices.ID = "sim:tv-audio"
	recvID  devices.ID = "sim:onkyo-receiver"
)

func newCompanionHouse(t *testing.T) *companionHouse { return newCompanionHouseNamed(t, "TV Audio") }

// newCompanionHouseNamed builds the house with the second view of the TV
// (id audioID) named name.
func newCompanionHouseNamed(t *testing.T, name string) *companionHouse {
	t.Helper()
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	audio := sim.NewSpeaker("tv-audio", name, sim.LivingRoom, sim.Options{})
	sim.Register(reg, audio)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &companionHouse{
		svc: servicetest.New(t, reg, 0), ctx: service.WithPrincipal(context.Background(), p),
		tv: home.TV(tvID), audio: audio, recv: home.Receiver(recvID),
	}
}

func (h *companionHouse) get(t *testing.T, ref string) service.Media {
	t.Helper()
	return servicetest.Must[service.Media](t)(h.svc.GetMedia(h.ctx, ref))
}

func (h *companionHouse) set(t *testing.T, ref string, p service.MediaPatch) service.Media {
	t.Helper()
	return servicetest.Must[service.Media](t)(h.svc.SetMedia(h.ctx, ref, p))
}

// merge makes TV Audio the TV's companion.
func (h *companionHouse) merge(t *testing.T) service.Media {
	t.Helper()
	m := servicetest.Must[service.Media](t)(h.svc.SetCompanion(h.ctx, string(audioID), "Living Room TV"))
	if m.ID != tvID || !slices.Equal(m.Companions, []devices.ID{audioID}) {
		t.Fatalf("merging answered %s with companions %v; want the TV with TV Audio", m.ID, m.Companions)
	}
	return m
}

func listedIDs(t *testing.T, h *companionHouse) []devices.ID {
	t.Helper()
	var ids []devices.ID
	for _, m := range servicetest.Must[[]service.Media](t)(h.svc.ListMedia(h.ctx)) {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestCompanionMergeHidesTheCompanionAndFillsThePrimary(t *testing.T) {
	h := newCompanionHouse(t)
	h.set(t, "TV Audio", service.MediaPatch{Source: ptr(sim.SourceRadio)}) // it plays; the TV is off
	if own := h.get(t, "Living Room TV"); own.State.NowPlaying != nil || own.Favorites || len(own.Companions) > 0 {
		t.Fatalf("the TV before merging: %+v", own)
	}

	m := h.merge(t)

	ids := listedIDs(t, h)
	if slices.Contains(ids, audioID) || !slices.Contains(ids, tvID) {
		t.Fatalf("listed %v; want the TV and not its companion", ids)
	}
	st := m.State
	switch {
	case st == nil || st.Power:
		t.Fatalf("merged state %+v; want the TV's power (off)", st)
	case st.NowPlaying == nil || st.NowPlaying.Title == "" || st.Transport != devices.TransportPlaying:
		t.Fatalf("merged playback %+v / %q; want the companion's", st.NowPlaying, st.Transport)
	case st.Source != sim.SourceRadio:
		t.Fatalf("merged source %q; want the companion's %q (the TV, off, shows none)", st.Source, sim.SourceRadio)
	case !slices.Contains(st.Sources, "HDMI 1"):
		t.Fatalf("merged sources %v; want the TV's own", st.Sources)
	case !m.Favorites || !m.Group || !m.Cast || !m.RemoteDevice:
		t.Fatalf("merged capabilities %+v; want the TV's and the companion's", m)
	}

	c := h.get(t, string(audioID)) // a companion still reads, by id
	if c.CompanionOf != tvID || len(c.Companions) > 0 {
		t.Fatalf("companion read: companion_of %q, companions %v", c.CompanionOf, c.Companions)
	}
	_, err := h.svc.SetMedia(h.ctx, "TV Audio", service.MediaPatch{Volume: ptr(10)})
	servicetest.WantCode(t, err, service.ENOTFOUND) // nor is it controlled on its own
	if !strings.Contains(service.ErrorMessage(err), "Living Room TV") {
		t.Fatalf("refusal %q does not name the primary", service.ErrorMessage(err))
	}
}

func TestCompanionSpeaksForAnOfflinePrimary(t *testing.T) {
	h := newCompanionHouse(t)
	h.merge(t)
	h.tv.SetUnreachable(true)
	servicetest.WaitFor(t, "the merged TV to read the companion's power", func() bool {
		m, err := h.svc.GetMedia(h.ctx, "Living Room TV")
		return err == nil && m.Online && m.State != nil && m.State.Power // the TV is off; the speaker is always on
	})

	// Volume goes to the companion while the primary cannot take it.
	h.set(t, "Living Room TV", service.MediaPatch{Volume: ptr(12)})
	if v := h.get(t, string(audioID)).State.Volume; v != 12 {
		t.Fatalf("companion volume %d; want 12", v)
	}
	// Power on reaches the companion too; the TV's failure is forgiven.
	before := h.audio.Commands()
	h.set(t, "Living Room TV", service.MediaPatch{Power: ptr(true)})
	if h.audio.Commands() == before {
		t.Fatal("power on did not reach the companion of an offline TV")
	}

	h.tv.SetUnreachable(false)
	servicetest.WaitFor(t, "the TV to speak for itself again", func() bool {
		m, err := h.svc.GetMedia(h.ctx, "Living Room TV")
		return err == nil && m.State != nil && !m.State.Power
	})
}

func TestCompanionRoutesCommands(t *testing.T) {
	h := newCompanionHouse(t)
	h.set(t, "TV Audio", service.MediaPatch{Source: ptr(sim.SourceRadio)})
	h.merge(t)

	// Power goes to the primary alone while it answers.
	audioCmds := h.audio.Commands()
	if m := h.set(t, "Living Room TV", service.MediaPatch{Power: ptr(true)}); !m.State.Power {
		t.Fatalf("after power on: %+v", m.State)
	}
	if h.audio.Commands() != audioCmds {
		t.Fatal("power went to the companion of an answering TV")
	}

	// Transport goes to the member that reports playback: the companion
	// (the TV is on its home screen).
	tvCmds := h.tv.Commands()
	m := h.set(t, "Living Room TV", service.MediaPatch{Transport: ptr("pause")})
	if m.State.Transport != devices.TransportPaused || h.get(t, string(audioID)).State.Transport != devices.TransportPaused {
		t.Fatalf("after pause: merged transport %q", m.State.Transport)
	}
	if m = h.set(t, "Living Room TV", service.MediaPatch{Transport: ptr(service.TransportToggle)}); m.State.Transport != devices.TransportPlaying {
		t.Fatalf("toggle left the merged transport %q; want playing", m.State.Transport)
	}
	if h.tv.Commands() != tvCmds {
		t.Fatal("transport went to the TV")
	}

	// A source goes to the member that has it.
	if m = h.set(t, "Living Room TV", service.MediaPatch{Source: ptr("HDMI 2")}); m.State.Source != "HDMI 2" {
		t.Fatalf("merged source %q; want HDMI 2", m.State.Source)
	}
	tvCmds = h.tv.Commands()
	h.set(t, "Living Room TV", service.MediaPatch{Source: ptr(sim.SourceLineIn)})
	if src := h.get(t, string(audioID)).State.Source; src != sim.SourceLineIn || h.tv.Commands() != tvCmds {
		t.Fatalf("companion source %q (TV commands %d → %d); want Line-In on the companion alone", src, tvCmds, h.tv.Commands())
	}

	// Volume goes to the primary while no member is bound to a receiver.
	audioCmds = h.audio.Commands()
	if m = h.set(t, "Living Room TV", service.MediaPatch{Volume: ptr(22)}); m.State.Volume != 22 {
		t.Fatalf("merged volume %d; want 22", m.State.Volume)
	}
	if v := h.get(t, string(audioID)).State.Volume; v == 22 || h.audio.Commands() != audioCmds {
		t.Fatal("the volume went to the companion")
	}
}

func TestCompanionBoundToAReceiver(t *testing.T) {
	h := newCompanionHouse(t)
	servicetest.Must[service.Media](t)(h.svc.BindReceiver(h.ctx, "TV Audio", "Onkyo Receiver", "TV"))
	m := h.merge(t)
	if m.Receiver != recvID {
		t.Fatalf("merged receiver %q; want the companion's binding", m.Receiver)
	}

	// Powering the TV on wakes the companion's receiver on its input.
	h.set(t, "Living Room TV", service.MediaPatch{Power: ptr(true)})
	if rs := h.get(t, "Onkyo Receiver").State; !rs.Power || rs.Source != "TV" {
		t.Fatalf("receiver after the TV went on: %+v", rs)
	}
	// Volume goes to the receiver, and the merged read shows it.
	tvCmds, audioCmds := h.tv.Commands(), h.audio.Commands()
	m = h.set(t, "Living Room TV", service.MediaPatch{Volume: ptr(40), Mute: ptr(true)})
	if rs := h.get(t, "Onkyo Receiver").State; rs.Volume != 40 || !rs.Muted {
		t.Fatalf("receiver after the volume: %+v", rs)
	}
	if m.State.Volume != 40 || !m.State.Muted {
		t.Fatalf("merged read shows volume %d muted %v; want the receiver's", m.State.Volume, m.State.Muted)
	}
	if h.tv.Commands() != tvCmds || h.audio.Commands() != audioCmds {
		t.Fatal("the volume went to a member, not the receiver")
	}
	// Powering it off takes the receiver down.
	h.set(t, "Living Room TV", service.MediaPatch{Power: ptr(false)})
	if h.get(t, "Onkyo Receiver").State.Power {
		t.Fatal("the receiver stayed on")
	}
}

func TestCompanionRefusals(t *testing.T) {
	h := newCompanionHouse(t)
	_, err := h.svc.SetCompanion(h.ctx, "TV Audio", "TV Audio")
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.SetCompanion(h.ctx, "TV Audio", "Garage TV")
	servicetest.WantCode(t, err, service.EINVALID)
	if msg := service.ErrorMessage(err); !strings.HasPrefix(msg, `There is no media device "Garage TV" to merge into`) {
		t.Fatalf("unknown primary: %q", msg)
	}
	_, err = h.svc.SetCompanion(h.ctx, "Garage TV", "Living Room TV")
	servicetest.WantCode(t, err, service.ENOTFOUND)
	read := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "dash", Scope: service.ScopeRead})
	_, err = h.svc.SetCompanion(read, "TV Audio", "Living Room TV")
	servicetest.WantCode(t, err, service.EFORBIDDEN)

	h.merge(t)
	_, err = h.svc.SetCompanion(h.ctx, "Kitchen Sonos", "TV Audio") // a companion is no primary
	servicetest.WantCode(t, err, service.EINVALID)
	_, err = h.svc.SetCompanion(h.ctx, "Living Room TV", "Kitchen Sonos") // a primary is no companion
	servicetest.WantCode(t, err, service.EINVALID)
	if msg := service.ErrorMessage(err); !strings.HasPrefix(msg, "Cannot merge Living Room TV") {
		t.Fatalf("primary refusal %q", msg)
	}
	if k := h.get(t, "Kitchen Sonos"); k.CompanionOf != "" || len(k.Companions) > 0 {
		t.Fatalf("a refused merge changed Kitchen Sonos: %+v", k)
	}
}

func TestCompanionUnmerge(t *testing.T) {
	h := newCompanionHouse(t)
	h.set(t, "TV Audio", service.MediaPatch{Source: ptr(sim.SourceRadio)})
	h.merge(t)

	own := servicetest.Must[service.Media](t)(h.svc.SetCompanion(h.ctx, string(audioID), ""))
	if own.ID != audioID || own.CompanionOf != "" {
		t.Fatalf("unmerging answered %s companion_of %q; want TV Audio on its own", own.ID, own.CompanionOf)
	}
	if ids := listedIDs(t, h); !slices.Contains(ids, audioID) || !slices.Contains(ids, tvID) {
		t.Fatalf("listed %v; want both again", ids)
	}
	tv := h.get(t, "Living Room TV")
	if len(tv.Companions) > 0 || tv.Favorites || tv.State.NowPlaying != nil || tv.State.Transport != "" {
		t.Fatalf("the TV after unmerging still shows its companion: %+v %+v", tv, tv.State)
	}
	h.set(t, "TV Audio", service.MediaPatch{Volume: ptr(15)}) // controlled on its own again
	if v := h.get(t, "TV Audio").State.Volume; v != 15 {
		t.Fatalf("TV Audio volume %d; want 15", v)
	}
	// Unmerging what is not merged changes nothing.
	servicetest.Must[service.Media](t)(h.svc.SetCompanion(h.ctx, string(audioID), ""))
}

func TestCompanionTwinsNamedAlike(t *testing.T) {
	h := newCompanionHouseNamed(t, "Living Room TV") // both views carry the set's name
	m := servicetest.Must[service.Media](t)(h.svc.SetCompanion(h.ctx, "Living Room TV", "Living Room TV"))
	if len(m.Companions) != 1 || m.Companions[0] == m.ID {
		t.Fatalf("merging twins by name answered %s with companions %v", m.ID, m.Companions)
	}
	if ids := listedIDs(t, h); slices.Contains(ids, m.Companions[0]) || !slices.Contains(ids, m.ID) {
		t.Fatalf("listed %v; want the primary %s alone", ids, m.ID)
	}
	if got := h.get(t, "Living Room TV"); got.ID != m.ID {
		t.Fatalf("the name reads %s; want the primary %s", got.ID, m.ID)
	}
	own := servicetest.Must[service.Media](t)(h.svc.SetCompanion(h.ctx, "Living Room TV", "")) // the name unmerges the companion
	if own.ID != m.Companions[0] {
		t.Fatalf("unmerging by name answered %s; want the companion %s", own.ID, m.Companions[0])
	}
	if ids := listedIDs(t, h); !slices.Contains(ids, audioID) || !slices.Contains(ids, tvID) {
		t.Fatalf("listed %v; want both again", ids)
	}
}

// TestCompanionChangesRepublishThePrimary: what a companion reports on
// its own (here: it drops off the network) changes its primary's merged
// view, and the primary's view is published with it.
func TestCompanionChangesRepublishThePrimary(t *testing.T) {
	h := newCompanionHouse(t)
	servicetest.Run(t, h.svc)
	h.set(t, "TV Audio", service.MediaPatch{Source: ptr(sim.SourceRadio)})
	if m := h.merge(t); m.State == nil || m.State.Transport != devices.TransportPlaying {
		t.Fatalf("merged before: %+v", m.State)
	}
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	h.audio.SetUnreachable(true)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case e := <-events:
			m, ok := e.Data.(service.Media)
			if e.Type == "media" && e.ID == string(tvID) && ok && m.State != nil && m.State.Transport == "" {
				return // the TV alone again: nothing plays on it
			}
		case <-deadline:
			t.Fatal("no event for the TV when its companion went offline")
		}
	}
}
