package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices/mqtt/mqtttest"
	"github.com/bifrost-hub/bifrost/service"
)

// TestAutomationsEndToEnd runs the hub's binary with the demo home and a
// real broker (Debian's mosquitto). A motion sensor and a light that the
// test plays over Home Assistant MQTT discovery (the light keeps its state
// across a restart of the hub, as a real lamp does): the motion turns the
// light on through a rule;
// the rule puts the light back after its hold; a change by hand during a
// hold wins; a condition's skip shows in the trace; and a hold outlives a
// restart of the hub, restoring on time.
func TestAutomationsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs mosquitto; skipped with -short")
	}
	bin := buildBinary(t)
	broker := mqtttest.StartMosquitto(t)
	data := t.TempDir()
	args := []string{"--mqtt-url", broker.URL(), "--latitude", "52.52", "--longitude", "13.405"}
	h := startHub(t, bin, data, args...)
	out, _ := bifrost(t, bin, "keys", "create", "--name", "rules", "--data", data)
	api := client{tb: t, hub: h, key: strings.TrimSpace(out)}

	motion := newMotionSensor(t, broker.Addr)
	sensor := waitSensor(t, api, "Hall Motion")
	motion.api, motion.id = &api, sensor
	newMQTTLight(t, broker.Addr)
	lamp := waitLight(t, api, "Hall Light")
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+lamp+"/state", map[string]any{"on": false}, nil)

	var rule automation.View
	api.must(http.StatusCreated, "POST", "/api/v1/automations", map[string]any{
		"name":          "Hall light on motion",
		"trigger":       map[string]any{"type": "sensor", "device": "Hall Motion", "to": "detected"},
		"actions":       []any{map[string]any{"type": "light", "lights": []string{"Hall Light"}, "state": map[string]any{"on": true, "brightness": 30}}},
		"restore_after": "3s",
		"enabled":       true,
	}, &rule)
	if rule.Trigger.Device != sensor || !strings.Contains(rule.Sentence, "Hall Motion") || !strings.Contains(rule.Sentence, "Hall Light") {
		t.Fatalf("the rule as saved: %+v", rule)
	}

	// Motion: the lamp goes on at 30 %, then back off after the hold.
	motion.set(t, true)
	waitLamp(t, api, lamp, "on at 30 % by the rule", func(s lampState) bool { return s.On && s.Brightness == 30 })
	waitLamp(t, api, lamp, "put back off after the hold", func(s lampState) bool { return !s.On })
	waitTrace(t, api, rule.ID, "the firing and the restore", automation.Fired, automation.Restored)

	// A change by hand during the hold wins: the lamp keeps it.
	motion.set(t, false)
	motion.set(t, true)
	waitLamp(t, api, lamp, "on at 30 % again", func(s lampState) bool { return s.On && s.Brightness == 30 })
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+lamp+"/state", map[string]any{"brightness": 80}, nil)
	waitTrace(t, api, rule.ID, "the release of the lamp", automation.Released)
	waitRule(t, api, rule.ID, "holding nothing", func(v automation.View) bool { return len(v.Holding) == 0 })
	if s := lamp1(t, api, lamp); !s.On || s.Brightness != 80 {
		t.Fatalf("after a change by hand the lamp is %+v; want it kept at 80 %%", s)
	}

	// A condition that does not hold: skipped, and the trace says why.
	api.must(http.StatusOK, "PUT", "/api/v1/media/devices/sim:living-room-tv/state", map[string]any{"power": true}, nil)
	var unlessTV automation.View
	api.must(http.StatusCreated, "POST", "/api/v1/automations", map[string]any{
		"name":       "Hall light unless the TV is on",
		"trigger":    map[string]any{"type": "sensor", "device": "Hall Motion", "to": "detected"},
		"conditions": []any{map[string]any{"type": "power", "device": "Living Room TV", "is": "off"}},
		"actions":    []any{map[string]any{"type": "power", "device": "Coffee Plug", "state": map[string]any{"on": true}}},
		"enabled":    true,
	}, &unlessTV)
	motion.set(t, false)
	motion.set(t, true)
	skip := waitTrace(t, api, unlessTV.ID, "the skip", automation.Skipped)
	if !strings.Contains(skip.Why, "Living Room TV") {
		t.Fatalf("the skip says %q; want it to name the TV", skip.Why)
	}
	// An assistant, through the MCP TypeScript SDK: a rule said with names
	// is stored and read back as a sentence, and the skip is explained.
	answers := mcpCalls(t, api, []map[string]any{
		{"name": "create_automation", "arguments": map[string]any{
			"name":          "Hall light after sunset",
			"trigger":       map[string]any{"type": "sensor", "device": "hall motion", "to": "detected"},
			"conditions":    []any{map[string]any{"type": "sun", "sun": "down"}},
			"actions":       []any{map[string]any{"type": "light", "lights": []string{"hall light"}, "state": map[string]any{"on": true, "brightness": 30}}},
			"restore_after": "5m",
		}},
		{"name": "explain_automation", "arguments": map[string]any{"automation": "Hall light unless the TV is on"}},
	})
	if a := answers[0]; a.IsError || !strings.Contains(a.Text, "When Hall Motion detects motion") || !strings.Contains(a.Text, "sunset") ||
		!strings.Contains(a.Text, "Hall Light") || !strings.Contains(a.Text, "30") || !strings.Contains(a.Text, "5 minutes") {
		t.Errorf("create_automation answered %+v", a)
	}
	if a := answers[1]; a.IsError || !strings.Contains(a.Text, "skipped") || !strings.Contains(a.Text, "Living Room TV") {
		t.Errorf("explain_automation answered %+v", a)
	}
	api.must(http.StatusNoContent, "DELETE", "/api/v1/automations/"+url.PathEscape(unlessTV.ID), nil, nil)
	api.must(http.StatusNoContent, "DELETE", "/api/v1/automations/Hall%20light%20after%20sunset", nil, nil)

	// A hold outlives a restart of the hub and restores on time.
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+lamp+"/state", map[string]any{"on": false}, nil)
	api.must(http.StatusOK, "PATCH", "/api/v1/automations/"+url.PathEscape(rule.ID), map[string]any{"restore_after": "6s"}, nil)
	motion.set(t, false)
	motion.set(t, true)
	waitLamp(t, api, lamp, "on at 30 % before the restart", func(s lampState) bool { return s.On && s.Brightness == 30 })
	held := waitRule(t, api, rule.ID, "holding the lamp", func(v automation.View) bool {
		return slices.Contains(v.Holding, lamp) && v.RestoreAt != nil
	})
	h.stop(syscall.SIGTERM, 15*time.Second)
	h = startHub(t, bin, data, args...)
	api.hub = h
	restored := waitTraceAfter(t, api, rule.ID, "the restore after the restart", automation.Restored, held.RestoreAt.Add(-time.Second))
	if late := restored.At.Sub(*held.RestoreAt); late > 5*time.Second {
		t.Fatalf("restored at %v, %v after it was due (%v)", restored.At, late, *held.RestoreAt)
	}
	waitLamp(t, api, lamp, "put back off after the restart", func(s lampState) bool { return !s.On })
}

