package mqtt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Home Assistant MQTT discovery (PROTOCOLS.md §5.4): retained configs on
// <prefix>/<component>/[<node_id>/]<object_id>/config describe entities
// (ESPHome and many firmwares announce themselves this way). A switch, fan
// or light entity is a device of its own; the sensor and binary_sensor
// entities of one device make one sensor device. An empty retained config
// removes the entity.
//
// Device-based discovery puts a whole device in one config, on
// <prefix>/device/[<node_id>/]<object_id>/config: "device" and "origin"
// at the top, shared by every component; options components may share
// (sharedOptions) at the top too; and "components" ("cmps"), a map of
// component id to the component's config, its platform in "platform"
// ("p"). Each component is then an entity as if announced on its own. An
// empty payload removes them all; a component left out of the map, or
// reduced to its platform alone, is removed.

type discovery struct {
	e      *env
	prefix string

	mu       sync.Mutex
	entities map[string]*haEntity // by config topic
	byTopic  map[string][]*haEntity
	last     map[string][]byte // the last payload on each entity topic
	groups   map[devices.ID]*haGroup
	// components lists the entity keys each device-based config made.
	components map[string][]string
}

// haEntity is one configured entity. Its handlers are fixed when it is
// built; its availability changes under mu.
type haEntity struct {
	// configTopic keys the entity: its config topic, or for a component
	// of a device-based config "<topic>#<component id>".
	configTopic string
	raw         []byte
	id          devices.ID
	// handlers says what the entity reads on each of its topics.
	handlers map[string][]func(payload []byte)

	power    *powerDevice
	light    *lightDevice
	strip    *stripLight  // light, when it declares segments: what is registered
	group    *haGroup     // sensors: the device the reading joins
	groupKey string       // sensors: the group's id before it is joined
	info     devices.Info // sensors: how the group is named
	stop     func()       // releases timers

	availMode  string
	availCount int             // how many availability topics it has
	availKnown map[string]bool // topic → available, for the topics that spoke

	mu     sync.Mutex
	up     bool
	latest bool
}

// haGroup is the sensor device of one Home Assistant device.
type haGroup struct {
	dev     *sensorDevice
	members map[string]*haEntity // by config topic; under discovery.mu
}

func newDiscovery(e *env, prefix string) *discovery {
	return &discovery{
		e: e, prefix: prefix,
		entities: map[string]*haEntity{}, byTopic: map[string][]*haEntity{}, groups: map[devices.ID]*haGroup{},
		last: map[string][]byte{}, components: map[string][]string{},
	}
}

func (d *discovery) filters() []string {
	return []string{d.prefix + "/+/+/config", d.prefix + "/+/+/+/config"}
}

// parseConfigTopic returns the component and object path of a config
// topic: <prefix>/<component>/[<node_id>/]<object_id>/config.
func (d *discovery) parseConfigTopic(topic string) (component string, object []string, ok bool) {
	rest, ok := strings.CutPrefix(topic, d.prefix+"/")
	if !ok {
		return "", nil, false
	}
	levels := strings.Split(rest, "/")
	if (len(levels) != 3 && len(levels) != 4) || levels[len(levels)-1] != "config" {
		return "", nil, false
	}
	return levels[0], levels[1 : len(levels)-1], true
}

func (d *discovery) route(topic string) (string, bool) {
	if _, _, ok := d.parseConfigTopic(topic); ok {
		return "ha:" + topic, true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.byTopic[topic]) > 0 {
		return "ha-topic:" + topic, true
	}
	return "", false
}

func (d *discovery) handle(topic string, payload []byte) {
	if component, object, ok := d.parseConfigTopic(topic); ok {
		d.config(topic, component, object, payload)
		return
	}
	d.mu.Lock()
	es := slices.Clone(d.byTopic[topic])
	if len(es) > 0 {
		d.last[topic] = payload
	}
	d.mu.Unlock()
	for _, e := range es {
		for _, h := range e.handlers[topic] {
			h(payload)
		}
	}
}

// replay hands an entity that joins a topic already followed the topic's
// last (retained) payload: the broker sends retained messages on a new
// subscription, not on a second entity's interest in the same one. It runs
// on the topic's queue, in order with the topic's messages.
func (d *discovery) replay(e *haEntity, topic string) {
	d.e.boxes.post("ha-topic:"+topic, func() {
		d.mu.Lock()
		payload, ok := d.last[topic]
		attached := d.entities[e.configTopic] == e
		d.mu.Unlock()
		if !ok || !attached {
			return
		}
		for _, h := range e.handlers[topic] {
			h(payload)
		}
	})
}

