// Package neewer drives Neewer LED panels, tubes and rope lights over
// Bluetooth LE as ordinary Bifrost lights: it discovers them by advertised
// name (or takes them by address), detects their model and frame layout
// from a model table, keeps a link to each with a connection manager, and
// registers them in the device registry. Frames are built by package
// nwproto; the radio is reached through package ble.
package neewer

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// Name is the adapter's name, and the prefix of its device ids
// ("neewer:DF:24:3A:B4:46:5D").
const Name = "neewer"

var (
	_ devices.Scanner = (*Adapter)(nil)
	_ devices.Adder   = (*Adapter)(nil)
)

// Config configures an Adapter.
type Config struct {
	// Transport reaches the local radio; nil when the hub's Bluetooth is
	// off. Without it and without proxies, configured lights list as
	// offline and Scan says why it cannot.
	Transport ble.Transport
	// Radio names the local radio in the lights' views ("hci0"; the
	// transport's name when empty).
	Radio string
	// Proxies are more radios, such as ESPHome Bluetooth proxies, named by
	// their Radio method (AddRadio adds more while the adapter runs). A
	// light is reached through whichever radio hears it best.
	Proxies []ble.Transport
	// Registry receives the lights.
	Registry *devices.Registry
	Logger   *slog.Logger
	// Lights are lights added by address, and settings for discovered ones
	// (Add adds more while the adapter runs).
	Lights []LightConfig
	// ScanFor is how long one discovery listens (default 15 s).
	ScanFor time.Duration
	// Rescan is how often discovery runs again in the background, to find
	// new lights and revive lost ones (default 5 min; negative: never).
	Rescan time.Duration
	// Timing tunes every light's connection manager.
	Timing Timing
}

// Adapter is the Neewer adapter.
type Adapter struct {
	tr      *radios
	reg     *devices.Registry
	log     *slog.Logger
	timing  Timing
	scanFor time.Duration
	rescan  time.Duration
	configs map[string]LightConfig

	ctx    context.Context
	cancel context.CancelFunc

	// addMu serialises registering lights, so a light replaced by one
	// with new settings is closed before the new one starts.
	addMu sync.Mutex

	mu       sync.Mutex
	lights   map[string]*Light
	order    []string
	scanning bool
	scans    sync.WaitGroup
	closed   bool
	// names are the names heard advertised, by address, in the current
	// scan and the one before (lastNames): what Add detects a model from
	// for a light whose name the discovery filter passed over.
	names, lastNames map[string]string
}

// New makes the adapter; Run starts it.
func New(cfg Config) *Adapter {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := cfg.Timing
	if t.WriteTimeout <= 0 && cfg.Registry != nil {
		t.WriteTimeout = cfg.Registry.Timeout()
	}
	var list []radio
	if cfg.Transport != nil {
		list = append(list, radio{label: cfg.Radio, tr: cfg.Transport})
	}
	for _, p := range cfg.Proxies {
		list = append(list, radio{tr: p})
	}
	a := &Adapter{
		reg: cfg.Registry, log: log, timing: t,
		scanFor: cfg.ScanFor, rescan: cfg.Rescan,
		configs: map[string]LightConfig{},
		lights:  map[string]*Light{},
		names:   map[string]string{},
	}
	if a.scanFor <= 0 {
		a.scanFor = 15 * time.Second
	}
	if a.rescan == 0 {
		a.rescan = 5 * time.Minute
	}
	// A sighting counts until two discoveries have passed without one.
	heardFor := 10 * time.Minute
	if a.rescan > 0 {
		heardFor = max(heardFor, 2*(a.scanFor+a.rescan))
	}
	a.tr = newRadios(list, t, heardFor, a.signalMoved)
	a.tr.mu.Lock()
	a.tr.silent = func(name string) {
		a.log.Warn("neewer: a Bluetooth proxy has passed on no advertisement of any device since the hub subscribed; "+
			"a proxy serves one client at a time, so if Home Assistant or another hub uses it, give each its own proxy",
			"radio", name, "for", a.tr.silentAfter)
	}
	a.tr.mu.Unlock()
	for _, c := range cfg.Lights {
		a.configs[c.Address.MAC] = c
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	return a
}

// Adapter names the adapter: "neewer".
func (a *Adapter) Adapter() string { return Name }

// Run registers the lights configured with a model, then discovers lights
// now and every Rescan until ctx ends or Close is called.
func (a *Adapter) Run(ctx context.Context) error {
	a.mu.Lock()
	var withModel []LightConfig
	for _, c := range a.configs {
		if c.Model != "" {
			withModel = append(withModel, c)
		}
	}
	a.mu.Unlock()
	for _, c := range withModel {
		if _, err := a.add(c, "", false); err != nil && !errors.Is(err, errClosed) {
			a.log.Error("neewer: light settings", "light", c.Address.MAC, "err", err)
		}
	}
	if a.tr.count() == 0 {
		a.log.Warn("neewer: no Bluetooth radio (yet); configured lights list as offline")
	}
	for {
		a.startScan()
		if a.rescan < 0 {
			select {
			case <-ctx.Done():
			case <-a.ctx.Done():
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-a.ctx.Done():
			return nil
		case <-time.After(a.scanFor + a.rescan):
		}
	}
}

// Scan starts discovery (devices.Scanner); lights found join the registry
// as they are heard. It returns how long discovery listens.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if a.tr.count() == 0 {
		return 0, devices.Unsupported(nil, "Bluetooth is off (BIFROST_BLE) and no ESPHome Bluetooth proxy is connected")
	}
	a.startScan()
	return a.scanFor, nil
}

