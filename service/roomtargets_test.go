package service_test

import (
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// ids sorts a fan-out's applied devices.
func appliedIDs(res service.FanoutResult) []devices.ID {
	out := make([]devices.ID, 0, len(res.Applied))
	for _, o := range res.Applied {
		out = append(out, o.ID)
	}
	slices.Sort(out)
	return out
}

func sorted(ids []devices.ID) []devices.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// RoomTargets says beforehand what SetRoom changes: the lit lights for a
// dim, every light for an explicit on, lights and power devices for a bare
// on or off, and never a disabled device.
func TestRoomTargetsAreWhatSetRoomChanges(t *testing.T) {
	h := newHouse(t)
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true), Brightness: ptr(80)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Fill Light", service.LightPatch{On: ptr(false)}))
	servicetest.Must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Desk Lamp", service.LightPatch{On: ptr(true)}))
	if _, err := h.svc.UpdateDevice(h.ctx, "Desk Lamp", service.DevicePatch{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		p    service.RoomPatch
		want []devices.ID
	}{
		{"dim", service.RoomPatch{Brightness: ptr(20)}, []devices.ID{"sim:key-light"}},
		{"on and bright", service.RoomPatch{On: ptr(true), Brightness: ptr(50)}, []devices.ID{"sim:fill-light", "sim:key-light"}},
		{"bare off", service.RoomPatch{On: ptr(false)}, []devices.ID{"sim:desk-fan", "sim:fill-light", "sim:key-light"}},
	} {
		got, err := h.svc.RoomTargets(h.ctx, "Office", c.p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sorted(got), c.want) {
			t.Fatalf("%s: RoomTargets = %v, want %v", c.name, got, c.want)
		}
		res := servicetest.Must[service.FanoutResult](t)(h.svc.SetRoom(h.ctx, "Office", c.p))
		if a := appliedIDs(res); !slices.Equal(a, c.want) || len(res.Failed) != 0 {
			t.Fatalf("%s: SetRoom changed %v (failed %+v), RoomTargets said %v", c.name, a, res.Failed, c.want)
		}
	}
	if _, err := h.svc.RoomTargets(h.ctx, "Attic", service.RoomPatch{On: ptr(true)}); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("an unknown room: %v", err)
	}
}
