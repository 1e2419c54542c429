package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/bleproxy"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer"
)

// ESPHomeConfig configures the ESPHome nodes reached over their native
// API.
type ESPHomeConfig struct {
	Hosts hostList
	Key   string // the house's API encryption key, base64; "" for none
}

func (c *ESPHomeConfig) options() []option {
	return []option{
		{Name: "esphome-hosts", Env: "BIFROST_ESPHOME_HOSTS", Value: &c.Hosts,
			Usage: "comma-separated `addresses` of ESPHome nodes, host[:port] (port 6053)"},
		{Name: "esphome-key", Env: "BIFROST_ESPHOME_KEY", Secret: true, Value: (*stringValue)(&c.Key),
			Usage: "the nodes' API encryption `key` (base64, as in ESPHome's api: encryption: key:); nodes without encryption are reached in plaintext"},
	}
}

func (c ESPHomeConfig) validate() error {
	if c.Key == "" {
		return nil
	}
	if _, err := espwire.ParseKey(c.Key); err != nil {
		return fmt.Errorf("esphome-key: %w", err)
	}
	return nil
}

// startESPHome connects to the configured nodes, and runs the adapter
// even without any, so that nodes can be added by address (with a key of
// their own) and found by a scan.
func (m *Main) startESPHome(ctx context.Context) error {
	a, err := m.Config.ESPHome.adapter(m.registry, m.Logger)
	if err != nil {
		return err
	}
	m.esphome = a
	m.scanners = append(m.scanners, a)
	m.goRun(ctx, "esphome", a.Run)
	return nil
}

// adapter makes the ESPHome adapter of the configured nodes, for the hub
// and for `neewer scan`.
func (c ESPHomeConfig) adapter(reg *devices.Registry, log *slog.Logger) (*esphome.Adapter, error) {
	a, err := esphome.NewAdapter(esphome.AdapterConfig{Registry: reg, Hosts: c.Hosts, Key: c.Key, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("esphome: %w", err)
	}
	return a, nil
}

// lendProxies gives the Neewer adapter a radio through each ESPHome node
// that shows itself a Bluetooth proxy, as it does: those configured, and
// those added or found later. The transport shares the node's one API
// connection with the node's entities.
func (m *Main) lendProxies(ctx context.Context, ad *neewer.Adapter) {
	if m.esphome == nil {
		return
	}
	eachProxy(ctx, m.esphome, &m.background, func(tr *bleproxy.Transport) { ad.AddRadio(tr) })
}

// eachProxy calls add with a transport through each node of a that shows
// itself a Bluetooth proxy, once it does, until ctx ends; the waits run
// in wg.
func eachProxy(ctx context.Context, a *esphome.Adapter, wg *sync.WaitGroup, add func(*bleproxy.Transport)) {
	a.EachNode(func(n *esphome.Node) {
		wg.Go(func() { bleproxy.Follow(ctx, n, add) })
	})
}
