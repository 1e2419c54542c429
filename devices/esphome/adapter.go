package esphome

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// AdapterName is the adapter name of every ESPHome device.
const AdapterName = "esphome"

// AdapterConfig configures the adapter. Registry is required.
type AdapterConfig struct {
	Registry *devices.Registry
	// Hosts are the nodes, "host" or "host:port".
	Hosts []string
	// Key is the API encryption key of the house's nodes (base64), tried
	// on every node; "" reaches only nodes without encryption.
	Key    string
	Logger *slog.Logger
	// Backoff and KeepAlive tune each node's connection (Config).
	Backoff   devices.Backoff
	KeepAlive time.Duration
}

// Adapter keeps the configured nodes connected and their entities in the
// registry as devices "esphome:<MAC>/<object_id>": lights, switches and
// fans (power devices), sensors and binary sensors of the kinds the hub
// reads. Their availability follows the node's connection.
type Adapter struct {
	cfg   AdapterConfig
	log   *slog.Logger
	nodes []*Node
	life  devices.Lifetime
}

// NewAdapter checks the configuration (a key must be 32 bytes of base64)
// and makes the adapter; Run connects.
func NewAdapter(cfg AdapterConfig) (*Adapter, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Adapter{cfg: cfg, log: log.With("adapter", AdapterName), life: devices.Lifetime{Name: AdapterName}}
	for _, h := range cfg.Hosts {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		n, err := New(Config{Addr: h, Key: cfg.Key, Backoff: cfg.Backoff, KeepAlive: cfg.KeepAlive,
			Logf: func(format string, args ...any) { a.log.Debug("connection", "detail", fmt.Sprintf(format, args...)) }})
		if err != nil {
			return nil, err
		}
		a.nodes = append(a.nodes, n)
	}
	return a, nil
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Nodes are the configured nodes.
func (a *Adapter) Nodes() []*Node { return a.nodes }

// Run keeps every node connected and its devices current until ctx ends.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	for _, n := range a.nodes {
		a.life.Go(func() { n.Run(ctx) })
		a.life.Go(func() { newMirror(a, n).follow(ctx) })
	}
	<-ctx.Done()
	a.life.End()
	return nil
}

// mirror keeps one node's entities in the registry.
type mirror struct {
	a       *Adapter
	node    *Node
	listed  []espwire.Entity // the list the devices were made from
	devs    map[devices.ID]*entity
	states  map[uint32]espwire.State
	up      bool
	lastErr error
}

func newMirror(a *Adapter, n *Node) *mirror {
	return &mirror{a: a, node: n, devs: map[devices.ID]*entity{}, states: map[uint32]espwire.State{}}
}

// follow mirrors the node at each of its changes until ctx ends.
func (m *mirror) follow(ctx context.Context) {
	for {
		ch := m.node.Changed()
		m.sync()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

func (m *mirror) sync() {
	up, err := m.node.Status()
	m.report(up, err)
	if es := m.node.Entities(); !sameList(es, m.listed) && m.node.Info().MACAddress != "" {
		m.rebuild(es)
	}
	for id, d := range m.devs {
		if up != m.up {
			m.a.cfg.Registry.Changed(id)
			continue
		}
		if st := m.node.State(d.key); st != m.states[d.key] {
			m.states[d.key] = st
			m.a.cfg.Registry.Changed(id)
		}
	}
	m.up = up
}

// report logs a connection that came up or ended, once each.
func (m *mirror) report(up bool, err error) {
	switch {
	case up && !m.up:
		info := m.node.Info()
		m.a.log.Info("node connected", "node", info.Name, "addr", m.node.Addr(), "encrypted", m.node.Encrypted())
	case err != nil && err != m.lastErr:
		m.a.log.Warn("node unreachable", "addr", m.node.Addr(), "err", err)
	}
	m.lastErr = err
}

func sameList(a, b []espwire.Entity) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// rebuild adds the devices of a new entity list, keeps those that did not
// change, and removes those no longer listed.
func (m *mirror) rebuild(es []espwire.Entity) {
	m.listed = es
	info := m.node.Info()
	seen := map[devices.ID]bool{}
	for _, e := range es {
		d := newEntity(m.node, info, e)
		if d == nil {
			continue
		}
		seen[d.id] = true
		if old := m.devs[d.id]; old != nil && old.same(d) {
			continue
		}
		m.devs[d.id] = d
		m.a.cfg.Registry.Add(d.device())
	}
	for id := range m.devs {
		if !seen[id] {
			delete(m.devs, id)
			m.a.cfg.Registry.Remove(id)
		}
	}
}
