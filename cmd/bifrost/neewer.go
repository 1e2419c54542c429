package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/bleproxy"
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
	cl := newCmdline("neewer scan", "neewer scan [options]", neewerScanAbout,
		pick(cfg.options(), "ble", "ble-adapter", "esphome-hosts", "esphome-key"))
	d := cl.fs.Duration("duration", 10*time.Second, "how long to listen")
	all := cl.fs.Bool("all", false, "list every advertising device, not only Neewer lights")
	probe := cl.fs.Bool("probe", false, "connect to each light found and ask whether it is on")
	if _, err := cl.parse(args[1:], cli.Getenv); err != nil {
		return err
	}
	if err := cfg.ESPHome.validate(); err != nil {
		return &usageError{err: err, print: cl.printUsage}
	}
	opts := neewer.ScanOptions{BLE: cfg.Neewer.BLE, BLEAdapter: cfg.Neewer.BLEAdapter, Duration: *d, All: *all, Probe: *probe,
		Enough: cli.scanEnough}
	if len(cfg.ESPHome.Hosts) > 0 {
		opts.Proxies = func(ctx context.Context, add func(ble.Transport)) {
			lendScanProxies(ctx, cfg.ESPHome, add)
		}
	}
	return neewer.ScanCommand(ctx, cli.Stdout, opts)
}

// lendScanProxies connects to the configured ESPHome nodes, as the hub
// does, and lends add a radio through each that is a Bluetooth proxy,
// until ctx ends.
func lendScanProxies(ctx context.Context, c ESPHomeConfig, add func(ble.Transport)) {
	reg := devices.NewRegistry(devices.DefaultTimeout) // the nodes' entities, unused here
	defer reg.Close()
	a, err := c.adapter(reg, nil)
	if err != nil {
		return // validated before
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	eachProxy(ctx, a, &wg, func(tr *bleproxy.Transport) { add(tr) })
	wg.Wait()
}

const neewerScanAbout = "List nearby Neewer lights with the radios that hear them (the local one and the\n" +
	"ESPHome Bluetooth proxies of -esphome-hosts), how loud, and the model and frame layout\n" +
	"the hub would use; -probe connects to each and asks whether it is on.\n" +
	"Paste the output into bug reports."
