// Package onkyo is the adapter for Onkyo, Integra and Pioneer AV receivers,
// which speak eISCP on TCP port 60128 (package eiscp). Each receiver is
// found by UDP broadcast or given by address, keeps one persistent TCP
// connection (re-established with backoff when it drops), and is kept
// current by the messages it pushes. Its main zone is a media device
// "onkyo:<key>"; a receiver with a second zone adds "onkyo:<key>:zone2".
// The key is the identifier of the receiver's discovery answer (normally
// its MAC address, "onkyo:0009B0E74DA8"), or its address when it answers
// with none (see receiverKey).
package onkyo

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// AdapterName is the adapter name of every receiver.
const AdapterName = "onkyo"

// Defaults of Config's tuning fields.
const (
	DefaultRetryMin  = 500 * time.Millisecond
	DefaultRetryMax  = 30 * time.Second
	DefaultKeepAlive = 30 * time.Second
	DefaultScanTime  = 3 * time.Second
	// answerTimeout is how long a connection may stay silent after a
	// question before it is given up as dead.
	answerTimeout = 5 * time.Second
	dialTimeout   = 3 * time.Second
)

// Config configures the adapter. Registry is required; the zero value of
// every other field is a sensible default.
type Config struct {
	Registry *devices.Registry
	// Hosts are receivers given by address ("192.168.1.30" or
	// "host:port").
	Hosts []string
	// Discover makes Run look for receivers by broadcast once at start.
	Discover bool
	Logger   *slog.Logger
	// VolumeSteps is the raw volume step that stands for 100 %; zero
	// takes each zone's range from the receiver's self-description (NRI:
	// volmax, doubled for a zone whose volstep says it moves in 0.5 dB
	// steps), or 100 steps when it has none.
	VolumeSteps int
	// RetryMin and RetryMax bound the reconnection backoff.
	RetryMin, RetryMax time.Duration
	// KeepAlive is how long a connection may be quiet before the adapter
	// asks the receiver something, to find out whether it is still there.
	KeepAlive time.Duration
	// ScanTime is how long a scan listens for answers.
	ScanTime time.Duration
	// ScanTargets are where discovery queries go; every interface's
	// broadcast address when empty.
	ScanTargets []string
}

// Adapter finds receivers and keeps their connections. Create it with New,
// then Run it; Scan and Add work while it runs.
type Adapter struct {
	cfg Config
	log *slog.Logger

	life devices.Lifetime // Run, and the goroutines it started

	mu        sync.Mutex
	receivers map[string]*receiver
}

var _ devices.Scanner = (*Adapter)(nil)

// New returns an adapter that registers its devices in cfg.Registry.
func New(cfg Config) *Adapter {
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = DefaultRetryMin
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(DefaultRetryMax, cfg.RetryMin)
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.ScanTime <= 0 {
		cfg.ScanTime = DefaultScanTime
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Adapter{cfg: cfg, log: log.With("adapter", AdapterName), receivers: map[string]*receiver{}, life: devices.Lifetime{Name: AdapterName}}
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Run identifies the configured receivers (retrying, with backoff, those
// that do not answer yet), connects to each, and looks for more by
// broadcast when Config.Discover is set. It returns when ctx ends, after
// every connection is closed.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	for _, h := range a.cfg.Hosts {
		if h = strings.TrimSpace(h); h != "" {
			a.life.Go(func() { a.identifyLoop(ctx, h) })
		}
	}
	if a.cfg.Discover {
		a.life.Go(func() { a.discover(ctx) })
	}
	<-ctx.Done()
	a.life.End()
	return nil
}

// Scan broadcasts a discovery query; receivers that answer are added as
// they do. It returns how long it listens.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if err := a.life.Spawn(a.discover); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime, nil
}

