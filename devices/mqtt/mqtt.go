// Package mqtt brings the devices most homes already have on an MQTT broker
// into the hub: Tasmota relays and sensors, Shelly Gen2+ switches (MQTT
// RPC), zigbee2mqtt lights, switches, plugs, fans and sensors, and anything
// that announces itself through Home Assistant MQTT discovery (switch,
// light, fan, sensor, binary_sensor; one config per entity, or one per
// device), as ordinary Bifrost devices. A
// discovered light whose config declares segments (a WLED strip) takes
// per-segment colours as WLED JSON API commands (wled.go).
//
// The hub is one more MQTT client of the broker (or runs the broker itself,
// see Config.Embedded). Every incoming message is handed off at once to a
// queue of the device it concerns, so a slow device never stalls the
// client; the connection reconnects with backoff and jitter, resubscribes,
// and asks the devices for their state again. Devices are registered with
// ids "mqtt:<family>.<stable id>", and a device whose availability (LWT)
// says offline refuses commands at once.
package mqtt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// AdapterName is the adapter name of every MQTT device.
const AdapterName = "mqtt"

// Defaults of the topic layout of each family.
const (
	DefaultZigbeeBaseTopic  = "zigbee2mqtt"
	DefaultDiscoveryPrefix  = "homeassistant"
	DefaultTasmotaFullTopic = "%prefix%/%topic%/"
)

// Config configures the adapter. With neither URL nor Embedded set the
// adapter is off (see Enabled).
type Config struct {
	// URL is the broker: mqtt://host[:1883], mqtts://host[:8883],
	// ws://host[:80]/path or wss://host[:443]/path. When empty and Embedded
	// is set, the hub connects to its own broker.
	URL      string
	Username string
	Password string
	// ClientID names the hub to the broker; "bifrost-" and a random suffix
	// when empty.
	ClientID string
	// CAFile is a PEM bundle of the CAs that sign the broker's certificate
	// (mqtts://, wss://); the system roots when empty.
	CAFile string
	// Embedded is the listen address (e.g. ":1883") of an MQTT broker run
	// inside the hub, for homes without one. It takes Username and Password
	// as the one account devices must use; without them it lets any client
	// in.
	Embedded string
	// Retained keeps the embedded broker's retained messages across
	// restarts (nil: in memory only).
	Retained RetainStore

	// ZigbeeBaseTopic is zigbee2mqtt's base_topic (default "zigbee2mqtt").
	ZigbeeBaseTopic string
	// DiscoveryPrefix is Home Assistant's discovery prefix (default
	// "homeassistant").
	DiscoveryPrefix string
	// TasmotaFullTopic is Tasmota's FullTopic (default "%prefix%/%topic%/").
	TasmotaFullTopic string

	Logger *slog.Logger
}

// Enabled reports whether the configuration asks for the adapter at all.
func (c Config) Enabled() bool { return c.URL != "" || c.Embedded != "" }

// family is one firmware family's handling of the broker's traffic.
type family interface {
	// filters are the topic filters the family always listens to.
	filters() []string
	// route says whether topic is the family's and, if so, which queue
	// (one per device) handles it.
	route(topic string) (key string, ok bool)
	// handle processes one message, on the queue route chose.
	handle(topic string, payload []byte)
	// connected runs after every (re)connection, once subscribed: the
	// family asks its devices for the state that is not retained.
	connected()
}

// Adapter is the MQTT adapter: one broker connection (and optionally the
// embedded broker) and the device families that share it.
type Adapter struct {
	cfg    Config
	log    *slog.Logger
	dir    *directory
	boxes  *mailboxes
	conn   *conn
	broker *broker

	families []family
	scan     *tasmota  // asked to report in on a scan
	gen1     *shellies // asked to announce themselves on a scan
	// ctx bounds the families' own work (queries, probes); Close ends it
	// and waits for wg, the goroutines of async.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	runMu   sync.Mutex
	running bool
	closed  bool
}

// New builds the adapter; devices it finds are added to reg. With
// Config.Embedded set it starts the embedded broker at once, so a busy
// port is reported here. Call Run to connect, Close to stop.
func New(reg *devices.Registry, cfg Config) (*Adapter, error) {
	if !cfg.Enabled() {
		return nil, errors.New("mqtt: neither a broker URL nor an embedded broker address is configured")
	}
	cfg = withDefaults(cfg)
	if err := checkTopics(cfg); err != nil {
		return nil, err
	}
	a := &Adapter{cfg: cfg, log: cfg.Logger, dir: newDirectory(reg), boxes: newMailboxes(cfg.Logger)}
	if cfg.Embedded != "" {
		b, err := startBroker(cfg.Embedded, cfg.Username, cfg.Password, cfg.Retained, cfg.Logger)
		if err != nil {
			return nil, err
		}
		a.broker = b
		if a.cfg.URL == "" {
			a.cfg.URL = b.url()
		}
	}
	c, err := newConn(a.cfg, a.onMessage, a.onLink)
	if err != nil {
		a.closeBroker()
		return nil, err
	}
	a.conn = c
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.buildFamilies()
	return a, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Logger = cfg.Logger.With("adapter", AdapterName)
	if cfg.ClientID == "" {
		cfg.ClientID = "bifrost-" + randomHex(4)
	}
	if cfg.ZigbeeBaseTopic == "" {
		cfg.ZigbeeBaseTopic = DefaultZigbeeBaseTopic
	}
	if cfg.DiscoveryPrefix == "" {
		cfg.DiscoveryPrefix = DefaultDiscoveryPrefix
	}
	if cfg.TasmotaFullTopic == "" {
		cfg.TasmotaFullTopic = DefaultTasmotaFullTopic
	}
	return cfg
}

