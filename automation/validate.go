package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// The types each part of a rule may have, for error messages.
var (
	triggerTypes   = []string{TriggerOccupancy, TriggerSensor, TriggerPower, TriggerTime, TriggerSun}
	conditionTypes = []string{CondTime, CondSun, CondSensor, CondOccupancy, CondPower}
	actionTypes    = []string{ActRoom, ActLight, ActPower, ActMedia, ActRemote, ActScene, ActDelay}
	readingTypes   = []string{
		devices.ReadingMotion, devices.ReadingOccupancy, devices.ReadingContact, devices.ReadingIlluminance,
		devices.ReadingTemperature, devices.ReadingHumidity, devices.ReadingPower, devices.ReadingEnergy,
		devices.ReadingBattery,
	}
)

// maxName is the longest a rule's name may be.
const maxName = 100

// The most a rule may hold: limits no house meets, so that one request
// cannot make every rule listing, and every run, as large as it likes.
const (
	MaxConditions      = 20
	MaxActions         = 50
	MaxLightsPerAction = 500
)

// maxSunOffset bounds a sun trigger's offset, either way.
const maxSunOffset = Duration(12 * time.Hour)

// invalid is an EINVALID error about one field: its message begins with
// the field, and its details name it.
func invalid(field, format string, args ...any) *service.Error {
	return service.Errorf(service.EINVALID, "%s: %s", field, fmt.Sprintf(format, args...)).With("field", field)
}

// choice is an EINVALID error for a value that is not one of options.
func choice(field, value string, options ...string) *service.Error {
	if strings.TrimSpace(value) == "" {
		return invalid(field, "give one of %s", strings.Join(options, ", ")).With("options", options)
	}
	return invalid(field, "%q is not valid; valid: %s", value, strings.Join(options, ", ")).With("options", options)
}

// choose is value, cleaned, when it is one of options.
func choose(field, value string, options ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if slices.Contains(options, v) {
		return v, nil
	}
	return "", choice(field, value, options...)
}

// about puts the field in front of an error from the service (a name that
// matches nothing, or more than one thing), keeping its details. A target
// that matches nothing is a fault of the rule's body, so EINVALID (a 422
// naming the field and the valid names), never ENOTFOUND.
func about(field string, err error) error {
	code := service.ErrorCode(err)
	if code == service.ENOTFOUND {
		code = service.EINVALID
	}
	out := within(field, err)
	out.Code = code
	return out.With("field", field)
}

// checker validates one rule against the house, resolving its targets
// (by id or name) to ids.
type checker struct {
	e   *Engine
	ctx context.Context
}

// check validates r and returns it as it is stored: targets by id, times,
// days and states in their one spelling.
func (e *Engine) check(ctx context.Context, r Rule) (Rule, error) {
	c := checker{e: e, ctx: ctx}
	var err error
	if r.Name, err = checkName(r.Name); err != nil {
		return Rule{}, err
	}
	if r.Trigger, err = c.trigger(r.Trigger); err != nil {
		return Rule{}, err
	}
	if err := checkSize(r); err != nil {
		return Rule{}, err
	}
	conds := make([]Condition, len(r.Conditions))
	for i, cond := range r.Conditions {
		if conds[i], err = c.condition(fmt.Sprintf("conditions[%d]", i), cond); err != nil {
			return Rule{}, err
		}
	}
	r.Conditions = conds
	if r.Actions, err = c.actions(r.Actions); err != nil {
		return Rule{}, err
	}
	return checkTiming(r)
}

// checkSize refuses a rule past the limits, before any of its parts is
// looked at.
func checkSize(r Rule) error {
	switch {
	case len(r.Conditions) > MaxConditions:
		return invalid("conditions", "a rule may have at most %d conditions; this one has %d", MaxConditions, len(r.Conditions)).With("max", MaxConditions)
	case len(r.Actions) > MaxActions:
		return invalid("actions", "a rule may have at most %d actions; this one has %d", MaxActions, len(r.Actions)).With("max", MaxActions)
	}
	for i, a := range r.Actions {
		if len(a.Lights) > MaxLightsPerAction {
			return invalid(fmt.Sprintf("actions[%d].lights", i), "an action may name at most %d lights (or \"all\"); this one names %d", MaxLightsPerAction, len(a.Lights)).
				With("max", MaxLightsPerAction)
		}
	}
	return nil
}

