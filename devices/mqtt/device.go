package mqtt

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// mqttDevice is what every device of this adapter is.
type mqttDevice interface {
	devices.Device
	// wake tells commands waiting on the device to look again (its link
	// changed).
	wake()
	setAvailable(up bool) bool
}

// directory is the adapter's view of the registry: the devices it added,
// so a change of the broker connection reaches all of them.
type directory struct {
	reg *devices.Registry

	mu   sync.Mutex
	devs map[devices.ID]mqttDevice
}

func newDirectory(reg *devices.Registry) *directory {
	return &directory{reg: reg, devs: map[devices.ID]mqttDevice{}}
}

// add registers d, replacing a device with the same id. The replaced one
// goes offline first, so a command it is running ends at once rather than
// holding up the registry until its timeout.
func (d *directory) add(dev mqttDevice) {
	d.mu.Lock()
	old := d.devs[dev.Info().ID]
	d.devs[dev.Info().ID] = dev
	d.mu.Unlock()
	if old != nil && old != dev {
		old.setAvailable(false)
	}
	d.reg.Add(dev)
}

// remove unregisters a device that is gone for good (its retained
// configuration was deleted, it left the Zigbee network). The inventory
// keeps it, offline.
func (d *directory) remove(id devices.ID) {
	d.mu.Lock()
	dev, ok := d.devs[id]
	delete(d.devs, id)
	d.mu.Unlock()
	if ok {
		dev.setAvailable(false)
		d.reg.Remove(id)
	}
}

// removeDevice removes dev, unless another device has taken its id since
// (two discovery configs announcing one unique_id, as while a device moves
// to device-based discovery): the newer one stays.
func (d *directory) removeDevice(dev mqttDevice) {
	id := dev.Info().ID
	d.mu.Lock()
	current := d.devs[id]
	d.mu.Unlock()
	if current == dev {
		d.remove(id)
	}
}

func (d *directory) changed(id devices.ID) { d.reg.Changed(id) }

// linkChanged tells every device's waiters and the registry that the
// broker connection went up or down.
func (d *directory) linkChanged() {
	d.mu.Lock()
	all := make([]mqttDevice, 0, len(d.devs))
	for _, dev := range d.devs {
		all = append(all, dev)
	}
	d.mu.Unlock()
	for _, dev := range all {
		dev.wake()
		d.reg.Changed(dev.Info().ID)
	}
}

// base is what every device shares: its description, its availability as
// the device last announced it (LWT, availability topic), and a broadcast
// of its reports that commands wait on for the device's confirmation.
type base struct {
	info devices.Info
	env  *env

	mu        sync.Mutex
	available bool
	reports   uint64        // how many state reports arrived
	signal    chan struct{} // closed and replaced on every report or link change
}

func newBase(e *env, info devices.Info) *base {
	info.Adapter = AdapterName
	return &base{info: info, env: e, available: true, signal: make(chan struct{})}
}

// Info describes the device.
func (b *base) Info() devices.Info { return b.info }

// Online is true while the hub is connected to the broker and the device
// has not said it is offline.
func (b *base) Online() bool {
	if !b.env.conn.up() {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.available
}

// setAvailable records the device's availability and reports whether it
// changed; the caller tells the registry.
func (b *base) setAvailable(up bool) bool {
	b.mu.Lock()
	changed := b.available != up
	b.available = up
	if changed {
		close(b.signal)
		b.signal = make(chan struct{})
	}
	b.mu.Unlock()
	return changed
}

func (b *base) wake() {
	b.mu.Lock()
	close(b.signal)
	b.signal = make(chan struct{})
	b.mu.Unlock()
}

// reported counts one state report and wakes the waiters.
func (b *base) reported() {
	b.mu.Lock()
	b.reports++
	close(b.signal)
	b.signal = make(chan struct{})
	b.mu.Unlock()
}

func (b *base) reportCount() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reports
}

func (b *base) changed() { b.env.dir.changed(b.info.ID) }

// Errors of a device that cannot answer now. They say what happened; the
// hub names the device in front of them, as people call it.
var (
	errOffline = devices.Unreachable(nil, "offline")
	errNoState = devices.Unreachable(nil, "it has not reported its state yet")
)

// ready fails when the device cannot take a command now. A command that
// waited in the device's queue while the device went offline ends here
// instead of firing later by surprise.
func (b *base) ready() error {
	if !b.env.conn.up() {
		return errNotConnected
	}
	if !b.Online() {
		return errOffline
	}
	return nil
}

// await waits until ok holds (checked after every report), the device goes
// offline, or ctx ends.
func (b *base) await(ctx context.Context, ok func() bool) error {
	for {
		b.mu.Lock()
		sig := b.signal
		b.mu.Unlock()
		if ok() {
			return nil
		}
		if err := b.ready(); err != nil {
			return err
		}
		select {
		case <-sig:
		case <-ctx.Done():
			return devices.Unreachable(ctx.Err(), "did not confirm the command")
		}
	}
}

