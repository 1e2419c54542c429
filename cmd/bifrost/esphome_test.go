package main

import (
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
