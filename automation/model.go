// Package automation is the house acting on its own: rules of a trigger
// (an edge: a room becoming empty, a sensor crossing a threshold, a device
// turning on, a time of day, sunrise or sunset), conditions that must hold
// when it fires, and actions run through the service like any other
// caller's, with a cooldown and a timed "put things back". The engine
// follows the service's events; rules, traces, holds and timers are kept
// through a Store (SQL in package store).
package automation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Trigger types.
const (
	TriggerOccupancy = "occupancy" // a room's aggregate presence
	TriggerSensor    = "sensor"    // one sensor's reading
	TriggerPower     = "power"     // a device's power: light, power device, media, TV
	TriggerTime      = "time"      // HH:MM on chosen weekdays, server-local
	TriggerSun       = "sun"       // sunrise or sunset, with an offset
)

// Condition types.
const (
	CondTime      = "time"      // a window, HH:MM to HH:MM, on chosen weekdays
	CondSun       = "sun"       // the sun is up or down
	CondSensor    = "sensor"    // a sensor's reading
	CondOccupancy = "occupancy" // a room's occupancy
	CondPower     = "power"     // a device is on or off
)

// Action types.
const (
	ActRoom   = "room"   // state: a room patch (on, brightness, kelvin, hex, …)
	ActLight  = "light"  // lights: one or more; state: a light patch
	ActPower  = "power"  // device; state: {"on": bool}
	ActMedia  = "media"  // device; state: {power, volume, mute, source, transport, favorite}
	ActRemote = "remote" // device; state: {key} or {app} or {text}
	ActScene  = "scene"  // scene
	ActDelay  = "delay"  // wait: how long before the next action
)

// The values a trigger's or condition's "to" / "is" takes.
const (
	Occupied = "occupied"
	Empty    = "empty"
	Detected = "detected" // motion, occupancy sensors
	Clear    = "clear"
	Open     = "open" // contact sensors
	Closed   = "closed"
	On       = "on" // power
	Off      = "off"
	Sunrise  = "sunrise"
	Sunset   = "sunset"
	Up       = "up" // the sun
	Down     = "down"
)

