package automation

import (
	"context"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// tickEvery is how often Run looks at the clock: "stays … for" timers,
// times of day, delays and restores are due to within it.
const tickEvery = time.Second

// lateLimit is how late a time or sun trigger may still fire: a clock
// that jumped (a machine woken from sleep) skips what it passed by more.
const lateLimit = 5 * time.Minute

// Run follows the service's events and the clock until ctx ends. The runs
// and restores it started are waited for (a device call is bounded by the
// device timeout) before it returns.
func (e *Engine) Run(ctx context.Context) error {
	events, stop := e.svc.Events().Subscribe()
	defer stop()
	e.mu.Lock()
	e.base, e.closed = ctx, false
	e.mu.Unlock()
	defer e.stopped()
	if err := e.ready(ctx); err != nil {
		return err
	}
	// Rules loaded before the subscription (a surface asked first) may have
	// missed a change: they take the house as it is now, without firing.
	e.refresh(e.reader(ctx), e.now(), false)
	e.Tick(e.now()) // overdue restores go back at once
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			e.handle(ctx, ev)
			if e.handled != nil {
				e.handled(ev)
			}
		case <-tick.C:
			e.Tick(e.now())
		}
	}
}

// stopped ends Run: nothing more starts in the background, and what did
// has finished and been stored.
func (e *Engine) stopped() {
	e.mu.Lock()
	e.closed, e.base = true, context.Background()
	e.mu.Unlock()
	e.runs.Wait()
	e.writes.settled()
}

// launch runs fn in the background, tracked so Run can wait for it. Once
// Run has ended (or in a test that drives Tick after it), fn runs at once.
func (e *Engine) launch(fn func(ctx context.Context)) {
	e.mu.Lock()
	ctx, closed := e.base, e.closed
	if !closed {
		e.runs.Add(1)
		e.active++
	}
	e.mu.Unlock()
	if closed {
		fn(ctx)
		return
	}
	go func() {
		defer e.runs.Done()
		defer func() {
			e.mu.Lock()
			e.active--
			e.idle.Broadcast()
			e.mu.Unlock()
		}()
		fn(ctx)
	}()
}

// quiesce waits until nothing runs in the background and every Store
// write queued so far is done (for tests: what is started has finished).
func (e *Engine) quiesce() {
	e.mu.Lock()
	for e.active > 0 {
		e.idle.Wait()
	}
	e.mu.Unlock()
	e.writes.wait()
}

func (e *Engine) now() time.Time { return e.cfg.Now() }

// background is the context runs started by events and the clock live in.
func (e *Engine) background() context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.base
}