// motionSensor is a motion sensor that announces itself by Home Assistant
// MQTT discovery, as ESPHome does, and publishes its state.
type motionSensor struct {
	c   paho.Client
	api *client // once the hub lists it
	id  string
}

func newMotionSensor(t *testing.T, addr string) *motionSensor {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("hall-motion").
		SetConnectTimeout(5 * time.Second))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting the sensor to the broker: %v", tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	m := &motionSensor{c: c}
	m.publish(t, "homeassistant/binary_sensor/hall/motion/config",
		`{"name":"Hall Motion","uniq_id":"hall-motion","stat_t":"hall/binary_sensor/motion/state","dev_cla":"motion","pl_on":"ON","pl_off":"OFF"}`)
	m.publish(t, "hall/binary_sensor/motion/state", "OFF")
	return m
}

func (m *motionSensor) publish(t *testing.T, topic, payload string) {
	t.Helper()
	if tok := m.c.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing %s: %v", topic, tok.Error())
	}
}

// set publishes the sensor's state; a change waits until the hub shows it,
// so the next one is a transition the hub sees.
func (m *motionSensor) set(t *testing.T, detected bool) {
	t.Helper()
	payload := "OFF"
	if detected {
		payload = "ON"
	}
	m.publish(t, "hall/binary_sensor/motion/state", payload)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var s service.SensorView
		m.api.must(http.StatusOK, "GET", "/api/v1/sensors/devices/"+url.PathEscape(m.id), nil, &s)
		for _, r := range s.Readings {
			if r.Bool != nil && *r.Bool == detected {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the hub did not show motion %v within 20 s", detected)
}

// waitSensor waits for a sensor named name and returns its id.
func waitSensor(t *testing.T, api client, name string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var ss []service.SensorView
		api.must(http.StatusOK, "GET", "/api/v1/sensors/devices", nil, &ss)
		for _, s := range ss {
			if s.Name == name && s.Online && len(s.Readings) > 0 {
				return string(s.ID)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no sensor %q within 20 s", name)
	return ""
}

type lampState struct {
	On         bool `json:"on"`
	Brightness int  `json:"brightness"`
}

func lamp1(t *testing.T, api client, id string) lampState {
	t.Helper()
	var l struct {
		State *lampState `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	if l.State == nil {
		return lampState{}
	}
	return *l.State
}

func waitLamp(t *testing.T, api client, id, what string, ok func(lampState) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var s lampState
	for time.Now().Before(deadline) {
		if s = lamp1(t, api, id); ok(s) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the lamp %s: not within 20 s (it is %+v)", what, s)
}

// waitTraceAfter waits for an entry of kind in a rule's trace made after
// since, and returns it.
func waitTraceAfter(t *testing.T, api client, id, what, kind string, since time.Time) automation.TraceEntry {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var trace []automation.TraceEntry
	for time.Now().Before(deadline) {
		trace = nil
		api.must(http.StatusOK, "GET", "/api/v1/automations/"+url.PathEscape(id)+"/trace", nil, &trace)
		for _, e := range trace {
			if e.Kind == kind && e.At.After(since) {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the trace %s: not within 20 s; it holds %+v", what, trace)
	return automation.TraceEntry{}
}

// mqttLight is a json-schema Home Assistant MQTT light played by the test:
// it takes commands and reports its state, retained, so the state is the
// light's own and outlives the hub.
type mqttLight struct {
	c paho.Client
}

func newMQTTLight(t *testing.T, addr string) *mqttLight {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("hall-light").
		SetConnectTimeout(5 * time.Second))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting the light to the broker: %v", tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	l := &mqttLight{c: c}
	var mu sync.Mutex
	state := map[string]any{"state": "OFF", "brightness": 255}
	report := func() {
		mu.Lock()
		b, _ := json.Marshal(state)
		mu.Unlock()
		c.Publish("hall/light/state", 1, true, b)
	}
	tok := c.Subscribe("hall/light/set", 1, func(_ paho.Client, m paho.Message) {
		var cmd map[string]any
		if json.Unmarshal(m.Payload(), &cmd) != nil {
			return
		}
		mu.Lock()
		for k, v := range cmd {
			state[k] = v
		}
		mu.Unlock()
		report()
	})
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribing the light: %v", tok.Error())
	}
	c.Publish("homeassistant/light/hall/light/config", 1, true,
		`{"name":"Hall Light","uniq_id":"hall-light","schema":"json","stat_t":"hall/light/state","cmd_t":"hall/light/set","brightness":true}`).Wait()
	report()
	return l
}

// waitLight waits for a light named name and returns its id.
func waitLight(t *testing.T, api client, name string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var ls []service.Light
		api.must(http.StatusOK, "GET", "/api/v1/lights", nil, &ls)
		for _, l := range ls {
			if l.Name == name && l.Online && l.State != nil {
				return string(l.ID)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no light %q within 20 s", name)
	return ""
}

// waitTrace waits until a rule's trace holds each of kinds, and returns
// the newest entry of the last kind.
func waitTrace(t *testing.T, api client, id, what string, kinds ...string) automation.TraceEntry {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var trace []automation.TraceEntry
	for time.Now().Before(deadline) {
		trace = nil
		api.must(http.StatusOK, "GET", "/api/v1/automations/"+url.PathEscape(id)+"/trace", nil, &trace)
		var last automation.TraceEntry
		found := 0
		for _, k := range kinds {
			for _, e := range trace { // newest first
				if e.Kind == k {
					found++
					last = e
					break
				}
			}
		}
		if found == len(kinds) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the trace %s: not within 20 s; it holds %+v", what, trace)
	return automation.TraceEntry{}
}

func waitRule(t *testing.T, api client, id, what string, ok func(automation.View) bool) automation.View {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var v automation.View
	for time.Now().Before(deadline) {
		api.must(http.StatusOK, "GET", "/api/v1/automations/"+url.PathEscape(id), nil, &v)
		if ok(v) {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the rule %s: not within 20 s (%+v)", what, v)
	return v
}
