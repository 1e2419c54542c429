package kiosk_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// hall is the simulated home with its kiosks, an admin (the command
// line) and a tablet's key.
type hall struct {
	svc    *service.Service
	kiosks *kiosk.Kiosks
	keys   *identity.Keys
	acc    *identity.Accounts
	clock  *clock
	admin  context.Context
	tablet context.Context // the tablet's key, as the key check leaves it
	key    identity.NewKey
}

func newHall(t *testing.T) *hall {
	t.Helper()
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	svc, db := servicetest.NewWithStore(t, reg, 0)
	h := &hall{svc: svc, clock: &clock{t: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)}, admin: service.WithPrincipal(context.Background(), service.System)}
	h.keys, h.acc = servicetest.Identity(t, svc, db)
	h.kiosks = kiosk.New(kiosk.Config{Store: db, Home: svc, Admins: h.acc, Audit: svc, Events: svc.Events(), Now: h.clock.Now})
	t.Cleanup(h.kiosks.Close)
	h.key = servicetest.Must[identity.NewKey](t)(h.keys.CreateKey(h.admin, "Hall tablet", service.ScopeControl))
	h.tablet = service.WithPrincipal(context.Background(), servicetest.Must[service.Principal](t)(h.keys.AuthenticateKey(context.Background(), h.key.Key)))
	return h
}

func ptr[T any](v T) *T { return &v }

// only returns the one kiosk listed.
func (h *hall) only(t *testing.T) kiosk.Kiosk {
	t.Helper()
	list := servicetest.Must[[]kiosk.Kiosk](t)(h.kiosks.List(h.admin))
	if len(list) != 1 {
		t.Fatalf("%d kiosks listed; want 1", len(list))
	}
	return list[0]
}

func TestKioskIsItsKey(t *testing.T) {
	h := newHall(t)
	_, _, err := h.kiosks.Listen(h.tablet)
	servicetest.WantCode(t, err, service.ENOTFOUND) // not before its first check-in, as the app expects

	o, err := h.kiosks.CheckIn(h.tablet, kiosk.Report{AppVersion: "0.3.5", ScreenOn: ptr(true), BatteryLevel: ptr(64)})
	if err != nil || o != (kiosk.Orders{MicSensitivity: "medium"}) {
		t.Fatalf("first check-in = %+v, %v", o, err)
	}
	k := h.only(t)
	if k.Name != "Hall tablet" || k.KeyID != h.key.ID || !k.Online || k.AppVersion != "0.3.5" || *k.BatteryLevel != 64 {
		t.Fatalf("kiosk = %+v", k)
	}
	h.clock.Add(kiosk.OnlineWithin)
	if h.only(t).Online {
		t.Error("a kiosk silent for 90 seconds is still online")
	}

	// People are no kiosks.
	_, err = h.kiosks.CheckIn(h.admin, kiosk.Report{})
	servicetest.WantCode(t, err, service.EFORBIDDEN)
	_, err = h.kiosks.CheckIn(context.Background(), kiosk.Report{})
	servicetest.WantCode(t, err, service.EUNAUTHORIZED)
	// A key is no admin.
	_, err = h.kiosks.List(h.tablet)
	servicetest.WantCode(t, err, service.EFORBIDDEN)
	_, err = h.kiosks.Send(h.tablet, k.ID, kiosk.Sleep)
	servicetest.WantCode(t, err, service.EFORBIDDEN)
}

func TestKioskRoomIsItsVoiceRoom(t *testing.T) {
	h := newHall(t)
	if _, err := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); err != nil {
		t.Fatal(err)
	}
	id := h.only(t).ID
	_, err := h.kiosks.SetRoom(h.admin, id, "Attic")
	servicetest.WantCode(t, err, service.ENOTFOUND)
	if !strings.Contains(err.Error(), "Office") {
		t.Errorf("an unknown room's error %q does not list the rooms", err)
	}
	k, err := h.kiosks.SetRoom(h.admin, id, "office")
	if err != nil || k.Room != "Office" || k.RoomID == "" {
		t.Fatalf("SetRoom = %+v, %v", k, err)
	}
	if got := h.kiosks.RoomOf(h.tablet); got != "Office" {
		t.Errorf("RoomOf(the tablet) = %q; want Office", got)
	}
	if got := h.kiosks.RoomOf(h.admin); got != "" {
		t.Errorf("RoomOf(a person) = %q; want none", got)
	}
	if o, _ := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); o.Room != "Office" {
		t.Errorf("check-in answers room %q; want Office", o.Room)
	}
	if k, err := h.kiosks.SetRoom(h.admin, id, ""); err != nil || k.Room != "" || h.kiosks.RoomOf(h.tablet) != "" {
		t.Fatalf("taking the kiosk out of its room: %+v, %v", k, err)
	}
}

