package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/service"
)

// TestESPHomeNode runs the hub with BIFROST_ESPHOME_HOSTS and _KEY set to
// a fake node that wants encryption: its light, switch and sensors become
// devices the service reads and drives.
func TestESPHomeNode(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	fake := esphometest.Start(t, esphometest.Config{Key: key})
	h := runHub(t, t.TempDir(), func(c *Config) {
		c.Demo = false
		c.ESPHome.Hosts, c.ESPHome.Key = hostList{fake.Addr()}, key
	})
	sys := service.WithPrincipal(context.Background(), service.System)
	events, stop := h.service.Events().Subscribe()
	defer stop()
	until := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.NewTimer(10 * time.Second)
		defer deadline.Stop()
		for !cond() {
			select {
			case <-events:
			case <-deadline.C:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}

	until("the ceiling light online", func() bool {
		l, err := h.service.GetLight(sys, "Kitchen node Ceiling")
		return err == nil && l.Online && l.State != nil
	})
	l, _ := h.service.GetLight(sys, "Kitchen node Ceiling")
	if l.ID != "esphome:AC:BC:32:89:0E:A9/ceiling" || l.Room != "Kitchen" || !l.Capabilities.Color {
		t.Fatalf("light %+v", l)
	}
	hex := "00FF00"
	if _, err := h.service.SetLight(sys, "Kitchen node Ceiling", service.LightPatch{Hex: &hex}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Light(); !got.State || got.ColorMode != espwire.ColorModeRGB || got.Green != 1 || got.Red != 0 {
		t.Fatalf("the node's light: %+v", got)
	}
	until("the temperature", func() bool {
		s, err := h.service.GetSensor(sys, "Kitchen node Temperature")
		return err == nil && len(s.Readings) == 1 && s.Readings[0].Type == devices.ReadingTemperature && s.Readings[0].Value == 21.5
	})
	fake.SetReading(19)
	until("the new temperature", func() bool {
		s, _ := h.service.GetSensor(sys, "Kitchen node Temperature")
		return len(s.Readings) == 1 && s.Readings[0].Value == 19
	})
}

// TestNeewerThroughESPHomeProxy runs the hub without Bluetooth of its
// own (BIFROST_BLE=off) and with a fake node that is a Bluetooth proxy:
// the Neewer light the proxy hears becomes a light of the hub, and a
// command reaches it through the proxy as the frame of PROTOCOLS.md
// §1.10 N1, on the one API connection the node's entities use; the
// light's view names the proxy and its signal.
func TestNeewerThroughESPHomeProxy(t *testing.T) {
	t.Run("configured", func(t *testing.T) { neewerThroughProxy(t, true) })
	t.Run("added by address", func(t *testing.T) { neewerThroughProxy(t, false) })
}

func neewerThroughProxy(t *testing.T, configured bool) {
	fake := esphometest.Start(t, esphometest.Config{Name: "studio", BluetoothProxy: true})
	h := runHub(t, t.TempDir(), func(c *Config) {
		c.Demo = false
		c.Neewer.BLE = "off"
		if configured {
			c.ESPHome.Hosts = hostList{fake.Addr()}
		}
	})
	sys := service.WithPrincipal(context.Background(), service.System)
	if !configured {
		if _, err := h.service.AddDevice(sys, "esphome", fake.Addr()); err != nil {
			t.Fatal(err)
		}
	}
	events, stop := h.service.Events().Subscribe()
	defer stop()
	id := "neewer:" + esphometest.LightMAC
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		l, err := h.service.GetLight(sys, id)
		if err == nil && l.Online && l.Via != nil {
			break
		}
		select {
		case <-events:
		case <-fake.Changed():
		case <-deadline.C:
			t.Fatalf("the light through the proxy: %+v, %v", l, err)
		}
	}
	l, _ := h.service.GetLight(sys, id)
	if want := (devices.Via{Radio: "esphome:studio", RSSI: esphometest.LightRSSI}); *l.Via != want || !fake.LightConnected() {
		t.Fatalf("the light is reached via %+v (the proxy connected: %v), want %+v", *l.Via, fake.LightConnected(), want)
	}
	on := true
	if _, err := h.service.SetLight(sys, id, service.LightPatch{On: &on}); err != nil {
		t.Fatal(err)
	}
	n1 := []byte{0x78, 0x81, 0x01, 0x01, 0xFB}
	for {
		found := false
		for _, m := range fake.Received() {
			if w, ok := m.(*espwire.BluetoothGATTWriteRequest); ok && w.Handle == esphometest.HandleWrite && bytes.Equal(w.Data, n1) {
				found = true
			}
		}
		if found {
			break
		}
		select {
		case <-fake.Changed():
		case <-deadline.C:
			t.Fatal("the power-on frame did not reach the light")
		}
	}
	if n := fake.Accepted(); n != 1 {
		t.Fatalf("the node accepted %d API connections, want one shared by entities and Bluetooth", n)
	}
}

// TestESPHomeFanAndButton runs the hub with a fake node that has a fan
// with three speeds and a button: the fan takes a speed through the
// service, and the button is a power device that a switch-on presses and
// that reads as off after.
func TestESPHomeFanAndButton(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Entities: []espwire.Entity{
		&espwire.ListEntitiesFanResponse{EntityInfo: espwire.EntityInfo{ObjectID: "fan", Key: 0x2101, Name: "Fan"},
			SupportsSpeed: true, SupportedSpeedCount: 3},
		&espwire.ListEntitiesButtonResponse{EntityInfo: espwire.EntityInfo{ObjectID: "bell", Key: 0x2201, Name: "Bell"}},
	}})
	h := runHub(t, t.TempDir(), func(c *Config) {
		c.Demo = false
		c.ESPHome.Hosts = hostList{fake.Addr()}
	})
	sys := service.WithPrincipal(context.Background(), service.System)
	events, stop := h.service.Events().Subscribe()
	defer stop()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for _, name := range []string{"Kitchen node Fan", "Kitchen node Bell"} {
		for p, err := h.service.GetPower(sys, name); err != nil || !p.Online || p.On == nil; p, err = h.service.GetPower(sys, name) {
			select {
			case <-events:
			case <-deadline.C:
				t.Fatalf("timed out waiting for %s online", name)
			}
		}
	}

	fan, err := h.service.SetFanSpeed(sys, "Kitchen node Fan", 50)
	if err != nil || !fan.SpeedControl || fan.Speed == nil || *fan.Speed != 66 || fan.On == nil || !*fan.On {
		t.Fatalf("fan at 50 %%: %+v, %v", fan, err)
	}
	if got := fake.Fan(0x2101); !got.State || got.SpeedLevel != 2 {
		t.Fatalf("the node's fan: %+v", got)
	}

	bell, err := h.service.SetPower(sys, "Kitchen node Bell", true)
	if err != nil || bell.PowerKind != devices.PowerButton || bell.On == nil || *bell.On {
		t.Fatalf("the bell after a press: %+v, %v", bell, err)
	}
	esphometest.WaitFor(t, "the press at the node", fake.Changed, func() bool {
		for _, m := range fake.Received() {
			if b, ok := m.(*espwire.ButtonCommandRequest); ok && b.Key == 0x2201 {
				return true
			}
		}
		return false
	})
}
