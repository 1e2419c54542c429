package automation

import (
	"context"
	"math"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// ruleState is a rule as the engine runs it.
type ruleState struct {
	rule Rule
	// level is whether the trigger's state holds now (the room is empty,
	// the reading is past the threshold, …). A trigger fires when it goes
	// from no to yes.
	level level
	timer *Timer    // a "stays … for" countdown under way
	next  time.Time // a time or sun trigger's next firing; zero for none

	lastRun     time.Time // the last run, by the trigger or by hand
	lastOutcome string
	lastFired   time.Time // the last run the trigger started, for the cooldown

	token uint64        // numbers the rule's runs; a run's later steps go on only while it is the newest
	cont  *continuation // a run's steps still to come after a delay
	// stored says the Store has a pending run of the rule (a
	// continuation, or one being resumed now).
	stored bool
}

// level is whether a trigger's state holds: not known yet, no, or yes.
type level int8

const (
	levelUnknown level = iota
	levelNo
	levelYes
)

func levelOf(holds bool) level {
	if holds {
		return levelYes
	}
	return levelNo
}

// watchIndex finds the rules an event concerns: by the device or the room
// their trigger watches.
type watchIndex struct {
	devices map[devices.ID]map[string]*ruleState
	rooms   map[string]map[string]*ruleState
}

func newWatchIndex() watchIndex {
	return watchIndex{devices: map[devices.ID]map[string]*ruleState{}, rooms: map[string]map[string]*ruleState{}}
}

func (w watchIndex) add(rs *ruleState) {
	t := rs.rule.Trigger
	switch t.Type {
	case TriggerSensor, TriggerPower:
		addTo(w.devices, devices.ID(t.Device), rs)
	case TriggerOccupancy:
		addTo(w.rooms, t.Room, rs)
	}
}

func (w watchIndex) remove(rs *ruleState) {
	t := rs.rule.Trigger
	switch t.Type {
	case TriggerSensor, TriggerPower:
		removeFrom(w.devices, devices.ID(t.Device), rs.rule.ID)
	case TriggerOccupancy:
		removeFrom(w.rooms, t.Room, rs.rule.ID)
	}
}

func addTo[K comparable](m map[K]map[string]*ruleState, k K, rs *ruleState) {
	if m[k] == nil {
		m[k] = map[string]*ruleState{}
	}
	m[k][rs.rule.ID] = rs
}

func removeFrom[K comparable](m map[K]map[string]*ruleState, k K, id string) {
	delete(m[k], id)
	if len(m[k]) == 0 {
		delete(m, k)
	}
}

// subject is what a trigger or condition watches, as last seen: a room's
// occupancy, a device's power, a sensor's readings.
type subject struct {
	known    bool
	on       bool
	readings []devices.Reading
}

// level says whether t's state holds for s: levelUnknown when s does not
// tell (offline, never reported, no such reading). prev is the level before,
// which a threshold's hysteresis needs.
func (t Trigger) level(s subject, prev level) level {
	if !s.known {
		return levelUnknown
	}
	switch t.Type {
	case TriggerOccupancy:
		return levelOf(s.on == (t.To == Occupied))
	case TriggerPower:
		return levelOf(s.on == (t.To == On))
	case TriggerSensor:
		r, ok := findReading(s.readings, t.Reading)
		if !ok {
			return levelUnknown
		}
		if r.Bool != nil {
			return levelOf(boolState(t.Reading, *r.Bool) == t.To)
		}
		return levelOf(crossed(t, r.Value, prev == levelYes))
	}
	return levelUnknown
}

// crossed is a threshold trigger's level, with hysteresis: once past the
// threshold, the reading must come back by the hysteresis before it counts
// as back, so a reading wobbling around the threshold does not chatter.
func crossed(t Trigger, v float64, past bool) bool {
	switch {
	case t.Above != nil && past:
		return v > *t.Above-hysteresis(t, *t.Above)
	case t.Above != nil:
		return v > *t.Above
	case t.Below != nil && past:
		return v < *t.Below+hysteresis(t, *t.Below)
	case t.Below != nil:
		return v < *t.Below
	}
	return false
}

// hysteresis is t's, or the default: 2 % of the threshold, at least 0.5.
func hysteresis(t Trigger, threshold float64) float64 {
	if t.Hysteresis != nil {
		return *t.Hysteresis
	}
	return math.Max(0.5, math.Abs(threshold)*0.02)
}

// boolState names a presence or contact reading's value as rules say it:
// detected or clear, open or closed (a contact's true is closed).
func boolState(reading string, v bool) string {
	switch {
	case reading == devices.ReadingContact && v:
		return Closed
	case reading == devices.ReadingContact:
		return Open
	case v:
		return Detected
	}
	return Clear
}

// isBoolReading reports whether readings of type typ are true or false
// rather than a number.
func isBoolReading(typ string) bool {
	return typ == devices.ReadingMotion || typ == devices.ReadingOccupancy || typ == devices.ReadingContact
}

// statesOf lists the states a true-or-false reading can be in.
func statesOf(reading string) []string {
	if reading == devices.ReadingContact {
		return []string{Open, Closed}
	}
	return []string{Detected, Clear}
}

func findReading(rs []devices.Reading, typ string) (devices.Reading, bool) {
	for _, r := range rs {
		if r.Type == typ {
			return r, true
		}
	}
	return devices.Reading{}, false
}

// viewSubject reads a subject from a device's view as the service shows
// it (an event's data, or a Get); ok is false for a view that carries no
// subject (a remote's, a bare device's).
func viewSubject(v any) (subject, bool) {
	switch v := v.(type) {
	case service.Light:
		if v.State == nil {
			return subject{}, true
		}
		return subject{known: true, on: v.State.On}, true
	case service.PowerView:
		if v.On == nil {
			return subject{}, true
		}
		return subject{known: true, on: *v.On}, true
	case service.Media:
		if v.State == nil {
			return subject{}, true
		}
		return subject{known: true, on: v.State.Power}, true
	case service.SensorView:
		return subject{known: v.Online, readings: v.Readings}, true
	}
	return subject{}, false
}

// deviceView is a device's view as the service shows it, by exact id: a
// light's, a power device's, a media player's or a sensor's.
func (e *Engine) deviceView(ctx context.Context, id string) (any, bool) {
	if l, err := e.svc.GetLight(ctx, id); err == nil && string(l.ID) == id {
		return l, true
	}
	if p, err := e.svc.GetPower(ctx, id); err == nil && string(p.ID) == id {
		return p, true
	}
	if m, err := e.svc.GetMedia(ctx, id); err == nil && string(m.ID) == id {
		return m, true
	}
	if s, err := e.svc.GetSensor(ctx, id); err == nil && string(s.ID) == id {
		return s, true
	}
	return nil, false
}

// deviceSubject reads a device's subject from the service.
func (e *Engine) deviceSubject(ctx context.Context, id string) subject {
	v, ok := e.deviceView(ctx, id)
	if !ok {
		return subject{}
	}
	s, _ := viewSubject(v)
	return s
}

// roomSubject reads a room's occupancy from the service.
func (e *Engine) roomSubject(ctx context.Context, id string) subject {
	r, err := e.svc.GetRoom(ctx, id)
	if err != nil || r.ID != id || r.Occupied == nil {
		return subject{}
	}
	return subject{known: true, on: *r.Occupied}
}

// triggerSubject reads what t watches from the service; a time or sun
// trigger watches nothing.
func (e *Engine) triggerSubject(ctx context.Context, t Trigger) subject {
	switch t.Type {
	case TriggerOccupancy:
		return e.roomSubject(ctx, t.Room)
	case TriggerSensor, TriggerPower:
		return e.deviceSubject(ctx, t.Device)
	}
	return subject{}
}