// checkTiming checks the cooldown and "put things back".
func checkTiming(r Rule) (Rule, error) {
	if r.Cooldown < 0 {
		return Rule{}, invalid("cooldown", "%s is negative; give a duration such as \"10m\", or 0 for none", r.Cooldown)
	}
	if r.RestoreAfter != nil && *r.RestoreAfter < 0 {
		return Rule{}, invalid("restore_after", "%s is negative; give a duration such as \"5m\", or 0 to leave the changes in place", *r.RestoreAfter)
	}
	if r.RestoreAfter != nil && *r.RestoreAfter == 0 {
		r.RestoreAfter = nil
	}
	return r, nil
}

func checkName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", invalid("name", "a rule needs a name")
	case len(n) > maxName:
		return "", invalid("name", "a rule's name may be at most %d characters", maxName)
	case strings.ContainsAny(n, "\x00\r\n\t"):
		return "", invalid("name", "a rule's name may not contain control characters")
	}
	return n, nil
}

// only refuses the fields set that a kind of trigger, condition or
// action does not take.
func only(prefix, kind string, set []string, allowed ...string) error {
	for _, f := range set {
		if !slices.Contains(allowed, f) {
			return invalid(prefix+"."+f, "a %s %s takes no %s; it takes %s", kind, strings.TrimSuffix(strings.SplitN(prefix, "[", 2)[0], "s"), f, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// setFields lists the fields of t that are given.
func (t Trigger) setFields() []string {
	return present(map[string]bool{
		"room": t.Room != "", "device": t.Device != "", "reading": t.Reading != "", "to": t.To != "",
		"above": t.Above != nil, "below": t.Below != nil, "hysteresis": t.Hysteresis != nil, "for": t.For != 0,
		"at": t.At != "", "days": len(t.Days) > 0, "event": t.Event != "", "offset": t.Offset != 0,
	})
}

func (c Condition) setFields() []string {
	return present(map[string]bool{
		"after": c.After != "", "before": c.Before != "", "days": len(c.Days) > 0, "sun": c.Sun != "",
		"room": c.Room != "", "device": c.Device != "", "reading": c.Reading != "", "is": c.Is != "",
		"above": c.Above != nil, "below": c.Below != nil,
	})
}

func (a Action) setFields() []string {
	return present(map[string]bool{
		"room": a.Room != "", "lights": len(a.Lights) > 0, "device": a.Device != "", "scene": a.Scene != "",
		"state": len(a.State) > 0 && string(a.State) != "null", "wait": a.Wait != 0,
	})
}

func present(fields map[string]bool) []string {
	var out []string
	for f, set := range fields {
		if set {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// trigger checks a trigger.
func (c checker) trigger(t Trigger) (Trigger, error) {
	const f = "trigger"
	typ, err := choose(f+".type", t.Type, triggerTypes...)
	if err != nil {
		return t, err
	}
	t.Type = typ
	if t.For < 0 {
		return t, invalid(f+".for", "%s is negative; give how long the state must hold, such as \"15m\"", t.For)
	}
	switch t.Type {
	case TriggerOccupancy:
		if err := only(f, t.Type, t.setFields(), "room", "to", "for"); err != nil {
			return t, err
		}
		if t.Room, err = c.occupiedRoom(f+".room", t.Room); err != nil {
			return t, err
		}
		t.To, err = choose(f+".to", t.To, Occupied, Empty)
		return t, err
	case TriggerSensor:
		return c.sensorTrigger(t)
	case TriggerPower:
		if err := only(f, t.Type, t.setFields(), "device", "to", "for"); err != nil {
			return t, err
		}
		if t.Device, err = c.powered(f+".device", t.Device); err != nil {
			return t, err
		}
		t.To, err = choose(f+".to", t.To, On, Off)
		return t, err
	case TriggerTime:
		if err := only(f, t.Type, t.setFields(), "at", "days"); err != nil {
			return t, err
		}
		if t.At, err = clock(f+".at", t.At); err != nil {
			return t, err
		}
		t.Days, err = days(f+".days", t.Days)
		return t, err
	}
	if err := only(f, t.Type, t.setFields(), "event", "offset", "days"); err != nil {
		return t, err
	}
	if err := c.located(f + ".event"); err != nil {
		return t, err
	}
	if t.Event, err = choose(f+".event", t.Event, Sunrise, Sunset); err != nil {
		return t, err
	}
	if t.Offset > maxSunOffset || t.Offset < -maxSunOffset {
		return t, invalid(f+".offset", "%s is too far from %s: give an offset within %s either way, such as \"-30m\"", t.Offset, t.Event, maxSunOffset)
	}
	t.Days, err = days(f+".days", t.Days)
	return t, err
}

// sensorTrigger checks a sensor trigger: a state for a presence or
// contact reading, a crossing for a numeric one.
func (c checker) sensorTrigger(t Trigger) (Trigger, error) {
	const f = "trigger"
	sv, err := c.e.svc.GetSensor(c.ctx, t.Device)
	if err != nil {
		return t, about(f+".device", err)
	}
	t.Device = string(sv.ID)
	threshold := t.Above != nil || t.Below != nil
	if t.Reading, err = pickReading(f+".reading", sv, t.Reading, t.To, threshold); err != nil {
		return t, err
	}
	if isBoolReading(t.Reading) {
		if err := only(f, "sensor", t.setFields(), "device", "reading", "to", "for"); err != nil {
			return t, err
		}
		t.To, err = choose(f+".to", t.To, statesOf(t.Reading)...)
		return t, err
	}
	if err := only(f, "sensor", t.setFields(), "device", "reading", "above", "below", "hysteresis", "for"); err != nil {
		return t, err
	}
	if t.Above != nil && t.Below != nil || !threshold {
		return t, invalid(f+".above", "a %s trigger fires when the reading crosses a threshold: give above or below (one of them)", t.Reading)
	}
	if bad(t.Above) || bad(t.Below) {
		return t, invalid(f+".above", "the threshold must be a number")
	}
	if t.Hysteresis != nil && (*t.Hysteresis < 0 || bad(t.Hysteresis)) {
		return t, invalid(f+".hysteresis", "%v is not a hysteresis: give how far back past the threshold the reading must go, 0 or more", *t.Hysteresis)
	}
	return t, nil
}

func bad(f *float64) bool { return f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) }

// pickReading checks the reading a sensor trigger or condition watches,
// or picks it when it is left out and the sensor has one that fits.
func pickReading(field string, sv service.SensorView, want, state string, threshold bool) (string, error) {
	var have []string
	for _, r := range sv.Readings {
		have = append(have, r.Type)
	}
	want = strings.ToLower(strings.TrimSpace(want))
	if want == "" {
		// The one reading of the right sort (a state or a number), or, of
		// several states, the one the state asked for belongs to.
		var sort, fits []string
		for _, h := range have {
			if isBoolReading(h) != threshold {
				sort = append(sort, h)
				if slices.Contains(statesOf(h), strings.ToLower(state)) {
					fits = append(fits, h)
				}
			}
		}
		switch {
		case len(sort) == 1:
			return sort[0], nil
		case !threshold && len(fits) == 1:
			return fits[0], nil
		}
		opts := have
		if len(opts) == 0 {
			opts = readingTypes
		}
		return "", invalid(field, "say which reading of %s to watch; valid: %s", sv.Name, strings.Join(opts, ", ")).With("options", opts)
	}
	switch {
	case len(have) > 0 && !slices.Contains(have, want):
		return "", invalid(field, "%s reports no %s; valid: %s", sv.Name, want, strings.Join(have, ", ")).With("options", have)
	case len(have) == 0 && !slices.Contains(readingTypes, want):
		return "", choice(field, want, readingTypes...)
	}
	return want, nil
}

// condition checks one condition.
func (c checker) condition(f string, cond Condition) (Condition, error) {
	typ, err := choose(f+".type", cond.Type, conditionTypes...)
	if err != nil {
		return cond, err
	}
	cond.Type = typ
	set := cond.setFields()
	switch cond.Type {
	case CondTime:
		if err := only(f, typ, set, "after", "before", "days"); err != nil {
			return cond, err
		}
		if cond.After, err = clock(f+".after", cond.After); err != nil {
			return cond, err
		}
		if cond.Before, err = clock(f+".before", cond.Before); err != nil {
			return cond, err
		}
		cond.Days, err = days(f+".days", cond.Days)
		return cond, err
	case CondSun:
		if err := only(f, typ, set, "sun"); err != nil {
			return cond, err
		}
		if err := c.located(f + ".sun"); err != nil {
			return cond, err
		}
		cond.Sun, err = choose(f+".sun", cond.Sun, Up, Down)
		return cond, err
	case CondOccupancy:
		if err := only(f, typ, set, "room", "is"); err != nil {
			return cond, err
		}
		if cond.Room, err = c.occupiedRoom(f+".room", cond.Room); err != nil {
			return cond, err
		}
		cond.Is, err = choose(f+".is", cond.Is, Occupied, Empty)
		return cond, err
	case CondPower:
		if err := only(f, typ, set, "device", "is"); err != nil {
			return cond, err
		}
		if cond.Device, err = c.powered(f+".device", cond.Device); err != nil {
			return cond, err
		}
		cond.Is, err = choose(f+".is", cond.Is, On, Off)
		return cond, err
	}
	return c.sensorCondition(f, cond)
}

func (c checker) sensorCondition(f string, cond Condition) (Condition, error) {
	sv, err := c.e.svc.GetSensor(c.ctx, cond.Device)
	if err != nil {
		return cond, about(f+".device", err)
	}
	cond.Device = string(sv.ID)
	threshold := cond.Above != nil || cond.Below != nil
	if cond.Reading, err = pickReading(f+".reading", sv, cond.Reading, cond.Is, threshold); err != nil {
		return cond, err
	}
	if isBoolReading(cond.Reading) {
		if err := only(f, "sensor", cond.setFields(), "device", "reading", "is"); err != nil {
			return cond, err
		}
		cond.Is, err = choose(f+".is", cond.Is, statesOf(cond.Reading)...)
		return cond, err
	}
	if err := only(f, "sensor", cond.setFields(), "device", "reading", "above", "below"); err != nil {
		return cond, err
	}
	switch {
	case !threshold:
		return cond, invalid(f+".above", "a %s condition needs a bound: give above, below, or both", cond.Reading)
	case bad(cond.Above) || bad(cond.Below):
		return cond, invalid(f+".above", "a bound must be a number")
	case cond.Above != nil && cond.Below != nil && *cond.Above >= *cond.Below:
		return cond, invalid(f+".below", "below (%s) must be greater than above (%s)", number(*cond.Below), number(*cond.Above))
	}
	return cond, nil
}

// occupiedRoom resolves a room that can be occupied or empty: one with a
// presence sensor that answers.
func (c checker) occupiedRoom(field, ref string) (string, error) {
	r, err := c.e.svc.GetRoom(c.ctx, ref)
	if err != nil {
		return "", about(field, err)
	}
	if r.Occupied == nil {
		return "", invalid(field, "%s has no presence sensor that answers, so it is never occupied or empty; add a motion or occupancy sensor to the room first", r.Name)
	}
	return r.ID, nil
}

// powered resolves a device that turns on and off: a light, a power
// device, or a media player (a TV, a speaker).
func (c checker) powered(field, ref string) (string, error) {
	type hit struct{ id, name string }
	var hits []hit
	var clash error
	note := func(id devices.ID, name string, err error) {
		switch {
		case err == nil:
			hits = append(hits, hit{string(id), name})
		case service.ErrorCode(err) != service.ENOTFOUND:
			clash = err
		}
	}
	l, err := c.e.svc.GetLight(c.ctx, ref)
	note(l.ID, l.Name, err)
	p, err := c.e.svc.GetPower(c.ctx, ref)
	note(p.ID, p.Name, err)
	m, err := c.e.svc.GetMedia(c.ctx, ref)
	note(m.ID, m.Name, err)
	for _, h := range hits {
		if h.id == strings.TrimSpace(ref) || strings.EqualFold(h.name, strings.TrimSpace(ref)) {
			return h.id, nil
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0].id, nil
	case len(hits) > 1:
		opts := make([]string, len(hits))
		for i, h := range hits {
			opts[i] = h.name
		}
		return "", invalid(field, "%q matches more than one device (%s); say which", ref, strings.Join(opts, ", ")).With("options", opts)
	case clash != nil:
		return "", about(field, clash)
	}
	opts := c.poweredNames()
	return "", service.Errorf(service.EINVALID, "%s: no light, power device or media player matches %q; valid: %s",
		field, ref, strings.Join(opts, ", ")).With("options", opts).With("field", field)
}

func (c checker) poweredNames() []string {
	var out []string
	if ls, err := c.e.svc.ListLights(c.ctx); err == nil {
		for _, l := range ls {
			out = append(out, l.Name)
		}
	}
	if ps, err := c.e.svc.ListPower(c.ctx); err == nil {
		for _, p := range ps {
			out = append(out, p.Name)
		}
	}
	if ms, err := c.e.svc.ListMedia(c.ctx); err == nil {
		for _, m := range ms {
			out = append(out, m.Name)
		}
	}
	return out
}

// located refuses a sun trigger or condition when the hub has no
// location.
func (c checker) located(field string) error {
	if _, _, ok := c.e.place.get(); !ok {
		return invalid(field, "sunrise and sunset need the hub's location: set it in Settings → Location, or set BIFROST_LATITUDE and BIFROST_LONGITUDE")
	}
	return nil
}

// clock checks a time of day and writes it "HH:MM".
func clock(field, hhmm string) (string, error) {
	h, m, err := ParseClock(hhmm)
	if err != nil {
		return "", invalid(field, "%q is not a time of day; use HH:MM, 00:00 to 23:59, such as \"07:30\"", hhmm).With("example", "07:30")
	}
	return fmt.Sprintf("%02d:%02d", h, m), nil
}

// days checks a weekday filter and writes it as Weekdays names.
func days(field string, ds []string) ([]string, error) {
	wd, err := ParseDays(ds)
	var bad *DayError
	if errors.As(err, &bad) {
		return nil, invalid(field, "%s", bad.said()).With("options", Weekdays)
	}
	if len(wd) == 0 {
		return nil, nil
	}
	out := make([]string, len(wd))
	for i, d := range wd {
		out[i] = Weekdays[(int(d)+6)%7]
	}
	return out, nil
}

// actions checks a rule's actions: at least one that does something, and
// one action per target between two delays (every change to a target goes
// in one state, so it takes one command).
func (c checker) actions(list []Action) ([]Action, error) {
	if !slices.ContainsFunc(list, func(a Action) bool { return a.Type != ActDelay }) {
		return nil, invalid("actions", "a rule needs at least one action; valid: %s", strings.Join(actionTypes, ", ")).With("options", actionTypes)
	}
	out := make([]Action, len(list))
	seen := map[devices.ID]int{}
	var nm *names
	for i, a := range list {
		f := fmt.Sprintf("actions[%d]", i)
		a, _, err := c.action(f, a)
		if err != nil {
			return nil, err
		}
		out[i] = a
		if a.Type == ActDelay {
			clear(seen)
		}
		for _, id := range c.reach(a) {
			if j, dup := seen[id]; dup {
				if nm == nil {
					n := c.e.names(c.ctx)
					nm = &n
				}
				return nil, invalid(f, "actions[%d] already changes %s; put both changes in one action's state, so it takes one command", j, nm.device(string(id)))
			}
			seen[id] = i
		}
	}
	return out, nil
}

// reach lists the devices a checked action may change: a room's members
// that its state can reach (whether lit or not), a scene's, every light
// for "all". Each device once.
func (c checker) reach(a Action) []devices.ID {
	if a.Type == ActRoom {
		var p service.RoomPatch
		if decodeState(a.State, &p) != nil {
			return nil
		}
		if p.On == nil {
			// Which lights are lit when the rule runs is not known now:
			// any of them may be.
			on := true
			p.On = &on
		}
		ids, _ := c.e.svc.RoomTargets(c.ctx, a.Room, p)
		return ids
	}
	return c.e.targets(c.ctx, []Action{a})
}

// action checks one action and returns it with its targets (for the
// one-command-per-target check).
func (c checker) action(f string, a Action) (Action, []string, error) {
	typ, err := choose(f+".type", a.Type, actionTypes...)
	if err != nil {
		return a, nil, err
	}
	a.Type = typ
	set := a.setFields()
	switch typ {
	case ActRoom:
		if err := only(f, typ, set, "room", "state"); err != nil {
			return a, nil, err
		}
		r, err := c.e.svc.GetRoom(c.ctx, a.Room)
		if err != nil {
			return a, nil, about(f+".room", err)
		}
		a.Room = r.ID
		a.State, err = lightPatch(f+".state", a.State)
		return a, []string{"room:" + r.ID}, err
	case ActLight:
		return c.lightAction(f, a)
	case ActScene:
		if err := only(f, typ, set, "scene"); err != nil {
			return a, nil, err
		}
		sc, err := c.e.svc.GetScene(c.ctx, a.Scene)
		if err != nil {
			return a, nil, about(f+".scene", err)
		}
		a.Scene = sc.ID
		return a, []string{"scene:" + sc.ID}, nil
	case ActDelay:
		if err := only(f, typ, set, "wait"); err != nil {
			return a, nil, err
		}
		if a.Wait <= 0 {
			return a, nil, invalid(f+".wait", "a delay waits a while: give a duration such as \"5m\"")
		}
		return a, nil, nil
	}
	return c.deviceAction(f, a)
}

func (c checker) lightAction(f string, a Action) (Action, []string, error) {
	if err := only(f, a.Type, a.setFields(), "lights", "state"); err != nil {
		return a, nil, err
	}
	if len(a.Lights) == 0 {
		return a, nil, invalid(f+".lights", "name at least one light, or \"all\"")
	}
	ids, err := c.lightIDs(f, a.Lights)
	if err != nil {
		return a, nil, err
	}
	a.Lights = ids
	a.State, err = lightPatch(f+".state", a.State)
	return a, ids, err
}

// lightIDs resolves a light action's lights to their ids, each once; "all"
// stays "all", for the lights there are when the rule runs.
func (c checker) lightIDs(f string, refs []string) ([]string, error) {
	if service.ParseLightTarget(refs...).All {
		return []string{service.AllLights}, nil
	}
	var ids []string
	for i, ref := range refs {
		l, err := c.e.svc.GetLight(c.ctx, ref)
		if err != nil {
			return nil, about(fmt.Sprintf("%s.lights[%d]", f, i), err)
		}
		if !slices.Contains(ids, string(l.ID)) {
			ids = append(ids, string(l.ID))
		}
	}
	return ids, nil
}

// deviceAction checks a power, media or remote action.
func (c checker) deviceAction(f string, a Action) (Action, []string, error) {
	if err := only(f, a.Type, a.setFields(), "device", "state"); err != nil {
		return a, nil, err
	}
	var id devices.ID
	var err error
	switch a.Type {
	case ActPower:
		var p service.PowerView
		p, err = c.e.svc.GetPower(c.ctx, a.Device)
		id = p.ID
	case ActMedia:
		var m service.Media
		m, err = c.e.svc.GetMedia(c.ctx, a.Device)
		id = m.ID
		if err == nil {
			a.State, err = mediaPatch(f+".state", a.State, m)
			if err != nil {
				return a, nil, err
			}
		}
	case ActRemote:
		var r service.RemoteView
		r, err = c.e.svc.GetRemote(c.ctx, a.Device)
		id = r.ID
	}
	if err != nil {
		return a, nil, about(f+".device", err)
	}
	a.Device = string(id)
	switch a.Type {
	case ActPower:
		a.State, err = powerPatch(f+".state", a.State)
	case ActRemote:
		a.State, err = remotePatch(f+".state", a.State)
	}
	return a, []string{"device:" + string(id)}, err
}

// serviceInvalid is the service's refusal of a state, said of the field.
func serviceInvalid(field string, err error) error {
	e := within(field, err)
	e.Code = service.EINVALID
	delete(e.Details, "field")
	return e.With("field", field)
}

// within is err said of field: its parts kept, the field's path before
// its message.
func within(field string, err error) *service.Error {
	var se *service.Error
	if !errors.As(err, &se) {
		se = service.Errorf(service.ErrorCode(err), "%s", service.ErrorMessage(err))
	}
	return se.In(field)
}

// lightPatch checks a light or room state and writes it in its one
// spelling.
func lightPatch(field string, raw json.RawMessage) (json.RawMessage, error) {
	var p service.LightPatch
	if err := decodeState(raw, &p); err != nil {
		return nil, service.Listf(service.EINVALID, fmt.Sprintf("%s: %v; a light state has ", field, err), service.PatchFields, "or",
			`, such as {"on": true, "brightness": 30}`).With("field", field)
	}
	if err := p.Check(); err != nil {
		return nil, serviceInvalid(field, err)
	}
	return json.Marshal(p)
}

func powerPatch(field string, raw json.RawMessage) (json.RawMessage, error) {
	var s powerState
	if err := decodeState(raw, &s); err != nil || s.On == nil {
		return nil, invalid(field, "a power action's state is {\"on\": true} or {\"on\": false}")
	}
	return json.Marshal(s)
}

// mediaPatch checks a media state: a patch, a favourite, or both.
func mediaPatch(field string, raw json.RawMessage, m service.Media) (json.RawMessage, error) {
	var s mediaState
	if err := decodeState(raw, &s); err != nil {
		return nil, invalid(field, "%v; a media state has power, volume, mute, source, transport or favorite", err)
	}
	switch {
	case s.patchEmpty() && s.Favorite == nil:
		return nil, invalid(field, "nothing to change: give power, volume, mute, source, transport or favorite")
	case !s.patchEmpty():
		if err := s.MediaPatch.Check(); err != nil {
			return nil, serviceInvalid(field, err)
		}
	}
	switch {
	case s.Favorite != nil && strings.TrimSpace(*s.Favorite) == "":
		return nil, invalid(field, "favorite may not be empty: give a favourite's title")
	case s.Favorite != nil && !m.Favorites:
		return nil, invalid(field, "%s has no favourites", m.Name)
	}
	return json.Marshal(s)
}

// remotePatch checks a remote command: exactly one of key, app and text.
func remotePatch(field string, raw json.RawMessage) (json.RawMessage, error) {
	var c service.RemoteCommand
	if err := decodeState(raw, &c); err != nil {
		return nil, invalid(field, "%v; a remote state is {\"key\": …}, {\"app\": …} or {\"text\": …}", err)
	}
	if err := c.Check(); err != nil {
		return nil, serviceInvalid(field, err)
	}
	return json.Marshal(c)
}
