package session_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// relayedLight is a light reached through a Bluetooth proxy, as a Neewer
// light is.
type relayedLight struct{ via devices.Via }

func (l *relayedLight) Info() devices.Info {
	return devices.Info{ID: "neewer:DF:24:3A:B4:46:5D", Adapter: "neewer", Kind: devices.KindLight, Name: "Studio Key"}
}
func (l *relayedLight) Online() bool                 { return true }
func (l *relayedLight) LightCaps() devices.LightCaps { return devices.LightCaps{Dimmable: true} }
func (l *relayedLight) Via() (devices.Via, bool)     { return l.via, true }
func (l *relayedLight) LightState(context.Context) (devices.LightState, error) {
	return devices.LightState{On: true, Brightness: 50}, nil
}
func (l *relayedLight) SetLight(context.Context, devices.LightChange) (devices.LightState, error) {
	return devices.LightState{}, devices.ErrUnsupported
}

// TestDevicesSayWhichRadioReachesThem: the Devices page's list carries
// the radio a relayed light is reached through and its signal.
func TestDevicesSayWhichRadioReachesThem(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	h.Registry.Add(&relayedLight{via: devices.Via{Radio: "esphome:studio", RSSI: -58}})
	deadline := time.Now().Add(10 * time.Second)
	events, stop := h.Service.Events().Subscribe()
	defer stop()
	for {
		var list []service.DeviceView
		h.Must(t, http.StatusOK, sessiontest.Req{Method: http.MethodGet, Path: "/api/devices", Session: b}).Decode(t, &list)
		for _, d := range list {
			if d.ID == "neewer:DF:24:3A:B4:46:5D" && d.Via != nil {
				if want := (devices.Via{Radio: "esphome:studio", RSSI: -58}); *d.Via != want {
					t.Fatalf("via %+v, want %+v", *d.Via, want)
				}
				return
			}
		}
		select {
		case <-events:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("no via on the relayed light in %+v", list)
		}
	}
}