func TestKioskCommandsReachItOnceOpen(t *testing.T) {
	h := newHall(t)
	if _, err := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); err != nil {
		t.Fatal(err)
	}
	id := h.only(t).ID
	first, stopFirst, err := h.kiosks.Listen(h.tablet)
	if err != nil {
		t.Fatal(err)
	}
	defer stopFirst()
	// A second stream of the same kiosk replaces the first, which ends.
	second, stop, err := h.kiosks.Listen(h.tablet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, open := <-first; open {
		t.Fatal("the replaced stream is still open")
	}

	_, err = h.kiosks.Send(h.admin, id, "reboot")
	servicetest.WantCode(t, err, service.EINVALID)
	if k, err := h.kiosks.Send(h.admin, id, kiosk.Sleep); err != nil || k.PendingCommand != kiosk.Sleep {
		t.Fatalf("Send = %+v, %v", k, err)
	}
	select {
	case c := <-second:
		if c != kiosk.Sleep {
			t.Fatalf("the stream got %q; want sleep", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream got no command")
	}
	// The check-in gets it too, once.
	if o, _ := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); o.Command != kiosk.Sleep {
		t.Fatalf("check-in command %q; want sleep", o.Command)
	}
	if o, _ := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); o.Command != "" {
		t.Fatalf("the command %q came twice", o.Command)
	}

	// A revoked kiosk is sent nothing.
	if _, err := h.keys.RevokeKey(h.admin, h.key.ID); err != nil {
		t.Fatal(err)
	}
	_, err = h.kiosks.Send(h.admin, id, kiosk.Wake)
	servicetest.WantCode(t, err, service.ECONFLICT)
	if h.only(t).Online {
		t.Error("a revoked kiosk is online")
	}

	h.kiosks.Close()
	if _, open := <-second; open {
		t.Fatal("the stream is open after Close")
	}
}

func TestKioskRefusesWhatNoTabletSends(t *testing.T) {
	h := newHall(t)
	for _, c := range []struct {
		r     kiosk.Report
		field string
	}{
		{kiosk.Report{BatteryLevel: ptr(101)}, "battery_level"},
		{kiosk.Report{AppVersion: strings.Repeat("1", 65)}, "app_version"},
		{kiosk.Report{PowerSource: "ac\n"}, "power_source"},
	} {
		_, err := h.kiosks.CheckIn(h.tablet, c.r)
		servicetest.WantCode(t, err, service.EINVALID)
		if f, _ := service.ErrorDetails(err)["field"].(string); f != c.field {
			t.Errorf("%+v: error %v names %q; want %q", c.r, err, f, c.field)
		}
	}
	if list, _ := h.kiosks.List(h.admin); len(list) != 0 {
		t.Fatalf("a refused check-in made a kiosk: %+v", list)
	}
	servicetest.WantCode(t, h.kiosks.ReportNoise(h.tablet, kiosk.Noise{Elevated: true}), service.ENOTFOUND)

	if _, err := h.kiosks.CheckIn(h.tablet, kiosk.Report{}); err != nil {
		t.Fatal(err)
	}
	servicetest.WantCode(t, h.kiosks.ReportNoise(h.tablet, kiosk.Noise{Level: ptr(300.0)}), service.EINVALID)
	if err := h.kiosks.ReportNoise(h.tablet, kiosk.Noise{Elevated: true, Level: ptr(-40.0)}); err != nil {
		t.Fatal(err)
	}
	if k := h.only(t); !*k.NoiseElevated || *k.MicLevel != -40 {
		t.Fatalf("noise not recorded: %+v", k)
	}
	id := h.only(t).ID
	_, err := h.kiosks.SetMic(h.admin, id, true, "loud")
	servicetest.WantCode(t, err, service.EINVALID)
	if k, err := h.kiosks.SetMic(h.admin, id, true, "high"); err != nil || !k.MicPresence || k.MicSensitivity != "high" {
		t.Fatalf("SetMic = %+v, %v", k, err)
	}
	if k, err := h.kiosks.SetMic(h.admin, id, false, ""); err != nil || k.MicPresence || k.MicSensitivity != "high" {
		t.Fatalf("SetMic off = %+v, %v", k, err)
	}
}
