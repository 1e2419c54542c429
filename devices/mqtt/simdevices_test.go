package mqtt_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// The simulated devices below follow PROTOCOLS.md §5: the topics and
// payloads each firmware family uses, as an MQTT client of the broker.

// simTasmota is a Tasmota with one or more relays and, optionally, a
// DS18B20 temperature sensor.
type simTasmota struct {
	*simClient
	topic  string
	names  []string
	sensor bool

	mu    sync.Mutex
	power []bool
	temp  float64
	lamp  *simLamp // an RGBCW bulb on its only output
}

// simLamp is a Tasmota RGBCW bulb's light: white (CT) or colour (HSB).
type simLamp struct {
	dimmer, ct, hue, sat int
	white                bool
}

// newSimTasmotaBulb is a Tasmota RGBCW bulb, white at 2700 K (370 mireds)
// and 50 %, switched off. It is a bulb from its first message on: the hub
// may ask for its state as soon as it connects.
func newSimTasmotaBulb(t testing.TB, broker, topic, name string) *simTasmota {
	d := simTasmotaOf(topic, []string{name}, false)
	d.lamp = &simLamp{dimmer: 50, ct: 370, white: true}
	return dialTasmota(t, broker, d)
}

func newSimTasmota(t testing.TB, broker, topic string, names []string, sensor bool) *simTasmota {
	return dialTasmota(t, broker, simTasmotaOf(topic, names, sensor))
}

// simTasmotaOf is a Tasmota with its relays off, not yet connected.
func simTasmotaOf(topic string, names []string, sensor bool) *simTasmota {
	return &simTasmota{topic: topic, names: names, sensor: sensor, power: make([]bool, len(names)), temp: 21.5}
}

// dialTasmota connects d, whose fields are all set: its handlers read
// them from the moment it connects.
func dialTasmota(t testing.TB, broker string, d *simTasmota) *simTasmota {
	t.Helper()
	d.simClient = &simClient{}
	dialSim(t, d.simClient, broker, simOptions{
		id: d.topic, willTopic: "tele/" + d.topic + "/LWT", willPayload: "Offline",
		subscribe: []string{"cmnd/" + d.topic + "/+", "cmnd/tasmotas/+"},
		birth:     func(c paho.Client) { c.Publish("tele/"+d.topic+"/LWT", 0, true, "Online") },
		handler:   d.command,
	})
	return d
}

// key is the relay's command name: POWER on a single-relay device.
func (d *simTasmota) key(i int) string {
	if len(d.power) == 1 {
		return "POWER"
	}
	return "POWER" + strconv.Itoa(i+1)
}

func (d *simTasmota) command(topic string, payload []byte) {
	cmd := topic[strings.LastIndexByte(topic, '/')+1:]
	arg := strings.ToUpper(strings.TrimSpace(string(payload)))
	switch {
	case strings.HasPrefix(cmd, "POWER"):
		i := 0
		if n, err := strconv.Atoi(strings.TrimPrefix(cmd, "POWER")); err == nil {
			i = n - 1
		}
		if i < 0 || i >= len(d.power) {
			return
		}
		d.mu.Lock()
		switch arg {
		case "ON", "1":
			d.power[i] = true
		case "OFF", "0":
			d.power[i] = false
		case "TOGGLE", "2":
			d.power[i] = !d.power[i]
		}
		d.mu.Unlock()
		d.reportRelay(i)
	case d.light(cmd, arg):
	case cmd == "STATE":
		d.publish("stat/"+d.topic+"/RESULT", false, d.stateJSON())
	case cmd == "STATUS" && arg == "":
		st, _ := json.Marshal(map[string]any{"Status": map[string]any{
			"Module": 1, "DeviceName": d.names[0], "FriendlyName": d.names, "Topic": d.topic, "Power": "0",
		}})
		d.publish("stat/"+d.topic+"/STATUS", false, string(st))
	case cmd == "STATUS" && arg == "8" && d.sensor:
		d.publish("stat/"+d.topic+"/STATUS8", false, `{"StatusSNS":`+d.sensorJSON()+`}`)
	}
}

func (d *simTasmota) stateJSON() string {
	st := map[string]any{"Time": "2025-01-01T12:00:00", "UptimeSec": 3600, "Wifi": map[string]any{"RSSI": 80}}
	d.mu.Lock()
	for i, on := range d.power {
		st[d.key(i)] = onOff(on)
	}
	d.lampFields(st)
	d.mu.Unlock()
	b, _ := json.Marshal(st)
	return string(b)
}

