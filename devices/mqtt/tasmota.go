package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Tasmota (PROTOCOLS.md §5.1): commands on cmnd/<topic>/<Command>, replies
// on stat/<topic>/RESULT and stat/<topic>/POWER<n>, telemetry on
// tele/<topic>/STATE and tele/<topic>/SENSOR, availability on the retained
// tele/<topic>/LWT. Each relay (POWER, POWER1…POWER8) is a power device of
// its own, except the output that switches a lamp (tasmota_light.go); the
// readings of tele/…/SENSOR make one sensor device.

// tasmotaGroup is Tasmota's default GroupTopic: one command reaches every
// device.
const tasmotaGroup = "tasmotas"

var powerKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^POWER([1-8]?)$`) })

type tasmota struct {
	e *env
	// pattern is FullTopic split into levels, without the trailing empty
	// one: "%prefix%/%topic%/" → ["%prefix%", "%topic%"].
	pattern []string

	mu    sync.Mutex
	nodes map[string]*tasmotaNode
}

// tasmotaNode is one Tasmota: its relays and its sensor. Only its own
// queue touches the fields below values.
type tasmotaNode struct {
	key    string            // the captured topic levels, e.g. "tasmota_1A2B3C"
	values map[string]string // FullTopic placeholder → value

	names      []string // FriendlyName per relay, from STATUS
	deviceName string
	relays     map[int]*powerDevice
	lamp       *tasmotaLamp // what its state says of its lamp; nil: no lamp
	light      *lightDevice
	sensor     *sensorDevice
	up         bool
	upKnown    bool
	// Until the node has answered STATUS (its names), new relays and
	// sensors wait here, so they are registered under their names.
	named          bool
	waiting        bool
	pendingPower   map[string]bool
	pendingLamp    map[string]any
	pendingReading map[string]devices.Reading
}

func newTasmota(e *env, fullTopic string) *tasmota {
	p := strings.Split(strings.TrimSuffix(fullTopic, "/"), "/")
	return &tasmota{e: e, pattern: p, nodes: map[string]*tasmotaNode{}}
}

func (t *tasmota) filters() []string {
	return []string{t.topicFor("stat", nil, "+"), t.topicFor("tele", nil, "+")}
}

// topicFor builds a topic from FullTopic: prefix, the node's placeholder
// values ('+' where nil), and the command.
func (t *tasmota) topicFor(prefix string, values map[string]string, command string) string {
	levels := make([]string, 0, len(t.pattern)+1)
	for _, p := range t.pattern {
		switch {
		case p == "%prefix%":
			levels = append(levels, prefix)
		case isPlaceholder(p) && values == nil:
			levels = append(levels, "+")
		case isPlaceholder(p):
			levels = append(levels, values[p])
		default:
			levels = append(levels, p)
		}
	}
	return strings.Join(append(levels, command), "/")
}

func isPlaceholder(level string) bool {
	return len(level) > 2 && strings.HasPrefix(level, "%") && strings.HasSuffix(level, "%")
}

// parse splits a topic along FullTopic.
func (t *tasmota) parse(topic string) (prefix, key string, values map[string]string, command string, ok bool) {
	levels := strings.Split(topic, "/")
	if len(levels) != len(t.pattern)+1 {
		return "", "", nil, "", false
	}
	values = map[string]string{}
	var keys []string
	for i, p := range t.pattern {
		switch {
		case p == "%prefix%":
			prefix = levels[i]
		case isPlaceholder(p):
			if levels[i] == "" {
				return "", "", nil, "", false
			}
			values[p] = levels[i]
			keys = append(keys, levels[i])
		case p != levels[i]:
			return "", "", nil, "", false
		}
	}
	if (prefix != "stat" && prefix != "tele") || len(keys) == 0 {
		return "", "", nil, "", false
	}
	return prefix, strings.Join(keys, "/"), values, levels[len(levels)-1], true
}

func (t *tasmota) route(topic string) (string, bool) {
	_, key, _, _, ok := t.parse(topic)
	if !ok || key == tasmotaGroup {
		return "", false
	}
	return "tasmota:" + key, true
}

func (t *tasmota) node(key string, values map[string]string) *tasmotaNode {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nodes[key]
	if n == nil {
		n = &tasmotaNode{key: key, values: values, relays: map[int]*powerDevice{}}
		t.nodes[key] = n
	}
	return n
}

func (t *tasmota) handle(topic string, payload []byte) {
	prefix, key, values, command, ok := t.parse(topic)
	if !ok {
		return
	}
	n := t.node(key, values)
	if prefix == "tele" && command == "LWT" {
		if up, ok := availability(payload); ok {
			t.setAvailable(n, up)
			if up {
				t.query(n) // it says Online on every connection: ask what it missed
			}
		}
		return
	}
	if !n.upKnown {
		t.setAvailable(n, true) // it talks, so it is there; ask for the rest
		t.query(n)
	} else if !n.up {
		t.setAvailable(n, true)
	}
	switch {
	case prefix == "stat" && powerKey().MatchString(command):
		if on, ok := onOff(string(payload)); ok {
			t.reportRelay(n, command, on)
		}
	case (prefix == "tele" && command == "STATE") || (prefix == "stat" && command == "RESULT"):
		t.state(n, payload)
	case prefix == "stat" && command == "STATUS":
		t.status(n, payload)
	case prefix == "tele" && command == "SENSOR":
		t.sensors(n, payload, "")
	case prefix == "stat" && (command == "STATUS8" || command == "STATUS10"):
		t.sensors(n, payload, "StatusSNS")
	}
}

// setAvailable follows a node's availability.
func (t *tasmota) setAvailable(n *tasmotaNode, up bool) {
	n.up, n.upKnown = up, true
	for _, d := range t.devicesOf(n) {
		if d.setAvailable(up) {
			d.changed()
		}
	}
}

func (t *tasmota) devicesOf(n *tasmotaNode) []*base {
	var out []*base
	for _, r := range n.relays {
		out = append(out, r.base)
	}
	if n.light != nil {
		out = append(out, n.light.base)
	}
	if n.sensor != nil {
		out = append(out, n.sensor.base)
	}
	return out
}

// tasmotaQueries ask a Tasmota for its relay and lamp states (STATE), its
// names (STATUS) and its sensor readings (STATUS 8). Tasmota answers in
// order, so the state, which says whether an output drives a lamp, is
// known when the names let the node's devices be added.
var tasmotaQueries = [][2]string{{"STATE", ""}, {"STATUS", ""}, {"STATUS", "8"}}

// query asks a node what tasmotaQueries ask.
func (t *tasmota) query(n *tasmotaNode) {
	ctx, cancel := context.WithTimeout(t.e.ctx, devices.DefaultTimeout)
	defer cancel()
	for _, q := range tasmotaQueries {
		if err := t.e.conn.publish(ctx, t.topicFor("cmnd", n.values, q[0]), []byte(q[1]), false); err != nil {
			t.e.log.Debug("querying a Tasmota", "topic", n.key, "err", err)
			return
		}
	}
}

// queryGroup asks every Tasmota on the group topic to report in.
func (t *tasmota) queryGroup(ctx context.Context) error {
	values := map[string]string{}
	for _, p := range t.pattern {
		if isPlaceholder(p) && p != "%prefix%" {
			if p != "%topic%" {
				return nil // the group topic only replaces %topic%
			}
			values[p] = tasmotaGroup
		}
	}
	for _, q := range tasmotaQueries {
		if err := t.e.conn.publish(ctx, t.topicFor("cmnd", values, q[0]), []byte(q[1]), false); err != nil {
			return err
		}
	}
	return nil
}

// connected asks every Tasmota for its state again: relay states are not
// retained. (The retained LWT that comes with the resubscription asks each
// known node too; the group topic reaches those without one.)
func (t *tasmota) connected() {
	t.e.boxes.post("tasmota:"+tasmotaGroup, func() {
		ctx, cancel := context.WithTimeout(t.e.ctx, devices.DefaultTimeout)
		defer cancel()
		if err := t.queryGroup(ctx); err != nil {
			t.e.log.Debug("querying the Tasmota group", "err", err)
		}
	})
}

// state reads the POWER<n> fields of a STATE or RESULT payload, and the
// lamp's fields.
func (t *tasmota) state(n *tasmotaNode, payload []byte) {
	var m map[string]any
	if json.Unmarshal(payload, &m) != nil {
		return
	}
	if lamp, ok := lampOf(m); ok && n.lamp == nil {
		n.lamp = &lamp
	}
	lampReport := false
	keys := make([]string, 0, len(m))
	for k := range m {
		switch {
		case n.isLamp(k):
			lampReport = true
		case powerKey().MatchString(k):
			keys = append(keys, k)
		}
	}
	if _, ok := number(m["Dimmer"]); ok && n.lamp != nil {
		lampReport = true
	}
	if lampReport {
		t.reportLamp(n, m) // one report of all its fields
	}
	slices.Sort(keys)
	for _, k := range keys {
		s, _ := m[k].(string)
		if on, ok := onOff(s); ok {
			t.reportRelay(n, k, on)
		}
	}
}

// nameWait bounds how long new devices wait for a node's names.
const nameWait = 2 * time.Second

// reportRelay records a relay state, adding the relay once the node's
// names are known (or after nameWait without an answer).
func (t *tasmota) reportRelay(n *tasmotaNode, key string, on bool) {
	if n.isLamp(key) {
		t.reportLamp(n, map[string]any{key: onOffText(on)})
		return
	}
	if d := n.relays[relayIndex(key)]; d != nil {
		d.report(on)
		return
	}
	if !n.named {
		if n.pendingPower == nil {
			n.pendingPower = map[string]bool{}
		}
		n.pendingPower[key] = on
		t.awaitNames(n)
		return
	}
	t.relay(n, key).report(on)
}

// awaitNames gives up waiting for a node's names after nameWait.
func (t *tasmota) awaitNames(n *tasmotaNode) {
	if n.waiting {
		return
	}
	n.waiting = true
	time.AfterFunc(nameWait, func() { t.e.boxes.post("tasmota:"+n.key, func() { t.nameKnown(n) }) })
}

// nameKnown registers what waited for the node's names.
func (t *tasmota) nameKnown(n *tasmotaNode) {
	if n.named {
		return
	}
	n.named = true
	keys := make([]string, 0, len(n.pendingPower))
	for k := range n.pendingPower {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !n.isLamp(k) { // the lamp's state came with its report
			t.relay(n, k).report(n.pendingPower[k])
		}
	}
	if n.pendingLamp != nil {
		t.reportLamp(n, n.pendingLamp)
	}
	if len(n.pendingReading) > 0 {
		t.sensorDevice(n).report(n.pendingReading)
	}
	n.pendingPower, n.pendingLamp, n.pendingReading = nil, nil, nil
}

func relayIndex(key string) int {
	if m := powerKey().FindStringSubmatch(key); m != nil && m[1] != "" {
		idx, _ := strconv.Atoi(m[1])
		return idx
	}
	return 1
}

// status reads the device and relay names of a STATUS reply.
func (t *tasmota) status(n *tasmotaNode, payload []byte) {
	var st struct {
		Status struct {
			DeviceName   string   `json:"DeviceName"`
			FriendlyName []string `json:"FriendlyName"`
		} `json:"Status"`
	}
	if json.Unmarshal(payload, &st) != nil {
		return
	}
	n.deviceName = st.Status.DeviceName
	n.names = st.Status.FriendlyName
	t.nameKnown(n)
}

// relay returns the power device of relay command key ("POWER", "POWER3"),
// adding it on first sight; its commands use the key it was first seen
// under (a single-relay device says POWER, a multi-relay one POWER<n>).
func (t *tasmota) relay(n *tasmotaNode, key string) *powerDevice {
	idx := relayIndex(key)
	if d := n.relays[idx]; d != nil {
		return d
	}
	name := t.relayName(n, idx, key)
	info := devices.Info{ID: deviceID("tasmota", n.key, strconv.Itoa(idx)), Name: name, Model: "Tasmota relay"}
	values := n.values
	d := newPowerDevice(t.e, info, kindFromText(name, n.deviceName, n.key), nil)
	d.send = func(ctx context.Context, on bool) error {
		payload := "OFF"
		if on {
			payload = "ON"
		}
		return t.e.conn.publish(ctx, t.topicFor("cmnd", values, key), []byte(payload), false)
	}
	d.setAvailable(!n.upKnown || n.up)
	n.relays[idx] = d
	t.e.dir.add(d)
	return d
}

func (t *tasmota) relayName(n *tasmotaNode, idx int, key string) string {
	multi := key != "POWER" || len(n.names) > 1
	switch {
	case idx <= len(n.names) && n.names[idx-1] != "" && (idx > 1 || n.names[0] != "Tasmota"):
		return n.names[idx-1]
	case n.deviceName != "" && n.deviceName != "Tasmota" && multi:
		return fmt.Sprintf("%s %d", n.deviceName, idx)
	case n.deviceName != "" && n.deviceName != "Tasmota":
		return n.deviceName
	case multi:
		return fmt.Sprintf("%s %d", n.key, idx)
	}
	return n.key
}

// sensors reads the readings of a SENSOR payload (or of its field under
// key, for a STATUS8 reply): the first temperature, humidity and
// illuminance among its sensors, in °C.
func (t *tasmota) sensors(n *tasmotaNode, payload []byte, key string) {
	var m map[string]any
	if json.Unmarshal(payload, &m) != nil {
		return
	}
	if key != "" {
		if m, _ = m[key].(map[string]any); m == nil {
			return
		}
	}
	rs := tasmotaReadings(m)
	switch {
	case len(rs) == 0:
	case n.sensor != nil || n.named:
		t.sensorDevice(n).report(rs)
	default:
		n.pendingReading = rs
		t.awaitNames(n)
	}
}

// sensorDevice returns the node's sensor, adding it on first use.
func (t *tasmota) sensorDevice(n *tasmotaNode) *sensorDevice {
	if n.sensor == nil {
		name := n.deviceName
		if name == "" || name == "Tasmota" {
			name = n.key
		}
		n.sensor = newSensorDevice(t.e, devices.Info{ID: deviceID("tasmota", n.key, "sensor"), Name: name + " sensor", Model: "Tasmota sensor"})
		n.sensor.setAvailable(!n.upKnown || n.up)
		t.e.dir.add(n.sensor)
	}
	return n.sensor
}

// tasmotaReadings picks readings out of a SENSOR object, whose sensors
// (DS18B20, AM2301, BH1750, …) each hold Temperature, Humidity,
// Illuminance fields, and whose ENERGY object holds a metering plug's
// Power (W) and Total (kWh).
func tasmotaReadings(m map[string]any) map[string]devices.Reading {
	fahrenheit := m["TempUnit"] == "F"
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	fields := map[string]string{"Temperature": devices.ReadingTemperature, "Humidity": devices.ReadingHumidity, "Illuminance": devices.ReadingIlluminance}
	rs := map[string]devices.Reading{}
	for _, name := range names {
		sub, _ := m[name].(map[string]any)
		if name == "ENERGY" {
			for field, typ := range map[string]string{"Power": devices.ReadingPower, "Total": devices.ReadingEnergy} {
				if v, ok := number(sub[field]); ok { // one channel: several come as arrays
					rs[typ] = valueReading(typ, v)
				}
			}
			continue
		}
		for field, typ := range fields {
			v, ok := number(sub[field])
			if !ok || rs[typ].Type != "" {
				continue
			}
			if typ == devices.ReadingTemperature && fahrenheit {
				v = fahrenheitToCelsius(v)
			}
			rs[typ] = valueReading(typ, v)
		}
	}
	return rs
}
