package automation

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// "Put things back": when a rule with RestoreAfter runs, the devices its
// actions touch are captured first (service.Snapshot), and put back
// (service.Restore) after the time. A device is held by one rule at a
// time: a rule that runs again extends its hold and keeps the first
// capture; a rule that takes over another's device inherits that rule's
// capture, so the device goes back to how it was before any automation
// touched it. A device changed by anyone else is let go and keeps the
// change.

// heldDevice is a hold as the engine keeps it.
type heldDevice struct {
	Hold
	// running counts the rule's runs that are changing the device now:
	// while any is, the device's state is the rule's own doing.
	running int
	gen     uint64 // moves on every change, so a check made meanwhile is dropped
}

// Tolerances within which a held device still shows the state the rule
// left: devices round what they are sent.
const (
	brightnessSlack = 2
	kelvinSlack     = 100
	gmSlack         = 2
	xySlack         = 0.01
	volumeSlack     = 2
)

func (e *Engine) loadHolds(holds []Hold) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range holds {
		if e.rules[h.RuleID] == nil {
			continue // the store dropped it with its rule
		}
		if old := e.holds[devices.ID(h.DeviceID)]; old != nil && !old.Until.Before(h.Until) {
			e.deleteHold(h) // two rows for one device: the later restore wins
			continue
		}
		e.holds[devices.ID(h.DeviceID)] = &heldDevice{Hold: h}
	}
}

// hold captures the devices a run of r is about to change (ids) and holds
// them, and every other device r holds, until until. A device another rule
// holds is taken over, with that rule's capture.
func (e *Engine) hold(ctx context.Context, r Rule, ids []devices.ID, until time.Time) {
	prior, err := e.svc.Snapshot(ctx, ids)
	if err != nil {
		e.log.Warn("automation: capturing state to put back", "rule", r.ID, "err", err)
	}
	captured := make(map[devices.ID]service.SceneEntry, len(prior))
	for _, p := range prior {
		captured[p.DeviceID] = p
	}
	var taken []Hold
	e.mu.Lock()
	for _, id := range ids {
		h := e.holds[id]
		p, known := captured[id]
		switch {
		case h == nil && !known:
			continue // offline or never reported: nothing to put back
		case h == nil:
			h = &heldDevice{Hold: Hold{RuleID: r.ID, DeviceID: string(id), Prior: p}}
			e.holds[id] = h
		case h.RuleID != r.ID:
			taken = append(taken, h.Hold)
			e.deleteHold(h.Hold)
			h = &heldDevice{Hold: Hold{RuleID: r.ID, DeviceID: string(id), Prior: h.Prior}}
			e.holds[id] = h
		}
		h.Until = until
		h.running++
		h.gen++
		e.saveHold(h.Hold)
	}
	for _, h := range e.holds {
		if h.RuleID == r.ID && h.Until.Before(until) {
			h.Until = until
			e.saveHold(h.Hold)
		}
	}
	e.mu.Unlock()
	e.handedOver(r, taken)
}

// handedOver tells each rule whose device another took over.
func (e *Engine) handedOver(by Rule, taken []Hold) {
	if len(taken) == 0 {
		return
	}
	nm := e.names(e.reader(e.background()))
	for _, h := range taken {
		e.record(TraceEntry{
			At: e.now(), RuleID: h.RuleID, Kind: Released,
			Why: fmt.Sprintf("%s took over %s and puts it back to how it was before", quote(by.Name), nm.device(h.DeviceID)),
		})
	}
}