// ready loads the rules, timers and holds the first time it is called,
// and takes each rule's subject as it is now.
func (e *Engine) ready(ctx context.Context) error {
	if e.loaded.Load() {
		return nil
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.loaded.Load() {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	rules, err := e.st.ListAutomations(ctx)
	if err != nil {
		return err
	}
	timers, err := e.st.ListTimers(ctx)
	if err != nil {
		return err
	}
	holds, err := e.st.ListHolds(ctx)
	if err != nil {
		return err
	}
	pending, err := e.st.ListRuns(ctx)
	if err != nil {
		return err
	}
	states := make([]*ruleState, 0, len(rules))
	for _, r := range rules {
		rs := &ruleState{rule: r}
		if err := e.lastRuns(ctx, rs); err != nil {
			return err
		}
		states = append(states, rs)
	}
	e.mu.Lock()
	for _, rs := range states {
		e.rules[rs.rule.ID] = rs
		e.watch.add(rs)
	}
	e.mu.Unlock()
	e.loadTimers(timers)
	e.loadHolds(holds)
	e.loadRuns(pending, e.now())
	e.refresh(e.reader(ctx), e.now(), false)
	e.loaded.Store(true)
	return nil
}

// lastRuns finds a rule's last run and last fire in its trace.
func (e *Engine) lastRuns(ctx context.Context, rs *ruleState) error {
	trace, err := e.st.ListTrace(ctx, rs.rule.ID, TraceKeep)
	if err != nil {
		return err
	}
	for _, t := range trace {
		at := runStart(t)
		if (t.Kind == Fired || t.Kind == Ran) && rs.lastRun.IsZero() {
			rs.lastRun, rs.lastOutcome = at, t.Outcome
		}
		if t.Kind == Fired && rs.lastFired.IsZero() {
			rs.lastFired = at
		}
	}
	return nil
}

// runStart is when the run a trace entry records began: its own time, or
// for a later step, the run's.
func runStart(t TraceEntry) time.Time {
	if t.RunStarted != nil {
		return *t.RunStarted
	}
	return t.At
}

// resumeLimit is how overdue a run's later step may be at start and still
// run.
const resumeLimit = 24 * time.Hour

// loadRuns takes up the runs a restart interrupted during a delay: their
// next step runs when due (at once when overdue, up to resumeLimit).
func (e *Engine) loadRuns(pending []PendingRun, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range pending {
		rs := e.rules[p.RuleID]
		if rs == nil {
			continue // the store dropped it with its rule
		}
		if (p.Kind == Fired && !rs.rule.Enabled) || p.Step <= 0 || p.Step >= len(plan(rs.rule.Actions)) || now.Sub(p.Due) > resumeLimit {
			e.deleteRun(p.RuleID)
			continue
		}
		rs.cont = &continuation{rule: rs.rule, token: rs.token, kind: p.Kind, step: p.Step, started: p.Started, due: p.Due}
		rs.stored = true
	}
}

// loadTimers takes up the countdowns a restart interrupted; one whose
// state no longer holds is dropped when its subject is read.
func (e *Engine) loadTimers(timers []Timer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range timers {
		rs := e.rules[t.RuleID]
		if rs == nil || !rs.rule.Enabled || rs.rule.Trigger.For <= 0 {
			e.deleteTimer(t.RuleID)
			continue
		}
		rs.timer = &t
	}
}

// refresh reads every rule's subject from the service. fire says whether
// a change found counts as a transition (after a resync) or only sets the
// baseline (at start).
func (e *Engine) refresh(ctx context.Context, now time.Time, fire bool) {
	e.mu.Lock()
	var watched []Trigger
	for _, rs := range e.rules {
		watched = append(watched, rs.rule.Trigger)
		if rs.next.IsZero() {
			rs.next = e.nextAt(rs.rule, now)
		}
	}
	e.mu.Unlock()
	seenRooms := map[string]bool{}
	seenDevices := map[string]bool{}
	for _, t := range watched {
		switch {
		case t.Type == TriggerOccupancy && !seenRooms[t.Room]:
			seenRooms[t.Room] = true
			e.observeRoom(ctx, t.Room, e.roomSubject(ctx, t.Room), now, fire)
		case (t.Type == TriggerSensor || t.Type == TriggerPower) && !seenDevices[t.Device]:
			seenDevices[t.Device] = true
			e.observeDevice(ctx, devices.ID(t.Device), e.deviceSubject(ctx, t.Device), now, fire)
		}
	}
}

// handle is one event from the service.
func (e *Engine) handle(ctx context.Context, ev service.Event) {
	ctx = e.reader(ctx)
	now := e.now()
	switch ev.Type {
	case "automation":
		return
	case service.ResyncEvent:
		e.refresh(ctx, now, true)
		e.checkAllHeld(ctx)
		return
	case "room":
		e.mu.Lock()
		_, watched := e.watch.rooms[ev.ID]
		e.mu.Unlock()
		if watched {
			e.observeRoom(ctx, ev.ID, e.roomSubject(ctx, ev.ID), now, true)
		}
		return
	}
	if ev.ID == "" {
		return
	}
	id := devices.ID(ev.ID)
	e.mu.Lock()
	watched := len(e.watch.devices[id]) > 0
	rooms := e.roomsAffected(ev)
	held := e.holds[id] != nil
	e.mu.Unlock()
	if watched {
		s, ok := viewSubject(ev.Data)
		if !ok {
			s = e.deviceSubject(ctx, ev.ID)
		}
		e.observeDevice(ctx, id, s, now, true)
	}
	for _, r := range rooms {
		e.observeRoom(ctx, r, e.roomSubject(ctx, r), now, true)
	}
	if held {
		e.checkHeld(ctx, id)
		if isOnline(ev) {
			e.retryOnline(id, now)
		}
	}
}

// isOnline reports whether an event says a device changed and is online.
func isOnline(ev service.Event) bool {
	if ev.Action != "changed" {
		return false
	}
	switch v := ev.Data.(type) {
	case service.Light:
		return v.Online
	case service.PowerView:
		return v.Online
	case service.Media:
		return v.Online
	case service.DeviceView:
		return v.Online
	case service.SensorView:
		return v.Online
	}
	return false
}

// roomsAffected lists the watched rooms whose occupancy an event may have
// changed: a sensor's own room, or every watched room when the event does
// not say (a device moved, went offline). e.mu is held.
func (e *Engine) roomsAffected(ev service.Event) []string {
	if len(e.watch.rooms) == 0 || (ev.Type != "sensor" && ev.Type != "device") {
		return nil
	}
	if sv, ok := ev.Data.(service.SensorView); ok {
		if _, watched := e.watch.rooms[sv.RoomID]; watched {
			return []string{sv.RoomID}
		}
		return nil
	}
	rooms := make([]string, 0, len(e.watch.rooms))
	for r := range e.watch.rooms {
		rooms = append(rooms, r)
	}
	return rooms
}

// observeDevice applies a device's subject to the rules that watch it.
func (e *Engine) observeDevice(ctx context.Context, id devices.ID, s subject, now time.Time, fire bool) {
	e.mu.Lock()
	fires := e.observe(e.watch.devices[id], s, now, fire)
	e.mu.Unlock()
	e.fireAll(ctx, fires)
}

// observeRoom applies a room's occupancy to the rules that watch it.
func (e *Engine) observeRoom(ctx context.Context, room string, s subject, now time.Time, fire bool) {
	e.mu.Lock()
	fires := e.observe(e.watch.rooms[room], s, now, fire)
	e.mu.Unlock()
	e.fireAll(ctx, fires)
}

// observe moves each rule's level on to s and returns the firings that
// result: a transition into the trigger's state fires it, or starts its
// "stays … for" countdown; a transition out cancels the countdown. An
// unknown subject changes nothing (an offline blip is no transition), and
// the first known one is only the baseline. e.mu is held.
func (e *Engine) observe(rules map[string]*ruleState, s subject, now time.Time, fire bool) []firing {
	var fires []firing
	for _, rs := range rules {
		next := rs.rule.Trigger.level(s, rs.level)
		if next == levelUnknown {
			continue
		}
		prev := rs.level
		rs.level = next
		if next == levelNo && rs.timer != nil {
			rs.timer = nil
			e.deleteTimer(rs.rule.ID)
		}
		if !fire || prev != levelNo || next != levelYes || !rs.rule.Enabled {
			continue
		}
		if d := rs.rule.Trigger.For.D(); d > 0 {
			rs.timer = &Timer{RuleID: rs.rule.ID, Since: now, Due: now.Add(d)}
			e.saveTimer(*rs.timer)
			continue
		}
		fires = append(fires, firing{rule: rs.rule, at: now, value: readingValue(s, rs.rule.Trigger)})
	}
	return fires
}

// readingValue is the value of a threshold trigger's reading in s.
func readingValue(s subject, t Trigger) *float64 {
	if t.Type != TriggerSensor || (t.Above == nil && t.Below == nil) {
		return nil
	}
	if r, ok := findReading(s.readings, t.Reading); ok {
		return &r.Value
	}
	return nil
}

// saveTimer and deleteTimer queue a countdown's Store write; e.mu is held,
// so the writes keep the order of the changes.
func (e *Engine) saveTimer(t Timer) {
	e.writes.add("timer", func(ctx context.Context, st Store) error { return st.SaveTimer(ctx, t) })
}

func (e *Engine) deleteTimer(ruleID string) {
	e.writes.add("timer", func(ctx context.Context, st Store) error { return st.DeleteTimer(ctx, ruleID) })
}

// Tick runs what is due at now: "stays … for" timers, time and sun
// triggers, delayed actions, restores. Run calls it as time passes; tests
// with a fake clock call it themselves.
func (e *Engine) Tick(now time.Time) {
	ctx := e.reader(e.background())
	if err := e.ready(ctx); err != nil {
		e.log.Error("automation: loading rules", "err", err)
		return
	}
	e.mu.Lock()
	var fires []firing
	var conts []*continuation
	for _, rs := range e.rules {
		fires = append(fires, e.dueFirings(rs, now)...)
		if c := rs.cont; c != nil && !now.Before(c.due) {
			rs.cont = nil
			conts = append(conts, c)
		}
	}
	e.mu.Unlock()
	e.fireAll(ctx, fires)
	for _, c := range conts {
		e.launch(func(ctx context.Context) { e.resume(ctx, c, now) })
	}
	e.launchRestores(now)
}

// dueFirings returns what of rs is due at now: a countdown run out while
// its state still holds, a time or sun trigger's moment. e.mu is held.
func (e *Engine) dueFirings(rs *ruleState, now time.Time) []firing {
	var fires []firing
	// A countdown whose subject is not known yet waits for it.
	if t := rs.timer; t != nil && !now.Before(t.Due) && rs.level == levelYes {
		rs.timer = nil
		e.deleteTimer(rs.rule.ID)
		if rs.rule.Enabled {
			fires = append(fires, firing{rule: rs.rule, at: now, since: t.Since})
		}
	}
	if !rs.next.IsZero() && !now.Before(rs.next) {
		if rs.rule.Enabled {
			fires = append(fires, firing{rule: rs.rule, at: now, sched: rs.next, late: now.Sub(rs.next) > lateLimit})
		}
		rs.next = e.nextAt(rs.rule, now)
	}
	return fires
}

// nextAt is the first moment after now a time or sun trigger fires; zero
// for other triggers, and for a sun that neither rises nor sets.
func (e *Engine) nextAt(r Rule, now time.Time) time.Time {
	t := r.Trigger
	switch t.Type {
	case TriggerTime:
		next, err := NextTime(now, t.At, t.Days, e.cfg.Location)
		if err != nil {
			return time.Time{}
		}
		return next
	case TriggerSun:
		lat, lon, located := e.place.get()
		if !located {
			return time.Time{}
		}
		next, ok := NextSun(now, t.Event, t.Offset.D(), t.Days, lat, lon, e.cfg.Location)
		if !ok {
			return time.Time{}
		}
		return next
	}
	return time.Time{}
}

// firing is a trigger that fired: when, and what it saw.
type firing struct {
	rule  Rule
	at    time.Time
	value *float64  // a threshold's reading as it crossed
	since time.Time // a "stays … for": when the state began
	sched time.Time // a time or sun trigger: the moment it was due
	late  bool      // the clock passed that moment by more than lateLimit
}

func (e *Engine) fireAll(ctx context.Context, fires []firing) {
	for _, f := range fires {
		e.fire(ctx, f)
	}
}

// fire decides on a trigger that fired: the cooldown and the conditions
// are checked here, on the caller's goroutine (they read the service's
// memory, never a device); the actions run in the background.
func (e *Engine) fire(ctx context.Context, f firing) {
	nm := e.names(ctx)
	why := nm.cause(f)
	if f.late {
		e.skip(f, "the clock passed "+e.clock(f.sched)+" only at "+e.clock(f.at)+", too late to act on it", "")
		return
	}
	if until, cooling := e.cooling(f.rule, f.at); cooling {
		e.skip(f, "it was in cooldown until "+e.clock(until), "")
		return
	}
	if cond, because, ok := e.conditionsHold(ctx, nm, f.rule, f.at); !ok {
		e.skip(f, because, cond)
		return
	}
	token, ok := e.claim(f.rule, f.at, true)
	if !ok {
		e.skip(f, "it was in cooldown after a run that began at the same moment", "")
		return
	}
	e.launch(func(ctx context.Context) { e.execute(ctx, f.rule, Fired, why, f.at, token) })
}

func (e *Engine) skip(f firing, why, cond string) {
	e.record(TraceEntry{At: f.at, RuleID: f.rule.ID, Kind: Skipped, Why: why, Condition: cond})
}

// cooling reports whether r is in its cooldown at at, and until when.
func (e *Engine) cooling(r Rule, at time.Time) (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rs := e.rules[r.ID]
	if rs == nil || r.Cooldown <= 0 || rs.lastFired.IsZero() {
		return time.Time{}, false
	}
	until := rs.lastFired.Add(r.Cooldown.D())
	return until, at.Before(until)
}

// claim starts a run of r: it numbers it (so the steps of an older run
// after a delay are dropped) and, for a trigger's run, starts the
// cooldown. It fails when the rule is gone, disabled, or, for a trigger's
// run, in its cooldown.
func (e *Engine) claim(r Rule, at time.Time, byTrigger bool) (uint64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rs := e.rules[r.ID]
	if rs == nil {
		return 0, false
	}
	if byTrigger {
		if !rs.rule.Enabled || (r.Cooldown > 0 && !rs.lastFired.IsZero() && at.Before(rs.lastFired.Add(r.Cooldown.D()))) {
			return 0, false
		}
		rs.lastFired = at
	}
	rs.token++
	rs.cont = nil
	e.dropRun(rs)
	return rs.token, true
}

// record keeps a decision: in memory (a run's time and outcome), in the
// Store's trace, and as an event on the service's bus.
func (e *Engine) record(t TraceEntry) {
	e.mu.Lock()
	if rs := e.rules[t.RuleID]; rs != nil && (t.Kind == Fired || t.Kind == Ran) {
		rs.lastRun, rs.lastOutcome = runStart(t), t.Outcome
	}
	e.writes.add("trace", func(ctx context.Context, st Store) error { return st.AddTrace(ctx, t) })
	e.mu.Unlock()
	e.publish(t.Kind, t.RuleID, t)
	e.log.Debug("automation: "+t.Kind, "rule", t.RuleID, "why", t.Why)
}

// publish sends an "automation" event on the service's bus.
func (e *Engine) publish(action, ruleID string, data any) {
	e.svc.Events().Publish(service.Event{Type: "automation", ID: ruleID, Action: action, Time: e.now(), Data: data})
}