// light runs a light command on a bulb as Tasmota does (a new level,
// temperature or colour switches the lamp on) and answers with the whole
// light state; it reports whether cmd was one.
func (d *simTasmota) light(cmd, arg string) bool {
	cmd = strings.ToUpper(cmd)
	if d.lamp == nil || (cmd != "DIMMER" && cmd != "CT" && cmd != "HSBCOLOR") {
		return false
	}
	d.mu.Lock()
	l := d.lamp
	switch cmd {
	case "DIMMER":
		if n, err := strconv.Atoi(arg); err == nil {
			l.dimmer = min(100, max(0, n))
		}
	case "CT":
		if n, err := strconv.Atoi(arg); err == nil {
			l.ct, l.white = min(500, max(153, n)), true
		}
	case "HSBCOLOR":
		var h, s, b int
		if _, err := fmt.Sscanf(arg, "%d,%d,%d", &h, &s, &b); err == nil {
			l.hue, l.sat, l.dimmer, l.white = h, s, b, false
		}
	}
	d.power[0] = l.dimmer > 0
	st := map[string]any{"POWER": onOff(d.power[0])}
	d.lampFields(st)
	d.mu.Unlock()
	b, _ := json.Marshal(st)
	d.publish("stat/"+d.topic+"/RESULT", false, string(b))
	return true
}

// lampFields adds a bulb's light fields to a state; the caller holds d.mu.
// Color is its five channels: RGB dark in white, the whites dark in colour.
func (d *simTasmota) lampFields(st map[string]any) {
	l := d.lamp
	if l == nil {
		return
	}
	level := l.dimmer * 255 / 100
	var channels string
	if l.white {
		warm := (l.ct - 153) * level / (500 - 153)
		channels = fmt.Sprintf("000000%02X%02X", level-warm, warm)
	} else {
		channels = hsbHex(l.hue, l.sat, level) + "0000"
	}
	st["Dimmer"], st["CT"], st["Color"] = l.dimmer, l.ct, channels
	st["HSBColor"] = fmt.Sprintf("%d,%d,%d", l.hue, l.sat, l.dimmer)
	st["White"] = 0
	if l.white {
		st["White"] = l.dimmer
	}
}

// hsbHex is the RGB hex of a hue and saturation at level (0–255), for the
// primary and secondary hues the tests use.
func hsbHex(hue, sat, level int) string {
	low := level * (100 - sat) / 100
	switch (hue + 30) % 360 / 60 {
	case 0:
		return fmt.Sprintf("%02X%02X%02X", level, low, low) // red
	case 1:
		return fmt.Sprintf("%02X%02X%02X", level, level, low) // yellow
	case 2:
		return fmt.Sprintf("%02X%02X%02X", low, level, low) // green
	case 3:
		return fmt.Sprintf("%02X%02X%02X", low, level, level) // cyan
	case 4:
		return fmt.Sprintf("%02X%02X%02X", low, low, level) // blue
	}
	return fmt.Sprintf("%02X%02X%02X", level, low, level) // magenta
}

// lampState is the bulb's light, for the tests to check.
func (d *simTasmota) lampState() (on bool, l simLamp) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.power[0], *d.lamp
}

func (d *simTasmota) sensorJSON() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf(`{"Time":"2025-01-01T12:00:00","DS18B20":{"Id":"01131B4B2EAA","Temperature":%g},"TempUnit":"C"}`, d.temp)
}

// reportRelay publishes a relay's state the two ways Tasmota does.
func (d *simTasmota) reportRelay(i int) {
	d.mu.Lock()
	on := d.power[i]
	d.mu.Unlock()
	d.publish("stat/"+d.topic+"/RESULT", false, fmt.Sprintf(`{%q:%q}`, d.key(i), onOff(on)))
	d.publish("stat/"+d.topic+"/"+d.key(i), false, onOff(on))
}

// toggleByHand flips a relay at the button; the device reports it if it
// is connected.
func (d *simTasmota) toggleByHand(i int) {
	d.mu.Lock()
	d.power[i] = !d.power[i]
	d.mu.Unlock()
	d.reportRelay(i)
}

// setTemperature changes the reading and sends telemetry.
func (d *simTasmota) setTemperature(c float64) {
	d.mu.Lock()
	d.temp = c
	d.mu.Unlock()
	d.publish("tele/"+d.topic+"/SENSOR", false, d.sensorJSON())
}

