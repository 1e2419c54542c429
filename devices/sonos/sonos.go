// Package sonos is the adapter for Sonos players, over their local UPnP
// interface (package upnp): SOAP control on TCP 1400, the household's
// topology from any one player, SSDP discovery, and GENA event
// subscriptions kept renewed, with a slow poll when events stop. Every
// visible player is a media device "sonos:RINCON_…" with favourites,
// grouping and casting.
package sonos

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// AdapterName is the adapter name of every player.
const AdapterName = "sonos"

// Defaults of Config's tuning fields.
const (
	DefaultPort                = 1400
	DefaultPollInterval        = 30 * time.Second
	DefaultSubscriptionTimeout = time.Hour
	DefaultScanTime            = 3 * time.Second
	// cacheTTL is how long state read by polling serves further reads.
	cacheTTL = time.Second
	// probeTimeout bounds one background exchange (a poll, a renewal).
	probeTimeout = 3 * time.Second
)

// Config configures the adapter. Registry is required; the zero value of
// every other field is a sensible default.
type Config struct {
	Registry *devices.Registry
	// Hosts are players given by address ("192.168.1.20" or "host:port");
	// one player is enough to find its whole household.
	Hosts []string
	// Discover makes Run look for players by SSDP once at start.
	Discover bool
	// EventAddr is the address ("0.0.0.0:1400") the adapter listens on for
	// the players' event notifications, from the first player found on;
	// empty turns events off, and state is polled.
	EventAddr string
	// CallbackHost is the host players are told to send events to; the
	// local address facing each player when empty.
	CallbackHost string
	// PollInterval is how long a player may stay silent (no event, no
	// answer) before its state is polled; players that are offline are
	// probed this often too.
	PollInterval time.Duration
	// SubscriptionTimeout is the event subscription lifetime asked for;
	// subscriptions are renewed when half of it is left.
	SubscriptionTimeout time.Duration
	// ScanTime is how long a scan listens for answers; ScanTargets are
	// where its search goes (the SSDP multicast address when empty).
	ScanTime    time.Duration
	ScanTargets []string
	HTTPClient  *http.Client
	Logger      *slog.Logger
}

// Adapter finds Sonos households and keeps their players current. Create
// it with New, then Run it; Scan and Add work while it runs.
type Adapter struct {
	cfg    Config
	log    *slog.Logger
	client upnp.Client
	wg     sync.WaitGroup

	life devices.Lifetime // Run, and the goroutines it started

	mu         sync.Mutex // guards the fields below
	eventPort  int        // 0 until the event listener runs
	stopEvents func()     // stops the event listener; nil until it runs
	speakers   map[string]*Speaker
	coord      map[string]string // player UUID → its group coordinator's
	topoAt     time.Time         // when the topology was last read
}

var _ devices.Scanner = (*Adapter)(nil)

// New returns an adapter that registers its players in cfg.Registry.
func New(cfg Config) *Adapter {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.SubscriptionTimeout <= 0 {
		cfg.SubscriptionTimeout = DefaultSubscriptionTimeout
	}
	if cfg.ScanTime <= 0 {
		cfg.ScanTime = DefaultScanTime
	}
	if len(cfg.ScanTargets) == 0 {
		cfg.ScanTargets = []string{upnp.SSDPAddr}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: probeTimeout}).DialContext,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
		}}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Adapter{
		cfg: cfg, log: log.With("adapter", AdapterName), client: upnp.Client{HTTP: hc}, life: devices.Lifetime{Name: AdapterName},
		speakers: map[string]*Speaker{}, coord: map[string]string{},
	}
}

// Adapter names the adapter.
func (a *Adapter) Adapter() string { return AdapterName }

// Run starts the event listener, finds the configured households
// (retrying those that do not answer yet), looks for more by SSDP when
// Config.Discover is set, and keeps every player's subscriptions and state
// current. It returns when ctx ends, after cancelling its subscriptions.
func (a *Adapter) Run(ctx context.Context) error {
	if err := a.life.Begin(ctx); err != nil {
		return err
	}
	defer a.stopListening()
	for _, h := range a.cfg.Hosts {
		if h = strings.TrimSpace(h); h != "" {
			a.life.Go(func() { a.hostLoop(ctx, baseURL(h)) })
		}
	}
	if a.cfg.Discover {
		a.life.Go(func() { a.search(ctx) })
	}
	a.maintainLoop(ctx)
	a.life.End()
	a.unsubscribeAll()
	return nil
}

// baseURL is the control URL base of a player given as "host" or
// "host:port".
func baseURL(host string) string {
	host = strings.TrimPrefix(strings.TrimSuffix(host, "/"), "http://")
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, fmt.Sprint(DefaultPort))
	}
	return "http://" + host
}

// Scan searches for players by SSDP; households that answer are added as
// they do. It returns how long it listens.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if err := a.life.Spawn(a.search); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime, nil
}

// Add adds the household of the player at host ("192.168.1.20" or
// "host:port") and returns the ids of its players. A player that does not
// answer is an error wrapping devices.ErrUnreachable.
func (a *Adapter) Add(ctx context.Context, host string) ([]devices.ID, error) {
	if _, err := a.life.RunningFor(ctx); err != nil {
		return nil, err
	}
	uuids, err := a.addHousehold(ctx, baseURL(strings.TrimSpace(host)))
	if err != nil {
		return nil, err
	}
	ids := make([]devices.ID, len(uuids))
	for i, u := range uuids {
		ids[i] = deviceID(u)
	}
	return ids, nil
}

func deviceID(uuid string) devices.ID { return devices.ID(AdapterName + ":" + uuid) }

// hostLoop adds a configured player's household, retrying with backoff
// until it answers.
func (a *Adapter) hostLoop(ctx context.Context, base string) {
	b := devices.Backoff{Min: time.Second, Max: a.cfg.PollInterval}
	devices.Retry(ctx, b, func(int, time.Duration) error {
		actx, cancel := context.WithTimeout(ctx, 2*probeTimeout)
		defer cancel()
		_, err := a.addHousehold(actx, base)
		if err != nil {
			a.log.Debug("player not answering", "player", base, "err", err)
		}
		return err
	})
}

// search runs one SSDP search and adds the household of every player that
// answers and is not known yet.
func (a *Adapter) search(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, a.cfg.ScanTime)
	defer cancel()
	err := upnp.Search(sctx, a.cfg.ScanTargets, func(r upnp.SearchResponse) {
		base := (upnp.Member{Location: r.Location}).BaseURL()
		if base == "" || a.knownBase(base) {
			return
		}
		a.life.Go(func() {
			actx, cancel := context.WithTimeout(ctx, 2*probeTimeout)
			defer cancel()
			if _, err := a.addHousehold(actx, base); err != nil {
				a.log.Warn("adding a discovered player", "player", base, "err", err)
			}
		})
	})
	if err != nil {
		a.log.Warn("player discovery failed", "err", err)
	}
}

func (a *Adapter) knownBase(base string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.speakers {
		if s.baseURL() == base {
			return true
		}
	}
	return false
}

// addHousehold reads the topology from the player at base and adds every
// visible player of it; it returns their UUIDs.
func (a *Adapter) addHousehold(ctx context.Context, base string) ([]string, error) {
	v, err := a.client.Call(ctx, base, upnp.ZoneGroupTopology, "GetZoneGroupState")
	if err != nil {
		return nil, devices.Unreachable(err, "no answer from %s", base)
	}
	groups, err := upnp.ParseZoneGroupState(v["ZoneGroupState"])
	if err != nil {
		return nil, err
	}
	return a.applyTopology(ctx, groups), nil
}
