package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt/mqtttest"
)

func TestZigbeeGetRequestReadsWhatTheExposesAllow(t *testing.T) {
	exposes := func(s string) []zExpose {
		var e []zExpose
		if err := json.Unmarshal([]byte(s), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, c := range []struct{ name, exposes, want string }{
		{"colour lamp", `[{"type":"light","features":[
			{"type":"binary","name":"state","property":"state","access":7},
			{"type":"numeric","name":"brightness","property":"brightness","access":7},
			{"type":"numeric","name":"color_temp","property":"color_temp","access":7},
			{"type":"numeric","name":"color_temp_startup","property":"color_temp_startup","access":7},
			{"type":"composite","name":"color_xy","property":"color","access":7}]},
			{"type":"enum","name":"effect","property":"effect","access":2},
			{"type":"numeric","name":"linkquality","property":"linkquality","access":1}]`,
			`{"brightness":"","color":"","color_temp":"","state":""}`},
		{"plug with a meter", `[{"type":"switch","features":[{"type":"binary","name":"state","property":"state","access":7}]},
			{"type":"numeric","name":"power","property":"power","access":5},{"type":"numeric","name":"energy","property":"energy","access":1}]`,
			`{"power":"","state":""}`},
		{"two-gang switch", `[{"type":"switch","endpoint":"l1","features":[{"type":"binary","name":"state","property":"state_l1","access":7}]},
			{"type":"switch","endpoint":"l2","features":[{"type":"binary","name":"state","property":"state_l2","access":3}]}]`,
			`{"state_l1":""}`},
		{"exposes without access bits", `[{"type":"light","features":[{"type":"binary","name":"state","property":"state"},{"type":"numeric","name":"brightness","property":"brightness"}]}]`,
			`{"state":""}`},
		{"sleepy motion sensor", `[{"type":"binary","name":"occupancy","property":"occupancy","access":1},{"type":"numeric","name":"battery","property":"battery","access":1}]`,
			``},
	} {
		if got := string(getRequest(exposes(c.exposes))); got != c.want {
			t.Errorf("%s: /get payload %q; want %q", c.name, got, c.want)
		}
	}
}

func TestTokenBucketLetsBurstThenRate(t *testing.T) {
	clk := newFakeClock()
	b := newTokenBucket(2, 3, clk)
	granted := func() (n int) {
		for b.reserve() == 0 {
			n++
		}
		return n
	}
	if n := granted(); n != 3 {
		t.Fatalf("%d tokens at once; want the burst of 3", n)
	}
	clk.advance(400 * time.Millisecond)
	if n := granted(); n != 0 {
		t.Fatalf("%d tokens 0.4 s later at 2/s; want none", n)
	}
	clk.advance(100 * time.Millisecond)
	if n := granted(); n != 1 {
		t.Fatalf("%d tokens 0.5 s later at 2/s; want 1", n)
	}
	clk.advance(time.Hour)
	if n := granted(); n != 3 {
		t.Fatalf("%d tokens after an hour; want the burst of 3, no more", n)
	}
	if b.granted != 7 {
		t.Fatalf("the bucket counted %d tokens; want 7", b.granted)
	}
}

// TestZigbeeDevicesAreAskedForTheirState runs a zigbee2mqtt that retains
// bridge/devices but no device state (its default) on a real broker, and
// follows every /get the hub sends. The hub's bucket runs on a fake clock
// (2 a second, bursts of 3), so the test says exactly when a token is due
// and counts the requests against it.
func TestZigbeeDevicesAreAskedForTheirState(t *testing.T) {
	broker := mqtttest.StartMosquitto(t)
	z2m := newFakeZ2M(broker.Addr)
	for i := range 6 {
		z2m.add(fakeLamp(i))
	}
	z2m.add(fakeDevice{ieee: "0x00158d0000000099", name: "Hall motion", exposes: `[{"type":"binary","name":"occupancy","property":"occupancy","access":1}]`})
	z2m.connect(t)

	reg := devices.NewRegistry(time.Second)
	a, err := New(reg, Config{URL: broker.URL()})
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	z := a.zigbeeFamily()
	z.gets.bucket = newTokenBucket(2, 3, clk)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	t.Cleanup(func() { cancel(); _ = a.Close(); wg.Wait(); reg.Close() })

	// The limit: never more than the burst plus what the clock has earned,
	// and every token the bucket hands out is one request on the wire.
	start := clk.Now()
	checkLimit := func(t *testing.T) {
		t.Helper()
		z.gets.bucket.mu.Lock()
		granted := z.gets.bucket.granted
		z.gets.bucket.mu.Unlock()
		if allowed := 3 + int(clk.Now().Sub(start)/(500*time.Millisecond)); granted > allowed {
			t.Fatalf("%d requests by %v: the bucket allows %d", granted, clk.Now().Sub(start), allowed)
		}
		if n := z2m.total(); n != granted {
			t.Fatalf("%d requests on the wire, %d tokens taken", n, granted)
		}
	}
	// step lets one token's time pass once the hub waits for it, and
	// waits for the request it allows.
	step := func(t *testing.T) {
		t.Helper()
		waitFor(t, "the hub to wait for a token", func() bool { return clk.sleeping() == 1 })
		before := z2m.total()
		clk.advance(500 * time.Millisecond)
		waitFor(t, "the request a token allows", func() bool { return z2m.total() == before+1 })
		checkLimit(t)
	}
	// settled waits for the queue to drain and checks each lamp was asked
	// want[i] times in all, and the motion sensor never (it cannot be read).
	settled := func(t *testing.T, want []int) {
		t.Helper()
		n := 0
		for _, w := range want {
			n += w
		}
		deadline := time.Now().Add(5 * time.Second)
		for !z.gets.idle() || z2m.total() != n {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %d requests: %d sent (%v), queue idle %v, %d waiting for a token",
					n, z2m.total(), z2m.all(), z.gets.idle(), clk.sleeping())
			}
			time.Sleep(5 * time.Millisecond)
		}
		checkLimit(t)
		for i, w := range want {
			if got := z2m.asked(fakeLamp(i).name); len(got) != w {
				t.Errorf("%s asked %d times; want %d", fakeLamp(i).name, len(got), w)
			}
		}
		if got := z2m.asked("Hall motion"); len(got) != 0 {
			t.Errorf("the motion sensor, which has nothing readable, was asked %v", got)
		}
	}

	// At start: the burst goes at once, then one per token.
	waitFor(t, "the burst", func() bool { return z2m.total() == 3 && clk.sleeping() == 1 })
	checkLimit(t)
	for range 3 {
		step(t)
	}
	settled(t, []int{1, 1, 1, 1, 1, 1})
	if got := z2m.asked(fakeLamp(0).name); got[0] != `{"brightness":"","state":""}` {
		t.Errorf("the lamp was asked %s; want its exposed readable properties", got[0])
	}
	lamp := deviceID("z2m", fakeLamp(0).ieee)
	waitFor(t, "the lamp's state from its answer", func() bool {
		dev, ok := reg.Get(lamp)
		if !ok {
			return false
		}
		st, known := dev.(*lightDevice).current()
		return known && st.On && st.Brightness == 50
	})

	// A lamp that joins later is asked, and only it.
	z2m.add(fakeLamp(6))
	z2m.publishDevices()
	step(t)
	settled(t, []int{1, 1, 1, 1, 1, 1, 1})

	// After the broker restarts, every lamp is asked again, at the same pace.
	broker.Stop()
	waitFor(t, "the hub to notice the broker is gone", func() bool { return !a.conn.up() })
	broker.Start(t)
	waitFor(t, "the hub and zigbee2mqtt back on the broker", func() bool { return a.conn.up() && z2m.connections() == 2 })
	for range 7 {
		step(t)
	}
	settled(t, []int{2, 2, 2, 2, 2, 2, 2})

	// zigbee2mqtt restarting (bridge offline, then online) asks them again.
	z2m.publish("zigbee2mqtt/bridge/state", `{"state":"offline"}`)
	z2m.publish("zigbee2mqtt/bridge/state", `{"state":"online"}`)
	for range 7 {
		step(t)
	}
	settled(t, []int{3, 3, 3, 3, 3, 3, 3})
}