func (d *simTasmota) relay(i int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.power[i]
}

func onOff(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}

// simShelly is a Shelly Gen2+ with switches, answering MQTT RPC.
type simShelly struct {
	*simClient
	id      string
	name    string
	switchN []string

	mute    atomic.Bool   // it hears RPC requests and answers none
	ignored chan struct{} // one send per request left unanswered (muted only)

	mu      sync.Mutex
	outputs []bool
}

func newSimShelly(t testing.TB, broker, id, name string, switchNames []string) *simShelly {
	return dialShelly(t, broker, simShellyOf(id, name, switchNames))
}

// newMutedSimShelly is a Shelly that answers no RPC request until its mute
// is cleared.
func newMutedSimShelly(t testing.TB, broker, id, name string, switchNames []string) *simShelly {
	d := simShellyOf(id, name, switchNames)
	d.mute.Store(true)
	d.ignored = make(chan struct{}, 64)
	return dialShelly(t, broker, d)
}

// simShellyOf is a Shelly with its switches off, not yet connected.
func simShellyOf(id, name string, switchNames []string) *simShelly {
	return &simShelly{id: id, name: name, switchN: switchNames, outputs: make([]bool, len(switchNames))}
}

// dialShelly connects d, whose fields are all set: its handlers read them
// from the moment it connects.
func dialShelly(t testing.TB, broker string, d *simShelly) *simShelly {
	t.Helper()
	d.simClient = &simClient{}
	dialSim(t, d.simClient, broker, simOptions{
		id: d.id, willTopic: d.id + "/online", willPayload: "false",
		subscribe: []string{d.id + "/rpc"},
		birth:     func(c paho.Client) { c.Publish(d.id+"/online", 0, true, "true") },
		handler:   d.rpc,
	})
	return d
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Src    string          `json:"src"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (d *simShelly) rpc(_ string, payload []byte) {
	var req rpcRequest
	if json.Unmarshal(payload, &req) != nil || req.Src == "" {
		return
	}
	if d.mute.Load() {
		select {
		case d.ignored <- struct{}{}:
		default:
		}
		return
	}
	result, rpcErr := d.call(req)
	frame := map[string]any{"id": req.ID, "src": d.id, "dst": req.Src}
	if rpcErr != "" {
		frame["error"] = map[string]any{"code": 404, "message": rpcErr}
	} else {
		frame["result"] = result
	}
	b, _ := json.Marshal(frame)
	d.publish(req.Src+"/rpc", false, string(b))
}

func (d *simShelly) call(req rpcRequest) (any, string) {
	var p struct {
		ID int   `json:"id"`
		On *bool `json:"on"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "Shelly.GetDeviceInfo":
		return map[string]any{"name": d.name, "id": d.id, "mac": "A8032AB12345", "model": "SNSW-001P16EU", "gen": 2, "app": "Plus1PM", "ver": "1.4.4"}, ""
	case "Shelly.GetConfig":
		cfg := map[string]any{"sys": map[string]any{"device": map[string]any{"name": d.name}}}
		for i, n := range d.switchN {
			cfg["switch:"+strconv.Itoa(i)] = map[string]any{"id": i, "name": n}
		}
		return cfg, ""
	case "Shelly.GetStatus":
		return d.status(), ""
	case "Switch.Set":
		if p.ID < 0 || p.ID >= len(d.outputs) || p.On == nil {
			return nil, "invalid argument"
		}
		d.mu.Lock()
		was := d.outputs[p.ID]
		d.outputs[p.ID] = *p.On
		d.mu.Unlock()
		d.notify(p.ID, "MQTT")
		return map[string]any{"was_on": was}, ""
	}
	return nil, "No handler for " + req.Method
}

func (d *simShelly) status() map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := map[string]any{"sys": map[string]any{"uptime": 100}}
	for i, on := range d.outputs {
		st["switch:"+strconv.Itoa(i)] = map[string]any{"id": i, "source": "init", "output": on, "apower": 0,
			"aenergy": map[string]any{"total": 1520.5, "by_minute": []float64{0, 0, 0}, "minute_ts": 1700000000}}
	}
	return st
}

