package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// MQTTConfig configures the MQTT adapter: Tasmota, Shelly Gen2+, zigbee2mqtt
// and Home Assistant discovery devices on a broker, or on one the hub runs.
type MQTTConfig struct {
	URL, User, Password, ClientID, CAFile, Embedded string
	// Where the families publish, when not at their defaults.
	ZigbeeBaseTopic, DiscoveryPrefix, TasmotaFullTopic string
}

func (c *MQTTConfig) options() []option {
	return []option{
		{Name: "mqtt-url", Env: "BIFROST_MQTT_URL", Value: (*stringValue)(&c.URL),
			Usage: "MQTT broker `URL`: mqtt://host[:1883], mqtts://host[:8883], ws://host[:80]/path or wss://…"},
		{Name: "mqtt-user", Env: "BIFROST_MQTT_USER", Value: (*stringValue)(&c.User),
			Usage: "MQTT `username` (with -mqtt-embedded, the login devices must use)"},
		{Name: "mqtt-password", Env: "BIFROST_MQTT_PASSWORD", Secret: true, Value: (*stringValue)(&c.Password),
			Usage: "MQTT `password`"},
		{Name: "mqtt-client-id", Env: "BIFROST_MQTT_CLIENT_ID", Value: (*stringValue)(&c.ClientID),
			Usage: "MQTT client `id` (default bifrost-<random>)"},
		{Name: "mqtt-ca-file", Env: "BIFROST_MQTT_CA_FILE", Value: (*stringValue)(&c.CAFile),
			Usage: "PEM `file` of the CAs that sign the broker's certificate (default: the system's)"},
		{Name: "mqtt-embedded", Env: "BIFROST_MQTT_EMBEDDED", Value: (*stringValue)(&c.Embedded),
			Usage: "run an MQTT broker inside the hub on `host:port` (e.g. :1883)"},
		{Name: "mqtt-zigbee-base-topic", Env: "BIFROST_MQTT_ZIGBEE_BASE_TOPIC", Value: (*stringValue)(&c.ZigbeeBaseTopic),
			Usage: "zigbee2mqtt's base_topic (default " + mqtt.DefaultZigbeeBaseTopic + ")"},
		{Name: "mqtt-discovery-prefix", Env: "BIFROST_MQTT_DISCOVERY_PREFIX", Value: (*stringValue)(&c.DiscoveryPrefix),
			Usage: "Home Assistant MQTT discovery `prefix` (default " + mqtt.DefaultDiscoveryPrefix + ")"},
		{Name: "mqtt-tasmota-full-topic", Env: "BIFROST_MQTT_TASMOTA_FULL_TOPIC", Value: (*stringValue)(&c.TasmotaFullTopic),
			Usage: "Tasmota's FullTopic (default " + mqtt.DefaultTasmotaFullTopic + ")"},
	}
}

// startMQTT prepares the MQTT adapter, which starts in startIntegrations,
// once the settings saved in the web UI can be read. It is always one of
// the scanners; it scans, and is listed, while MQTT is on.
func (m *Main) startMQTT(ctx context.Context) {
	m.mqtt = &mqttRunner{ctx: ctx, reg: m.registry, env: m.Config.MQTT, log: m.Logger, retained: retainedStore{m.db}}
	m.scanners = append(m.scanners, m.mqtt)
}

// mqttRunner runs the MQTT adapter and, when settings are saved in the web
// UI, replaces it by one with the new settings. The environment's settings
// (flags, BIFROST_MQTT_*) win over saved ones, field by field. It is the
// scanner the service holds, whichever adapter runs.
type mqttRunner struct {
	ctx context.Context // bounds every adapter's Run
	reg *devices.Registry
	env MQTTConfig
	log *slog.Logger
	// retained keeps the embedded broker's retained messages.
	retained mqtt.RetainStore

	on atomic.Bool // an adapter runs (read without mu: Apply may hold it a while)

	mu       sync.Mutex
	ad       *mqtt.Adapter // nil while MQTT is off
	startErr error         // why the last Apply could not start an adapter
	closed   bool
	runs     sync.WaitGroup
}

var (
	_ service.MQTTRunner = (*mqttRunner)(nil)
	_ devices.Switchable = (*mqttRunner)(nil)
)

// config merges the saved settings under the environment's.
func (r *mqttRunner) config(saved service.MQTTSettings) mqtt.Config {
	or := func(env, saved string) string {
		if env != "" {
			return env
		}
		return saved
	}
	e := r.env
	return mqtt.Config{URL: or(e.URL, saved.URL), Username: or(e.User, saved.Username), Password: or(e.Password, saved.Password),
		ClientID: or(e.ClientID, saved.ClientID), CAFile: or(e.CAFile, saved.CAFile), Embedded: or(e.Embedded, saved.Embedded),
		ZigbeeBaseTopic: or(e.ZigbeeBaseTopic, saved.ZigbeeBaseTopic), DiscoveryPrefix: or(e.DiscoveryPrefix, saved.DiscoveryPrefix),
		TasmotaFullTopic: or(e.TasmotaFullTopic, saved.TasmotaFullTopic),
		Retained:         r.retained, Logger: r.log}
}