// powerDevice is a relay, plug, switch or fan. Its family sends the
// command; the device then waits for the device's own report of the new
// state (families whose protocol acknowledges a command report it
// themselves).
type powerDevice struct {
	*base
	kind string
	send func(ctx context.Context, on bool) error

	stateMu sync.Mutex
	on      bool
	known   bool
}

var _ devices.PowerDevice = (*powerDevice)(nil)

func newPowerDevice(e *env, info devices.Info, kind string, send func(context.Context, bool) error) *powerDevice {
	info.Kind = devices.KindPower
	return &powerDevice{base: newBase(e, info), kind: kind, send: send}
}

// PowerKind is switch, outlet or fan.
func (p *powerDevice) PowerKind() string { return p.kind }

// PowerState is the state the device last reported.
func (p *powerDevice) PowerState(context.Context) (bool, error) {
	if err := p.ready(); err != nil {
		return false, err
	}
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	if !p.known {
		return false, errNoState
	}
	return p.on, nil
}

// SetPower switches the device and waits for it to confirm.
func (p *powerDevice) SetPower(ctx context.Context, on bool) error {
	if err := p.ready(); err != nil {
		return err
	}
	if err := p.send(ctx, on); err != nil {
		return err
	}
	return p.await(ctx, func() bool {
		p.stateMu.Lock()
		defer p.stateMu.Unlock()
		return p.known && p.on == on
	})
}

// report records a state the device reported.
func (p *powerDevice) report(on bool) {
	p.stateMu.Lock()
	changed := !p.known || p.on != on
	p.on, p.known = on, true
	p.stateMu.Unlock()
	p.reported()
	if changed {
		p.changed()
	}
}

// current is the last reported state, without checks.
func (p *powerDevice) current() (on, known bool) {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	return p.on, p.known
}

// sensorDevice reports readings, each kept under a key its family chooses
// (the reading type, or the entity that reports it).
type sensorDevice struct {
	*base

	stateMu  sync.Mutex
	readings map[string]devices.Reading
}

var _ devices.Sensor = (*sensorDevice)(nil)

func newSensorDevice(e *env, info devices.Info) *sensorDevice {
	info.Kind = devices.KindSensor
	return &sensorDevice{base: newBase(e, info), readings: map[string]devices.Reading{}}
}

// Readings are the values last reported, in a stable order.
func (s *sensorDevice) Readings(context.Context) ([]devices.Reading, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	keys := make([]string, 0, len(s.readings))
	for k := range s.readings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]devices.Reading, 0, len(keys))
	for _, k := range keys {
		r := s.readings[k]
		if r.Bool != nil {
			v := *r.Bool
			r.Bool = &v
		}
		out = append(out, r)
	}
	return out, nil
}

// report records readings; the registry hears of it when a value moved.
func (s *sensorDevice) report(rs map[string]devices.Reading) {
	if len(rs) == 0 {
		return
	}
	changed := false
	s.stateMu.Lock()
	for k, r := range rs {
		old, ok := s.readings[k]
		changed = changed || !ok || !sameReading(old, r)
		s.readings[k] = r
	}
	s.stateMu.Unlock()
	s.reported()
	if changed {
		s.changed()
	}
}

// forget drops the readings under keys.
func (s *sensorDevice) forget(keys ...string) {
	s.stateMu.Lock()
	for _, k := range keys {
		delete(s.readings, k)
	}
	s.stateMu.Unlock()
	s.changed()
}

func sameReading(a, b devices.Reading) bool {
	if a.Type != b.Type || a.Value != b.Value || a.Unit != b.Unit || (a.Bool == nil) != (b.Bool == nil) {
		return false
	}
	return a.Bool == nil || *a.Bool == *b.Bool
}

func boolReading(typ string, v bool) devices.Reading {
	return devices.Reading{Type: typ, Bool: &v, Updated: time.Now().UTC()}
}

func valueReading(typ string, v float64) devices.Reading {
	return devices.Reading{Type: typ, Value: v, Unit: devices.ReadingUnits[typ], Updated: time.Now().UTC()}
}

// lightDevice is a lamp. Its family encodes a change for the wire (and,
// for what the lamp will never report back, records it as applied); the
// device then waits for the lamp's next report that matches the change.
type lightDevice struct {
	*base
	caps devices.LightCaps
	send func(ctx context.Context, c devices.LightChange) error

	updateMu sync.Mutex // serialises update's read-modify-write
	stateMu  sync.Mutex
	state    devices.LightState
	known    bool
	effect   string // the effect last started; lamps do not report it
}

var _ devices.Light = (*lightDevice)(nil)

