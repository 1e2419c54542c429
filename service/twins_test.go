package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// bridgedSpeaker and bridgedSwitch are simulated devices seen as through
// Home Assistant: another id, the bridge's adapter, and the hardware ids
// of HA's device registry.
type bridgedSpeaker struct {
	*sim.Speaker
	bridge
}

func (b bridgedSpeaker) Info() devices.Info { return b.bridge.info(b.Speaker.Info()) }

type bridgedSwitch struct {
	*sim.Switch
	bridge
}

func (b bridgedSwitch) Info() devices.Info { return b.bridge.info(b.Switch.Info()) }

// bridge is what the bridge gives a device: its id, its area and HA's
// hardware ids.
type bridge struct {
	id, room string
	hw       []string
}

func (b bridge) info(inf devices.Info) devices.Info {
	inf.ID, inf.Adapter, inf.Room = devices.ID(b.id), "hass", b.room
	return inf
}
func (b bridge) HardwareIDs() []string { return b.hw }
func (b bridge) Bridged()              {}

// until polls cond until it holds, failing at the deadline.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func deviceView(t *testing.T, svc *service.Service, ctx context.Context, id devices.ID) (service.DeviceView, bool) {
	t.Helper()
	ds, err := svc.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.ID == id {
			return d, true
		}
	}
	return service.DeviceView{}, false
}

func TestADeviceSeenThroughHomeAssistantMergesIntoTheNativeOne(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	native := sim.NewSpeaker("kitchen-speaker", "Kitchen Speaker", "Kitchen", sim.Options{})
	plug := sim.NewSwitch("tasmota-plug", "Desk Plug", "", devices.PowerOutlet, sim.Options{})
	sim.Register(reg, native, plug)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})

	// HA connects once the native devices are known: its views of them
	// come in as companions, in no room of their own.
	viaHA := bridgedSpeaker{Speaker: sim.NewSpeaker("ha-kitchen", "Kitchen Speaker", "", sim.Options{}),
		bridge: bridge{id: "hass:media_player.kitchen", room: "Kitchen (HA)", hw: []string{"sim:kitchen-speaker", "mac:001122334455"}}}
	plugViaHA := bridgedSwitch{Switch: sim.NewSwitch("ha-plug", "Desk Plug", "", devices.PowerOutlet, sim.Options{}),
		bridge: bridge{id: "hass:switch.desk_plug", room: "Office", hw: []string{"sim:tasmota-plug"}}}
	other := bridgedSwitch{Switch: sim.NewSwitch("ha-lamp", "Floor Lamp", "", devices.PowerOutlet, sim.Options{}),
		bridge: bridge{id: "hass:switch.floor_lamp", room: "Office", hw: []string{"zigbee:0x00158d0001"}}}
	sim.Register(reg, viaHA, plugViaHA, other)
	until(t, "the HA devices to be recorded", func() bool {
		_, a := deviceView(t, svc, ctx, "hass:media_player.kitchen")
		_, b := deviceView(t, svc, ctx, "hass:switch.floor_lamp")
		return a && b
	})

	d, _ := deviceView(t, svc, ctx, "hass:media_player.kitchen")
	if d.CompanionOf != "sim:kitchen-speaker" || d.RoomID != "" {
		t.Errorf("the HA speaker = %+v, want a companion of the native one in no room", d)
	}
	media, err := svc.ListMedia(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range media {
		if m.ID == "hass:media_player.kitchen" {
			t.Error("the companion is listed among the media devices")
		}
	}

	// A power device's twin is out of sight; its room, when the native
	// has none, goes to the native.
	p, _ := deviceView(t, svc, ctx, "hass:switch.desk_plug")
	if p.CompanionOf != "sim:tasmota-plug" || p.RoomID != "" {
		t.Errorf("the HA plug = %+v", p)
	}
	if n, _ := deviceView(t, svc, ctx, "sim:tasmota-plug"); n.Room != "Office" {
		t.Errorf("the native plug is in %q, want the HA area's room", n.Room)
	}
	power, err := svc.ListPower(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []devices.ID
	for _, pv := range power {
		names = append(names, pv.ID)
	}
	want := map[devices.ID]bool{"sim:tasmota-plug": true, "hass:switch.floor_lamp": true}
	if len(names) != 2 || !want[names[0]] || !want[names[1]] {
		t.Errorf("power devices = %v, want the native plug and the HA-only lamp", names)
	}
	if f, _ := deviceView(t, svc, ctx, "hass:switch.floor_lamp"); f.CompanionOf != "" || f.Room != "Office" {
		t.Errorf("a device only HA reaches = %+v", f)
	}

	// Unmerged by a person, the twin stays on its own.
	if _, err := svc.SetCompanion(ctx, "hass:media_player.kitchen", ""); err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(ctx); err != nil { // every device recorded again, as at a restart
		t.Fatal(err)
	}
	if d, _ := deviceView(t, svc, ctx, "hass:media_player.kitchen"); d.CompanionOf != "" {
		t.Errorf("merged again after a person unmerged it: %+v", d)
	}
}

func TestANativeDeviceFoundAfterItsHomeAssistantTwin(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	viaHA := bridgedSpeaker{Speaker: sim.NewSpeaker("ha-living", "Living Room", "", sim.Options{}),
		bridge: bridge{id: "hass:media_player.living_room", room: "Living Room", hw: []string{"sonos:rincon_48a6b8e0a1b201400"}}}
	sim.Register(reg, viaHA)
	svc := servicetest.New(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})
	if d, _ := deviceView(t, svc, ctx, "hass:media_player.living_room"); d.Room != "Living Room" || d.CompanionOf != "" {
		t.Fatalf("before the native one: %+v", d)
	}

	// Sonos discovery finds the speaker itself a little later.
	native := bridgedSpeaker{Speaker: sim.NewSpeaker("x", "Living Room Sonos", "", sim.Options{}), bridge: bridge{id: "sonos:RINCON_48A6B8E0A1B201400"}}
	native.hw = nil
	reg.Add(nativeSpeaker{native})
	until(t, "the merge", func() bool {
		d, _ := deviceView(t, svc, ctx, "hass:media_player.living_room")
		return d.CompanionOf == "sonos:RINCON_48A6B8E0A1B201400"
	})
	if n, _ := deviceView(t, svc, ctx, "sonos:RINCON_48A6B8E0A1B201400"); n.Room != "Living Room" {
		t.Errorf("the native speaker is in %q, want the HA twin's room", n.Room)
	}
	if d, _ := deviceView(t, svc, ctx, "hass:media_player.living_room"); d.RoomID != "" {
		t.Errorf("the companion kept its room: %+v", d)
	}
}

// nativeSpeaker is a speaker as the hub's own adapter reaches it: not
// bridged, known by its id alone.
type nativeSpeaker struct{ b bridgedSpeaker }

func (n nativeSpeaker) Info() devices.Info {
	inf := n.b.Info()
	inf.Adapter = "sonos"
	return inf
}
func (n nativeSpeaker) Online() bool { return n.b.Online() }
func (n nativeSpeaker) MediaState(ctx context.Context) (devices.MediaState, error) {
	return n.b.MediaState(ctx)
}
func (n nativeSpeaker) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	return n.b.SetMedia(ctx, c)
}
