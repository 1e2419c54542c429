package onkyo_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// hub is the real service over SQLite with a receiver, a simulated TV and
// a simulated speaker.
type hub struct {
	svc *service.Service
	ctx context.Context
	tv  *sim.TV
}

func newHub(t *testing.T, f *fakeReceiver) *hub {
	t.Helper()
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	r.player(t, mainID)
	tv := sim.NewTV("", "Living Room TV", "Living Room", sim.Options{})
	sim.Register(r.reg, tv, sim.NewSpeaker("", "Desk Speaker", "Office", sim.Options{}))
	ctx := context.Background()
	svc := servicetest.New(t, r.reg, deviceTimeout)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &hub{svc: svc, ctx: service.WithPrincipal(ctx, p), tv: tv}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestServiceBindsTheTVToTheReceiver(t *testing.T) {
	s := defaultState()
	s["PWR"] = "00" // in standby
	f := newFakeReceiver(t, s)
	h := newHub(t, f)

	tv := must[service.Media](t)(h.svc.BindReceiver(h.ctx, "Living Room TV", "TX-NR686", "tv"))
	if tv.Receiver != mainID {
		t.Fatalf("binding %+v", tv)
	}
	// Powering the TV on wakes the receiver on the bound input.
	f.forget()
	must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true)}))
	if !f.received("PWR01") || !f.received("SLI12") {
		t.Fatalf("the receiver got %v", f.sent())
	}
	// Turning the TV's volume up turns the receiver's up.
	tv = must[service.Media](t)(h.svc.GetMedia(h.ctx, "Living Room TV"))
	if tv.State == nil || tv.State.Volume != 40 {
		t.Fatalf("the TV shows the receiver's volume: %+v", tv.State)
	}
	tvCommands := h.tv.Commands()
	tv = must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Volume: ptr(tv.State.Volume + 5)}))
	if !f.sentBytes(eiscp.NewMessage("MVL", "2D").Encode()) {
		t.Fatalf("no MVL2D frame; the receiver got %v", f.sent())
	}
	if tv.State.Volume != 45 || h.tv.Commands() != tvCommands {
		t.Fatalf("TV volume %d, TV commands %d → %d", tv.State.Volume, tvCommands, h.tv.Commands())
	}
	// Powering the TV off takes the receiver down.
	must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(false)}))
	if f.value("PWR") != "00" {
		t.Fatal("the receiver is still on")
	}
}

// A refusal reads under the name people gave the receiver, not the one it
// gives itself.
func TestServiceRefusesUnderTheGivenName(t *testing.T) {
	s := defaultState()
	s["PWR"] = "00" // in standby
	f := newFakeReceiver(t, s)
	h := newHub(t, f)
	name := "Amp"
	must[service.DeviceView](t)(h.svc.UpdateDevice(h.ctx, "TX-NR686", service.DevicePatch{Name: &name}))
	_, err := h.svc.SetMedia(h.ctx, name, service.MediaPatch{Volume: ptr(30)})
	if code := service.ErrorCode(err); code != service.EINVALID {
		t.Fatalf("error %v has code %q", err, code)
	}
	if got, want := service.ErrorMessage(err), "Amp: it is in standby: turn it on first"; got != want {
		t.Errorf("message %q; want %q", got, want)
	}
}

func TestServiceReportsASilentReceiverUnreachable(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	h := newHub(t, f)
	f.setSilent(true)
	start := time.Now()
	_, err := h.svc.SetMedia(h.ctx, "TX-NR686", service.MediaPatch{Volume: ptr(30)})
	if code := service.ErrorCode(err); code != service.EUNREACHABLE {
		t.Fatalf("error %v has code %q", err, code)
	}
	if d := time.Since(start); d > reportedWithin {
		t.Fatalf("reported after %v; the device timeout is %v", d, deviceTimeout)
	}
	m := must[service.Media](t)(h.svc.SetMedia(h.ctx, "Desk Speaker", service.MediaPatch{Volume: ptr(30)}))
	if m.State == nil || m.State.Volume != 30 {
		t.Fatalf("the other device: %+v", m)
	}
	eventually(t, 10*time.Second, "the receiver listed offline", func() bool {
		r, err := h.svc.GetMedia(h.ctx, "TX-NR686")
		return err == nil && !r.Online
	})
}

// TestAddedReceiverComesBackAfterARestart adds a receiver by address
// through the service, then starts a new hub on the same database with no
// receiver configured: the receiver is added again and answers.
func TestAddedReceiverComesBackAfterARestart(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	user := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})

	first := startRig(t, onkyo.Config{})
	svc := service.New(service.Config{Store: db, Registry: first.reg, Scanners: []devices.Scanner{first.adapter}})
	added := must[[]service.DeviceView](t)(svc.AddDevice(user, "onkyo", f.addr()))
	if len(added) == 0 || added[0].ID != mainID {
		t.Fatalf("added %+v", added)
	}

	again := startRig(t, onkyo.Config{})
	svc = service.New(service.Config{Store: db, Registry: again.reg, Scanners: []devices.Scanner{again.adapter}})
	if err := svc.RestoreAdded(ctx); err != nil {
		t.Fatal(err)
	}
	again.player(t, mainID)
	m := must[service.Media](t)(svc.SetMedia(user, "TX-NR686", service.MediaPatch{Volume: ptr(30)}))
	if m.State.Volume != 30 {
		t.Fatalf("after the restart the receiver answers %+v", m.State)
	}
}