// connected has nothing to ask: configs, states and availability are
// retained, and the broker sends them again on resubscription.
func (d *discovery) connected() {}

// config follows one config topic.
func (d *discovery) config(topic, component string, object []string, payload []byte) {
	if component == "device" {
		d.deviceConfig(topic, object, payload)
		return
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		d.apply(topic, component, object, nil, nil)
		return
	}
	raw, err := expandedConfig(payload)
	switch {
	case err != nil:
		d.e.log.Warn("unreadable discovery config", "topic", topic, "err", err)
		d.apply(topic, component, object, nil, nil)
	case migrating(raw):
		d.e.log.Info("discovered entity moving to device-based discovery", "topic", topic)
		d.apply(topic, component, object, nil, nil)
	default:
		d.apply(topic, component, object, payload, raw)
	}
}

// migrating reports whether a config is Home Assistant's
// {"migrate_discovery": true}: the entity is about to be announced again,
// by a device-based config, and until then is unloaded.
func migrating(raw map[string]any) bool {
	_, ok := raw["migrate_discovery"]
	return ok
}

// apply follows one entity's config (payload, as expanded in raw): a new
// or changed entity is (re)built; a nil raw removes it.
func (d *discovery) apply(key, component string, object []string, payload []byte, raw map[string]any) {
	d.mu.Lock()
	old := d.entities[key]
	d.mu.Unlock()
	if old != nil && raw != nil && bytes.Equal(old.raw, payload) {
		return
	}
	if old != nil {
		d.drop(old)
	}
	if raw == nil {
		return
	}
	cfg, err := decodeHAConfig(raw)
	if err != nil {
		d.e.log.Warn("unreadable discovery config", "topic", key, "err", err)
		return
	}
	if cfg.fromOtherFamily() {
		return
	}
	e, err := d.build(key, component, object, cfg)
	if err != nil {
		d.e.log.Warn("discovered entity not supported", "topic", key, "err", err)
		return
	}
	if e == nil {
		return // a component or device class the hub has no use for
	}
	e.raw = payload
	d.attach(e)
}

// sharedOptions are the options of a device-based config that its
// components take unless they set their own (Home Assistant's
// SHARED_OPTIONS).
var sharedOptions = []string{
	"availability", "availability_mode", "availability_template", "availability_topic",
	"command_topic", "payload_available", "payload_not_available", "state_topic",
}

// deviceComponent is one component of a device-based config, as the
// config of an entity of its own.
type deviceComponent struct {
	platform string
	object   []string
	payload  []byte // its whole config, canonical JSON, to tell a change
	raw      map[string]any
}

// deviceConfig follows a device-based config: its components are applied
// one by one, and those it no longer has are removed.
func (d *discovery) deviceConfig(topic string, object []string, payload []byte) {
	var want map[string]deviceComponent
	if len(bytes.TrimSpace(payload)) > 0 {
		raw, err := expandedConfig(payload)
		switch {
		case err != nil:
			d.e.log.Warn("unreadable device discovery config", "topic", topic, "err", err)
		case migrating(raw):
			d.e.log.Info("discovered device moving back to per-component discovery", "topic", topic)
		default:
			want = deviceComponents(topic, object, raw)
		}
	}
	keys := slices.Sorted(maps.Keys(want))
	d.mu.Lock()
	had := d.components[topic]
	if len(keys) == 0 {
		delete(d.components, topic)
	} else {
		d.components[topic] = keys
	}
	d.mu.Unlock()
	for _, key := range had {
		if _, ok := want[key]; !ok {
			d.apply(key, "", nil, nil, nil)
		}
	}
	for _, key := range keys {
		c := want[key]
		d.apply(key, c.platform, c.object, c.payload, c.raw)
	}
}

