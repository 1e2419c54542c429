package esphome

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
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
	// on every node but those added with a key of their own; "" reaches
	// only nodes without encryption.
	Key    string
	Logger *slog.Logger
	// Backoff and KeepAlive tune each node's connection (Config).
	Backoff   devices.Backoff
	KeepAlive time.Duration
	// ScanTime is how long a scan listens for nodes announcing
	// themselves by mDNS (3 s).
	ScanTime time.Duration
}

// Adapter keeps the nodes connected (those configured, those added by
// address, those a scan found) and their entities in the registry as
// devices "esphome:<MAC>/<object_id>": lights, switches and fans (power
// devices), sensors and binary sensors of the kinds the hub reads. Their
// availability follows the node's connection.
type Adapter struct {
	cfg        AdapterConfig
	log        *slog.Logger
	configured []*Node
	life       devices.Lifetime

	mu    sync.Mutex
	nodes map[string]*running // by host:port
	// trying are the nodes a scan found and tries, until they connect
	// (kept) or refuse the house's key (wanted): their MAC by host:port.
	trying map[string]string
	// wanted are the nodes a scan found that need a key of their own,
	// by host:port, until they are added with it.
	wanted map[string]devices.KeyWanted
	// wantedCh is closed at each change of wanted.
	wantedCh chan struct{}
	// watchers are told of every node kept, now and later (EachNode).
	watchers []func(*Node)
}

// running is a node the adapter keeps connected, and how to stop it.
type running struct {
	node *Node
	stop context.CancelFunc
}

var _ devices.KeyWanter = (*Adapter)(nil)

// NewAdapter checks the configuration (a key must be 32 bytes of base64)
// and makes the adapter; Run connects.
func NewAdapter(cfg AdapterConfig) (*Adapter, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.ScanTime <= 0 {
		cfg.ScanTime = 3 * time.Second
	}
	if cfg.Key != "" {
		if _, err := espwire.ParseKey(cfg.Key); err != nil {
			return nil, err
		}
	}
	a := &Adapter{cfg: cfg, log: log.With("adapter", AdapterName), life: devices.Lifetime{Name: AdapterName},
		nodes: map[string]*running{}, trying: map[string]string{}, wanted: map[string]devices.KeyWanted{}, wantedCh: make(chan struct{})}
	for _, h := range cfg.Hosts {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		n, err := a.newNode(h, cfg.Key)
		if err != nil {
			return nil, err
		}
		a.configured = append(a.configured, n)
	}
	return a, nil
}

// newNode makes the node at addr, reached with key.
func (a *Adapter) newNode(addr, key string) (*Node, error) {
	return New(Config{Addr: addr, Key: key, Backoff: a.cfg.Backoff, KeepAlive: a.cfg.KeepAlive,
		Logf: func(format string, args ...any) { a.log.Debug("connection", "detail", fmt.Sprintf(format, args...)) }})
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Nodes are the nodes the adapter keeps connected once Run has begun
// (those configured, added and found), by address.
func (a *Adapter) Nodes() []*Node {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*Node, 0, len(a.nodes))
	for _, r := range a.nodes {
		out = append(out, r.node)
	}
	slices.SortFunc(out, func(x, y *Node) int { return strings.Compare(x.Addr(), y.Addr()) })
	return out
}

// EachNode calls fn for every node the adapter keeps connected, now and
// from now on: configured, added by address or found by a scan. fn must
// not block.
func (a *Adapter) EachNode(fn func(*Node)) {
	a.mu.Lock()
	a.watchers = append(a.watchers, fn)
	kept := make([]*Node, 0, len(a.nodes))
	for _, r := range a.nodes {
		kept = append(kept, r.node)
	}
	a.mu.Unlock()
	for _, n := range kept {
		fn(n)
	}
}

// Run keeps every node connected and its devices current until ctx ends.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	for _, n := range a.configured {
		if nctx, stop, ok := a.start(ctx, n); ok {
			a.keep(nctx, stop, n, newMirror(a, n))
		}
	}
	<-ctx.Done()
	a.life.End()
	return nil
}

