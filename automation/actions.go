package automation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/jsonin"
	"github.com/bifrost-hub/bifrost/service"
)

// powerState is a power action's state.
type powerState struct {
	On *bool `json:"on"`
}

// mediaState is a media action's state: a media patch, and a favourite
// to play.
type mediaState struct {
	service.MediaPatch
	Favorite *string `json:"favorite,omitempty"`
}

func (m mediaState) patchEmpty() bool {
	p := m.MediaPatch
	return p.Power == nil && p.Volume == nil && p.Mute == nil && p.Source == nil && p.Transport == nil
}

// decodeState reads an action's state into v, refusing fields v does not
// have.
func decodeState(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errors.New("the state is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if e := jsonin.DecodeError(err, ""); e != nil {
			return errors.New(e.Message) // the action's field path comes before it
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("the state holds more than one JSON value")
	}
	return nil
}

// step is a stretch of actions that run one after another, and the pause
// before it.
type step struct {
	wait    time.Duration
	actions []Action
}

// plan cuts a rule's actions into steps at its delays.
func plan(actions []Action) []step {
	steps := []step{{}}
	for _, a := range actions {
		last := &steps[len(steps)-1]
		switch {
		case a.Type == ActDelay && len(steps) > 1 && len(last.actions) == 0:
			last.wait += a.Wait.D() // delays in a row add up
		case a.Type == ActDelay:
			steps = append(steps, step{wait: a.Wait.D()})
		default:
			last.actions = append(last.actions, a)
		}
	}
	return steps
}

// continuation is a run's steps still to come after a delay.
type continuation struct {
	rule    Rule
	token   uint64
	kind    string
	step    int       // the step that comes next, an index into plan(rule.Actions)
	started time.Time // when the run began
	due     time.Time
}

// execute runs a rule's actions as the rule: the first step now, the rest
// after their delays (Tick). It records the run and returns its result.
func (e *Engine) execute(ctx context.Context, r Rule, kind, why string, at time.Time, token uint64) RunResult {
	steps := plan(r.Actions)
	results, applied := e.runStep(ctx, r, steps[0].actions, at, true)
	if len(steps) > 1 {
		e.schedule(r, kind, token, 1, at, at)
	}
	res := runResult(r, results, applied, steps[1:])
	e.record(TraceEntry{At: at, RuleID: r.ID, Kind: kind, Why: why, Actions: results, Outcome: res.Outcome})
	return res
}

// schedule keeps a run's step (an index into its plan) to come after its
// delay from from, in memory and in the Store, unless a newer run of the
// rule has begun.
func (e *Engine) schedule(r Rule, kind string, token uint64, step int, started, from time.Time) {
	steps := plan(r.Actions)
	e.mu.Lock()
	defer e.mu.Unlock()
	rs := e.rules[r.ID]
	if rs == nil || rs.token != token || step >= len(steps) {
		return
	}
	c := &continuation{rule: r, token: token, kind: kind, step: step, started: started, due: from.Add(steps[step].wait)}
	rs.cont, rs.stored = c, true
	p := PendingRun{RuleID: r.ID, Kind: kind, Step: step, Due: c.due, Started: started}
	e.writes.add("pending run", func(ctx context.Context, st Store) error { return st.SaveRun(ctx, p) })
}

// dropRun deletes a rule's pending run from the Store, if it has one.
// e.mu is held.
func (e *Engine) dropRun(rs *ruleState) {
	if rs.stored {
		rs.stored = false
		e.deleteRun(rs.rule.ID)
	}
}

func (e *Engine) deleteRun(ruleID string) {
	e.writes.add("pending run", func(ctx context.Context, st Store) error { return st.DeleteRun(ctx, ruleID) })
}

