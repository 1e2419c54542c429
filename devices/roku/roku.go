// Package roku is the adapter for Roku players and Roku TVs, over the
// External Control Protocol (package ecp): plain HTTP on TCP 8060. Each
// device is found by SSDP or given by address, identified by its serial
// number ("roku:<serial>"), and polled while it answers (active app, power
// mode, media player), with backoff while it does not. It is a media
// player, a remote, a content searcher and, with a known MAC address, a
// Wake-on-LAN target. Known devices are kept in a state file, so a TV in
// deep standby is listed (offline) at start and can be woken.
package roku

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
	"github.com/bifrost-hub/bifrost/devices/wol"
)

// AdapterName is the adapter name of every Roku.
const AdapterName = "roku"

// Defaults of Config's tuning fields.
const (
	DefaultPort         = ecp.DefaultPort
	DefaultPollInterval = 5 * time.Second
	DefaultRetryMin     = 500 * time.Millisecond
	DefaultRetryMax     = 30 * time.Second
	DefaultScanTime     = 3 * time.Second
	DefaultHTTPTimeout  = 3 * time.Second
	// appsRefresh is how often the app list is read again.
	appsRefresh = 10 * time.Minute
)

// Config configures the adapter. Registry is required; the zero value of
// every other field is a sensible default.
type Config struct {
	Registry *devices.Registry
	// Hosts are devices given by address ("192.168.1.40" or "host:port",
	// port 8060 by default).
	Hosts []string
	// Discover makes Run look for devices by SSDP once at start.
	Discover bool
	// StateFile keeps the devices found (JSON, mode 0600), so they are
	// listed at the next start before they answer; "" keeps nothing.
	StateFile string
	// PollInterval is how often an answering device is asked for its
	// state.
	PollInterval time.Duration
	// RetryMin and RetryMax bound the backoff between attempts to reach
	// a device that does not answer.
	RetryMin, RetryMax time.Duration
	// ScanTime is how long a scan listens for answers; ScanTargets are
	// where its M-SEARCH goes (the SSDP multicast address when empty).
	ScanTime    time.Duration
	ScanTargets []string
	// WakeTargets are where Wake-on-LAN packets go (wol.DefaultTarget
	// when empty); a packet also goes to the device's last known address,
	// port 9.
	WakeTargets []string
	// HTTPTimeout bounds one request to a device.
	HTTPTimeout time.Duration
	Logger      *slog.Logger
}

// Adapter finds Roku devices and keeps their state current. Create it with
// New, then Run it; Scan and Add work while it runs.
type Adapter struct {
	cfg    Config
	log    *slog.Logger
	client ecp.Client

	life devices.Lifetime // Run, and the goroutines it started

	saveMu sync.Mutex // one state-file write at a time

	mu      sync.Mutex // guards the fields below and Device.registered
	devices map[devices.ID]*Device
	pending map[string]bool // addresses being identified
}

var (
	_ devices.Scanner = (*Adapter)(nil)
	_ devices.Adder   = (*Adapter)(nil)
)

// New returns an adapter that registers its devices in cfg.Registry.
func New(cfg Config) *Adapter {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = DefaultRetryMin
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(DefaultRetryMax, cfg.RetryMin)
	}
	if cfg.ScanTime <= 0 {
		cfg.ScanTime = DefaultScanTime
	}
	if len(cfg.ScanTargets) == 0 {
		cfg.ScanTargets = []string{ecp.SSDPAddr}
	}
	if len(cfg.WakeTargets) == 0 {
		cfg.WakeTargets = []string{wol.DefaultTarget}
	}
	if cfg.HTTPTimeout <= 0 {
		cfg.HTTPTimeout = DefaultHTTPTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: cfg.HTTPTimeout}).DialContext,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}}
	a := &Adapter{
		cfg: cfg, log: log.With("adapter", AdapterName), client: ecp.Client{HTTP: hc},
		life: devices.Lifetime{Name: AdapterName}, devices: map[devices.ID]*Device{}, pending: map[string]bool{},
	}
	a.load()
	return a
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Run registers the devices of the state file (read by New), identifies the configured
// hosts it does not know yet (retrying, with backoff, those that do not
// answer), looks for more by SSDP when Config.Discover is set, and polls
// every device. It returns when ctx ends, after every poll has stopped.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	a.restore()
	for _, h := range a.cfg.Hosts {
		if h = strings.TrimSpace(h); h != "" && a.byAddr(ecp.WithPort(h)) == nil {
			a.life.Go(func() { a.identifyLoop(ctx, ecp.WithPort(h)) })
		}
	}
	if a.cfg.Discover {
		a.life.Go(func() { a.search(ctx) })
	}
	<-ctx.Done()
	a.life.End()
	return nil
}

// Scan searches for devices by SSDP; those that answer are added as they
// do. It returns how long it listens.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if err := a.life.Spawn(a.search); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime, nil
}

