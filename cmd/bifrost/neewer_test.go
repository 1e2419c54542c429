package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
)

// `bifrost neewer scan` without Bluetooth of its own (BIFROST_BLE=off)
// listens through the ESPHome proxies of BIFROST_ESPHOME_HOSTS, as the
// hub does, and says per light which radios heard it and how loud,
// loudest first.
func TestNeewerScanThroughProxies(t *testing.T) {
	studio := esphometest.Start(t, esphometest.Config{Name: "studio", BluetoothProxy: true, LightRSSI: -50})
	hall := esphometest.Start(t, esphometest.Config{Name: "hall", MAC: "AC:BC:32:89:0E:B0", BluetoothProxy: true, LightRSSI: -72})
	var out bytes.Buffer
	// The scan listens until both proxies have come up and heard the
	// light, however long that takes, within a generous limit.
	err := runNeewer(context.Background(), CLI{Stdout: &out, Stderr: io.Discard, Getenv: env{
		"BIFROST_BLE":           "off",
		"BIFROST_ESPHOME_HOSTS": studio.Addr() + "," + hall.Addr(),
	}.lookup, scanEnough: func(mac string, radios int) bool {
		return mac == esphometest.LightMAC && radios == 2
	}}, []string{"scan", "-duration", "30s"})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"ESPHome proxies", esphometest.LightMAC, esphometest.LightName,
		"esphome:studio -50, esphome:hall -72", "RGB660"} {
		if !strings.Contains(text, want) {
			t.Errorf("the scan lacks %q:\n%s", want, text)
		}
	}

	// With neither a radio nor a proxy there is nothing to scan with.
	err = runNeewer(context.Background(), CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{"BIFROST_BLE": "off"}.lookup},
		[]string{"scan", "-duration", "10ms"})
	if err == nil || !strings.Contains(err.Error(), "nothing to scan with") {
		t.Fatalf("a scan with Bluetooth off and no proxy: %v", err)
	}
}