// resume runs a run's next step after its delay. It is recorded as the
// run's (RunStarted): the rule's last run and cooldown still count from
// the run's start.
func (e *Engine) resume(ctx context.Context, c *continuation, now time.Time) {
	e.mu.Lock()
	rs := e.rules[c.rule.ID]
	current := rs != nil && rs.token == c.token
	e.mu.Unlock()
	steps := plan(c.rule.Actions)
	if !current || c.step >= len(steps) {
		return
	}
	results, applied := e.runStep(ctx, c.rule, steps[c.step].actions, now, false)
	if ctx.Err() != nil {
		return // the engine stopped: the step is still pending in the Store
	}
	if c.step+1 < len(steps) {
		e.schedule(c.rule, c.kind, c.token, c.step+1, c.started, c.due)
	} else {
		e.mu.Lock()
		if rs := e.rules[c.rule.ID]; rs != nil && rs.token == c.token {
			e.dropRun(rs)
		}
		e.mu.Unlock()
	}
	started := c.started
	e.record(TraceEntry{
		At: now, RuleID: c.rule.ID, Kind: c.kind, Why: "its wait of " + words(steps[c.step].wait) + " was over",
		Actions: results, Outcome: outcomeOf(results, applied), RunStarted: &started,
	})
}

// runStep runs actions in order, best effort, as the rule. With "put
// things back", what they touch is captured first (on the first step,
// everything the rule's actions touch) and held until the time after
// this step.
func (e *Engine) runStep(ctx context.Context, r Rule, actions []Action, at time.Time, first bool) ([]ActionResult, []bool) {
	ctx = asRule(ctx, r)
	var held []devices.ID
	if d := restoreAfter(r); d > 0 {
		touched := actions
		if first {
			touched = r.Actions
		}
		held = e.targets(ctx, touched)
		for _, done := range e.hold(ctx, r, held, at.Add(d)) {
			// A restore of a device under way: it lands first.
			select {
			case <-done:
			case <-ctx.Done():
			}
		}
	}
	nm := e.names(ctx)
	results := make([]ActionResult, 0, len(actions))
	applied := make([]bool, 0, len(actions))
	for _, a := range actions {
		res, some := e.act(ctx, nm, a)
		results = append(results, res)
		applied = append(applied, some)
	}
	if len(held) > 0 {
		e.settle(ctx, r, held)
	}
	return results, applied
}

func restoreAfter(r Rule) time.Duration {
	if r.RestoreAfter == nil {
		return 0
	}
	return r.RestoreAfter.D()
}

// act runs one action and says how it went, and whether any device took
// it.
func (e *Engine) act(ctx context.Context, nm names, a Action) (ActionResult, bool) {
	res := ActionResult{Action: nm.action(a)}
	fr, err := e.do(ctx, a)
	res.Failed = fr.Failed
	switch {
	case err != nil:
		res.Error = service.ErrorMessage(err)
	case len(fr.Failed) > 0:
		res.Error = failedText(fr)
	default:
		res.OK = true
	}
	return res, err == nil && (len(fr.Failed) == 0 || len(fr.Applied) > 0)
}

// do sends one action through the service, one command per target.
func (e *Engine) do(ctx context.Context, a Action) (service.FanoutResult, error) {
	var none service.FanoutResult
	switch a.Type {
	case ActRoom:
		var p service.RoomPatch
		if err := decodeState(a.State, &p); err != nil {
			return none, service.Errorf(service.EINVALID, "%v", err)
		}
		return e.svc.SetRoom(ctx, a.Room, p)
	case ActLight:
		var p service.LightPatch
		if err := decodeState(a.State, &p); err != nil {
			return none, service.Errorf(service.EINVALID, "%v", err)
		}
		t := service.ParseLightTarget(a.Lights...)
		if !t.All && len(t.Refs) == 1 {
			_, err := e.svc.SetLight(ctx, t.Refs[0], p)
			return none, err
		}
		return e.svc.SetLights(ctx, t, p)
	case ActPower:
		var s powerState
		if err := decodeState(a.State, &s); err != nil || s.On == nil {
			return none, service.Errorf(service.EINVALID, "a power action's state is {\"on\": true} or {\"on\": false}")
		}
		_, err := e.svc.SetPower(ctx, a.Device, *s.On)
		return none, err
	case ActMedia:
		return none, e.media(ctx, a)
	case ActRemote:
		var c service.RemoteCommand
		if err := decodeState(a.State, &c); err != nil {
			return none, service.Errorf(service.EINVALID, "%v", err)
		}
		_, err := e.svc.RemoteCommand(ctx, a.Device, c)
		return none, err
	case ActScene:
		return e.svc.ActivateScene(ctx, a.Scene)
	}
	return none, service.Errorf(service.EINVALID, "%q is not an action", a.Type)
}