// settle records, after a run's step, the state r left its held devices
// in: a later change to another state is someone else's.
func (e *Engine) settle(ctx context.Context, r Rule, ids []devices.ID) {
	var mine []devices.ID
	e.mu.Lock()
	for _, id := range ids {
		if h := e.holds[id]; h != nil && h.RuleID == r.ID && h.running > 0 {
			mine = append(mine, id)
		}
	}
	e.mu.Unlock()
	now, _ := e.svc.Snapshot(ctx, mine)
	left := make(map[devices.ID]service.SceneEntry, len(now))
	for _, s := range now {
		left[s.DeviceID] = s
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range mine {
		h := e.holds[id]
		if h == nil || h.RuleID != r.ID || h.running == 0 {
			continue
		}
		if s, ok := left[id]; ok {
			h.Applied = s
		}
		h.running--
		h.gen++
		e.saveHold(h.Hold)
	}
}

// checkHeld lets a held device go when its state is no longer the one the
// rule left: someone else changed it. An offline device, or a state the
// rule's own run is still making, is no change.
func (e *Engine) checkHeld(ctx context.Context, id devices.ID) {
	e.mu.Lock()
	h := e.holds[id]
	if h == nil || h.running > 0 {
		e.mu.Unlock()
		return
	}
	gen, applied := h.gen, h.Applied
	e.mu.Unlock()
	now, ok := e.current(ctx, id)
	if !ok || sameState(now, applied) {
		return
	}
	e.mu.Lock()
	if e.holds[id] != h || h.gen != gen || h.running > 0 {
		e.mu.Unlock()
		return
	}
	delete(e.holds, id)
	e.deleteHold(h.Hold)
	e.mu.Unlock()
	e.released(h.Hold, e.now())
}

// checkAllHeld checks every hold (after a resync, when events were lost).
func (e *Engine) checkAllHeld(ctx context.Context) {
	e.mu.Lock()
	ids := make([]devices.ID, 0, len(e.holds))
	for id := range e.holds {
		ids = append(ids, id)
	}
	e.mu.Unlock()
	for _, id := range ids {
		e.checkHeld(ctx, id)
	}
}

func (e *Engine) released(h Hold, at time.Time) {
	nm := e.names(e.reader(e.background()))
	e.record(TraceEntry{
		At: at, RuleID: h.RuleID, Kind: Released,
		Why: nm.device(h.DeviceID) + " was changed by someone else, and keeps that change",
	})
}

// current is a device's state as the service knows it now; false when it
// is offline or has not reported.
func (e *Engine) current(ctx context.Context, id devices.ID) (service.SceneEntry, bool) {
	s, err := e.svc.Snapshot(ctx, []devices.ID{id})
	if err != nil || len(s) == 0 {
		return service.SceneEntry{}, false
	}
	return s[0], true
}

// dueHolds takes the holds due at now out of the engine, by rule. A hold
// whose rule is still changing it waits for the run. e.mu is held.
func (e *Engine) dueHolds(now time.Time) map[string][]Hold {
	var due map[string][]Hold
	for id, h := range e.holds {
		if h.running > 0 || now.Before(h.Until) {
			continue
		}
		if due == nil {
			due = map[string][]Hold{}
		}
		due[h.RuleID] = append(due[h.RuleID], h.Hold)
		delete(e.holds, id)
	}
	return due
}

// restore puts a rule's due holds back, as the rule. A device changed
// since by someone else is let go instead. A restore cut short by the
// engine stopping stays in the Store, for the next start.
func (e *Engine) restore(ctx context.Context, ruleID string, holds []Hold, now time.Time) {
	r, ok := e.rule(ruleID)
	if !ok {
		return
	}
	ctx = asRule(ctx, r)
	var back []service.SceneEntry
	var names []string
	var gone []Hold
	nm := e.names(ctx)
	for _, h := range holds {
		if cur, ok := e.current(ctx, devices.ID(h.DeviceID)); ok && !sameState(cur, h.Applied) {
			gone = append(gone, h)
			continue
		}
		back = append(back, h.Prior)
		names = append(names, nm.device(h.DeviceID))
	}
	var res service.FanoutResult
	var err error
	if len(back) > 0 {
		res, err = e.svc.Restore(ctx, back)
	}
	if ctx.Err() != nil {
		return
	}
	e.mu.Lock()
	for _, h := range holds {
		e.deleteHold(h)
	}
	e.mu.Unlock()
	for _, h := range gone {
		e.released(h, now)
	}
	if len(back) > 0 {
		e.record(restoredEntry(r, now, names, res, err))
	}
}

func restoredEntry(r Rule, at time.Time, names []string, res service.FanoutResult, err error) TraceEntry {
	a := ActionResult{Action: "put back " + joinAnd(names), OK: err == nil && len(res.Failed) == 0, Failed: res.Failed}
	outcome := outcomeOf([]ActionResult{a}, []bool{len(res.Applied) > 0})
	if err != nil {
		a.Error = service.ErrorMessage(err)
	} else if len(res.Failed) > 0 {
		a.Error = failedText(res)
	}
	why := "put back " + joinAnd(names)
	if r.RestoreAfter != nil {
		why += " after " + words(r.RestoreAfter.D())
	}
	return TraceEntry{At: at, RuleID: r.ID, Kind: Restored, Why: why, Actions: []ActionResult{a}, Outcome: outcome}
}

// saveHold and deleteHold queue a hold's Store write; e.mu is held, so the
// writes keep the order of the changes.
func (e *Engine) saveHold(h Hold) {
	e.writes.add("hold", func(ctx context.Context, st Store) error { return st.SaveHold(ctx, h) })
}

func (e *Engine) deleteHold(h Hold) {
	e.writes.add("hold", func(ctx context.Context, st Store) error { return st.DeleteHold(ctx, h.RuleID, h.DeviceID) })
}

// holding lists the devices r holds and when the last goes back. e.mu is
// held.
func (e *Engine) holding(ruleID string) ([]string, *time.Time) {
	var ids []string
	var last time.Time
	for id, h := range e.holds {
		if h.RuleID != ruleID {
			continue
		}
		ids = append(ids, string(id))
		if h.Until.After(last) {
			last = h.Until
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	sortStrings(ids)
	return ids, &last
}

// sameState reports whether a device's state now is the state a rule
// left, within what devices round. A state the rule did not see (an
// empty entry) is taken to be unchanged.
func sameState(now, left service.SceneEntry) bool {
	switch {
	case left.Light != nil:
		return now.Light != nil && sameLight(*now.Light, *left.Light)
	case left.Power != nil:
		return now.Power != nil && *now.Power == *left.Power
	case left.Media != nil:
		return now.Media != nil && sameMedia(*now.Media, *left.Media)
	}
	return true
}

func sameLight(a, b devices.LightState) bool {
	if a.On != b.On {
		return false
	}
	if !a.On {
		return true // what an off lamp would show is not a change
	}
	if abs(a.Brightness-b.Brightness) > brightnessSlack {
		return false
	}
	if a.Mode != "" && b.Mode != "" && a.Mode != b.Mode {
		return false
	}
	switch b.Mode {
	case devices.ModeTemperature:
		return abs(a.Kelvin-b.Kelvin) <= kelvinSlack && abs(a.GM-b.GM) <= gmSlack
	case devices.ModeColor:
		return a.Color != nil && b.Color != nil &&
			math.Abs(a.Color.X-b.Color.X) <= xySlack && math.Abs(a.Color.Y-b.Color.Y) <= xySlack
	case devices.ModeEffect:
		return strings.EqualFold(a.Effect, b.Effect)
	}
	return true
}

func sameMedia(a, b service.SceneMedia) bool {
	if a.Power != b.Power {
		return false
	}
	if !a.Power {
		return true
	}
	if a.Volume != nil && b.Volume != nil && abs(*a.Volume-*b.Volume) > volumeSlack {
		return false
	}
	return a.Source == "" || b.Source == "" || strings.EqualFold(a.Source, b.Source)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