func newLightDevice(e *env, info devices.Info, caps devices.LightCaps, send func(context.Context, devices.LightChange) error) *lightDevice {
	info.Kind = devices.KindLight
	return &lightDevice{base: newBase(e, info), caps: caps, send: send}
}

// LightCaps says what the lamp can do.
func (l *lightDevice) LightCaps() devices.LightCaps {
	c := l.caps
	c.Effects = slices.Clone(c.Effects)
	return c
}

// LightState is the state the lamp last reported.
func (l *lightDevice) LightState(context.Context) (devices.LightState, error) {
	if err := l.ready(); err != nil {
		return devices.LightState{}, err
	}
	st, known := l.current()
	if !known {
		return st, errNoState
	}
	return st, nil
}

// SetLight sends a change and returns the state the lamp then reports.
func (l *lightDevice) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	if err := l.ready(); err != nil {
		return devices.LightState{}, err
	}
	if c == (devices.LightChange{}) { // nothing to send, nor to wait for
		return l.LightState(ctx)
	}
	l.noteEffect(c)
	since := l.reportCount()
	if err := l.send(ctx, c); err != nil {
		return devices.LightState{}, err
	}
	err := l.await(ctx, func() bool {
		st, _ := l.current()
		return l.reportCount() > since && matches(st, c)
	})
	st, _ := l.current()
	return st, err
}

// noteEffect remembers the effect a change starts, or forgets it when the
// change leaves effect mode.
func (l *lightDevice) noteEffect(c devices.LightChange) {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	switch {
	case c.Effect != nil:
		l.effect = *c.Effect
	case c.Kelvin != nil || c.Color != nil || (c.On != nil && !*c.On):
		l.effect = ""
	}
}

// report records a state the lamp reported.
func (l *lightDevice) report(st devices.LightState) {
	l.stateMu.Lock()
	if l.effect != "" && st.On {
		st.Mode, st.Effect = devices.ModeEffect, l.effect
	}
	changed := !l.known || !sameLight(l.state, st)
	l.state, l.known = st, true
	l.stateMu.Unlock()
	l.reported()
	if changed {
		l.changed()
	}
}

// update changes the last state with fn and reports the result; reports
// of single attributes (one topic each) go through here so none is lost.
func (l *lightDevice) update(fn func(st *devices.LightState)) {
	l.updateMu.Lock()
	defer l.updateMu.Unlock()
	st, _ := l.current()
	fn(&st)
	l.report(st)
}

func (l *lightDevice) current() (devices.LightState, bool) {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	st := l.state
	if st.Color != nil {
		c := *st.Color
		st.Color = &c
	}
	return st, l.known
}

func sameLight(a, b devices.LightState) bool {
	if (a.Color == nil) != (b.Color == nil) || (a.Color != nil && *a.Color != *b.Color) {
		return false
	}
	a.Color, b.Color = nil, nil
	return a == b
}

// matches reports whether a reported state shows change c applied, as far
// as a lamp reports it back (it may round brightness and fit a colour to
// its gamut).
func matches(st devices.LightState, c devices.LightChange) bool {
	if c.On != nil && st.On != *c.On {
		return false
	}
	if !st.On {
		return true
	}
	switch {
	case c.Brightness != nil && math.Abs(float64(st.Brightness-*c.Brightness)) > 1:
		return false
	case c.Kelvin != nil && (st.Mode != devices.ModeTemperature || math.Abs(float64(st.Kelvin-*c.Kelvin)) > kelvinSlack(*c.Kelvin)):
		// The colour temperature may come on its own topic after the
		// brightness: the lamp's old temperature does not confirm.
		return false
	case c.Color != nil && st.Mode != devices.ModeColor:
		return false
	}
	return true
}

// kelvinSlack is how far a reported colour temperature may be from the one
// asked for and still be it: lamps take mireds, and a kelvin value sent as
// a whole mired and read back moves by up to half a mired, k²/2e6.
func kelvinSlack(k int) float64 {
	return float64(k)*float64(k)/1e6 + 5
}

// applyChange is the state a lamp that reports nothing is in after c.
func applyChange(st devices.LightState, c devices.LightChange, caps devices.LightCaps) devices.LightState {
	if c.On != nil {
		st.On = *c.On
	}
	if c.Brightness != nil {
		st.Brightness = *c.Brightness
	}
	if !caps.Dimmable {
		st.Brightness = 100
	}
	switch {
	case c.Kelvin != nil:
		st.Mode, st.Kelvin, st.Color, st.Effect = devices.ModeTemperature, *c.Kelvin, nil, ""
	case c.Color != nil:
		col := *c.Color
		st.Mode, st.Kelvin, st.Color, st.Effect = devices.ModeColor, 0, &col, ""
	case c.Effect != nil:
		st.Mode, st.Effect = devices.ModeEffect, *c.Effect
	}
	return st
}