// media sends a media action: the patch (power first, as the player takes
// it), then the favourite.
func (e *Engine) media(ctx context.Context, a Action) error {
	var s mediaState
	if err := decodeState(a.State, &s); err != nil {
		return service.Errorf(service.EINVALID, "%v", err)
	}
	if !s.patchEmpty() {
		if _, err := e.svc.SetMedia(ctx, a.Device, s.MediaPatch); err != nil {
			return err
		}
	}
	if s.Favorite != nil {
		_, err := e.svc.PlayFavorite(ctx, a.Device, *s.Favorite)
		return err
	}
	return nil
}

// targets lists the devices actions change: a room's and a scene's
// members, as far as the action reaches them.
func (e *Engine) targets(ctx context.Context, actions []Action) []devices.ID {
	var ids []devices.ID
	seen := map[devices.ID]bool{}
	add := func(id devices.ID) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, a := range actions {
		switch a.Type {
		case ActRoom:
			for _, id := range e.roomTargets(ctx, a) {
				add(id)
			}
		case ActLight:
			for _, id := range e.lightTargets(ctx, a.Lights) {
				add(id)
			}
		case ActPower, ActMedia, ActRemote:
			add(devices.ID(a.Device))
		case ActScene:
			if sc, err := e.svc.GetScene(ctx, a.Scene); err == nil {
				for _, en := range sc.Entries {
					add(en.DeviceID)
				}
			}
		}
	}
	return ids
}

// roomTargets are the members a room action reaches, as the service's
// SetRoom picks them.
func (e *Engine) roomTargets(ctx context.Context, a Action) []devices.ID {
	var p service.RoomPatch
	if decodeState(a.State, &p) != nil {
		return nil
	}
	ids, err := e.svc.RoomTargets(ctx, a.Room, p)
	if err != nil {
		return nil
	}
	return ids
}

func (e *Engine) lightTargets(ctx context.Context, refs []string) []devices.ID {
	if !service.ParseLightTarget(refs...).All {
		ids := make([]devices.ID, len(refs))
		for i, r := range refs {
			ids[i] = devices.ID(r)
		}
		return ids
	}
	lights, err := e.svc.ListLights(ctx)
	if err != nil {
		return nil
	}
	ids := make([]devices.ID, 0, len(lights))
	for _, l := range lights {
		ids = append(ids, l.ID)
	}
	return ids
}

// outcomeOf sums up results: "ok" when every action went through,
// "failed" when no device took any, "partial" in between.
func outcomeOf(results []ActionResult, applied []bool) string {
	ok, some := 0, 0
	for i, r := range results {
		if r.OK {
			ok++
		}
		if applied[i] {
			some++
		}
	}
	switch {
	case ok == len(results):
		return "ok"
	case some == 0:
		return "failed"
	}
	return "partial"
}

// failedText says which devices of a fan-out failed.
func failedText(fr service.FanoutResult) string {
	parts := make([]string, len(fr.Failed))
	for i, f := range fr.Failed {
		parts[i] = f.Said()
	}
	n := len(fr.Applied) + len(fr.Failed)
	return fmt.Sprintf("%d of %d devices failed: %s", len(fr.Failed), n, strings.Join(parts, "; "))
}

// runResult is what a run's first step did, as RunNow answers it.
func runResult(r Rule, results []ActionResult, applied []bool, later []step) RunResult {
	res := RunResult{Rule: r.ID, Outcome: outcomeOf(results, applied), Actions: results}
	failed := 0
	var errs []string
	for _, a := range results {
		if !a.OK {
			failed++
			errs = append(errs, a.Error)
		}
	}
	if failed == 0 {
		res.Message = fmt.Sprintf("Ran %s: %s ok", quote(r.Name), count(len(results), "action"))
	} else {
		res.Message = fmt.Sprintf("Ran %s: %d of %s failed (%s)", quote(r.Name), failed, count(len(results), "action"), strings.Join(errs, "; "))
	}
	if len(later) > 0 {
		res.Message += fmt.Sprintf("; the rest follows after %s", words(later[0].wait))
	}
	return res
}

// asRule is ctx carrying r as the principal: its writes are audited as the
// rule's.
func asRule(ctx context.Context, r Rule) context.Context {
	return service.WithPrincipal(ctx, service.Principal{Kind: "automation", ID: r.ID, Name: r.Name, Scope: service.ScopeControl})
}
