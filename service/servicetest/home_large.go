package servicetest

import (
	"fmt"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// LargeRooms are the rooms of LargeHouse.
var LargeRooms = []string{"Ground Floor", "First Floor", "Attic", "Garden"}

// Large is a house past the summary threshold: simulated dimmable lights
// and plugs spread evenly over LargeRooms.
type Large struct {
	Service  *service.Service
	Keys     *identity.Keys
	Accounts *identity.Accounts
	Lights   []*sim.Light
	Plugs    []*sim.Switch
}

// LargeHouse is a running service over a Large house of lights lights and
// plugs plugs. Devices are numbered per room ("Attic Light 7"); every
// other light is on, at brightness 20, 40, 60, 80 or 100 in turn, and
// every third plug is on; the last light and the last plug of each room
// do not answer.
func LargeHouse(tb testing.TB, lights, plugs int) *Large {
	tb.Helper()
	reg := devices.NewRegistry(0)
	tb.Cleanup(reg.Close)
	h := &Large{}
	perRoom := func(n int) int { return (n + len(LargeRooms) - 1) / len(LargeRooms) }
	for i := range lights {
		room, n := LargeRooms[i/perRoom(lights)], i%perRoom(lights)+1
		l := sim.NewLight("", fmt.Sprintf("%s Light %d", room, n), room, devices.LightCaps{Dimmable: true}, sim.Options{})
		l.SetState(devices.LightState{On: n%2 == 1, Brightness: 20 * (n%5 + 1)})
		l.SetUnreachable(n == perRoom(lights))
		h.Lights = append(h.Lights, l)
		sim.Register(reg, l)
	}
	for i := range plugs {
		room, n := LargeRooms[i/perRoom(plugs)], i%perRoom(plugs)+1
		p := sim.NewSwitch("", fmt.Sprintf("%s Plug %d", room, n), room, devices.PowerOutlet, sim.Options{})
		if n%3 == 0 {
			p.Toggle()
		}
		p.SetUnreachable(n == perRoom(plugs))
		h.Plugs = append(h.Plugs, p)
		sim.Register(reg, p)
	}
	svc, db := NewWithStore(tb, reg, 0)
	h.Service = svc
	h.Keys, h.Accounts = Identity(tb, svc, db)
	return h
}