// deviceComponents splits an expanded device-based config into the
// configs of its components: each with the device, the origin and the
// shared options it does not set itself. A component with no platform,
// or with its platform alone (Home Assistant's way to remove one), is
// left out.
func deviceComponents(topic string, object []string, raw map[string]any) map[string]deviceComponent {
	out := map[string]deviceComponent{}
	cs, _ := raw["components"].(map[string]any)
	for id, c := range cs {
		cfg, ok := c.(map[string]any)
		platform, _ := cfg["platform"].(string)
		if !ok || platform == "" || len(cfg) == 1 {
			continue
		}
		delete(cfg, "platform")
		for _, k := range sharedOptions {
			if v, ok := raw[k]; ok {
				if _, own := cfg[k]; !own {
					cfg[k] = v
				}
			}
		}
		for _, k := range []string{"device", "origin"} { // the device's, whatever the component says
			if v, ok := raw[k]; ok {
				cfg[k] = v
			} else {
				delete(cfg, k)
			}
		}
		payload, err := json.Marshal(cfg)
		if err != nil {
			continue
		}
		out[topic+"#"+id] = deviceComponent{platform: platform, object: append(slices.Clone(object), id), payload: payload, raw: cfg}
	}
	return out
}

// build makes the entity of a config.
func (d *discovery) build(topic, component string, object []string, cfg haConfig) (*haEntity, error) {
	e := &haEntity{configTopic: topic, handlers: map[string][]func([]byte){}, stop: func() {}, availKnown: map[string]bool{}}
	native := cfg.UniqueID
	if native == "" {
		native = component + "." + strings.Join(object, ".")
	}
	e.id = deviceID("ha", native)
	info := devices.Info{ID: e.id, Name: entityName(cfg, object), Model: strings.TrimSpace(cfg.Device.Manufacturer + " " + cfg.Device.Model), Room: cfg.Device.SuggestedArea}
	if err := d.availability(e, cfg); err != nil {
		return nil, err
	}
	var err error
	switch component {
	case "switch", "fan":
		err = d.buildPower(e, info, component, cfg)
	case "light":
		err = d.buildLight(e, info, cfg)
	case "sensor", "binary_sensor":
		return d.buildSensor(e, info, component, cfg)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// entityName follows Home Assistant's naming: an entity without a name is
// named after its device; a named one is "<device> <name>" unless its name
// already says the device.
func entityName(cfg haConfig, object []string) string {
	dev := strings.TrimSpace(cfg.Device.Name)
	name := ""
	if cfg.Name != nil {
		name = strings.TrimSpace(*cfg.Name)
	}
	switch {
	case name == "" && dev != "":
		return dev
	case name == "" && cfg.ObjectID != "":
		return cfg.ObjectID
	case name == "":
		return object[len(object)-1]
	case dev == "" || strings.HasPrefix(strings.ToLower(name), strings.ToLower(dev)):
		return name
	}
	return dev + " " + name
}

// on registers what the entity reads on topic.
func (e *haEntity) on(topic string, h func(payload []byte)) {
	if topic != "" {
		e.handlers[topic] = append(e.handlers[topic], h)
	}
}

// availability wires the entity's availability topics.
func (d *discovery) availability(e *haEntity, cfg haConfig) error {
	list := cfg.Availability
	if cfg.AvailabilityTopic != "" {
		list = append(list, haAvailability{
			Topic: cfg.AvailabilityTopic, ValueTemplate: cfg.AvailabilityTemplate,
			PayloadAvailable: cfg.PayloadAvailable, PayloadNotAvailable: cfg.PayloadNotAvailable,
		})
	}
	e.up = len(list) == 0 // without availability, an entity is always there
	e.availMode, e.availCount = cfg.AvailabilityMode, len(list)
	for _, a := range list {
		tpl, err := parseTemplate(a.ValueTemplate)
		if err != nil {
			return err
		}
		on := payloadText(a.PayloadAvailable, payloadText(cfg.PayloadAvailable, "online"))
		off := payloadText(a.PayloadNotAvailable, payloadText(cfg.PayloadNotAvailable, "offline"))
		e.on(a.Topic, func(payload []byte) {
			v, ok := tpl.render(payload)
			switch {
			case ok && strings.EqualFold(v, on):
				d.setAvailable(e, a.Topic, true)
			case ok && strings.EqualFold(v, off):
				d.setAvailable(e, a.Topic, false)
			}
		})
	}
	return nil
}

// setAvailable records what one availability topic said and updates the
// device by the entity's availability mode (latest, all, any).
func (d *discovery) setAvailable(e *haEntity, topic string, up bool) {
	e.mu.Lock()
	e.availKnown[topic] = up
	e.latest = up
	switch e.availMode {
	case "all":
		e.up = len(e.availKnown) >= e.availCount && !slices.Contains(mapValues(e.availKnown), false)
	case "any":
		e.up = slices.Contains(mapValues(e.availKnown), true)
	default:
		e.up = e.latest
	}
	now := e.up
	e.mu.Unlock()
	d.pushAvailability(e, now)
}

func mapValues(m map[string]bool) []bool {
	out := make([]bool, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func (e *haEntity) isUp() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.up
}

// pushAvailability hands the entity's availability to its device: a
// sensor group is available while any of its entities is.
func (d *discovery) pushAvailability(e *haEntity, up bool) {
	var b *base
	switch {
	case e.power != nil:
		b = e.power.base
	case e.light != nil:
		b = e.light.base
	case e.group != nil:
		d.mu.Lock()
		up = false
		for _, m := range e.group.members {
			up = up || m.isUp()
		}
		d.mu.Unlock()
		b = e.group.dev.base
	default:
		return
	}
	if b.setAvailable(up) {
		b.changed()
	}
}

// buildPower makes a switch or fan entity.
func (d *discovery) buildPower(e *haEntity, info devices.Info, component string, cfg haConfig) error {
	tplText := cfg.ValueTemplate
	kind := devices.PowerSwitch
	if component == "fan" {
		tplText, kind = cfg.StateValueTemplate, devices.PowerFan
	} else if cfg.DeviceClass == devices.PowerOutlet {
		kind = devices.PowerOutlet
	}
	tpl, err := parseTemplate(tplText)
	if err != nil {
		return err
	}
	if cfg.CommandTopic == "" {
		return fmt.Errorf("%s has no command_topic", component)
	}
	payloadOn, payloadOff := payloadText(cfg.PayloadOn, "ON"), payloadText(cfg.PayloadOff, "OFF")
	stateOn, stateOff := payloadText(cfg.StateOn, payloadOn), payloadText(cfg.StateOff, payloadOff)
	optimistic := cfg.StateTopic == "" || (cfg.Optimistic != nil && *cfg.Optimistic)
	var p *powerDevice
	p = newPowerDevice(d.e, info, kind, func(ctx context.Context, on bool) error {
		payload := payloadOff
		if on {
			payload = payloadOn
		}
		if err := d.e.conn.publish(ctx, cfg.CommandTopic, []byte(payload), false); err != nil {
			return err
		}
		if optimistic {
			p.report(on)
		}
		return nil
	})
	e.on(cfg.StateTopic, func(payload []byte) {
		v, ok := tpl.render(payload)
		switch {
		case ok && strings.EqualFold(v, stateOn):
			p.report(true)
		case ok && strings.EqualFold(v, stateOff):
			p.report(false)
		}
	})
	if optimistic && cfg.StateTopic == "" {
		p.report(false) // nothing will ever say; start from off, as Home Assistant does
	}
	e.power = p
	return nil
}

// buildSensor makes a sensor or binary_sensor entity; it joins the sensor
// device of its Home Assistant device. Device classes outside the hub's
// reading types are left out (nil entity).
func (d *discovery) buildSensor(e *haEntity, info devices.Info, component string, cfg haConfig) (*haEntity, error) {
	tpl, err := parseTemplate(cfg.ValueTemplate)
	if err != nil {
		return nil, err
	}
	if cfg.StateTopic == "" {
		return nil, fmt.Errorf("%s has no state_topic", component)
	}
	key := e.configTopic
	var read func(payload []byte) (devices.Reading, bool)
	if component == "sensor" {
		typ, ok := devices.SensorClass(cfg.DeviceClass)
		if !ok {
			return nil, nil
		}
		read = func(payload []byte) (devices.Reading, bool) {
			v, ok := tpl.render(payload)
			if !ok {
				return devices.Reading{}, false
			}
			x, ok := parseNumber(v)
			if !ok {
				return devices.Reading{}, false // "unknown", "unavailable", ""
			}
			return valueReading(typ, inReadingUnit(typ, cfg.Unit, x)), true
		}
	} else {
		reading, inverted, ok := devices.BinaryClass(cfg.DeviceClass)
		if !ok {
			return nil, nil
		}
		on, off := payloadText(cfg.PayloadOn, "ON"), payloadText(cfg.PayloadOff, "OFF")
		read = func(payload []byte) (devices.Reading, bool) {
			v, ok := tpl.render(payload)
			switch {
			case ok && strings.EqualFold(v, on):
				return boolReading(reading, !inverted), true
			case ok && strings.EqualFold(v, off):
				return boolReading(reading, inverted), true
			}
			return devices.Reading{}, false
		}
		read = withOffDelay(e, read, cfg.OffDelay, inverted)
	}
	e.on(cfg.StateTopic, func(payload []byte) {
		if r, ok := read(payload); ok && e.group != nil {
			e.group.dev.report(map[string]devices.Reading{key: r})
		}
	})
	e.groupKey = groupKey(cfg, e.id)
	name := strings.TrimSpace(cfg.Device.Name)
	if name == "" {
		name = info.Name
	}
	e.info = devices.Info{Name: name, Model: info.Model, Room: info.Room}
	return e, nil
}

// groupKey names the sensor device an entity joins: its Home Assistant
// device, or the entity alone.
func groupKey(cfg haConfig, entityID devices.ID) string {
	if ids := cfg.Device.identifiers(); len(ids) > 0 {
		return string(deviceID("ha", ids[0], "sensor"))
	}
	return string(entityID) + ".sensor"
}

// withOffDelay makes a binary sensor that only says "on" fall back to off
// after delay seconds, as Home Assistant's off_delay does.
func withOffDelay(e *haEntity, read func([]byte) (devices.Reading, bool), delay float64, inverted bool) func([]byte) (devices.Reading, bool) {
	if delay <= 0 {
		return read
	}
	var mu sync.Mutex
	var timer *time.Timer
	e.stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
	}
	return func(payload []byte) (devices.Reading, bool) {
		r, ok := read(payload)
		if !ok || r.Bool == nil || *r.Bool == inverted {
			return r, ok
		}
		mu.Lock()
		defer mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
		timer = time.AfterFunc(time.Duration(delay*float64(time.Second)), func() {
			if e.group != nil {
				e.group.dev.report(map[string]devices.Reading{e.configTopic: boolReading(r.Type, inverted)})
			}
		})
		return r, ok
	}
}

// inReadingUnit converts a value given in unit to the unit of its
// reading (a temperature in °F or K to °C, a power in kW to W, an energy
// in Wh or MWh to kWh); a unit it does not know leaves the value as sent.
func inReadingUnit(typ, unit string, v float64) float64 {
	if c, ok := devices.ToReadingUnit(typ, unit, v); ok {
		return c
	}
	return v
}

// attach registers a built entity: its device (or its place in a sensor
// device), its topics, and its subscriptions.
func (d *discovery) attach(e *haEntity) {
	var added mqttDevice
	d.mu.Lock()
	d.entities[e.configTopic] = e
	for t := range e.handlers {
		d.byTopic[t] = append(d.byTopic[t], e)
	}
	if e.groupKey != "" {
		gid := devices.ID(e.groupKey)
		g := d.groups[gid]
		if g == nil {
			info := e.info
			info.ID = gid
			g = &haGroup{dev: newSensorDevice(d.e, info), members: map[string]*haEntity{}}
			d.groups[gid] = g
			added = g.dev
		}
		g.members[e.configTopic] = e
		e.group = g
	}
	d.mu.Unlock()
	switch {
	case e.power != nil:
		added = e.power
	case e.strip != nil:
		added = e.strip
	case e.light != nil:
		added = e.light
	}
	if added != nil {
		d.e.dir.add(added)
	}
	d.pushAvailability(e, e.isUp())
	for t := range e.handlers {
		d.e.conn.subscribe(t)
		d.replay(e, t)
	}
}

// drop forgets an entity whose config was removed or replaced. A device
// left without entities is removed from the registry (the inventory keeps
// it, offline).
func (d *discovery) drop(e *haEntity) {
	e.stop()
	d.mu.Lock()
	delete(d.entities, e.configTopic)
	for t := range e.handlers {
		rest := slices.DeleteFunc(slices.Clone(d.byTopic[t]), func(o *haEntity) bool { return o == e })
		if len(rest) == 0 {
			delete(d.byTopic, t)
			delete(d.last, t)
		} else {
			d.byTopic[t] = rest
		}
	}
	emptyGroup := false
	if e.group != nil {
		delete(e.group.members, e.configTopic)
		if emptyGroup = len(e.group.members) == 0; emptyGroup {
			delete(d.groups, e.group.dev.info.ID)
		}
	}
	d.mu.Unlock()
	for t := range e.handlers {
		d.e.conn.unsubscribe(t)
	}
	switch {
	case e.power != nil:
		d.e.dir.removeDevice(e.power)
	case e.strip != nil:
		d.e.dir.removeDevice(e.strip)
	case e.light != nil:
		d.e.dir.removeDevice(e.light)
	case emptyGroup:
		d.e.dir.remove(e.group.dev.info.ID)
	case e.group != nil:
		e.group.dev.forget(e.configTopic)
		d.pushAvailability(e, false)
	}
}
