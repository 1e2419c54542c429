package hass

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// AdapterName names the bridge among the hub's adapters; its devices are
// "hass:<entity_id>".
const AdapterName = "hass"

// AdapterConfig configures the bridge. URL and Token are required.
type AdapterConfig struct {
	URL    string // http(s)://host:8123
	Token  string // a long-lived access token
	CAFile string // PEM file of the CAs that sign HA's certificate; "" = the system's
	Logger *slog.Logger

	// Tests may shorten these; zero means the client's defaults.
	MinBackoff, MaxBackoff, PingInterval time.Duration
}

// Adapter is the Home Assistant bridge: it keeps one connection to HA,
// registers every entity as a device, keeps their states from
// state_changed events, and turns commands into service calls.
type Adapter struct {
	reg    *devices.Registry
	client *Client
	log    *slog.Logger

	mu        sync.Mutex
	connected bool  // authenticated and synced
	lastErr   error // why the last connection failed; nil once connected
	ents      map[string]*entity
	devs      map[string]devices.Device // what is registered, by entity id
	// syncs counts completed syncs, for tests and figures.
	syncs int
	// synced is closed and replaced at every completed sync.
	synced chan struct{}
}

// NewAdapter checks cfg and returns the bridge; nothing connects until Run.
func NewAdapter(reg *devices.Registry, cfg AdapterConfig) (*Adapter, error) {
	if strings.TrimSpace(cfg.Token) == "" {
		return nil, errors.New("no Home Assistant access token is set")
	}
	var tc *tls.Config
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("the Home Assistant CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the Home Assistant CA file %s holds no PEM certificate", cfg.CAFile)
		}
		tc = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Adapter{reg: reg, log: log.With("adapter", AdapterName), ents: map[string]*entity{}, devs: map[string]devices.Device{}, synced: make(chan struct{})}
	c, err := New(Config{
		BaseURL: cfg.URL, Token: cfg.Token, TLS: tc,
		PingInterval: cfg.PingInterval, MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff,
		OnStateChanged: a.stateChanged, OnConnect: a.onConnect, OnError: a.onError,
	})
	if err != nil {
		return nil, err
	}
	a.client = c
	return a, nil
}

// Run keeps the bridge connected until ctx ends or Close is called.
func (a *Adapter) Run(ctx context.Context) error {
	err := a.client.Run(ctx)
	a.setConnected(false)
	return err
}

// Close stops Run and waits for it. The devices stay registered, offline.
func (a *Adapter) Close() error {
	err := a.client.Close()
	a.setConnected(false)
	return err
}

// Status says whether the bridge is connected and synced and, when it is
// not, why the last attempt failed (nil while it first connects).
func (a *Adapter) Status() (connected bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.connected, a.lastErr
}

// Synced returns how many syncs have completed and a channel closed at
// the next one.
func (a *Adapter) Synced() (int, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.syncs, a.synced
}

func (a *Adapter) onError(err error) {
	if errors.Is(err, ErrAuth) {
		a.log.Error("Home Assistant refused the access token; make a new long-lived access token on your Home Assistant profile page", "err", err)
	} else {
		a.log.Warn("Home Assistant connection", "err", err)
	}
	a.mu.Lock()
	a.lastErr = err
	a.mu.Unlock()
	a.setConnected(false)
}

func (a *Adapter) isConnected() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.connected
}

// setConnected records the connection and tells the hub every device's
// availability moved.
func (a *Adapter) setConnected(on bool) {
	a.mu.Lock()
	changed := a.connected != on
	a.connected = on
	if on {
		a.lastErr = nil
	}
	ids := make([]devices.ID, 0, len(a.devs))
	for _, d := range a.devs {
		ids = append(ids, d.Info().ID)
	}
	a.mu.Unlock()
	if changed {
		for _, id := range ids {
			a.reg.Changed(id)
		}
	}
}

// onConnect resyncs everything after every (re)connect: states and the
// three registries. Entities gone from HA are removed; new ones added.
func (a *Adapter) onConnect(ctx context.Context) {
	start := time.Now()
	if err := a.sync(ctx); err != nil {
		if ctx.Err() == nil {
			a.log.Warn("Home Assistant sync failed; it is tried again at the next connection", "err", err)
			a.mu.Lock()
			a.lastErr = err
			a.mu.Unlock()
		}
		return
	}
	a.log.Info("Home Assistant synced", "entities", a.entities(), "took", time.Since(start).Round(time.Millisecond))
	context.AfterFunc(ctx, func() { a.setConnected(false) })
}

// entities counts the entities the bridge knows.
func (a *Adapter) entities() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.ents)
}