// draw reports that switch i draws watts, as a Plus 1PM does.
func (d *simShelly) draw(i int, watts float64) {
	b, _ := json.Marshal(map[string]any{
		"src": d.id, "dst": d.id + "/events", "method": "NotifyStatus",
		"params": map[string]any{"ts": 1700000001.5, "switch:" + strconv.Itoa(i): map[string]any{"id": i, "apower": watts, "current": watts / 230}},
	})
	d.publish(d.id+"/events/rpc", false, string(b))
}

// notify publishes a NotifyStatus frame for switch i.
func (d *simShelly) notify(i int, source string) {
	d.mu.Lock()
	on := d.outputs[i]
	d.mu.Unlock()
	b, _ := json.Marshal(map[string]any{
		"src": d.id, "dst": d.id + "/events", "method": "NotifyStatus",
		"params": map[string]any{"ts": 1700000000.5, "switch:" + strconv.Itoa(i): map[string]any{"id": i, "output": on, "source": source}},
	})
	d.publish(d.id+"/events/rpc", false, string(b))
}

func (d *simShelly) toggleByHand(i int) {
	d.mu.Lock()
	d.outputs[i] = !d.outputs[i]
	d.mu.Unlock()
	d.notify(i, "button")
}

func (d *simShelly) output(i int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.outputs[i]
}

// simZigbee is a zigbee2mqtt bridge with its devices, states retained.
type simZigbee struct {
	*simClient
	base string

	mu      sync.Mutex
	devices []*zigbeeDevice
}

type zigbeeDevice struct {
	ieee, name, vendor, model, description string
	exposes                                []any
	state                                  map[string]any
}

// Exposes as zigbee2mqtt 2.x publishes them.
func lightExposes() []any {
	return []any{
		map[string]any{"type": "light", "features": []any{
			map[string]any{"type": "binary", "name": "state", "property": "state", "value_on": "ON", "value_off": "OFF", "value_toggle": "TOGGLE", "access": 7},
			map[string]any{"type": "numeric", "name": "brightness", "property": "brightness", "value_min": 0, "value_max": 254, "access": 7},
			map[string]any{"type": "numeric", "name": "color_temp", "property": "color_temp", "value_min": 153, "value_max": 454, "unit": "mired", "access": 7},
			map[string]any{"type": "composite", "name": "color_xy", "property": "color", "access": 7, "features": []any{
				map[string]any{"type": "numeric", "name": "x", "property": "x", "access": 7},
				map[string]any{"type": "numeric", "name": "y", "property": "y", "access": 7},
			}},
		}},
		map[string]any{"type": "enum", "name": "effect", "property": "effect", "access": 2,
			"values": []any{"blink", "breathe", "okay", "channel_change", "finish_effect", "stop_effect"}},
		map[string]any{"type": "numeric", "name": "linkquality", "property": "linkquality", "access": 1},
	}
}

func motionExposes() []any {
	return []any{
		map[string]any{"type": "binary", "name": "occupancy", "property": "occupancy", "value_on": true, "value_off": false, "access": 1},
		map[string]any{"type": "numeric", "name": "illuminance", "property": "illuminance", "unit": "lx", "access": 1},
		map[string]any{"type": "numeric", "name": "temperature", "property": "temperature", "unit": "°C", "access": 1},
		map[string]any{"type": "numeric", "name": "battery", "property": "battery", "unit": "%", "access": 1},
	}
}

func plugExposes() []any {
	return []any{
		map[string]any{"type": "switch", "features": []any{
			map[string]any{"type": "binary", "name": "state", "property": "state", "value_on": "ON", "value_off": "OFF", "access": 7},
		}},
		map[string]any{"type": "numeric", "name": "power", "property": "power", "unit": "W", "access": 5},
	}
}

func newSimZigbee(t testing.TB, broker string, ds ...*zigbeeDevice) *simZigbee {
	z := &simZigbee{base: "zigbee2mqtt", devices: ds}
	z.simClient = &simClient{}
	dialSim(t, z.simClient, broker, simOptions{
		id: "zigbee2mqtt-bridge", willTopic: "zigbee2mqtt/bridge/state", willPayload: `{"state":"offline"}`,
		subscribe: []string{"zigbee2mqtt/+/set", "zigbee2mqtt/+/get"},
		birth:     z.birth,
		handler:   z.command,
	})
	return z
}

