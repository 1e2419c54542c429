package mqtt

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// testEnv is an env with a real registry and a connection that counts as
// up but has no client: enough to drive a family by hand.
func testEnv(t *testing.T) (*env, *devices.Registry) {
	t.Helper()
	reg := devices.NewRegistry(time.Second)
	c, err := newConn(Config{URL: "mqtt://127.0.0.1:1", Logger: slog.New(slog.DiscardHandler)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.live = true
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{ctx: ctx, dir: newDirectory(reg), conn: c, log: slog.New(slog.DiscardHandler),
		boxes: newMailboxes(slog.New(slog.DiscardHandler)), wg: &sync.WaitGroup{}}
	t.Cleanup(func() { cancel(); e.boxes.close(); e.wg.Wait(); reg.Close() })
	return e, reg
}

// changes counts the registry's notifications by kind.
type changes struct {
	mu                      sync.Mutex
	added, removed, changed int
}

func watch(reg *devices.Registry) *changes {
	c := &changes{}
	reg.Subscribe(func(ch devices.Change) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case ch.Added:
			c.added++
		case ch.Removed:
			c.removed++
		default:
			c.changed++
		}
	})
	return c
}

func (c *changes) counts() (added, removed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added, c.removed
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const (
	motionConfig = `{"name":"Motion","uniq_id":"n-motion","stat_t":"n/motion","dev_cla":"motion","off_delay":0.5,"dev":{"ids":["n"],"name":"Node"}}`
	tempConfig   = `{"name":"Temperature","uniq_id":"n-temp","stat_t":"n/temp","val_tpl":"{{ value_json.t }}","dev_cla":"temperature","unit_of_meas":"°F","dev":{"ids":["n"],"name":"Node"}}`
)

func TestDiscoveryLifecycle(t *testing.T) {
	e, reg := testEnv(t)
	seen := watch(reg)
	d := newDiscovery(e, "homeassistant")
	motion, temp := "homeassistant/binary_sensor/n/motion/config", "homeassistant/sensor/n/temp/config"
	d.handle(motion, []byte(motionConfig))
	d.handle(temp, []byte(tempConfig))
	d.handle(motion, []byte(motionConfig)) // retained again after a reconnection: nothing changes

	const group = devices.ID("mqtt:ha.n.sensor")
	dev, ok := reg.Get(group)
	if !ok {
		t.Fatal("the node's sensors made no device")
	}
	if added, _ := seen.counts(); added != 1 {
		t.Fatalf("%d devices added; want the one sensor device of the node", added)
	}
	s := dev.(*sensorDevice)
	d.handle("n/temp", []byte(`{"t":68}`))
	d.handle("n/motion", []byte("ON"))
	rs, err := s.Readings(context.Background())
	if err != nil || len(rs) != 2 {
		t.Fatalf("readings %+v, %v", rs, err)
	}
	byType := map[string]devices.Reading{}
	for _, r := range rs {
		byType[r.Type] = r
	}
	if byType[devices.ReadingTemperature].Value != 20 {
		t.Errorf("68 °F read as %v °C", byType[devices.ReadingTemperature].Value)
	}
	if p, ok := byType[devices.ReadingMotion].Presence(); !ok || !p {
		t.Errorf("motion ON read as %+v", byType[devices.ReadingMotion])
	}
	waitFor(t, "off_delay to clear the motion", func() bool {
		rs, _ := s.Readings(context.Background())
		for _, r := range rs {
			if p, ok := r.Presence(); ok && !p {
				return true
			}
		}
		return false
	})

	d.handle(motion, nil) // removed: the node keeps its temperature
	if _, ok := reg.Get(group); !ok {
		t.Fatal("removing one entity removed the node's sensor device")
	}
	if rs, _ := s.Readings(context.Background()); len(rs) != 1 {
		t.Fatalf("readings after removing motion: %+v", rs)
	}
	d.handle(temp, nil)
	if _, ok := reg.Get(group); ok {
		t.Fatal("a device without entities is still registered")
	}
	if _, removed := seen.counts(); removed != 1 {
		t.Fatalf("%d removals; want 1", removed)
	}
}

func TestDiscoveryAvailability(t *testing.T) {
	e, reg := testEnv(t)
	d := newDiscovery(e, "homeassistant")
	d.handle("homeassistant/switch/n/relay/config", []byte(`{"name":"Relay","uniq_id":"n-relay","cmd_t":"n/relay/set","stat_t":"n/relay",
		"avty":[{"t":"n/status"},{"t":"n/link","val_tpl":"{{ value_json.state }}","pl_avail":"up","pl_not_avail":"down"}],"avty_mode":"all"}`))
	dev, ok := reg.Get("mqtt:ha.n-relay")
	if !ok {
		t.Fatal("no relay")
	}
	if dev.Online() {
		t.Fatal("an entity with availability topics is online before they speak")
	}
	d.handle("n/status", []byte("online"))
	if dev.Online() {
		t.Fatal("mode all: online with one of two topics")
	}
	d.handle("n/link", []byte(`{"state":"up"}`))
	if !dev.Online() {
		t.Fatal("mode all: offline with both topics available")
	}
	d.handle("n/link", []byte(`{"state":"down"}`))
	if dev.Online() {
		t.Fatal("mode all: online with one topic unavailable")
	}
	d.handle("n/relay", []byte("ON"))
	if on, known := dev.(*powerDevice).current(); !on || !known {
		t.Fatal("the relay's state was not read")
	}
}

func TestDiscoverySkipsWhatItCannotRead(t *testing.T) {
	e, reg := testEnv(t)
	d := newDiscovery(e, "homeassistant")
	for topic, cfg := range map[string]string{
		"homeassistant/sensor/n/co2/config":    `{"uniq_id":"p","stat_t":"n/p","dev_cla":"carbon_dioxide"}`,
		"homeassistant/sensor/n/tpl/config":    `{"uniq_id":"t","stat_t":"n/t","dev_cla":"temperature","val_tpl":"{{ value_json.t * 2 }}"}`,
		"homeassistant/light/n/tpl/config":     `{"uniq_id":"l","schema":"template","cmd_t":"n/l","command_on_template":"on"}`,
		"homeassistant/cover/n/blind/config":   `{"uniq_id":"c","cmd_t":"n/c"}`,
		"homeassistant/switch/n/z2m/config":    `{"uniq_id":"z","cmd_t":"n/z","dev":{"ids":["zigbee2mqtt_0x1"]}}`,
		"homeassistant/switch/n/broken/config": `{"uniq_id":`,
	} {
		d.handle(topic, []byte(cfg))
	}
	if n := len(reg.List()); n != 0 {
		t.Fatalf("%d devices registered from configs the hub cannot follow", n)
	}
}