// sync reads everything and registers what changed.
func (a *Adapter) sync(ctx context.Context) error {
	states, err := a.client.States(ctx)
	if err != nil {
		return err
	}
	areas, err := a.client.Areas(ctx)
	if err != nil {
		return err
	}
	devs, err := a.client.Devices(ctx)
	if err != nil {
		return err
	}
	regs, err := a.client.Entities(ctx)
	if err != nil {
		return err
	}
	reg := newRegistries(areas, devs, regs)

	a.mu.Lock()
	var added []devices.Device
	var removed []devices.ID
	seen := make(map[string]bool, len(states))
	for _, st := range states {
		if !validEntityID(st.EntityID) {
			continue
		}
		seen[st.EntityID] = true
		meta := reg.meta(st.EntityID)
		e := a.ents[st.EntityID]
		if e == nil {
			e = newEntity(a, st.EntityID)
			a.ents[st.EntityID] = e
		}
		if cur := e.state(); cur.EntityID != "" && updated(cur).After(updated(st)) {
			st = cur // an event that came after get_states answered is newer
		}
		e.set(st, meta)
		d := deviceFor(e)
		if old, ok := a.devs[st.EntityID]; !ok || !sameShape(old, d) {
			a.devs[st.EntityID] = d
			added = append(added, d)
		}
	}
	for id, d := range a.devs {
		if !seen[id] {
			removed = append(removed, d.Info().ID)
			delete(a.devs, id)
			delete(a.ents, id)
		}
	}
	a.connected = true
	a.lastErr = nil
	ids := make([]devices.ID, 0, len(a.devs))
	for _, d := range a.devs {
		ids = append(ids, d.Info().ID)
	}
	a.mu.Unlock()

	for _, id := range removed {
		a.reg.Remove(id)
	}
	for _, d := range added {
		a.reg.Add(d)
	}
	for _, id := range ids {
		a.reg.Changed(id)
	}
	a.mu.Lock()
	a.syncs++
	close(a.synced)
	a.synced = make(chan struct{})
	a.mu.Unlock()
	return nil
}

// stateChanged applies one event: the entity's new state, a new entity,
// or one removed.
func (a *Adapter) stateChanged(ev StateChanged) {
	if !validEntityID(ev.EntityID) {
		return
	}
	a.mu.Lock()
	e := a.ents[ev.EntityID]
	if ev.NewState == nil {
		var gone devices.Device
		if e != nil {
			gone = a.devs[ev.EntityID]
			delete(a.ents, ev.EntityID)
			delete(a.devs, ev.EntityID)
		}
		a.mu.Unlock()
		if gone != nil {
			a.reg.Remove(gone.Info().ID)
		}
		return
	}
	var add devices.Device
	if e == nil {
		// A new entity: its area and device come with the next sync.
		e = newEntity(a, ev.EntityID)
		a.ents[ev.EntityID] = e
		e.set(*ev.NewState, entityMeta{})
		add = deviceFor(e)
		a.devs[ev.EntityID] = add
	} else {
		e.set(*ev.NewState, e.metaNow())
		if d := deviceFor(e); !sameShape(a.devs[ev.EntityID], d) {
			add = d // its supported features changed: what it can do did too
			a.devs[ev.EntityID] = d
		}
	}
	a.mu.Unlock()
	if add != nil {
		a.reg.Add(add)
		return
	}
	a.reg.Changed(e.deviceID())
}

// validEntityID admits "domain.object_id" as HA makes them.
func validEntityID(id string) bool {
	dom, obj, ok := strings.Cut(id, ".")
	if !ok || dom == "" || obj == "" || len(id) > 255 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// registries are HA's area, device and entity registries, indexed.
type registries struct {
	areas    map[string]string // area id → name
	devices  map[string]Device
	entities map[string]Entity
}

func newRegistries(areas []Area, devs []Device, ents []Entity) registries {
	r := registries{areas: map[string]string{}, devices: map[string]Device{}, entities: map[string]Entity{}}
	for _, ar := range areas {
		r.areas[ar.AreaID] = ar.Name
	}
	for _, d := range devs {
		r.devices[d.ID] = d
	}
	for _, e := range ents {
		r.entities[e.EntityID] = e
	}
	return r
}

// entityMeta is what the registries say of one entity.
type entityMeta struct {
	area     string // the area's name
	model    string
	platform string // the integration that provides it ("sonos", "hue", …)
	hardware []string
}

func (r registries) meta(entityID string) entityMeta {
	var m entityMeta
	ent, ok := r.entities[entityID]
	if !ok {
		return m
	}
	m.platform = ent.Platform
	dev, hasDev := r.devices[ent.DeviceID]
	areaID := ent.AreaID
	if areaID == "" && hasDev {
		areaID = dev.AreaID
	}
	m.area = r.areas[areaID]
	if hasDev {
		m.model = strings.TrimSpace(strings.TrimSpace(dev.Manufacturer) + " " + strings.TrimSpace(dev.Model))
		for _, p := range slices.Concat(dev.Identifiers, dev.Connections) {
			if p[1] != "" {
				m.hardware = append(m.hardware, devices.HardwareKey(p[0], p[1]))
			}
		}
	}
	return m
}