// Weekdays are the day names rules use, Monday first.
var Weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// Rule is an automation as it is stored and shown. Targets (rooms,
// devices, scenes) are stored by id; a rule given with names is resolved
// when it is saved.
type Rule struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	Enabled    bool        `json:"enabled"`
	Trigger    Trigger     `json:"trigger"`
	Conditions []Condition `json:"conditions"`
	Actions    []Action    `json:"actions"`
	// Cooldown is the least time between two runs the trigger starts.
	Cooldown Duration `json:"cooldown,omitempty"`
	// RestoreAfter puts what the actions touched back after this long;
	// nil (or 0) leaves the actions' changes in place.
	RestoreAfter *Duration `json:"restore_after,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Trigger is what starts a rule: a transition, never a level.
type Trigger struct {
	Type string `json:"type"`
	// Room is the room of an occupancy trigger.
	Room string `json:"room,omitempty"`
	// Device is the sensor of a sensor trigger, the device of a power
	// trigger.
	Device string `json:"device,omitempty"`
	// Reading is the sensor reading watched (devices.Reading* types:
	// motion, occupancy, contact, illuminance, temperature, …); for a
	// sensor with one presence or contact reading it may be left out.
	Reading string `json:"reading,omitempty"`
	// To is the state the subject moves into: occupied/empty (rooms),
	// detected/clear (motion, occupancy), open/closed (contact), on/off
	// (power).
	To string `json:"to,omitempty"`
	// Above and Below fire a numeric reading's crossing (one of them).
	Above *float64 `json:"above,omitempty"`
	Below *float64 `json:"below,omitempty"`
	// Hysteresis is how far back past the threshold a reading must go
	// before the next crossing counts (default: 2 % of the threshold, at
	// least 0.5).
	Hysteresis *float64 `json:"hysteresis,omitempty"`
	// For makes the trigger "stays … for": the state must hold this long.
	For Duration `json:"for,omitempty"`
	// At is a time trigger's "HH:MM", server-local.
	At string `json:"at,omitempty"`
	// Days limits a time or sun trigger to weekdays (Weekdays names);
	// empty is every day.
	Days []string `json:"days,omitempty"`
	// Event is a sun trigger's sunrise or sunset.
	Event string `json:"event,omitempty"`
	// Offset moves a sun trigger: "-30m" is half an hour before.
	Offset Duration `json:"offset,omitempty"`
}

// Condition must hold when the trigger fires; one whose subject is not
// known fails closed.
type Condition struct {
	Type string `json:"type"`
	// After and Before bound a time window, "HH:MM"; an overnight window
	// (after > before) wraps midnight. Days apply to the day the window
	// starts.
	After  string   `json:"after,omitempty"`
	Before string   `json:"before,omitempty"`
	Days   []string `json:"days,omitempty"`
	// Sun is up or down.
	Sun string `json:"sun,omitempty"`
	// Room (occupancy) or Device (sensor, power) is the subject.
	Room    string `json:"room,omitempty"`
	Device  string `json:"device,omitempty"`
	Reading string `json:"reading,omitempty"`
	// Is is the state required: occupied/empty, detected/clear,
	// open/closed, on/off.
	Is string `json:"is,omitempty"`
	// Above and Below bound a numeric reading.
	Above *float64 `json:"above,omitempty"`
	Below *float64 `json:"below,omitempty"`
}

// Action is one step of a rule, run in order, best effort.
type Action struct {
	Type   string   `json:"type"`
	Room   string   `json:"room,omitempty"`
	Lights []string `json:"lights,omitempty"`
	Device string   `json:"device,omitempty"`
	Scene  string   `json:"scene,omitempty"`
	// State is the change, in the shape of the matching /api/v1 write:
	// a room or light patch, {"on"} for power, a media patch (with
	// "favorite" to play one), a remote command ({"key"}, {"app"},
	// {"text"}).
	State json.RawMessage `json:"state,omitempty"`
	// Wait is a delay action's pause.
	Wait Duration `json:"wait,omitempty"`
}

// Duration is a length of time written as Go writes one ("15m", "1h30m",
// "90s", "-30m"); JSON numbers are seconds.
type Duration time.Duration

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String writes d compactly: "15m", "1h30m", "45s", "-30m".
func (d Duration) String() string {
	t := time.Duration(d)
	if t == 0 {
		return "0s"
	}
	s := t.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalJSON writes d as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "15m" or a number of seconds. What is not a
// duration is a *json.UnmarshalTypeError, so that encoding/json names the
// field it was decoding ("restore_after").
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseDuration(s)
		if err != nil {
			return &json.UnmarshalTypeError{Value: notDuration("string " + strconv.Quote(s)), Type: durationType}
		}
		*d = v
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return &json.UnmarshalTypeError{Value: notDuration(jsonValueKind(b)), Type: durationType}
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// notDuration is an UnmarshalTypeError's Value for what is not a
// duration: its JSON kind (and a string's text), saying so, for surfaces
// that render the error from its type alone.
func notDuration(what string) string { return what + ", which is not a duration" }

var durationType = reflect.TypeFor[Duration]()

// JSONKind says what JSON a duration takes, for messages.
func (Duration) JSONKind() string {
	return `a duration such as "15m", "1h30m" or "90s", or a number of seconds`
}

// jsonValueKind names a JSON value's kind as encoding/json does in its
// errors.
func jsonValueKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == '[':
		return "array"
	case b[0] == '{':
		return "object"
	case b[0] == '"':
		return "string"
	}
	return "number"
}

// ParseDuration reads "15m", "1h30m", "90s", "-30m", or a bare number of
// seconds.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return Duration(n * float64(time.Second)), nil
	}
	v, err := time.ParseDuration(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"90s\", \"15m\" or \"1h30m\"", s)
	}
	return Duration(v), nil
}

// Input is a rule as callers write it: the body of POST and PUT
// /api/v1/automations, and create_automation's arguments. What the hub
// keeps about a rule (its id, sentence, last run, times) is not part of
// it.
type Input struct {
	Name       string      `json:"name"`
	Enabled    *bool       `json:"enabled"`
	Trigger    Trigger     `json:"trigger"`
	Conditions []Condition `json:"conditions"`
	Actions    []Action    `json:"actions"`
	// Cooldown and RestoreAfter are durations: "2m", "1h30m", or seconds.
	Cooldown     Duration  `json:"cooldown"`
	RestoreAfter *Duration `json:"restore_after"`
}

// Rule is the input as the engine takes it: a rule runs unless the input
// says "enabled": false.
func (in Input) Rule() Rule {
	return Rule{
		Name: in.Name, Enabled: in.Enabled == nil || *in.Enabled,
		Trigger: in.Trigger, Conditions: in.Conditions, Actions: in.Actions,
		Cooldown: in.Cooldown, RestoreAfter: in.RestoreAfter,
	}
}
