package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Shelly Gen1 (the first generation's MQTT, PROTOCOLS.md §5.2's note): a
// device publishes under shellies/<id>/ — relay states ("on", "off",
// "overpower") on relay/<n>, a PM model's power (W) on relay/<n>/power
// and its energy counter (watt-minutes) on relay/<n>/energy, a battery
// sensor's values on sensor/<name> (H&T, Door/Window) or as one JSON
// object on status (Motion), and its availability on the retained
// online ("true"/"false"). Commands go to relay/<n>/command; "announce"
// and "update" on shellies/command make every device say who it is and
// what state it is in.

// gen1Root is the topic level every Gen1 device publishes under.
const gen1Root = "shellies"

type shellies struct {
	e *env

	mu    sync.Mutex
	nodes map[string]*gen1Node
}

// gen1Node is one Gen1 device. Only its own queue touches its fields.
type gen1Node struct {
	id      string // shelly1pm-84CCA8A1B2C3
	model   string // SHSW-PM, from its announcement
	up      bool
	upKnown bool
	relays  map[int]*powerDevice
	meters  map[int]*sensorDevice
	sensor  *sensorDevice
	// Until the device has announced itself (its model), or nameWait has
	// passed, what would add its devices waits here.
	announced bool
	waiting   bool
	pending   []func()
}

func newShellies(e *env) *shellies {
	return &shellies{e: e, nodes: map[string]*gen1Node{}}
}

func (s *shellies) filters() []string {
	return []string{
		gen1Root + "/announce", gen1Root + "/+/announce", gen1Root + "/+/online",
		gen1Root + "/+/relay/+", gen1Root + "/+/relay/+/power", gen1Root + "/+/relay/+/energy",
		gen1Root + "/+/sensor/+", gen1Root + "/+/status",
	}
}

// parse splits a device topic into the device id and what follows.
func (s *shellies) parse(topic string) (id, rest string, ok bool) {
	after, ok := strings.CutPrefix(topic, gen1Root+"/")
	if !ok {
		return "", "", false
	}
	id, rest, ok = strings.Cut(after, "/")
	if !ok || id == "" || id == "command" {
		return "", "", false
	}
	return id, rest, true
}

func (s *shellies) route(topic string) (string, bool) {
	if topic == gen1Root+"/announce" {
		return "shellies:announce", true
	}
	id, _, ok := s.parse(topic)
	if !ok {
		return "", false
	}
	return "shellies:" + id, true
}

func (s *shellies) node(id string) *gen1Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[id]
	if n == nil {
		n = &gen1Node{id: id, relays: map[int]*powerDevice{}, meters: map[int]*sensorDevice{}}
		s.nodes[id] = n
	}
	return n
}

// announcement is what a device says of itself on shellies/announce.
type announcement struct {
	ID    string `json:"id"`
	Model string `json:"model"`
}

func (s *shellies) handle(topic string, payload []byte) {
	if topic == gen1Root+"/announce" {
		// Every device announces here; its own queue takes it.
		var a announcement
		if json.Unmarshal(payload, &a) == nil && a.ID != "" && !strings.Contains(a.ID, "/") {
			s.e.boxes.post("shellies:"+a.ID, func() { s.announced(s.node(a.ID), a) })
		}
		return
	}
	id, rest, ok := s.parse(topic)
	if !ok {
		return
	}
	n := s.node(id)
	parts := strings.Split(rest, "/")
	switch {
	case rest == "online":
		if up, ok := availability(payload); ok {
			s.setAvailable(n, up)
			if up {
				s.update(n) // it says so on every connection: ask what it is and its state
			}
		}
	case rest == "announce":
		var a announcement
		if json.Unmarshal(payload, &a) == nil {
			s.announced(n, a)
		}
	case parts[0] == "relay" && len(parts) >= 2:
		idx, err := strconv.Atoi(parts[1])
		if err != nil || idx < 0 || idx > 15 {
			return
		}
		v := strings.TrimSpace(string(payload))
		s.once(n, func() { s.relayTopic(n, idx, parts[2:], v) })
	case parts[0] == "sensor" && len(parts) == 2:
		if r, ok := gen1Reading(parts[1], strings.TrimSpace(string(payload))); ok {
			s.once(n, func() { s.sensorOf(n).report(map[string]devices.Reading{r.Type: r}) })
		}
	case rest == "status":
		if rs := gen1Status(payload); len(rs) > 0 {
			s.once(n, func() { s.sensorOf(n).report(rs) })
		}
	}
}