// Add adds the device at address ("192.168.1.40", "host:port" or
// "http://host:8060/"), asking it who it is first, and returns its id. A
// device that does not answer is an error wrapping devices.ErrUnreachable.
func (a *Adapter) Add(ctx context.Context, address string) ([]devices.ID, error) {
	if _, err := a.life.RunningFor(ctx); err != nil {
		return nil, err
	}
	if strings.TrimSpace(address) == "" {
		return nil, devices.Invalid(nil, "no address given")
	}
	d, err := a.identify(ctx, ecp.WithPort(address))
	if err != nil {
		return nil, err
	}
	return []devices.ID{d.id}, nil
}

// identify asks the device at addr who it is and attaches it.
func (a *Adapter) identify(ctx context.Context, addr string) (*Device, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	info, err := a.client.DeviceInfo(ctx, addr)
	if err != nil {
		return nil, within("did not say who it is", deviceError(err))
	}
	return a.attach(info, addr)
}

// identifyLoop identifies a configured host, retrying with backoff until
// it answers.
func (a *Adapter) identifyLoop(ctx context.Context, addr string) {
	b := devices.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax}
	devices.Retry(ctx, b, func(_ int, pause time.Duration) error {
		_, err := a.identify(ctx, addr)
		if err != nil {
			a.log.Debug("roku not answering", "addr", addr, "err", err, "retry_in", pause)
		}
		return err
	})
}

// search runs one SSDP search for ScanTime and identifies every device
// that answers from an address not known yet.
func (a *Adapter) search(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, a.cfg.ScanTime)
	defer cancel()
	err := ecp.Search(sctx, a.cfg.ScanTargets, func(ans ecp.Answer) {
		addr := ans.Addr()
		if d := a.byAddr(addr); d != nil {
			d.poke()
			return
		}
		if !a.claim(addr) {
			return
		}
		a.life.Go(func() {
			defer a.release(addr)
			if _, err := a.identify(ctx, addr); err != nil {
				a.log.Warn("adding a discovered roku", "addr", addr, "err", err)
			}
		})
	})
	if err != nil {
		a.log.Warn("roku discovery failed", "err", err)
	}
}

// claim marks addr as being identified, unless it already is.
func (a *Adapter) claim(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending[addr] {
		return false
	}
	a.pending[addr] = true
	return true
}

func (a *Adapter) release(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.pending, addr)
}

// byAddr is the device last known at addr, nil when there is none.
func (a *Adapter) byAddr(addr string) *Device {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.devices {
		if d.addr() == addr {
			return d
		}
	}
	return nil
}

// deviceID is a device's id from its device-info: its serial number in
// lower case (the device id or UDN for one that reports none).
func deviceID(info ecp.DeviceInfo) (devices.ID, error) {
	for _, s := range []string{info.SerialNumber, info.DeviceID, info.UDN} {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			return devices.ID(AdapterName + ":" + s), nil
		}
	}
	return "", devices.Invalid(nil, "answered without a serial number")
}

// attach adds a device that answered at addr, or moves a known one there.
func (a *Adapter) attach(info ecp.DeviceInfo, addr string) (*Device, error) {
	id, err := deviceID(info)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	d, known := a.devices[id]
	if !known {
		d = newDevice(a, saved{ID: string(id), Host: addr, Name: info.Name(), Model: info.Model(), IsTV: info.IsTV, MAC: info.MAC()})
		d.registered = true
		a.devices[id] = d
	}
	a.mu.Unlock()
	if known {
		if d.moveTo(addr) {
			a.log.Info("roku moved", "id", id, "addr", addr)
			a.save()
		}
		d.poke()
		return d, nil
	}
	a.log.Info("roku found", "id", id, "model", info.Model(), "addr", addr)
	a.register(d)
	a.save()
	return d, nil
}

// register hands a device to the registry and starts polling it.
func (a *Adapter) register(d *Device) {
	a.cfg.Registry.Add(d)
	a.life.Spawn(d.run) // unless Run has ended
}

// load reads the state file's devices, to be registered when Run starts.
func (a *Adapter) load() {
	if a.cfg.StateFile == "" {
		return
	}
	list, err := loadState(a.cfg.StateFile)
	if err != nil {
		a.log.Warn("reading the roku state file", "file", a.cfg.StateFile, "err", err)
	}
	for _, s := range list {
		if strings.HasPrefix(s.ID, AdapterName+":") && s.Host != "" {
			a.devices[devices.ID(s.ID)] = newDevice(a, s)
		}
	}
}

// restore registers the devices known before Run started, offline until
// they answer.
func (a *Adapter) restore() {
	a.mu.Lock()
	var list []*Device
	for _, d := range a.devices {
		if !d.registered {
			d.registered = true
			list = append(list, d)
		}
	}
	a.mu.Unlock()
	slices.SortFunc(list, func(x, y *Device) int { return strings.Compare(string(x.id), string(y.id)) })
	for _, d := range list {
		a.register(d)
	}
}
