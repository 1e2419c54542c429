package esphome

import (
	"context"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// confirmWait bounds how long a command waits for the node to send the
// state it led to; the node sends one after every command it performs.
const confirmWait = 2 * time.Second

// entity is one of a node's entities as a hub device.
type entity struct {
	node  *Node
	id    devices.ID
	key   uint32
	name  string
	room  string
	model string
	meta  espwire.Entity
	dev   devices.Device
}

// newEntity makes the device for an entity the hub uses, nil for one it
// does not: a kind it has no device for, a sensor of a class it does not
// read, an entity the node marks as configuration, diagnostic or
// disabled by default.
func newEntity(n *Node, info espwire.DeviceInfoResponse, m espwire.Entity) *entity {
	mac, err := devices.ParseMAC(info.MACAddress)
	if err != nil || m.Hidden() {
		return nil
	}
	e := &entity{
		node: n, key: m.Entity().Key, meta: m,
		id:    devices.ID(AdapterName + ":" + strings.ToUpper(mac.String()) + "/" + m.Entity().ObjectID),
		name:  entityName(info, m.Entity().Name),
		room:  cmp(info.SuggestedArea, info.Area),
		model: cmp(info.Model, "ESPHome"),
	}
	switch m := m.(type) {
	case *espwire.ListEntitiesLightResponse:
		e.dev = &light{entity: e, meta: m}
	case *espwire.ListEntitiesSwitchResponse:
		kind := devices.PowerSwitch
		if m.DeviceClass == "outlet" {
			kind = devices.PowerOutlet
		}
		e.dev = &power{entity: e, kind: kind}
	case *espwire.ListEntitiesFanResponse:
		e.dev = newFan(e, m)
	case *espwire.ListEntitiesButtonResponse:
		e.dev = &button{entity: e}
	case *espwire.ListEntitiesSensorResponse:
		if _, ok := devices.ClassReading(m.DeviceClass, m.Unit, 0); ok {
			e.dev = &sensor{entity: e, class: m.DeviceClass, unit: m.Unit}
		}
	case *espwire.ListEntitiesBinarySensorResponse:
		if _, ok := devices.BinaryClassReading(m.DeviceClass, false); ok {
			e.dev = &sensor{entity: e, class: m.DeviceClass, binary: true}
		}
	}
	if e.dev == nil {
		return nil
	}
	return e
}

// entityName is the node's friendly name followed by the entity's, as
// Home Assistant names them; an entity without a name is the node.
func entityName(info espwire.DeviceInfoResponse, name string) string {
	node := cmp(info.FriendlyName, info.Name)
	if name == "" {
		return node
	}
	if node == "" || strings.HasPrefix(strings.ToLower(name), strings.ToLower(node)) {
		return name
	}
	return node + " " + name
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (e *entity) same(o *entity) bool {
	return e.name == o.name && e.room == o.room && e.model == o.model && reflect.DeepEqual(e.meta, o.meta)
}

func (e *entity) device() devices.Device { return e.dev }

func (e *entity) info(kind devices.Kind) devices.Info {
	return devices.Info{ID: e.id, Adapter: AdapterName, Kind: kind, Name: e.name, Model: e.model, Room: e.room}
}

func (e *entity) Online() bool {
	up, _ := e.node.Status()
	return up
}

// command sends m and waits, within ctx and confirmWait, for a new state
// of the entity that shows it done (done tells; a state the node sent
// before it read the command, such as the first after connecting, may
// arrive in between). It returns the newest state.
func (e *entity) command(ctx context.Context, m espwire.Message, done func(espwire.State) bool) (espwire.State, error) {
	ctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	before := e.node.State(e.key)
	if err := e.node.Send(ctx, m); err != nil {
		return nil, err
	}
	wait := time.NewTimer(confirmWait)
	defer wait.Stop()
	for {
		ch := e.node.Changed()
		st := e.node.State(e.key)
		if st != before && done(st) {
			return st, nil
		}
		select {
		case <-ch:
		case <-wait.C:
			return st, nil // sent; the node has said nothing that shows it
		case <-ctx.Done():
			return nil, devices.Unreachable(ctx.Err(), "did not confirm the command")
		}
	}
}

// power is a switch, or a fan without speeds.
type power struct {
	*entity
	kind string
}

func (p *power) Info() devices.Info { return p.info(devices.KindPower) }
func (p *power) PowerKind() string  { return p.kind }

func (p *power) PowerState(context.Context) (bool, error) {
	on, known := powerOf(p.node.State(p.key))
	if !known && !p.Online() {
		return false, devices.Unreachable(nil, "not connected")
	}
	return on, nil
}

func powerOf(st espwire.State) (on, known bool) {
	switch st := st.(type) {
	case *espwire.SwitchStateResponse:
		return st.State, true
	case *espwire.FanStateResponse:
		return st.State, true
	}
	return false, false
}

func (p *power) SetPower(ctx context.Context, on bool) error {
	var cmd espwire.Message = &espwire.SwitchCommandRequest{Key: p.key, State: on}
	if p.kind == devices.PowerFan {
		cmd = &espwire.FanCommandRequest{Key: p.key, State: &on}
	}
	_, err := p.command(ctx, cmd, func(st espwire.State) bool {
		got, known := powerOf(st)
		return known && got == on
	})
	return err
}

// newFan is a fan's device: one that takes a speed where the node says
// it has speeds to set.
func newFan(e *entity, m *espwire.ListEntitiesFanResponse) devices.Device {
	p := &power{entity: e, kind: devices.PowerFan}
	if m.SupportsSpeed && m.SupportedSpeedCount > 0 {
		return &speedFan{power: p, levels: m.SupportedSpeedCount}
	}
	return p
}

// speedFan is a fan with speed levels 1 to levels, which the hub sets and
// reads as percentages.
type speedFan struct {
	*power
	levels int32
}

// Speed is the fan's speed level as a percentage of its levels, rounded;
// 0 while it is off.
func (f *speedFan) Speed() (int, bool) {
	st, ok := f.node.State(f.key).(*espwire.FanStateResponse)
	switch {
	case !ok:
		return 0, false
	case !st.State:
		return 0, true
	case st.SpeedLevel < 1:
		return 0, false // on, at no level it says
	}
	return levelPercent(st.SpeedLevel, f.levels), true
}

// SetSpeed turns the fan on at the level that pct falls in, and waits for
// the node to report it so.
func (f *speedFan) SetSpeed(ctx context.Context, pct int) error {
	if pct < 1 || pct > 100 {
		return devices.Invalid(nil, "speed %d%% is not between 1 and 100", pct)
	}
	level := percentLevel(pct, f.levels)
	cmd := &espwire.FanCommandRequest{Key: f.key, State: ptr(true), SpeedLevel: &level}
	_, err := f.command(ctx, cmd, func(st espwire.State) bool {
		s, ok := st.(*espwire.FanStateResponse)
		return ok && s.State && s.SpeedLevel == level
	})
	return err
}

// percentLevel and levelPercent map a percentage to one of levels speed
// levels and back, as Home Assistant's ESPHome fans do. A percentage
// takes the level it reaches into (rounded up, 1 at least); a level
// reads as its share of the levels rounded down (2 of 3 is 66 %). So a
// speed read back and set again keeps its level, for fewer than 100
// levels: level·100/levels, rounded down, is still above level-1 shares.
func percentLevel(pct int, levels int32) int32 {
	l := int32(math.Ceil(float64(pct) * float64(levels) / 100))
	return min(max(l, 1), levels)
}

func levelPercent(level, levels int32) int {
	return int(min(level, levels) * 100 / levels)
}

// button is a button entity: a momentary power device. Switching it on
// presses it; switching it off does nothing, since it is never on.
type button struct{ *entity }

func (b *button) Info() devices.Info { return b.info(devices.KindPower) }
func (b *button) PowerKind() string  { return devices.PowerButton }

// PowerState is always off: a press is over as soon as it is made.
func (b *button) PowerState(context.Context) (bool, error) {
	if !b.Online() {
		return false, devices.Unreachable(nil, "not connected")
	}
	return false, nil
}

// SetPower presses the button for on. A node reports no state for a
// button, so a press is done once the node has taken it.
func (b *button) SetPower(ctx context.Context, on bool) error {
	if !on {
		return nil
	}
	ctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	return b.node.Send(ctx, &espwire.ButtonCommandRequest{Key: b.key})
}

// sensor is a sensor or binary sensor of a class the hub reads.
type sensor struct {
	*entity
	class, unit string
	binary      bool
}

func (s *sensor) Info() devices.Info { return s.info(devices.KindSensor) }

// Readings is the sensor's one reading; none while it has no state.
func (s *sensor) Readings(context.Context) ([]devices.Reading, error) {
	var r devices.Reading
	ok := false
	switch st := s.node.State(s.key).(type) {
	case *espwire.SensorStateResponse:
		if !st.MissingState {
			r, ok = devices.ClassReading(s.class, s.unit, float64(st.State))
		}
	case *espwire.BinarySensorStateResponse:
		if !st.MissingState {
			r, ok = devices.BinaryClassReading(s.class, st.State)
		}
	}
	if !ok {
		if !s.Online() {
			return nil, devices.Unreachable(nil, "not connected")
		}
		return []devices.Reading{}, nil
	}
	r.Updated = s.node.StateTime(s.key)
	return []devices.Reading{r}, nil
}

func ptr[T any](v T) *T { return &v }