// once runs fn now if the device has announced itself, else when it does
// (or after nameWait), so that its devices are added with its model.
func (s *shellies) once(n *gen1Node, fn func()) {
	if n.announced {
		fn()
		return
	}
	n.pending = append(n.pending, fn)
	if !n.waiting {
		n.waiting = true
		time.AfterFunc(nameWait, func() { s.e.boxes.post("shellies:"+n.id, func() { s.known(n) }) })
	}
}

// announced records the model a device announced.
func (s *shellies) announced(n *gen1Node, a announcement) {
	if a.Model != "" && n.model == "" {
		n.model = a.Model
	}
	s.known(n)
}

// known runs what waited for the device's announcement.
func (s *shellies) known(n *gen1Node) {
	n.announced = true
	pending := n.pending
	n.pending = nil
	for _, fn := range pending {
		fn()
	}
}

// setAvailable follows the device's online topic. A battery sensor is
// offline between its wake-ups, so its readings stay readable then.
func (s *shellies) setAvailable(n *gen1Node, up bool) {
	n.up, n.upKnown = up, true
	for _, d := range n.relays {
		if d.setAvailable(up) {
			d.changed()
		}
	}
	for _, d := range n.meters {
		if d.setAvailable(up) {
			d.changed()
		}
	}
}

// relayTopic applies relay idx's state, power or energy.
func (s *shellies) relayTopic(n *gen1Node, idx int, rest []string, v string) {
	switch {
	case len(rest) == 0:
		switch strings.ToLower(v) {
		case "on":
			s.relay(n, idx).report(true)
		case "off", "overpower":
			s.relay(n, idx).report(false)
		}
	case len(rest) == 1 && rest[0] == "power":
		if w, ok := parseNumber(v); ok {
			s.meter(n, idx).report(map[string]devices.Reading{devices.ReadingPower: valueReading(devices.ReadingPower, w)})
		}
	case len(rest) == 1 && rest[0] == "energy":
		if wmin, ok := parseNumber(v); ok { // watt-minutes
			s.meter(n, idx).report(map[string]devices.Reading{devices.ReadingEnergy: valueReading(devices.ReadingEnergy, wmin/60/1000)})
		}
	}
}

// relay returns relay idx of n, adding it on first sight.
func (s *shellies) relay(n *gen1Node, idx int) *powerDevice {
	if d := n.relays[idx]; d != nil {
		return d
	}
	info := devices.Info{ID: deviceID("shellies", n.id, strconv.Itoa(idx)), Name: s.relayName(n, idx), Model: s.modelName(n)}
	topic := fmt.Sprintf("%s/%s/relay/%d/command", gen1Root, n.id, idx)
	d := newPowerDevice(s.e, info, kindFromText(n.id, n.model), func(ctx context.Context, on bool) error {
		return s.e.conn.publish(ctx, topic, []byte(map[bool]string{true: "on", false: "off"}[on]), false)
	})
	d.setAvailable(!n.upKnown || n.up)
	n.relays[idx] = d
	s.e.dir.add(d)
	return d
}

// relayName is the device id, numbered on a device with several relays
// (Gen1 devices do not publish their names; people rename them in the hub).
func (s *shellies) relayName(n *gen1Node, idx int) string {
	multi := strings.HasPrefix(n.id, "shellyswitch") || strings.HasPrefix(n.id, "shelly4pro") || strings.HasPrefix(n.id, "shellyuni")
	if idx > 0 || multi {
		return fmt.Sprintf("%s %d", n.id, idx+1)
	}
	return n.id
}

