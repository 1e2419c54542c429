// Package androidtv is the adapter for Android TV and Google TV sets and
// players, which take the Android TV Remote protocol v2 (package atvwire)
// from any client they were paired with: TLS on the control port (6466)
// with a client certificate the TV knows, after a one-time pairing on
// the pairing port (6467) where the user types the code the TV shows.
//
// Each TV is found by mDNS (_androidtvremote2._tcp) or given by address,
// identified by the certificate it presents (its name and MAC address),
// and kept in a state file so that it is listed, and can be woken by
// Wake-on-LAN, from the next start on. A paired TV keeps one persistent
// connection, re-established with backoff when it drops or falls silent,
// and is kept current by what it pushes (screen, volume, the app in
// front). It is a media player, a remote, a content searcher and a cast
// target: "androidtv:<mac>".
package androidtv

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mdnsbrowse"
	"github.com/bifrost-hub/bifrost/devices/wol"
)

// AdapterName is the adapter name of every TV.
const AdapterName = "androidtv"

// Defaults of Config's fields.
const (
	DefaultPort        = 6466 // control; pairing is the port after it
	DefaultClientName  = "Bifrost"
	DefaultRetryMin    = 500 * time.Millisecond
	DefaultRetryMax    = 30 * time.Second
	DefaultScanTime    = 3 * time.Second
	DefaultPingTimeout = 16 * time.Second
	// PairingWindow is how long a pairing attempt stays open for its
	// code.
	PairingWindow = 5 * time.Minute

	dialTimeout  = 3 * time.Second
	writeTimeout = 5 * time.Second
)

// Config configures the adapter. Registry and CertFile are required; the
// zero value of every other field is a sensible default.
type Config struct {
	Registry *devices.Registry
	// Hosts are TVs given by address ("192.168.1.40" or "host:port",
	// the port being the control port; pairing is the one after it).
	Hosts []string
	// Discover makes Run look for TVs by mDNS once at start.
	Discover bool
	// CertFile holds the hub's client certificate and key (PEM), made
	// on first use. TVs know the hub by it: losing it means pairing
	// every TV again.
	CertFile string
	// StateFile keeps the TVs known (JSON), so that they are listed at
	// the next start before they answer; "" keeps nothing.
	StateFile string
	// ClientName is the name the TVs show for the hub (DefaultClientName).
	ClientName string
	// WakeTargets are where Wake-on-LAN packets go ("host:port"), besides
	// the TV's last address; wol.DefaultTarget when empty.
	WakeTargets []string
	// RetryMin and RetryMax bound the reconnection backoff; a TV that
	// refuses the hub (not paired) is retried every RetryMax.
	RetryMin, RetryMax time.Duration
	// ScanTime is how long a scan listens for answers.
	ScanTime time.Duration
	Logger   *slog.Logger
	// PingTimeout is how long a TV may stay silent before its link is
	// taken for dead, closed and dialled again (TVs ping every 5 s).
	PingTimeout time.Duration
}

// Adapter finds TVs and keeps their connections. Create it with New, then
// Run it; Scan, Add and the TVs' commands work while it runs.
type Adapter struct {
	cfg  Config
	log  *slog.Logger
	cert *clientCert

	life devices.Lifetime // Run, and the goroutines it started

	mu    sync.Mutex
	tvs   map[devices.ID]*TV
	known []record // the state file's TVs, registered when Run starts

	saveMu sync.Mutex // one state file write at a time
}

var (
	_ devices.Scanner = (*Adapter)(nil)
	_ devices.Adder   = (*Adapter)(nil)
)

// New returns an adapter that registers its TVs in cfg.Registry. It loads
// the client certificate when there is one (one that cannot be read is an
// error) and reads the state file; a certificate still to be made is made
// when a TV is first dialled.
func New(cfg Config) (*Adapter, error) {
	if cfg.Registry == nil {
		return nil, errors.New("androidtv: a registry is required")
	}
	if cfg.CertFile == "" {
		return nil, errors.New("androidtv: a certificate file is required")
	}
	cfg = withDefaults(cfg)
	cert, err := loadClientCert(cfg.CertFile, cfg.ClientName)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	known, err := loadState(cfg.StateFile)
	if err != nil {
		// The TVs come back as they answer; the file is written anew.
		log.Warn("the Android TVs known cannot be read; starting without them", "file", cfg.StateFile, "err", err)
		known = nil
	}
	return &Adapter{
		cfg: cfg, log: log.With("adapter", AdapterName), cert: cert,
		life: devices.Lifetime{Name: AdapterName}, tvs: map[devices.ID]*TV{}, known: known,
	}, nil
}