// zigbeeFamily is the adapter's zigbee2mqtt family.
func (a *Adapter) zigbeeFamily() *zigbee {
	for _, f := range a.families {
		if z, ok := f.(*zigbee); ok {
			return z
		}
	}
	panic("no zigbee2mqtt family")
}

// fakeDevice is one device of the fake zigbee2mqtt.
type fakeDevice struct{ ieee, name, exposes string }

func fakeLamp(i int) fakeDevice {
	return fakeDevice{ieee: fmt.Sprintf("0x00178801000000%02d", i), name: fmt.Sprintf("Lamp %d", i),
		exposes: `[{"type":"light","features":[{"type":"binary","name":"state","property":"state","value_on":"ON","value_off":"OFF","access":7},` +
			`{"type":"numeric","name":"brightness","property":"brightness","value_max":254,"access":7}]}]`}
}

// fakeZ2M is zigbee2mqtt with its defaults: bridge/state and bridge/devices
// retained, device states not. It answers a /get with the device's state.
// It publishes with QoS 0, as zigbee2mqtt does by default (and so keeps
// clear of paho v1.5.1 racing when it resends stored messages on
// reconnecting).
type fakeZ2M struct {
	addr   string
	client paho.Client

	mu    sync.Mutex
	devs  []fakeDevice
	gets  map[string][]string // name → the payloads of its /get requests
	count int
	conns int
}

