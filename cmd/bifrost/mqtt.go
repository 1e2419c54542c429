package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt"
	"github.com/bifrost-hub/bifrost/integrations"
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

// startMQTT prepares the runner of the MQTT adapter, which starts in
// startIntegrations, once the settings saved in the web UI can be read.
// The environment's settings (flags, BIFROST_MQTT_*) win over saved ones,
// field by field. Its scanner is always one of the scanners; it scans, and
// is listed, while MQTT is on.
func (m *Main) startMQTT(ctx context.Context) {
	retained := retainedStore{m.db}
	m.mqtt = integrations.NewRunner(ctx, integrations.RunnerConfig[integrations.MQTTSettings]{
		Env: m.Config.MQTT.settings(), Logger: m.Logger,
		Off:    "neither a broker URL nor an embedded broker address is set",
		OffLog: "MQTT is off now", StopLog: "MQTT adapter not run", // Run fails only when closed before it ran
		Start: func(s integrations.MQTTSettings) (integrations.Adapter, error) {
			return newMQTTAdapter(m.registry, mqttConfig(s, retained, m.Logger))
		},
	})
	m.scanners = append(m.scanners, mqttScanner{m.mqtt})
}

// settings are the MQTT settings the environment gives.
func (c *MQTTConfig) settings() integrations.MQTTSettings {
	return integrations.MQTTSettings{URL: c.URL, Username: c.User, Password: c.Password, ClientID: c.ClientID,
		CAFile: c.CAFile, Embedded: c.Embedded, ZigbeeBaseTopic: c.ZigbeeBaseTopic, DiscoveryPrefix: c.DiscoveryPrefix,
		TasmotaFullTopic: c.TasmotaFullTopic}
}

// mqttConfig is the adapter's configuration for settings.
func mqttConfig(s integrations.MQTTSettings, retained mqtt.RetainStore, log *slog.Logger) mqtt.Config {
	return mqtt.Config{URL: s.URL, Username: s.Username, Password: s.Password, ClientID: s.ClientID, CAFile: s.CAFile,
		Embedded: s.Embedded, ZigbeeBaseTopic: s.ZigbeeBaseTopic, DiscoveryPrefix: s.DiscoveryPrefix,
		TasmotaFullTopic: s.TasmotaFullTopic, Retained: retained, Logger: log}
}

// newMQTTAdapter makes the MQTT adapter for cfg; none when cfg names no
// broker.
func newMQTTAdapter(reg *devices.Registry, cfg mqtt.Config) (integrations.Adapter, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	ad, err := mqtt.New(reg, cfg)
	if err != nil {
		return nil, err
	}
	return mqttAdapter{ad}, nil
}

// mqttAdapter is the MQTT adapter as the runner runs it.
type mqttAdapter struct{ *mqtt.Adapter }

// Status says whether the adapter is connected to the broker, or why not.
func (a mqttAdapter) Status() integrations.Status {
	var where string
	if addr := a.BrokerAddr(); addr != "" {
		where = "the embedded broker listens on " + addr
	}
	switch up, err := a.Connected(); {
	case up:
		return integrations.Status{State: integrations.StateConnected, Message: where}
	case err != nil:
		return integrations.Status{State: integrations.StateError, Message: err.Error()}
	}
	return integrations.Status{State: integrations.StateConnecting, Message: where}
}

// mqttScanner scans with the MQTT adapter that runs, whichever it is: it
// is the scanner the service holds.
type mqttScanner struct {
	runner *integrations.Runner[integrations.MQTTSettings]
}

var _ devices.Switchable = mqttScanner{}

// Adapter names the adapter, for scanning.
func (s mqttScanner) Adapter() string { return mqtt.AdapterName }

// On says whether an MQTT adapter runs.
func (s mqttScanner) On() bool { return s.runner.On() }

// Scan scans with the running adapter.
func (s mqttScanner) Scan(ctx context.Context) (time.Duration, error) {
	ad, ok := s.runner.Running().(mqttAdapter)
	if !ok {
		return 0, service.Errorf(service.EUNSUPPORTED, "MQTT is off; set a broker under Settings → Integrations")
	}
	return ad.Scan(ctx)
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