// addressForm is a Bluetooth address as Add takes it: six pairs of hex
// digits separated by colons, or by hyphens.
var addressForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{2}-){5}[0-9A-Fa-f]{2}$`)
})

// errClosed: the adapter is closing and registers no more lights.
var errClosed = devices.Unreachable(nil, "the adapter is closed")

// Add adds a light by its Bluetooth address (devices.Adder), optionally
// followed by the settings BIFROST_NEEWER_LIGHTS takes for one light:
//
//	DF:24:3A:B4:46:5D,name=Desk Panel,model=RGB660 PRO
//
// The light is registered as a configured light is: driven as the model
// given, else as the one its advertised name says if a scan heard it,
// else with the common defaults; its connection manager starts at once.
// Without Bluetooth it is registered all the same and lists as offline.
// Adding a light already registered returns its id; settings given then
// apply on top of its own, and the light is made anew if they change it.
func (a *Adapter) Add(ctx context.Context, address string) ([]devices.ID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entry := strings.TrimSpace(address)
	mac, _, _ := strings.Cut(entry, ",")
	mac = strings.TrimSpace(mac)
	if !addressForm().MatchString(mac) {
		return nil, devices.Invalid(nil, "%q is not a Bluetooth address; give one like DF:24:3A:B4:46:5D, "+
			"optionally with settings (DF:24:3A:B4:46:5D,name=Desk Panel,model=RGB660 PRO)", mac)
	}
	if strings.ContainsAny(entry, ";\n") {
		return nil, devices.Invalid(nil, "add one light at a time, its address and settings separated by commas")
	}
	addr, err := ble.ParseAddress(mac)
	if err != nil {
		return nil, devices.Invalid(err, "%v", err)
	}

	a.addMu.Lock()
	defer a.addMu.Unlock()
	a.mu.Lock()
	old := a.lights[addr.MAC]
	var base *LightConfig
	if old != nil {
		base = &old.cfg
	} else if c, ok := a.configs[addr.MAC]; ok {
		base = &c
	}
	advertised := a.names[addr.MAC]
	if advertised == "" {
		advertised = a.lastNames[addr.MAC]
	}
	a.mu.Unlock()

	cfg, err := parseLightOnto(entry, base)
	if err != nil {
		return nil, devices.Invalid(err, "%v", err)
	}
	if old != nil {
		if reflect.DeepEqual(cfg, old.cfg) {
			return []devices.ID{old.info.ID}, nil
		}
		advertised = cmp.Or(old.advertised, advertised)
	}
	l, err := a.addLocked(cfg, advertised, true)
	switch {
	case errors.Is(err, errClosed):
		return nil, err
	case err != nil:
		return nil, devices.Invalid(err, "%v", err)
	}
	a.mu.Lock()
	a.configs[addr.MAC] = cfg
	a.mu.Unlock()
	if a.tr.count() == 0 {
		a.log.Warn("neewer: no Bluetooth radio; the light added lists as offline", "light", addr.MAC)
	}
	return []devices.ID{l.info.ID}, nil
}

// startScan runs one discovery in the background unless one is running.
func (a *Adapter) startScan() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.scanning || a.closed || a.tr.count() == 0 {
		return
	}
	a.scanning = true
	a.lastNames, a.names = a.names, map[string]string{}
	a.scans.Add(1)
	go func() {
		defer a.scans.Done()
		ctx, cancel := context.WithTimeout(a.ctx, a.scanFor)
		defer cancel()
		if err := a.tr.Scan(ctx, a.heard); err != nil && !errors.Is(err, context.Canceled) {
			a.log.Warn("neewer: scan failed", "err", err)
		}
		a.mu.Lock()
		a.scanning = false
		a.mu.Unlock()
	}()
}

// heard takes one advertisement: a new Neewer light (by name, or by a
// configured address) joins; a known one that is offline is tried again.
// Every advertised name is kept for Add.
func (a *Adapter) heard(adv ble.Advertisement) {
	a.mu.Lock()
	if adv.Name != "" {
		a.names[adv.Address.MAC] = adv.Name
	}
	cfg, configured := a.configs[adv.Address.MAC]
	l := a.lights[adv.Address.MAC]
	a.mu.Unlock()
	if !configured && !IsNeewerName(adv.Name) {
		return
	}
	if l != nil {
		if !l.Online() {
			l.conn.poke()
		}
		return
	}
	if configured && cfg.Model == "" && adv.Name == "" {
		return // wait for the scan response that carries the name
	}
	if !configured {
		cfg = LightConfig{Address: adv.Address}
	}
	cfg.Address.Random = cfg.Address.Random || adv.Address.Random
	if _, err := a.add(cfg, adv.Name, false); err != nil && !errors.Is(err, errClosed) {
		a.log.Error("neewer: light settings", "light", cfg.Address.MAC, "err", err)
	}
}

// add makes, starts and registers a light and returns it. A light already
// at the address stays, and is returned, unless replace is set: then it
// is closed and the new one takes its place.
func (a *Adapter) add(cfg LightConfig, advertised string, replace bool) (*Light, error) {
	a.addMu.Lock()
	defer a.addMu.Unlock()
	return a.addLocked(cfg, advertised, replace)
}

// addLocked is add for callers holding addMu.
func (a *Adapter) addLocked(cfg LightConfig, advertised string, replace bool) (*Light, error) {
	m, err := cfg.resolve(advertised)
	if err != nil {
		return nil, err
	}
	mac := cfg.Address.MAC
	a.mu.Lock()
	old := a.lights[mac]
	closed := a.closed
	a.mu.Unlock()
	switch {
	case closed:
		return nil, errClosed
	case old != nil && !replace:
		return old, nil
	case old != nil:
		old.close() // its link ends before the new light makes one
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, errClosed
	}
	l := newLight(cfg, m, a.tr, a.reg, a.timing, a.log)
	l.advertised = advertised
	a.lights[mac] = l
	if old == nil {
		a.order = append(a.order, mac)
	}
	l.start()
	a.mu.Unlock()
	verb := "added"
	if old != nil {
		verb = "remade with new settings"
	}
	a.log.Info("neewer: light "+verb, "light", mac, "name", l.info.Name,
		"model", m.Name, "known_model", m.Known, "variant", m.Variant.String())
	if a.reg != nil {
		a.reg.Add(l)
	}
	return l, nil
}

// signalMoved tells the registry that the signal of the light at mac
// moved, so the view of the radio that reaches it follows.
func (a *Adapter) signalMoved(mac string) {
	a.mu.Lock()
	l := a.lights[mac]
	a.mu.Unlock()
	if l != nil {
		l.changed()
	}
}

// Lights returns the adapter's lights in the order they joined.
func (a *Adapter) Lights() []*Light {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*Light, 0, len(a.order))
	for _, mac := range a.order {
		out = append(out, a.lights[mac])
	}
	return out
}

// Light returns the light at a Bluetooth address.
func (a *Adapter) Light(mac string) (*Light, bool) {
	addr, err := ble.ParseAddress(mac)
	if err != nil {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.lights[addr.MAC]
	return l, ok
}

// Close stops discovery, ends every link and releases the radio.
func (a *Adapter) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	lights := make([]*Light, 0, len(a.lights))
	for _, l := range a.lights {
		lights = append(lights, l)
	}
	a.mu.Unlock()
	a.cancel()
	a.scans.Wait()
	for _, l := range lights {
		l.close()
	}
	return a.tr.Close()
}

// AddRadio adds a radio — an ESPHome Bluetooth proxy that came up — and
// listens on it at once: lights it hears join, and lights it hears best
// connect through it when they next connect.
func (a *Adapter) AddRadio(tr ble.Transport) {
	if !a.tr.add(radio{tr: tr}) { // closed: so is tr
		return
	}
	a.log.Info("neewer: radio added", "radio", radio{tr: tr}.name())
	a.startScan()
}

// Options are the settings cmd/bifrost passes from its flags and
// environment to Open.
type Options struct {
	// BLE is BIFROST_BLE: auto (default), bluez, hci or off.
	BLE string
	// BLEAdapter is BIFROST_BLE_ADAPTER: the controller, "hci0" by default.
	BLEAdapter string
	// Lights is BIFROST_NEEWER_LIGHTS (see ParseLights).
	Lights   string
	Registry *devices.Registry
	Logger   *slog.Logger
}

// Open checks the settings, opens Bluetooth as BLE says and returns the
// adapter, ready to Run. When Bluetooth is off, by choice or because no
// backend reaches a radio, it says so in the log and returns an adapter
// without a radio: the hub runs on, configured lights list as offline.
// Only bad settings are errors.
func Open(ctx context.Context, o Options) (*Adapter, error) {
	mode, err := ble.ParseMode(o.BLE)
	if err != nil {
		return nil, err
	}
	lights, err := ParseLights(o.Lights)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tr, err := ble.Open(ctx, ble.Options{Mode: mode, Adapter: o.BLEAdapter})
	switch {
	case err == nil:
		log.Info("neewer: Bluetooth ready", "backend", tr.Name())
	case errors.Is(err, ble.ErrOff) && mode == ble.ModeOff:
		log.Info("neewer: local Bluetooth off (BIFROST_BLE=off); lights are reached through ESPHome proxies, if any")
	default:
		log.Warn("neewer: no local Bluetooth; lights are reached through ESPHome proxies, if any", "mode", string(mode), "err", err)
	}
	return New(Config{Transport: tr, Radio: cmp.Or(o.BLEAdapter, "hci0"), Registry: o.Registry, Logger: log, Lights: lights}), nil
}
