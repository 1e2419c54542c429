package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/service"
)

// benchKey mints a control key for h, as `bifrost keys create` does beside
// a running hub.
func benchKey(b *testing.B, h *inProcessHub) string {
	b.Helper()
	var out strings.Builder
	code := Run(context.Background(), []string{"keys", "create", "--name", "bench", "--data", h.Config.DataDir},
		CLI{Stdout: &out, Stderr: io.Discard, Getenv: env{}.lookup})
	if code != 0 {
		b.Fatalf("keys create: exit %d", code)
	}
	return strings.TrimSpace(out.String())
}

// waitLightOnline waits until the hub has the light online.
func waitLightOnline(b *testing.B, h *inProcessHub, id string) {
	b.Helper()
	sys := service.WithPrincipal(context.Background(), service.System)
	events, stop := h.service.Events().Subscribe()
	defer stop()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		if l, err := h.service.GetLight(sys, id); err == nil && l.Online && l.State != nil {
			return
		}
		select {
		case <-events:
		case <-deadline.C:
			b.Fatalf("the light %s did not come online", id)
		}
	}
}

// putLights sends b.N keyed light writes to the hub over loopback HTTP,
// switching the light on and off, each answered once the device confirms.
func putLights(b *testing.B, h *inProcessHub, key, id string) {
	b.Helper()
	client := &http.Client{}
	url := h.URL("/api/v1/lights/" + neturl.PathEscape(id) + "/state") // an ESPHome id holds a slash
	b.ResetTimer()
	for i := range b.N {
		body := fmt.Sprintf(`{"on": %v}`, i%2 == 0)
		req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
			b.Fatalf("PUT %s: %d", url, resp.StatusCode)
		}
	}
}

// BenchmarkESPHomeLightWrite is one keyed PUT /api/v1/lights/{id}/state
// to an ESPHome light on a node on loopback, answered when the node's
// state confirms it: in plaintext and over Noise.
func BenchmarkESPHomeLightWrite(b *testing.B) {
	for _, c := range []struct{ name, key string }{
		{"plaintext", ""},
		{"noise", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="},
	} {
		b.Run(c.name, func(b *testing.B) {
			fake := esphometest.Start(b, esphometest.Config{Key: c.key})
			h := runHub(b, b.TempDir(), func(cfg *Config) {
				cfg.Demo = false
				cfg.ESPHome.Hosts, cfg.ESPHome.Key = hostList{fake.Addr()}, c.key
			})
			id := "esphome:AC:BC:32:89:0E:A9/ceiling"
			waitLightOnline(b, h, id)
			putLights(b, h, benchKey(b, h), id)
		})
	}
}

// BenchmarkNeewerWriteThroughProxy is one keyed PUT to a Neewer light the
// hub reaches through an ESPHome Bluetooth proxy on loopback (the proxy's
// GATT write answered by the fake at once).
func BenchmarkNeewerWriteThroughProxy(b *testing.B) {
	fake := esphometest.Start(b, esphometest.Config{Name: "studio", BluetoothProxy: true})
	h := runHub(b, b.TempDir(), func(c *Config) {
		c.Demo = false
		c.Neewer.BLE = "off"
		c.ESPHome.Hosts = hostList{fake.Addr()}
	})
	id := "neewer:" + esphometest.LightMAC
	waitLightOnline(b, h, id)
	putLights(b, h, benchKey(b, h), id)
}
