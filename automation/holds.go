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

	// restoring says a restore of the device is under way; done is closed
	// when it ends. The hold stays in the engine meanwhile, so a run that
	// takes the device again keeps its capture.
	restoring bool
	done      chan struct{}
	// tries counts the restores the device did not take (offline,
	// unreachable, refused); the next is at retryAt, or when the device
	// reports online.
	tries   int
	retryAt time.Time
}

// Retrying a restore the device did not take: after retryFirst, doubling
// to retryMost, or at once when the device reports online; giveUpAfter its
// time, the hold is let go.
const (
	retryFirst  = 30 * time.Second
	retryMost   = 10 * time.Minute
	giveUpAfter = 24 * time.Hour
)

// retryDelay is the wait before the next restore after tries that failed.
func retryDelay(tries int) time.Duration {
	d := retryFirst
	for i := 1; i < tries && d < retryMost; i++ {
		d *= 2
	}
	return min(d, retryMost)
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
// holds is taken over, with that rule's capture; so is one whose restore is
// under way: it returns those restores, which the run waits for before it
// changes the devices.
func (e *Engine) hold(ctx context.Context, r Rule, ids []devices.ID, until time.Time) []chan struct{} {
	prior, err := e.svc.Snapshot(ctx, ids)
	if err != nil {
		e.log.Warn("automation: capturing state to put back", "rule", r.ID, "err", err)
	}
	captured := make(map[devices.ID]service.SceneEntry, len(prior))
	for _, p := range prior {
		captured[p.DeviceID] = p
	}
	var taken []Hold
	var waits []chan struct{}
	e.mu.Lock()
	for _, id := range ids {
		h := e.holds[id]
		if h != nil && h.restoring {
			waits = append(waits, h.done)
		}
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
		h.tries, h.retryAt = 0, time.Time{}
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
	return waits
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
	if h == nil || h.running > 0 || h.restoring || h.tries > 0 {
		// A device that has not taken its restore yet is still owed it.
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
	if e.holds[id] != h || h.gen != gen || h.running > 0 || h.restoring || h.tries > 0 {
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

// dueRestore is a hold whose restore is under way, as it was when the
// restore began.
type dueRestore struct {
	h     *heldDevice
	hold  Hold
	gen   uint64
	tries int
}

// dueHolds marks the holds due at now as restoring and returns them, by
// rule; they stay in the engine until the restore ends. A hold whose rule
// is still changing it waits for the run; one whose device did not take a
// restore waits for its retry. e.mu is held.
func (e *Engine) dueHolds(now time.Time) map[string][]dueRestore {
	var due map[string][]dueRestore
	for _, h := range e.holds {
		if h.running > 0 || h.restoring || now.Before(h.Until) || now.Before(h.retryAt) {
			continue
		}
		if due == nil {
			due = map[string][]dueRestore{}
		}
		h.restoring, h.done = true, make(chan struct{})
		due[h.RuleID] = append(due[h.RuleID], dueRestore{h: h, hold: h.Hold, gen: h.gen, tries: h.tries})
	}
	return due
}

// launchRestores puts back what is due at now, in the background.
func (e *Engine) launchRestores(now time.Time) {
	e.mu.Lock()
	restores := e.dueHolds(now)
	e.mu.Unlock()
	for ruleID, hs := range restores {
		e.launch(func(ctx context.Context) { e.restore(ctx, ruleID, hs, now) })
	}
}

// retryOnline restores at once a held device that did not take its
// restore, now that it reports online.
func (e *Engine) retryOnline(id devices.ID, now time.Time) {
	e.mu.Lock()
	h := e.holds[id]
	retry := h != nil && h.tries > 0 && !h.restoring
	if retry {
		h.retryAt = time.Time{}
	}
	e.mu.Unlock()
	if retry {
		e.launchRestores(now)
	}
}

// restore puts a rule's due holds back, as the rule. A device changed
// since by someone else is let go instead. A hold is deleted once its
// device took the restore; one whose device did not (offline,
// unreachable, refused) stays, and is tried again when the device reports
// online or after a while, until giveUpAfter its time. A hold the rule took
// again while it was being restored goes on, with its first capture. A
// restore cut short by the engine stopping stays in the Store, for the
// next start.
func (e *Engine) restore(ctx context.Context, ruleID string, due []dueRestore, now time.Time) {
	var back []service.SceneEntry
	var names []string
	gone := map[devices.ID]bool{}
	applied := map[devices.ID]bool{}
	firstTry := false
	var err error
	var res service.FanoutResult
	defer func() {
		e.mu.Lock()
		for _, d := range due {
			d.h.restoring = false
			close(d.h.done)
		}
		e.mu.Unlock()
	}()
	r, ok := e.rule(ruleID)
	if !ok {
		return
	}
	ctx = asRule(ctx, r)
	nm := e.names(ctx)
	for _, d := range due {
		id := devices.ID(d.hold.DeviceID)
		if d.tries == 0 {
			firstTry = true
			if cur, ok := e.current(ctx, id); ok && !sameState(cur, d.hold.Applied) {
				gone[id] = true
				continue
			}
		}
		back = append(back, d.hold.Prior)
		names = append(names, nm.device(d.hold.DeviceID))
	}
	if len(back) > 0 {
		res, err = e.svc.Restore(ctx, back)
	}
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		for _, o := range res.Applied {
			applied[o.ID] = true
		}
	}
	var released, gaveUp []Hold
	e.mu.Lock()
	for _, d := range due {
		id := devices.ID(d.hold.DeviceID)
		if e.holds[id] != d.h || d.h.gen != d.gen {
			continue // taken again meanwhile, released or deleted: the hold goes on as it is now
		}
		switch {
		case gone[id]:
			released = append(released, d.hold)
		case applied[id]:
		case now.Sub(d.hold.Until) >= giveUpAfter:
			gaveUp = append(gaveUp, d.hold)
		default:
			d.h.tries++
			d.h.retryAt = now.Add(retryDelay(d.h.tries))
			continue
		}
		delete(e.holds, id)
		e.deleteHold(d.hold)
	}
	e.mu.Unlock()
	for _, h := range released {
		e.released(h, now)
	}
	if len(back) > 0 && (firstTry || len(applied) > 0) {
		e.record(restoredEntry(r, now, names, res, err))
	}
	for _, h := range gaveUp {
		e.record(TraceEntry{
			At: now, RuleID: h.RuleID, Kind: Released, Outcome: "failed",
			Why: fmt.Sprintf("%s did not take being put back within %s of its time, so it is let go as it is", nm.device(h.DeviceID), words(giveUpAfter)),
		})
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