// birth is what zigbee2mqtt publishes when it (re)connects.
func (z *simZigbee) birth(c paho.Client) {
	c.Publish("zigbee2mqtt/bridge/state", 0, true, `{"state":"online"}`)
	list := []any{map[string]any{"ieee_address": "0x00124b0000000001", "type": "Coordinator", "friendly_name": "Coordinator", "definition": nil}}
	var names []string
	var states [][]byte // read under the lock: commands change them meanwhile
	z.mu.Lock()
	for _, d := range z.devices {
		list = append(list, map[string]any{
			"ieee_address": d.ieee, "friendly_name": d.name, "type": "Router", "supported": true, "interview_completed": true,
			"definition": map[string]any{"model": d.model, "vendor": d.vendor, "description": d.description, "exposes": d.exposes, "options": []any{}},
		})
		names, states = append(names, d.name), append(states, d.stateJSON())
	}
	z.mu.Unlock()
	b, _ := json.Marshal(list)
	c.Publish("zigbee2mqtt/bridge/devices", 0, true, b)
	for i, name := range names {
		c.Publish("zigbee2mqtt/"+name+"/availability", 0, true, `{"state":"online"}`)
		c.Publish("zigbee2mqtt/"+name, 0, true, states[i])
	}
}

func (d *zigbeeDevice) stateJSON() []byte {
	b, _ := json.Marshal(d.state)
	return b
}

func (z *simZigbee) device(name string) *zigbeeDevice {
	for _, d := range z.devices {
		if d.name == name {
			return d
		}
	}
	return nil
}

func (z *simZigbee) command(topic string, payload []byte) {
	rest := strings.TrimPrefix(topic, z.base+"/")
	name, verb, _ := strings.Cut(rest, "/")
	z.mu.Lock()
	d := z.device(name)
	if d == nil {
		z.mu.Unlock()
		return
	}
	if verb == "set" {
		var set map[string]any
		if json.Unmarshal(payload, &set) != nil {
			z.mu.Unlock()
			return
		}
		d.apply(set)
	}
	state := d.stateJSON()
	z.mu.Unlock()
	z.publish(z.base+"/"+name, true, string(state))
}

// apply changes a device's state as the device would.
func (d *zigbeeDevice) apply(set map[string]any) {
	for k, v := range set {
		switch k {
		case "state":
			if v == "TOGGLE" {
				v = map[bool]string{true: "OFF", false: "ON"}[d.state["state"] == "ON"]
			}
			d.state["state"] = v
		case "brightness":
			d.state["brightness"] = v
		case "color_temp":
			d.state["color_temp"], d.state["color_mode"] = v, "color_temp"
		case "color":
			d.state["color"], d.state["color_mode"] = v, "xy"
		}
	}
}

// setByHand changes a device's state as if at the device (a button, a
// sensor that fired) and publishes it, retained.
func (z *simZigbee) setByHand(name string, fields map[string]any) {
	z.mu.Lock()
	d := z.device(name)
	for k, v := range fields {
		d.state[k] = v
	}
	state := d.stateJSON()
	z.mu.Unlock()
	z.publish(z.base+"/"+name, true, string(state))
}

// leave takes a device off the network: zigbee2mqtt republishes its device
// list without it.
func (z *simZigbee) leave(name string) {
	z.mu.Lock()
	for i, d := range z.devices {
		if d.name == name {
			z.devices = append(z.devices[:i:i], z.devices[i+1:]...)
			break
		}
	}
	z.mu.Unlock()
	z.birth(z.client)
}

func (z *simZigbee) stateOf(name string) map[string]any {
	z.mu.Lock()
	defer z.mu.Unlock()
	out := map[string]any{}
	for k, v := range z.device(name).state {
		out[k] = v
	}
	return out
}

// simESPHome is a node that announces its entities through Home Assistant
// MQTT discovery, as ESPHome does: a relay, a fan (with the "~" base
// topic), a JSON-schema light, a temperature sensor and a motion sensor,
// states and configs retained.
type simESPHome struct {
	*simClient
	node string

	mu      sync.Mutex
	states  map[string]string // state topic → payload
	removed map[string]bool   // config topics deleted
}

func newSimESPHome(t testing.TB, broker, node, area string) *simESPHome {
	d := &simESPHome{node: node, removed: map[string]bool{}, states: map[string]string{
		node + "/switch/relay/state":         "OFF",
		node + "/fan/fan/state":              "OFF",
		node + "/light/strip/state":          `{"state":"OFF","brightness":255,"color_mode":"color_temp","color_temp":370}`,
		node + "/sensor/temperature/state":   "19.5",
		node + "/binary_sensor/motion/state": "OFF",
	}}
	d.simClient = &simClient{}
	dialSim(t, d.simClient, broker, simOptions{
		id: node, willTopic: node + "/status", willPayload: "offline",
		subscribe: []string{node + "/+/+/command"},
		birth:     func(c paho.Client) { d.birth(c, area) },
		handler:   d.command,
	})
	return d
}