// Add adds the receiver at host ("192.168.1.30" or "host:port"), asking it
// who it is first, and returns the id of its main zone (a second zone is
// added once the receiver reports it). A receiver that does not answer is
// an error wrapping devices.ErrUnreachable.
func (a *Adapter) Add(ctx context.Context, host string) ([]devices.ID, error) {
	if _, err := a.life.RunningFor(ctx); err != nil {
		return nil, err
	}
	addr := eiscp.WithPort(strings.TrimSpace(host))
	id, err := eiscp.Identify(ctx, addr)
	if err != nil {
		return nil, devices.Unreachable(err, "did not say who it is")
	}
	r := a.attach(id, addr)
	return []devices.ID{r.mainID()}, nil
}

// identifyLoop asks a configured receiver who it is until it answers, then
// attaches it. The first question left unanswered is a warning, with what
// to check; the retries after it are not.
func (a *Adapter) identifyLoop(ctx context.Context, host string) {
	addr := eiscp.WithPort(host)
	b := devices.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax}
	devices.Retry(ctx, b, func(n int, pause time.Duration) error {
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		id, err := eiscp.Identify(qctx, addr)
		switch {
		case err == nil:
			a.attach(id, addr)
		case ctx.Err() != nil:
		case n == 0:
			a.log.Warn("configured receiver does not answer discovery; check that it is at this address "+
				"and that its Network Standby setting is on (retrying quietly)", "addr", addr, "err", err)
		default:
			a.log.Debug("receiver not answering discovery", "addr", addr, "err", err, "retry_in", pause)
		}
		return err
	})
}

// discover listens for broadcast answers for ScanTime.
func (a *Adapter) discover(ctx context.Context) {
	targets := a.cfg.ScanTargets
	if len(targets) == 0 {
		targets = eiscp.BroadcastTargets()
	}
	sctx, cancel := context.WithTimeout(ctx, a.cfg.ScanTime)
	defer cancel()
	err := eiscp.Discover(sctx, targets, func(id eiscp.Identity, ip net.IP) {
		a.attach(id, net.JoinHostPort(ip.String(), fmt.Sprint(id.Port)))
	})
	if err != nil {
		a.log.Warn("receiver discovery failed", "err", err)
	}
}

// attach adds a receiver found at addr, or moves a known one there.
func (a *Adapter) attach(id eiscp.Identity, addr string) *receiver {
	key := receiverKey(id, addr)
	a.mu.Lock()
	r, known := a.receivers[key]
	if !known {
		r = newReceiver(a, id, key, addr)
		a.receivers[key] = r
	}
	a.mu.Unlock()
	if known {
		r.moveTo(addr)
		return r
	}
	a.log.Info("receiver found", "model", id.Model, "receiver", key, "addr", addr)
	a.cfg.Registry.Add(r.main)
	a.life.Spawn(r.run) // unless Run has ended
	return r
}

// receiverKey is what the adapter knows a receiver by, and the part of its
// device ids after "onkyo:": the identifier of its discovery answer, or,
// for a receiver that answers with an empty one, its address (addressKey).
// Such a receiver keeps its ids as long as it keeps its address; answering
// from another address, it is another receiver, so give it a fixed one (a
// DHCP reservation). Listed by host name in Config.Hosts it is keyed by
// that name, and a broadcast scan, which sees its IP address, finds it a
// second time: list it by IP address where scans run.
func receiverKey(id eiscp.Identity, addr string) string {
	if id.Identifier != "" {
		return id.Identifier
	}
	return addressKey(addr)
}

// addressKey is a receiver's address as a key: the host (as configured,
// or the IP address its discovery answer came from) in lower case,
// followed by ":port" only when the port is not eISCP's own —
// "192.168.1.30" for "192.168.1.30:60128", "avr.lan:60200",
// "[fe80::1]". A host given with and without the default port is one key.
func addressKey(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return strings.ToLower(addr)
	}
	host = strings.ToLower(host)
	if port != strconv.Itoa(eiscp.Port) {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}