func (s *shellies) modelName(n *gen1Node) string {
	if n.model != "" {
		return "Shelly " + n.model
	}
	return "Shelly (Gen1)"
}

// meter returns the sensor of relay idx's metering, adding it on first
// sight.
func (s *shellies) meter(n *gen1Node, idx int) *sensorDevice {
	if d := n.meters[idx]; d != nil {
		return d
	}
	info := devices.Info{ID: deviceID("shellies", n.id, strconv.Itoa(idx), "sensor"), Name: s.relay(n, idx).info.Name + " sensor", Model: s.modelName(n)}
	d := newSensorDevice(s.e, info)
	d.setAvailable(!n.upKnown || n.up)
	n.meters[idx] = d
	s.e.dir.add(d)
	return d
}

// sensorOf returns the readings device of a battery sensor.
func (s *shellies) sensorOf(n *gen1Node) *sensorDevice {
	if n.sensor == nil {
		n.sensor = newSensorDevice(s.e, devices.Info{ID: deviceID("shellies", n.id), Name: n.id, Model: s.modelName(n)})
		s.e.dir.add(n.sensor)
	}
	return n.sensor
}

// gen1Reading reads sensor/<name>: temperature (°C), humidity, lux,
// battery, and a door's state ("open", "close").
func gen1Reading(name, v string) (devices.Reading, bool) {
	if name == "state" {
		switch v {
		case "open":
			return boolReading(devices.ReadingContact, false), true
		case "close":
			return boolReading(devices.ReadingContact, true), true
		}
		return devices.Reading{}, false
	}
	typ, ok := map[string]string{
		"temperature": devices.ReadingTemperature, "humidity": devices.ReadingHumidity,
		"lux": devices.ReadingIlluminance, "battery": devices.ReadingBattery,
	}[name]
	if !ok {
		return devices.Reading{}, false
	}
	x, ok := parseNumber(v)
	if !ok {
		return devices.Reading{}, false
	}
	return valueReading(typ, x), true
}

// gen1Status reads a Motion sensor's status object.
func gen1Status(payload []byte) map[string]devices.Reading {
	var st struct {
		Motion *bool    `json:"motion"`
		Lux    *float64 `json:"lux"`
		Bat    *float64 `json:"bat"`
	}
	if json.Unmarshal(payload, &st) != nil {
		return nil
	}
	rs := map[string]devices.Reading{}
	if st.Motion != nil {
		rs[devices.ReadingMotion] = boolReading(devices.ReadingMotion, *st.Motion)
	}
	if st.Lux != nil {
		rs[devices.ReadingIlluminance] = valueReading(devices.ReadingIlluminance, *st.Lux)
	}
	if st.Bat != nil {
		rs[devices.ReadingBattery] = valueReading(devices.ReadingBattery, *st.Bat)
	}
	return rs
}

// connected asks every Gen1 device to announce itself and publish its
// state: relay states are not retained.
func (s *shellies) connected() {
	s.e.boxes.post("shellies:announce", func() {
		ctx, cancel := context.WithTimeout(s.e.ctx, devices.DefaultTimeout)
		defer cancel()
		if err := s.ask(ctx); err != nil {
			s.e.log.Debug("asking Shelly Gen1 devices to report", "err", err)
		}
	})
}

// update asks one device to say what it is and publish its state.
func (s *shellies) update(n *gen1Node) {
	ctx, cancel := context.WithTimeout(s.e.ctx, devices.DefaultTimeout)
	defer cancel()
	for _, q := range []string{"announce", "update"} {
		if err := s.e.conn.publish(ctx, gen1Root+"/"+n.id+"/command", []byte(q), false); err != nil {
			s.e.log.Debug("asking a Shelly Gen1 for its state", "id", n.id, "err", err)
			return
		}
	}
}

// ask publishes "announce" and "update" to every Gen1 device.
func (s *shellies) ask(ctx context.Context) error {
	for _, q := range []string{"announce", "update"} {
		if err := s.e.conn.publish(ctx, gen1Root+"/command", []byte(q), false); err != nil {
			return err
		}
	}
	return nil
}