func withDefaults(cfg Config) Config {
	if cfg.ClientName = strings.TrimSpace(cfg.ClientName); cfg.ClientName == "" {
		cfg.ClientName = DefaultClientName
	}
	if len(cfg.WakeTargets) == 0 {
		cfg.WakeTargets = []string{wol.DefaultTarget}
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
	if cfg.PingTimeout <= 0 {
		cfg.PingTimeout = DefaultPingTimeout
	}
	return cfg
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Run registers the TVs of the state file at once (offline until they
// answer), identifies the configured hosts not known yet (retrying, with
// backoff, those that do not answer), keeps a connection to every TV,
// and looks for more by mDNS when Config.Discover is set. It returns when
// ctx ends, after every connection is closed.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	for _, r := range a.known {
		a.attach(r, false)
	}
	for _, h := range a.cfg.Hosts {
		if h = strings.TrimSpace(h); h != "" && !a.knows(h) {
			a.life.Go(func() { a.identifyLoop(ctx, h) })
		}
	}
	if a.cfg.Discover {
		a.life.Go(func() { a.discover(ctx) })
	}
	<-ctx.Done()
	a.endPairings()
	a.life.End()
	return nil
}

// Scan looks for TVs by mDNS for ScanTime; those that answered are then
// identified and added. It returns how long that takes, the time to
// wait before listing devices.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if err := a.life.Spawn(a.discover); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime + mdnsbrowse.Reach, nil
}

// Add adds the TV at address ("192.168.1.40" or "host:port"), asking it
// who it is first (the pairing port answers before pairing), and returns
// its id. A TV that does not answer is an error wrapping
// devices.ErrUnreachable. The TV needs pairing before it takes commands
// unless this client certificate was paired with it before.
func (a *Adapter) Add(ctx context.Context, address string) ([]devices.ID, error) {
	if _, err := a.life.RunningFor(ctx); err != nil {
		return nil, err
	}
	addr, err := parseAddress(address)
	if err != nil {
		return nil, err
	}
	r, err := a.identify(ctx, addr)
	if err != nil {
		return nil, err
	}
	return []devices.ID{a.attach(r, true).id}, nil
}

// identifyLoop asks a configured TV who it is until it answers, then
// attaches it.
func (a *Adapter) identifyLoop(ctx context.Context, host string) {
	addr, err := parseAddress(host)
	if err != nil {
		a.log.Warn("TV address not understood", "host", host, "err", err)
		return
	}
	b := devices.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax, Jitter: true}
	devices.Retry(ctx, b, func(int, time.Duration) error {
		qctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		r, err := a.identify(qctx, addr)
		if err != nil {
			a.log.Debug("TV not answering on its pairing port", "host", host, "err", err)
			return err
		}
		a.attach(r, true)
		return nil
	})
}

// knows reports whether a TV at host ("host" or "host:port") is known
// already, from the state file or found since.
func (a *Adapter) knows(host string) bool {
	addr, err := parseAddress(host)
	if err != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.known {
		if r.address() == addr {
			return true
		}
	}
	for _, t := range a.tvs {
		if t.address() == addr {
			return true
		}
	}
	return false
}

// attach adds a TV, or points a known one at its new address. A TV new
// to the hub (not from the state file) is saved in it.
func (a *Adapter) attach(r record, found bool) *TV {
	a.mu.Lock()
	t, known := a.tvs[r.ID]
	if !known {
		t = newTV(a, r)
		a.tvs[r.ID] = t
	}
	a.mu.Unlock()
	if known {
		if t.moveTo(r) {
			a.save()
		}
		return t
	}
	a.log.Info("TV found", "id", r.ID, "name", r.Name, "addr", r.address())
	a.cfg.Registry.Add(t)
	if found {
		a.save()
	}
	a.life.Spawn(t.run) // unless Run has ended
	return t
}

// endPairings closes every open pairing attempt.
func (a *Adapter) endPairings() {
	a.mu.Lock()
	tvs := make([]*TV, 0, len(a.tvs))
	for _, t := range a.tvs {
		tvs = append(tvs, t)
	}
	a.mu.Unlock()
	for _, t := range tvs {
		t.endAttempt(nil)
	}
}

// save writes the state file, logging a failure (the TVs work on; they
// are only not remembered).
func (a *Adapter) save() {
	if a.cfg.StateFile == "" {
		return
	}
	a.saveMu.Lock()
	defer a.saveMu.Unlock()
	a.mu.Lock()
	rs := make([]record, 0, len(a.tvs))
	for _, t := range a.tvs {
		rs = append(rs, t.record())
	}
	a.mu.Unlock()
	if err := saveState(a.cfg.StateFile, rs); err != nil {
		a.log.Warn("could not save the TVs known", "file", a.cfg.StateFile, "err", err)
	}
}
