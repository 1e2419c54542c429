package mqtt_test

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices/mqtt/mqtttest"
)

// mosquitto is Debian's broker, run for one test (mqtttest.Mosquitto).
type mosquitto struct {
	*mqtttest.Mosquitto
	addr string
}

func startMosquitto(t testing.TB) *mosquitto {
	m := mqtttest.StartMosquitto(t)
	return &mosquitto{Mosquitto: m, addr: m.Addr}
}

func (m *mosquitto) start(t testing.TB) { m.Start(t) }
func (m *mosquitto) stop()              { m.Stop() }
func (m *mosquitto) url() string        { return m.URL() }