func (d *simESPHome) configs(area string) map[string]string {
	n := d.node
	dev := fmt.Sprintf(`{"ids":[%q],"name":"Hall node","mf":"espressif","mdl":"esp32dev","sw":"2025.1.0","sa":%q}`, n, area)
	avty := fmt.Sprintf(`"avty_t":"%s/status"`, n)
	return map[string]string{
		"homeassistant/switch/" + n + "/relay/config": fmt.Sprintf(
			`{"name":"Relay","uniq_id":"%s-relay","stat_t":"%s/switch/relay/state","cmd_t":"%s/switch/relay/command","dev_cla":"outlet",%s,"dev":%s}`, n, n, n, avty, dev),
		"homeassistant/fan/" + n + "/fan/config": fmt.Sprintf(
			`{"~":"%s/fan/fan","name":"Fan","uniq_id":"%s-fan","stat_t":"~/state","cmd_t":"~/command",%s,"dev":%s}`, n, n, avty, dev),
		"homeassistant/light/" + n + "/strip/config": fmt.Sprintf(
			`{"name":"Strip","uniq_id":"%s-strip","schema":"json","stat_t":"%s/light/strip/state","cmd_t":"%s/light/strip/command","brightness":true,"sup_clrm":["color_temp","xy"],"min_mirs":153,"max_mirs":500,"effect":true,"fx_list":["Rainbow","Pulse"],%s,"dev":%s}`, n, n, n, avty, dev),
		"homeassistant/sensor/" + n + "/temperature/config": fmt.Sprintf(
			`{"name":"Temperature","uniq_id":"%s-temperature","stat_t":"%s/sensor/temperature/state","dev_cla":"temperature","unit_of_meas":"°C","stat_cla":"measurement",%s,"dev":%s}`, n, n, avty, dev),
		"homeassistant/binary_sensor/" + n + "/motion/config": fmt.Sprintf(
			`{"name":"Motion","uniq_id":"%s-motion","stat_t":"%s/binary_sensor/motion/state","dev_cla":"occupancy",%s,"dev":%s}`, n, n, avty, dev),
	}
}

func (d *simESPHome) birth(c paho.Client, area string) {
	c.Publish(d.node+"/status", 0, true, "online")
	d.mu.Lock()
	defer d.mu.Unlock()
	for topic, payload := range d.configs(area) {
		if !d.removed[topic] {
			c.Publish(topic, 0, true, payload)
		}
	}
	for topic, payload := range d.states {
		c.Publish(topic, 0, true, payload)
	}
}

func (d *simESPHome) command(topic string, payload []byte) {
	state := strings.TrimSuffix(topic, "/command") + "/state"
	d.mu.Lock()
	if strings.Contains(topic, "/light/") {
		var cur, set map[string]any
		_ = json.Unmarshal([]byte(d.states[state]), &cur)
		if json.Unmarshal(payload, &set) == nil {
			for k, v := range set {
				cur[k] = v
			}
			if _, ok := set["color"]; ok {
				cur["color_mode"] = "xy"
			}
			if _, ok := set["color_temp"]; ok {
				cur["color_mode"] = "color_temp"
			}
		}
		b, _ := json.Marshal(cur)
		d.states[state] = string(b)
	} else {
		d.states[state] = string(payload)
	}
	out := d.states[state]
	d.mu.Unlock()
	d.publish(state, true, out)
}

// set publishes a state as the node would (a sensor that fired).
func (d *simESPHome) set(stateTopic, payload string) {
	d.mu.Lock()
	d.states[d.node+"/"+stateTopic] = payload
	d.mu.Unlock()
	d.publish(d.node+"/"+stateTopic, true, payload)
}

// removeEntity deletes an entity the way Home Assistant discovery does:
// an empty retained config.
func (d *simESPHome) removeEntity(component, object string) {
	topic := "homeassistant/" + component + "/" + d.node + "/" + object + "/config"
	d.mu.Lock()
	d.removed[topic] = true
	d.mu.Unlock()
	d.publish(topic, true, "")
}