func newFakeZ2M(addr string) *fakeZ2M {
	return &fakeZ2M{addr: addr, gets: map[string][]string{}}
}

func (f *fakeZ2M) add(d fakeDevice) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.devs = append(f.devs, d)
}

func (f *fakeZ2M) connect(t *testing.T) {
	opts := paho.NewClientOptions().AddBroker("mqtt://" + f.addr).SetClientID("fake-zigbee2mqtt").
		SetCleanSession(true).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(100 * time.Millisecond).SetMaxReconnectInterval(200 * time.Millisecond).
		SetOnConnectHandler(func(c paho.Client) {
			tok := c.Subscribe("zigbee2mqtt/#", 0, func(_ paho.Client, m paho.Message) { f.received(m.Topic(), m.Payload()) })
			if tok.WaitTimeout(5*time.Second) && tok.Error() == nil {
				f.mu.Lock()
				first := f.conns == 0
				f.mu.Unlock()
				if first {
					c.Publish("zigbee2mqtt/bridge/state", 0, true, `{"state":"online"}`).Wait()
				}
				f.publishDevicesOn(c)
				f.mu.Lock()
				f.conns++
				f.mu.Unlock()
			}
		})
	f.client = paho.NewClient(opts)
	if tok := f.client.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("the fake zigbee2mqtt cannot connect: %v", tok.Error())
	}
	waitFor(t, "the fake zigbee2mqtt to subscribe", func() bool { return f.connections() == 1 })
	t.Cleanup(func() { f.client.Disconnect(100) })
}

func (f *fakeZ2M) publishDevices() { f.publishDevicesOn(f.client) }

func (f *fakeZ2M) publishDevicesOn(c paho.Client) {
	f.mu.Lock()
	list := []any{map[string]any{"ieee_address": "0x00124b0000000001", "type": "Coordinator", "friendly_name": "Coordinator", "definition": nil}}
	for _, d := range f.devs {
		list = append(list, map[string]any{"ieee_address": d.ieee, "friendly_name": d.name, "type": "Router",
			"definition": map[string]any{"model": "M", "vendor": "V", "description": "d", "exposes": json.RawMessage(d.exposes)}})
	}
	f.mu.Unlock()
	b, _ := json.Marshal(list)
	c.Publish("zigbee2mqtt/bridge/devices", 0, true, b).Wait()
}

func (f *fakeZ2M) publish(topic, payload string) {
	f.client.Publish(topic, 0, true, payload).Wait()
}

func (f *fakeZ2M) received(topic string, payload []byte) {
	name, ok := strings.CutSuffix(strings.TrimPrefix(topic, "zigbee2mqtt/"), "/get")
	if !ok {
		return
	}
	f.mu.Lock()
	f.gets[name] = append(f.gets[name], string(payload))
	f.count++
	f.mu.Unlock()
	go f.client.Publish("zigbee2mqtt/"+name, 0, false, `{"state":"ON","brightness":127,"linkquality":90}`)
}

func (f *fakeZ2M) asked(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.gets[name])
}

func (f *fakeZ2M) all() map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.gets)
}

func (f *fakeZ2M) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count
}

func (f *fakeZ2M) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[chan struct{}]time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), sleepers: map[chan struct{}]time.Time{}}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) bool {
	wake := make(chan struct{})
	c.mu.Lock()
	c.sleepers[wake] = c.now.Add(d)
	c.mu.Unlock()
	select {
	case <-wake:
		return true
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.sleepers, wake)
		c.mu.Unlock()
		return false
	}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for wake, until := range c.sleepers {
		if !until.After(c.now) {
			close(wake)
			delete(c.sleepers, wake)
		}
	}
}

func (c *fakeClock) sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}