func (a *Adapter) buildFamilies() {
	e := &env{ctx: a.ctx, dir: a.dir, conn: a.conn, log: a.log, boxes: a.boxes, wg: &a.wg}
	a.scan = newTasmota(e, a.cfg.TasmotaFullTopic)
	a.gen1 = newShellies(e)
	a.families = []family{
		a.scan,
		newShelly(e, rpcSource(a.cfg.ClientID)),
		a.gen1,
		newZigbee(e, a.cfg.ZigbeeBaseTopic),
		newDiscovery(e, a.cfg.DiscoveryPrefix),
	}
	filters := []string{}
	for _, f := range a.families {
		filters = append(filters, f.filters()...)
	}
	a.conn.setFilters(filters)
}

// BrokerAddr is the address the embedded broker listens on ("" without
// one); with Embedded ":0" it tells the port chosen.
func (a *Adapter) BrokerAddr() string {
	if a.broker == nil {
		return ""
	}
	return a.broker.addr()
}

// Connected reports whether the hub is connected to the broker (and
// subscribed). When it is not, err is why the last attempt to connect
// failed: nil before the first attempt ends, or while a lost connection is
// being restored.
func (a *Adapter) Connected() (ok bool, err error) { return a.conn.state() }

// Run connects to the broker and keeps the connection (reconnecting with
// backoff) until ctx ends or Close is called.
func (a *Adapter) Run(ctx context.Context) error {
	a.runMu.Lock()
	if a.running || a.closed {
		a.runMu.Unlock()
		return errors.New("mqtt: adapter already running or closed")
	}
	a.running = true
	a.runMu.Unlock()
	a.log.Info("connecting to the MQTT broker", "url", redactURL(a.cfg.URL), "client_id", a.cfg.ClientID)
	a.conn.run(ctx)
	return nil
}

// Close disconnects from the broker, stops the embedded broker and waits
// for the device queues to drain. The devices stay in the registry, offline.
func (a *Adapter) Close() error {
	a.runMu.Lock()
	if a.closed {
		a.runMu.Unlock()
		return nil
	}
	a.closed = true
	a.runMu.Unlock()
	a.cancel()
	a.conn.close()  // no more messages, nor reconnections
	a.boxes.close() // queued jobs run (they may start async work, which ends with ctx)
	a.wg.Wait()
	a.closeBroker()
	return nil
}

func (a *Adapter) closeBroker() {
	if a.broker != nil {
		a.broker.close()
	}
}

var _ devices.Scanner = (*Adapter)(nil)

// Adapter names the adapter, for scanning.
func (a *Adapter) Adapter() string { return AdapterName }

// Scan asks every Tasmota (their group topic) and every Shelly Gen1
// (shellies/command) on the broker to report in; the other families
// announce themselves with retained messages, which the hub already
// follows. Devices found turn up within a few seconds.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if !a.conn.up() {
		return 0, errNotConnected
	}
	if err := a.scan.queryGroup(ctx); err != nil {
		return 0, err
	}
	if err := a.gen1.ask(ctx); err != nil {
		return 0, err
	}
	return 3 * time.Second, nil
}

// onMessage hands a message to the queue of the device it concerns; it
// never blocks, so the MQTT client keeps reading whatever a device does.
func (a *Adapter) onMessage(topic string, payload []byte) {
	for _, f := range a.families {
		if key, ok := f.route(topic); ok {
			a.boxes.post(key, func() { f.handle(topic, payload) })
		}
	}
}

// onLink follows the broker connection: every device's availability
// depends on it, and after a (re)connection the families resynchronise.
func (a *Adapter) onLink(up bool) {
	if up {
		a.log.Info("connected to the MQTT broker")
		for _, f := range a.families {
			f.connected()
		}
	} else if a.ctx.Err() == nil {
		a.log.Warn("lost the MQTT broker connection; devices are offline until it is back")
	}
	a.dir.linkChanged()
}

// env is what the families share.
type env struct {
	ctx   context.Context
	dir   *directory
	conn  *conn
	log   *slog.Logger
	boxes *mailboxes
	wg    *sync.WaitGroup
}

// async runs fn on its own goroutine, one Close waits for. fn should end
// soon after ctx does.
func (e *env) async(fn func()) { e.wg.Go(fn) }

// checkTopics refuses topic settings the families cannot subscribe under.
func checkTopics(cfg Config) error {
	for name, t := range map[string]string{"zigbee2mqtt base topic": cfg.ZigbeeBaseTopic, "discovery prefix": cfg.DiscoveryPrefix} {
		if strings.ContainsAny(t, "+#") || strings.HasPrefix(t, "/") || strings.HasSuffix(t, "/") || strings.Contains(t, "//") {
			return fmt.Errorf("mqtt: the %s %q is not a topic to subscribe under (no wildcards, no empty levels)", name, t)
		}
	}
	ft := cfg.TasmotaFullTopic
	if !strings.Contains(ft, "%prefix%") || !strings.Contains(ft, "%topic%") || strings.ContainsAny(ft, "+#") {
		return fmt.Errorf("mqtt: Tasmota's FullTopic %q must hold %%prefix%% and %%topic%% and no wildcards, as in %s", ft, DefaultTasmotaFullTopic)
	}
	return nil
}
