package esphome

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
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
		e.dev = &power{entity: e, kind: devices.PowerFan}
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

// light is a light entity.
type light struct {
	*entity
	meta *espwire.ListEntitiesLightResponse
}

func (l *light) Info() devices.Info { return l.info(devices.KindLight) }

// LightCaps follow the light's colour modes: brightness, RGB colour and
// colour temperature (within its mireds) where one of its modes takes
// them.
func (l *light) LightCaps() devices.LightCaps {
	var c devices.LightCaps
	for _, m := range l.meta.SupportedColorModes {
		c.Dimmable = c.Dimmable || m.Brightness()
		c.Color = c.Color || m.RGB()
		if m.Temperature() && l.meta.MinMireds > 0 && l.meta.MaxMireds >= l.meta.MinMireds {
			c.KelvinMin = color.MirekToKelvin(int(math.Round(float64(l.meta.MaxMireds))))
			c.KelvinMax = color.MirekToKelvin(int(math.Round(float64(l.meta.MinMireds))))
		}
	}
	for _, fx := range l.meta.Effects {
		if fx != "None" {
			c.Effects = append(c.Effects, fx)
		}
	}
	return c
}

func (l *light) LightState(context.Context) (devices.LightState, error) {
	st, _ := l.node.State(l.key).(*espwire.LightStateResponse)
	if st == nil && !l.Online() {
		return devices.LightState{}, devices.Unreachable(nil, "not connected")
	}
	return lightState(st), nil
}

// lightState reads a node's light state; nil reads as off.
func lightState(st *espwire.LightStateResponse) devices.LightState {
	if st == nil {
		return devices.LightState{}
	}
	s := devices.LightState{On: st.State, Brightness: int(math.Round(float64(st.Brightness) * 100))}
	rgb, kelvin := st.ColorMode.RGB(), st.ColorMode.Temperature()
	switch {
	case st.Effect != "" && st.Effect != "None":
		s.Mode, s.Effect = devices.ModeEffect, st.Effect
	case rgb && (!kelvin || st.ColorBrightness > 0):
		c := color.RGB{R: channel(st.Red), G: channel(st.Green), B: channel(st.Blue)}
		x, y, _ := c.XY()
		s.Mode, s.Color = devices.ModeColor, &devices.Color{Hex: c.Hex(), X: round4(x), Y: round4(y)}
	case kelvin && st.ColorTemperature > 0:
		s.Mode, s.Kelvin = devices.ModeTemperature, color.MirekToKelvin(int(math.Round(float64(st.ColorTemperature))))
	}
	return s
}

func channel(v float32) uint8 { return uint8(math.Round(float64(min(max(v, 0), 1)) * 255)) }

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Preferred colour modes for a colour temperature and for an RGB colour:
// the plainest the light has.
var (
	temperatureModes = []espwire.ColorMode{espwire.ColorModeColorTemperature, espwire.ColorModeColdWarmWhite,
		espwire.ColorModeRGBColorTemperature, espwire.ColorModeRGBColdWarmWhite}
	rgbModes = []espwire.ColorMode{espwire.ColorModeRGB, espwire.ColorModeRGBWhite,
		espwire.ColorModeRGBColorTemperature, espwire.ColorModeRGBColdWarmWhite}
)

func (l *light) mode(prefer []espwire.ColorMode) (espwire.ColorMode, bool) {
	for _, m := range prefer {
		if slices.Contains(l.meta.SupportedColorModes, m) {
			return m, true
		}
	}
	return 0, false
}

// SetLight sends the change as one LightCommandRequest; a brightness, a
// colour, a temperature or an effect turns the light on.
func (l *light) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	cmd, err := l.lightCommand(c)
	if err != nil {
		return devices.LightState{}, err
	}
	st, err := l.command(ctx, cmd, func(st espwire.State) bool { return lightDone(cmd, st) })
	if err != nil {
		return devices.LightState{}, err
	}
	ls, _ := st.(*espwire.LightStateResponse)
	return lightState(ls), nil
}

// lightDone: st shows cmd performed, as far as its state, colour mode
// and effect tell.
func lightDone(cmd *espwire.LightCommandRequest, st espwire.State) bool {
	l, ok := st.(*espwire.LightStateResponse)
	switch {
	case !ok:
		return false
	case cmd.State != nil && l.State != *cmd.State:
		return false
	case cmd.ColorMode != nil && l.ColorMode != *cmd.ColorMode:
		return false
	}
	return cmd.Effect == nil || l.Effect == *cmd.Effect
}

func (l *light) lightCommand(c devices.LightChange) (*espwire.LightCommandRequest, error) {
	cmd := &espwire.LightCommandRequest{Key: l.key, State: c.On}
	on := c.Brightness != nil || c.Kelvin != nil || c.Color != nil || c.Effect != nil
	if c.Brightness != nil {
		cmd.Brightness = ptr(float32(*c.Brightness) / 100)
	}
	if c.Kelvin != nil {
		m, ok := l.mode(temperatureModes)
		if !ok {
			return nil, devices.Unsupported(nil, "has no colour temperature")
		}
		mired := float32(color.KelvinToMirek(*c.Kelvin))
		cmd.ColorMode, cmd.ColorTemperature = &m, ptr(min(max(mired, l.meta.MinMireds), l.meta.MaxMireds))
	}
	if c.Color != nil {
		m, ok := l.mode(rgbModes)
		if !ok {
			return nil, devices.Unsupported(nil, "takes no colour")
		}
		rgb, err := color.ParseHex(c.Color.Hex)
		if err != nil {
			return nil, devices.Invalid(err, "%v", err)
		}
		cmd.ColorMode = &m
		cmd.RGB = &espwire.RGB{Red: float32(rgb.R) / 255, Green: float32(rgb.G) / 255, Blue: float32(rgb.B) / 255}
	}
	if c.Effect != nil {
		if *c.Effect != "None" && !slices.Contains(l.meta.Effects, *c.Effect) {
			return nil, devices.Invalid(nil, "has no effect %q", *c.Effect)
		}
		cmd.Effect = c.Effect
	}
	if on && cmd.State == nil {
		cmd.State = ptr(true)
	}
	return cmd, nil
}

// power is a switch or a fan.
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
