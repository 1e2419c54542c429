package sonos_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// hub is the real service over SQLite, with the adapter's players.
type hub struct {
	svc *service.Service
	ctx context.Context
}

func newHub(t *testing.T, r *rig, ids ...devices.ID) *hub {
	t.Helper()
	for _, id := range ids {
		r.speaker(t, id)
	}
	ctx := context.Background()
	svc := servicetest.New(t, r.reg, deviceTimeout)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &hub{svc: svc, ctx: service.WithPrincipal(ctx, p)}
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

func TestServicePlaysAFavouriteByNameAndGroups(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	h := newHub(t, r, livingID, kitchenID)

	m := must[service.Media](t)(h.svc.PlayFavorite(h.ctx, "Living Room", "example radio"))
	if m.State == nil || m.State.Transport != devices.TransportPlaying || m.State.NowPlaying == nil || m.State.NowPlaying.Title != "Example Radio" {
		t.Fatalf("after playing the favourite: %+v", m.State)
	}
	if !living.called("AVTransport", "Play", "<InstanceID>0</InstanceID><Speed>1</Speed>") {
		t.Fatal("the station was not played")
	}
	if !m.Favorites || !m.Group || !m.Cast {
		t.Errorf("capabilities %+v", m)
	}

	res := must[service.FanoutResult](t)(h.svc.Group(h.ctx, "Living Room", []string{"Kitchen"}))
	if len(res.Applied) != 1 || len(res.Failed) != 0 {
		t.Fatalf("group %+v", res)
	}
	if !kitchen.called("AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>x-rincon:"+livingUUID+"</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>") {
		t.Fatal("the kitchen was not sent to the living room's group")
	}
	k := must[service.Media](t)(h.svc.GetMedia(h.ctx, "Kitchen"))
	if k.State == nil || k.State.GroupCoordinator != livingID || k.State.NowPlaying == nil || k.State.NowPlaying.Title != "Example Radio" {
		t.Fatalf("kitchen %+v", k.State)
	}
	k = must[service.Media](t)(h.svc.Ungroup(h.ctx, "Kitchen"))
	if k.State.GroupCoordinator != "" {
		t.Fatal("still grouped")
	}
}

// A player's refusal reads as the player's words under the name people
// gave it, not the name the household gives it.
func TestServiceReportsARefusalUnderTheGivenName(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	h := newHub(t, r, livingID, kitchenID)
	name := "Breakfast Bar"
	must[service.DeviceView](t)(h.svc.UpdateDevice(h.ctx, "Kitchen", service.DevicePatch{Name: &name}))
	kitchen.set(func(p *player) { p.refuse = map[string]int{"SetVolume": 402} })
	_, err := h.svc.SetMedia(h.ctx, name, service.MediaPatch{Volume: ptr(10)})
	if code := service.ErrorCode(err); code != service.EINVALID {
		t.Fatalf("error %v has code %q", err, code)
	}
	if got, want := service.ErrorMessage(err), "Breakfast Bar: refused SetVolume: UPnP error 402"; got != want {
		t.Errorf("message %q; want %q", got, want)
	}
}

func TestServiceReportsAStalledPlayerUnreachable(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	h := newHub(t, r, livingID, kitchenID)
	kitchen.stall()
	start := time.Now()
	_, err := h.svc.SetMedia(h.ctx, "Kitchen", service.MediaPatch{Volume: ptr(10)})
	if code := service.ErrorCode(err); code != service.EUNREACHABLE {
		t.Fatalf("error %v has code %q", err, code)
	}
	if d := time.Since(start); d > reportedWithin {
		t.Fatalf("reported after %v; the device timeout is %v", d, deviceTimeout)
	}
	m := must[service.Media](t)(h.svc.SetMedia(h.ctx, "Living Room", service.MediaPatch{Volume: ptr(12)}))
	if m.State == nil || m.State.Volume != 12 || !m.Online {
		t.Fatalf("the other player: %+v", m)
	}
	k := must[service.Media](t)(h.svc.GetMedia(h.ctx, "Kitchen"))
	if k.Online || k.State != nil {
		t.Fatalf("stalled player listed as %+v", k)
	}
}