// simShellyGen1 is a first-generation Shelly with relays and, as a PM
// model, metering: it speaks shellies/<id>/… and answers "announce" and
// "update" on shellies/command.
type simShellyGen1 struct {
	*simClient
	id, model string

	mu    sync.Mutex
	on    []bool
	watts []float64
}

func newSimShellyGen1(t testing.TB, broker, id, model string, relays int) *simShellyGen1 {
	d := &simShellyGen1{id: id, model: model, on: make([]bool, relays), watts: make([]float64, relays)}
	d.simClient = &simClient{}
	base := "shellies/" + id + "/"
	dialSim(t, d.simClient, broker, simOptions{
		id: id, willTopic: base + "online", willPayload: "false",
		subscribe: []string{base + "relay/+/command", "shellies/command", base + "command"},
		birth: func(c paho.Client) {
			c.Publish(base+"online", 0, true, "true")
			d.announce() // its state only when asked ("update") or changed
		},
		handler: d.command,
	})
	return d
}

func (d *simShellyGen1) command(topic string, payload []byte) {
	base := "shellies/" + d.id + "/"
	arg := strings.TrimSpace(string(payload))
	switch {
	case topic == "shellies/command" || topic == base+"command":
		switch arg {
		case "announce":
			d.announce()
		case "update":
			for i := range d.on {
				d.report(i)
			}
		}
	case strings.HasPrefix(topic, base+"relay/") && strings.HasSuffix(topic, "/command"):
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(topic, base+"relay/"), "/command"))
		if err != nil || i < 0 || i >= len(d.on) {
			return
		}
		d.mu.Lock()
		switch arg {
		case "on":
			d.on[i] = true
		case "off":
			d.on[i] = false
		case "toggle":
			d.on[i] = !d.on[i]
		}
		d.mu.Unlock()
		d.report(i)
	}
}

func (d *simShellyGen1) announce() {
	d.publish("shellies/announce", false, fmt.Sprintf(`{"id":%q,"model":%q,"mac":"84CCA8A1B2C3","ip":"192.168.1.40","new_fw":false,"fw_ver":"20230913-112003/v1.14.0-gcb84623"}`, d.id, d.model))
}

// report publishes relay i's state, and its power and energy counter.
func (d *simShellyGen1) report(i int) {
	d.mu.Lock()
	on, w := d.on[i], d.watts[i]
	d.mu.Unlock()
	base := fmt.Sprintf("shellies/%s/relay/%d", d.id, i)
	d.publish(base, false, onOff(on))
	d.publish(base+"/power", false, strconv.FormatFloat(w, 'f', 2, 64))
	d.publish(base+"/energy", false, "91200") // watt-minutes: 1.52 kWh
}

// draw makes relay i draw watts, reported as a PM model does.
func (d *simShellyGen1) draw(i int, watts float64) {
	d.mu.Lock()
	d.watts[i] = watts
	d.mu.Unlock()
	d.report(i)
}

func (d *simShellyGen1) relay(i int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.on[i]
}

// simShellyHT is a Gen1 H&T: it wakes, publishes its readings and sleeps.
type simShellyHT struct {
	*simClient
	id string
}

func newSimShellyHT(t testing.TB, broker, id string) *simShellyHT {
	d := &simShellyHT{id: id, simClient: &simClient{}}
	dialSim(t, d.simClient, broker, simOptions{id: id, willTopic: "shellies/" + id + "/online", willPayload: "false", birth: func(paho.Client) {}})
	return d
}

// wake announces itself, publishes a reading round and says it sleeps.
func (d *simShellyHT) wake(celsius, humidity, battery float64) {
	base := "shellies/" + d.id + "/"
	d.publish(base+"online", true, "true")
	d.publish("shellies/announce", false, fmt.Sprintf(`{"id":%q,"model":"SHHT-1","mac":"C4D5E6000000","ip":"192.168.1.41","fw_ver":"20230913-112234/v1.14.0-gcb84623"}`, d.id))
	d.publish(base+"sensor/temperature", false, strconv.FormatFloat(celsius, 'f', -1, 64))
	d.publish(base+"sensor/humidity", false, strconv.FormatFloat(humidity, 'f', -1, 64))
	d.publish(base+"sensor/battery", false, strconv.FormatFloat(battery, 'f', -1, 64))
	d.publish(base+"online", true, "false")
}
