package main

import (
	"context"
	"fmt"

	"github.com/bifrost-hub/bifrost/devices/mqtt"
)

// MQTTConfig configures the MQTT adapter: Tasmota, Shelly Gen2+, zigbee2mqtt
// and Home Assistant discovery devices on a broker, or on one the hub runs.
type MQTTConfig struct {
	URL, User, Password, ClientID, CAFile, Embedded string
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
	}
}

// startMQTT runs the MQTT adapter when a broker URL or an embedded broker
// is set; with neither, MQTT is off.
func (m *Main) startMQTT(ctx context.Context) error {
	c := m.Config.MQTT
	cfg := mqtt.Config{URL: c.URL, Username: c.User, Password: c.Password, ClientID: c.ClientID,
		CAFile: c.CAFile, Embedded: c.Embedded, Logger: m.Logger}
	if !cfg.Enabled() {
		return nil
	}
	ad, err := mqtt.New(m.registry, cfg)
	if err != nil {
		return fmt.Errorf("mqtt: %w", err)
	}
	m.mqtt = ad
	m.scanners = append(m.scanners, ad)
	m.goRun(ctx, "mqtt", ad.Run)
	return nil
}
