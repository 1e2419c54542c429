package hass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// entity is one HA entity as the bridge knows it: its last state, what the
// registries say of it, and the writes waiting for it to change.
type entity struct {
	a      *Adapter
	id     string // entity_id
	domain string

	mu      sync.Mutex
	st      State
	meta    entityMeta
	waiters []*waiter
}

func newEntity(a *Adapter, entityID string) *entity {
	dom, _, _ := strings.Cut(entityID, ".")
	return &entity{a: a, id: entityID, domain: dom}
}

// waiter is a write waiting for the entity to reach a state.
type waiter struct {
	done func(State) bool
	ch   chan State
}

// set records a new state and wakes the writes it satisfies.
func (e *entity) set(st State, meta entityMeta) {
	e.mu.Lock()
	e.st, e.meta = st, meta
	keep := e.waiters[:0]
	for _, w := range e.waiters {
		if w.done(st) {
			w.ch <- st // buffered, one send
		} else {
			keep = append(keep, w)
		}
	}
	e.waiters = keep
	e.mu.Unlock()
}

func (e *entity) state() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}

func (e *entity) metaNow() entityMeta {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.meta
}

func (e *entity) deviceID() devices.ID { return devices.ID(AdapterName + ":" + e.id) }

// info is the device's description.
func (e *entity) info(kind devices.Kind) devices.Info {
	st, meta := e.state(), e.metaNow()
	name := attrString(st, "friendly_name")
	if name == "" {
		name = e.id
	}
	model := meta.model
	if model == "" {
		model = "Home Assistant " + e.domain
	}
	return devices.Info{ID: e.deviceID(), Adapter: AdapterName, Kind: kind, Name: name, Model: model, Room: meta.area}
}

// Online: HA is connected and the entity is not unavailable.
func (e *entity) Online() bool {
	return e.a.isConnected() && e.state().State != "unavailable"
}

// Bridged marks the device as reached through Home Assistant: the hub's
// own adapter for the same hardware wins.
func (e *entity) Bridged() {}

// HardwareIDs are the identifiers and connections of the entity's device
// in HA's device registry.
func (e *entity) HardwareIDs() []string { return e.metaNow().hardware }

// call runs domain.service on the entity and waits, within ctx, for the
// state done accepts; it returns the state HA reports then. When HA's
// state already satisfies done once the call is answered (nothing had to
// change), or no state_changed comes before ctx ends, it returns the state
// as HA last reported it: what HA applied.
func (e *entity) call(ctx context.Context, domain, service string, data map[string]any, done func(State) bool) (State, error) {
	w := &waiter{done: done, ch: make(chan State, 1)}
	if done != nil {
		e.mu.Lock()
		e.waiters = append(e.waiters, w)
		e.mu.Unlock()
		defer e.drop(w)
	}
	if err := e.a.client.CallService(ctx, domain, service, data, Target{EntityID: []string{e.id}}); err != nil {
		return State{}, callError(domain, service, err)
	}
	if done == nil {
		return e.state(), nil
	}
	if st := e.state(); done(st) {
		return st, nil
	}
	// Leave a little of ctx for the answer to travel back.
	wait := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wait, cancel = context.WithDeadline(ctx, dl.Add(-time.Until(dl)/10))
		defer cancel()
	}
	select {
	case st := <-w.ch:
		return st, nil
	case <-wait.Done():
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return State{}, ctx.Err()
		}
		return e.state(), nil
	}
}

func (e *entity) drop(w *waiter) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, o := range e.waiters {
		if o == w {
			e.waiters = append(e.waiters[:i], e.waiters[i+1:]...)
			return
		}
	}
}

// callError is a failed service call as devices report it: HA's refusal
// with HA's message, or an unreachable HA.
func callError(domain, service string, err error) error {
	var he *Error
	if errors.As(err, &he) {
		msg := he.Message
		if msg == "" {
			msg = he.Code
		}
		return devices.Refused(err, "Home Assistant refused %s.%s: %s", domain, service, msg)
	}
	if errors.Is(err, devices.ErrUnreachable) {
		return devices.Unreachable(err, "Home Assistant is not connected")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return devices.ErrTimeout
	}
	return devices.Unreachable(err, "Home Assistant %s.%s failed", domain, service)
}

// Attribute readers. A missing or mistyped attribute reads as absent.

func attrString(st State, key string) string {
	var s string
	if raw, ok := st.Attributes[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func attrNumber(st State, key string) (float64, bool) {
	raw, ok := st.Attributes[key]
	if !ok {
		return 0, false
	}
	var f *float64
	if json.Unmarshal(raw, &f) != nil || f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return 0, false
	}
	return *f, true
}

func attrBool(st State, key string) (bool, bool) {
	raw, ok := st.Attributes[key]
	if !ok {
		return false, false
	}
	var b *bool
	if json.Unmarshal(raw, &b) != nil || b == nil {
		return false, false
	}
	return *b, true
}

func attrStrings(st State, key string) []string {
	var out []string
	if raw, ok := st.Attributes[key]; ok {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

func attrNumbers(st State, key string) []float64 {
	var out []float64
	if raw, ok := st.Attributes[key]; ok {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

// features is the entity's supported_features bitmask.
func features(st State) int {
	f, _ := attrNumber(st, "supported_features")
	return int(f)
}

// updated is when the state last changed, as HA says.
func updated(st State) time.Time {
	for _, s := range []string{st.LastUpdated, st.LastChanged} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// unknown is HA's "no value yet".
func unknown(s string) bool { return s == "unknown" || s == "unavailable" || s == "" }

// deviceFor makes the device an entity is to the hub, by its domain and,
// within it, by what it supports.
func deviceFor(e *entity) devices.Device {
	st := e.state()
	switch e.domain {
	case "light":
		return newLight(e, st)
	case "fan":
		if features(st)&fanSetSpeed != 0 {
			return &speedFan{&power{entity: e}}
		}
		return &power{entity: e}
	case "switch", "input_boolean":
		return &power{entity: e}
	case "media_player":
		return newMedia(e, st)
	case "remote":
		return &remote{entity: e}
	case "sensor":
		if r, ok := sensorReading(st); ok {
			return &sensor{entity: e, kind: r.Type}
		}
	case "binary_sensor":
		if r, ok := binaryReading(st); ok {
			return &sensor{entity: e, kind: r.Type}
		}
	}
	return &other{entity: e}
}

// shaper tells two devices of one entity apart when what they can do
// differs, so the hub learns the new capabilities.
type shaper interface{ shape() string }

func sameShape(a, b devices.Device) bool {
	if a == nil || b == nil {
		return false
	}
	sa, oka := a.(shaper)
	sb, okb := b.(shaper)
	if oka != okb || fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		return false
	}
	return !oka || sa.shape() == sb.shape()
}

// other is an entity of a domain the hub does not control: listed, with
// its state as text.
type other struct{ *entity }

func (o *other) Info() devices.Info { return o.info(devices.KindOther) }

// StateText is HA's state, with the unit of measurement when it has one.
func (o *other) StateText() string {
	st := o.state()
	if u := attrString(st, "unit_of_measurement"); u != "" && !unknown(st.State) {
		return st.State + " " + u
	}
	return st.State
}