// start keeps n connected until ctx ends or stop is called; false when
// the adapter is stopping.
func (a *Adapter) start(ctx context.Context, n *Node) (context.Context, context.CancelFunc, bool) {
	nctx, stop := context.WithCancel(ctx)
	if !a.life.Go(func() { n.Run(nctx) }) {
		stop()
		return nil, nil, false
	}
	return nctx, stop, true
}

// keep has m follow n, which start started, until nctx ends, in place of
// any node at the same address.
func (a *Adapter) keep(nctx context.Context, stop context.CancelFunc, n *Node, m *mirror) {
	a.mu.Lock()
	old := a.nodes[n.Addr()]
	a.nodes[n.Addr()] = &running{node: n, stop: stop}
	a.unwant(n)
	watchers := slices.Clone(a.watchers)
	a.mu.Unlock()
	if old != nil {
		old.stop()
	}
	for _, fn := range watchers {
		fn(n)
	}
	a.life.Go(func() { m.follow(nctx) })
}

// Add connects to the node at address ("host" or "host:port", port
// 6053) with the house's key (or in plaintext) and returns its devices.
func (a *Adapter) Add(ctx context.Context, address string) ([]devices.ID, error) {
	return a.add(ctx, address, a.cfg.Key, false)
}

// AddWithKey connects to the node at address with its own API
// encryption key (base64, 32 bytes; "" for the house's) and returns its
// devices. A key that is not one, that the node refuses, or that it
// needs and was not given is an error holding devices.ErrBadKey; a node
// that does not answer, one of kind devices.ErrUnreachable. Either way
// the node is not kept.
func (a *Adapter) AddWithKey(ctx context.Context, address, key string) ([]devices.ID, error) {
	if key == "" {
		return a.Add(ctx, address)
	}
	if _, err := espwire.ParseKey(key); err != nil {
		return nil, devices.BadKey(err, "the API encryption key must be 32 bytes in base64, as in ESPHome's api: encryption: key:")
	}
	return a.add(ctx, address, key, true)
}

func (a *Adapter) add(ctx context.Context, address, key string, own bool) ([]devices.ID, error) {
	runCtx, err := a.life.RunningFor(ctx)
	if err != nil {
		return nil, err
	}
	n, err := a.newNode(strings.TrimSpace(address), key)
	if err != nil {
		return nil, devices.Invalid(err, "not an address of the form host or host:port")
	}
	nctx, stop, ok := a.start(runCtx, n)
	if !ok {
		return nil, devices.Unreachable(nil, "the adapter is stopping")
	}
	if err := waitConnected(ctx, n, anyError); err != nil {
		stop()
		return nil, addError(err, own)
	}
	m := newMirror(a, n)
	m.sync() // the devices are in the registry before Add returns
	ids := make([]devices.ID, 0, len(m.devs))
	for id := range m.devs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	a.keep(nctx, stop, n, m)
	return ids, nil
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

// waitConnected waits until n is connected with its entities listed, or
// an attempt ends with an error fatal says ends the wait, or ctx ends;
// other errors are waited out as n tries again.
func waitConnected(ctx context.Context, n *Node, fatal func(error) bool) error {
	for {
		ch := n.Changed()
		up, err := n.Status()
		switch {
		case up && n.Info().MACAddress != "":
			return nil
		case err != nil && fatal(err):
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// anyError ends a wait at the first error.
func anyError(error) bool { return true }

// addError is what adding a node says of the error its connection ended
// with; own tells a key given for the node from the house's.
func addError(err error, own bool) error {
	switch {
	case errors.Is(err, ErrKeyMismatch) && own:
		return devices.BadKey(err, "the node refused the API encryption key; give the one in its api: encryption: key:")
	case errors.Is(err, ErrKeyMismatch):
		return devices.BadKey(err, "the node refused the house's API encryption key (BIFROST_ESPHOME_KEY); give its own key")
	case errors.Is(err, ErrNeedsKey):
		return devices.BadKey(err, "the node needs its API encryption key; give the one in its api: encryption: key:")
	case errors.Is(err, ErrPassword):
		return devices.Invalid(err, "%v", ErrPassword)
	}
	return devices.Unreachable(err, "")
}