// Apply stops the running adapter, if any, and starts one with saved
// under the environment's settings, unless neither names a broker.
func (r *mqttRunner) Apply(saved service.MQTTSettings) error {
	cfg := r.config(saved)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("the hub is shutting down")
	}
	wasOn := r.ad != nil
	r.stop()
	if !cfg.Enabled() {
		if wasOn {
			r.log.Info("MQTT is off now")
		}
		return nil
	}
	ad, err := mqtt.New(r.reg, cfg)
	if err != nil {
		r.startErr = err
		return err
	}
	r.ad = ad
	r.on.Store(true)
	r.runs.Go(func() {
		if err := ad.Run(r.ctx); err != nil { // only when ad was replaced before it ran
			r.log.Debug("MQTT adapter not run", "err", err)
		}
	})
	return nil
}

// stop closes the running adapter; its devices stay in the registry,
// offline, until a new adapter finds them again. The caller holds r.mu.
func (r *mqttRunner) stop() {
	r.startErr = nil
	if r.ad != nil {
		r.on.Store(false)
		_ = r.ad.Close() // Close reports nothing
		r.ad = nil
	}
}

// Fixed returns the settings the environment gives.
func (r *mqttRunner) Fixed() service.MQTTSettings {
	e := r.env
	return service.MQTTSettings{URL: e.URL, Username: e.User, Password: e.Password, ClientID: e.ClientID,
		CAFile: e.CAFile, Embedded: e.Embedded, ZigbeeBaseTopic: e.ZigbeeBaseTopic, DiscoveryPrefix: e.DiscoveryPrefix,
		TasmotaFullTopic: e.TasmotaFullTopic}
}

// Status says whether MQTT is off, connecting or connected, or why not.
func (r *mqttRunner) Status() service.IntegrationStatus {
	r.mu.Lock()
	ad, startErr := r.ad, r.startErr
	r.mu.Unlock()
	switch {
	case startErr != nil:
		return service.IntegrationStatus{State: service.IntegrationError, Message: startErr.Error()}
	case ad == nil:
		return service.IntegrationStatus{State: service.IntegrationOff, Message: "neither a broker URL nor an embedded broker address is set"}
	}
	var where string
	if addr := ad.BrokerAddr(); addr != "" {
		where = "the embedded broker listens on " + addr
	}
	switch up, err := ad.Connected(); {
	case up:
		return service.IntegrationStatus{State: service.IntegrationConnected, Message: where}
	case err != nil:
		return service.IntegrationStatus{State: service.IntegrationError, Message: err.Error()}
	}
	return service.IntegrationStatus{State: service.IntegrationConnecting, Message: where}
}

// Adapter names the adapter, for scanning.
func (r *mqttRunner) Adapter() string { return mqtt.AdapterName }

// On says whether an MQTT adapter runs.
func (r *mqttRunner) On() bool { return r.on.Load() }

// Scan scans with the running adapter.
func (r *mqttRunner) Scan(ctx context.Context) (time.Duration, error) {
	r.mu.Lock()
	ad := r.ad
	r.mu.Unlock()
	if ad == nil {
		return 0, service.Errorf(service.EUNSUPPORTED, "MQTT is off; set a broker under Settings → Integrations")
	}
	return ad.Scan(ctx)
}

// Close stops the adapter and waits for it; no Apply starts one again.
func (r *mqttRunner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.stop()
	r.mu.Unlock()
	r.runs.Wait()
	return nil
}

// retainedStore keeps the embedded broker's retained messages in the hub's
// database.
type retainedStore struct{ db *store.DB }

func (s retainedStore) LoadRetained(ctx context.Context) ([]mqtt.Retained, error) {
	saved, err := s.db.ListRetained(ctx)
	out := make([]mqtt.Retained, 0, len(saved))
	for _, r := range saved {
		out = append(out, mqtt.Retained{Topic: r.Topic, Payload: r.Payload, QoS: r.QoS})
	}
	return out, err
}

func (s retainedStore) SaveRetained(ctx context.Context, batch []mqtt.Retained) error {
	out := make([]store.Retained, 0, len(batch))
	for _, r := range batch {
		out = append(out, store.Retained{Topic: r.Topic, Payload: r.Payload, QoS: r.QoS})
	}
	return s.db.PutRetained(ctx, out)
}
