package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// NeewerConfig configures Neewer lights over Bluetooth LE.
type NeewerConfig struct {
	BLE        string // auto, bluez, hci or off
	BLEAdapter string // the controller, hci0 by default
	Lights     string // lights by address, with settings (neewer.ParseLights)
}

func (c *NeewerConfig) options() []option {
	return []option{
		{Name: "ble", Env: "BIFROST_BLE", Value: (*stringValue)(&c.BLE),
			Usage: "Bluetooth `backend` for Neewer lights: auto (BlueZ if the system bus answers, else HCI, else off), bluez, hci or off"},
		{Name: "ble-adapter", Env: "BIFROST_BLE_ADAPTER", Value: (*stringValue)(&c.BLEAdapter),
			Usage: "Bluetooth `controller` (default hci0)"},
		{Name: "neewer-lights", Env: "BIFROST_NEEWER_LIGHTS", Value: (*stringValue)(&c.Lights),
			Usage: "Neewer `lights` by address, ';'-separated: ADDR[,name=…,room=…,model=…,cct=…,hsi=…,kelvin=MIN-MAX,…]"},
	}
}

// validate reports a setting that would stop the adapter.
func (c NeewerConfig) validate() error {
	if _, err := ble.ParseMode(c.BLE); err != nil {
		return fmt.Errorf("ble: %w", err)
	}
	if _, err := neewer.ParseLights(c.Lights); err != nil {
		return fmt.Errorf("neewer-lights: %w", err)
	}
	return nil
}

// startNeewer opens Bluetooth as configured and runs the Neewer adapter,
// with a radio through every ESPHome node that is a Bluetooth proxy.
// Without a radio the adapter logs why and the hub runs on.
func (m *Main) startNeewer(ctx context.Context) error {
	c := m.Config.Neewer
	ad, err := neewer.Open(ctx, neewer.Options{BLE: c.BLE, BLEAdapter: c.BLEAdapter, Lights: c.Lights,
		Registry: m.registry, Logger: m.Logger})
	if err != nil {
		return fmt.Errorf("neewer: %w", err)
	}
	m.neewer = ad
	m.scanners = append(m.scanners, ad)
	m.lendProxies(ctx, ad)
	m.goRun(ctx, "neewer", ad.Run)
	return nil
}

func runNeewer(ctx context.Context, cli CLI, args []string) error {
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: bifrost neewer scan [options]\n\n"+neewerScanAbout)
	}
	if len(args) == 0 || args[0] != "scan" {
		if len(args) > 0 && isHelpFlag(args[0]) {
			return &helpRequest{print: help}
		}
		return &usageError{err: fmt.Errorf("neewer: the only command is scan"), print: help}
	}
	cfg := DefaultConfig()
	cl := newCmdline("neewer scan", "neewer scan [options]", neewerScanAbout, pick(cfg.options(), "ble", "ble-adapter"))
	d := cl.fs.Duration("duration", 10*time.Second, "how long to listen")
	all := cl.fs.Bool("all", false, "list every advertising device, not only Neewer lights")
	probe := cl.fs.Bool("probe", false, "connect to each light found and ask whether it is on")
	if _, err := cl.parse(args[1:], cli.Getenv); err != nil {
		return err
	}
	return neewer.ScanCommand(ctx, cli.Stdout, neewer.ScanOptions{BLE: cfg.Neewer.BLE, BLEAdapter: cfg.Neewer.BLEAdapter,
		Duration: *d, All: *all, Probe: *probe})
}

const neewerScanAbout = "List nearby Neewer lights with the model and frame layout the hub would use;\n" +
	"-probe connects to each and asks whether it is on. Paste the output into bug reports."
