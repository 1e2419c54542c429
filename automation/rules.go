package automation

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bifrost-hub/bifrost/service"
)

// reading is the principal the engine reads the house as: to baseline
// subjects, check conditions, name things.
var reading = service.Principal{Kind: "automation", ID: "engine", Name: "automations", Scope: service.ScopeRead}

func (e *Engine) reader(ctx context.Context) context.Context {
	return service.WithPrincipal(ctx, reading)
}

// authorize checks that the caller in ctx holds scope: any principal may
// read; only a control scope may change the rules.
func authorize(ctx context.Context, scope string) error {
	p, ok := service.PrincipalFrom(ctx)
	if !ok {
		return service.Errorf(service.EUNAUTHORIZED, "sign in or send an API key")
	}
	if scope == service.ScopeControl && p.Scope != service.ScopeControl {
		return service.Errorf(service.EFORBIDDEN, "this key has scope %q, which may only read; create a key with scope \"control\" to change automations", p.Scope)
	}
	return nil
}

// begin authorizes the caller and makes sure the rules are loaded.
func (e *Engine) begin(ctx context.Context, scope string) error {
	if err := authorize(ctx, scope); err != nil {
		return err
	}
	return e.ready(ctx)
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRuleID returns a random rule id, "au_k3j9x0c2ab4q".
func newRuleID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return "au_" + idEncoding.EncodeToString(b)
}

// List returns every rule, by name. Read scope.
func (e *Engine) List(ctx context.Context) ([]View, error) {
	if err := e.begin(ctx, service.ScopeRead); err != nil {
		return nil, err
	}
	nm := e.names(ctx)
	e.mu.Lock()
	out := make([]View, 0, len(e.rules))
	for _, rs := range e.rules {
		out = append(out, e.view(nm, rs))
	}
	e.mu.Unlock()
	slices.SortFunc(out, func(a, b View) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Get returns a rule by id or name. Read scope.
func (e *Engine) Get(ctx context.Context, ref string) (View, error) {
	if err := e.begin(ctx, service.ScopeRead); err != nil {
		return View{}, err
	}
	nm := e.names(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	rs, err := e.find(ref)
	if err != nil {
		return View{}, err
	}
	return e.view(nm, rs), nil
}

// view is a rule as surfaces show it. e.mu is held.
func (e *Engine) view(nm names, rs *ruleState) View {
	v := View{Rule: rs.rule, Sentence: nm.sentence(rs.rule)}
	if !rs.lastRun.IsZero() {
		at := rs.lastRun
		v.LastRun, v.LastOutcome = &at, rs.lastOutcome
	}
	v.Holding, v.RestoreAt = e.holding(rs.rule.ID)
	return v
}

// find finds the rule ref names, as every target is found: exact id, then
// exact name (any case), then a unique part of a name. e.mu is held.
func (e *Engine) find(ref string) (*ruleState, error) {
	ref = strings.TrimSpace(ref)
	if rs, ok := e.rules[ref]; ok {
		return rs, nil
	}
	var all, parts []*ruleState
	for _, rs := range e.rules {
		all = append(all, rs)
		if strings.EqualFold(rs.rule.Name, ref) {
			return rs, nil
		}
		if ref != "" && strings.Contains(strings.ToLower(rs.rule.Name), strings.ToLower(ref)) {
			parts = append(parts, rs)
		}
	}
	switch {
	case ref == "":
		return nil, service.Errorf(service.EINVALID, "name an automation").With("options", ruleNames(all))
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) > 1:
		opts := ruleNames(parts)
		return nil, service.Errorf(service.EINVALID, "%q matches more than one automation (%s); say which", ref, strings.Join(opts, ", ")).With("options", opts)
	case len(all) == 0:
		return nil, service.Errorf(service.ENOTFOUND, "no automation matches %q; there is no automation yet", ref).With("options", []string{})
	}
	opts := ruleNames(all)
	return nil, service.Errorf(service.ENOTFOUND, "no automation matches %q; valid: %s", ref, strings.Join(opts, ", ")).With("options", opts)
}

func ruleNames(rs []*ruleState) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.rule.Name
	}
	slices.Sort(out)
	return out
}

// rule returns a copy of a rule by id.
func (e *Engine) rule(id string) (Rule, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rs := e.rules[id]
	if rs == nil {
		return Rule{}, false
	}
	return rs.rule, true
}

// lookup finds a rule by ref and returns a copy.
func (e *Engine) lookup(ref string) (Rule, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rs, err := e.find(ref)
	if err != nil {
		return Rule{}, err
	}
	return rs.rule, nil
}

// nameFree refuses a name another rule has (any case).
func (e *Engine) nameFree(name, except string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, rs := range e.rules {
		if id != except && strings.EqualFold(rs.rule.Name, name) {
			return service.Errorf(service.ECONFLICT, "name: an automation named %q already exists; choose another name", rs.rule.Name).With("field", "name")
		}
	}
	return nil
}

// stored prefixes the field to a Store's name conflict.
func stored(err error) error {
	if service.ErrorCode(err) == service.ECONFLICT {
		return about("name", err)
	}
	return err
}

// Create validates and saves a new rule (targets by id or name, stored by
// id). Enabled is as given. Control scope.
func (e *Engine) Create(ctx context.Context, r Rule) (View, error) {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return View{}, err
	}
	r, err := e.check(ctx, r)
	if err != nil {
		return View{}, err
	}
	if err := e.nameFree(r.Name, ""); err != nil {
		return View{}, err
	}
	now := e.now().UTC()
	r.ID, r.CreatedAt, r.UpdatedAt = newRuleID(), now, now
	if err := e.st.CreateAutomation(ctx, r); err != nil {
		return View{}, stored(err)
	}
	return e.saved(ctx, r, "created", true), nil
}

// Replace replaces a rule whole (PUT); its id and creation time stay.
// Control scope.
func (e *Engine) Replace(ctx context.Context, ref string, r Rule) (View, error) {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return View{}, err
	}
	old, err := e.lookup(ref)
	if err != nil {
		return View{}, err
	}
	if r, err = e.check(ctx, r); err != nil {
		return View{}, err
	}
	return e.update(ctx, old, r)
}

// Update changes part of a rule (PATCH): enable, disable, rename, …
// Only a change to the trigger, conditions or actions checks them against
// the house again, so a rule whose device is gone can still be disabled.
// Control scope.
func (e *Engine) Update(ctx context.Context, ref string, p Patch) (View, error) {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return View{}, err
	}
	old, err := e.lookup(ref)
	if err != nil {
		return View{}, err
	}
	r, structural, err := patched(old, p)
	if err != nil {
		return View{}, err
	}
	if structural {
		r, err = e.check(ctx, r)
	} else if r.Name, err = checkName(r.Name); err == nil {
		r, err = checkTiming(r)
	}
	if err != nil {
		return View{}, err
	}
	return e.update(ctx, old, r)
}

// patched is r with p applied; structural says whether p touches what is
// checked against the house.
func patched(r Rule, p Patch) (Rule, bool, error) {
	if p == (Patch{}) {
		return r, false, service.Errorf(service.EINVALID, "nothing to change: give name, enabled, trigger, conditions, actions, cooldown or restore_after")
	}
	if p.Name != nil {
		r.Name = *p.Name
	}
	if p.Enabled != nil {
		r.Enabled = *p.Enabled
	}
	if p.Trigger != nil {
		r.Trigger = *p.Trigger
	}
	if p.Conditions != nil {
		r.Conditions = *p.Conditions
	}
	if p.Actions != nil {
		r.Actions = *p.Actions
	}
	if p.Cooldown != nil {
		r.Cooldown = *p.Cooldown
	}
	if p.RestoreAfter != nil {
		d := *p.RestoreAfter
		r.RestoreAfter = &d
	}
	return r, p.Trigger != nil || p.Conditions != nil || p.Actions != nil, nil
}

// update saves r over old.
func (e *Engine) update(ctx context.Context, old, r Rule) (View, error) {
	r.ID, r.CreatedAt, r.UpdatedAt = old.ID, old.CreatedAt, e.now().UTC()
	if err := e.nameFree(r.Name, r.ID); err != nil {
		return View{}, err
	}
	if err := e.st.UpdateAutomation(ctx, r); err != nil {
		return View{}, stored(err)
	}
	return e.saved(ctx, r, "changed", false), nil
}

// saved puts a rule just stored to work, and announces it. A rule
// deleted meanwhile (a Delete racing an update) stays deleted, and is
// shown as it was saved.
func (e *Engine) saved(ctx context.Context, r Rule, action string, created bool) View {
	e.install(ctx, r, created)
	nm := e.names(ctx)
	e.mu.Lock()
	var v View
	if rs := e.rules[r.ID]; rs != nil {
		v = e.view(nm, rs)
	} else {
		v = View{Rule: r, Sentence: nm.sentence(r)}
	}
	e.mu.Unlock()
	e.publish(action, r.ID, v)
	e.svc.Audit(ctx, "automation."+action, r.Name, nil, "")
	return v
}

// install puts a rule, new or changed, to work. A new rule, a changed
// trigger, or a rule enabled again takes its subject as it is now, as the
// baseline, so only the next transition fires it. A change that leaves the
// trigger and the enabled flag alone (a name, a cooldown, conditions,
// actions, "put things back") keeps the trigger's level, a "stays … for"
// countdown under way and a run's delayed steps. Disabling cancels the
// countdown and the delayed steps. Its holds stay. An update of a rule
// deleted meanwhile installs nothing.
func (e *Engine) install(ctx context.Context, r Rule, created bool) {
	s := e.triggerSubject(e.reader(ctx), r.Trigger)
	lvl := r.Trigger.level(s, levelUnknown)
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	rs := e.rules[r.ID]
	switch {
	case rs == nil && !created:
		return
	case rs == nil:
		rs = &ruleState{}
		e.rules[r.ID] = rs
	default:
		e.watch.remove(rs)
	}
	old := rs.rule
	sameTrigger := !created && sameTrigger(old.Trigger, r.Trigger)
	if !r.Enabled || !sameTrigger || !old.Enabled {
		// The countdown starts again from a baseline (or not at all).
		if rs.timer != nil {
			rs.timer = nil
			e.deleteTimer(r.ID)
		}
		rs.level = lvl
	}
	if !r.Enabled && old.Enabled {
		rs.cont = nil
		rs.token++ // a step being resumed now is dropped
		e.dropRun(rs)
	}
	rs.rule = r
	if !sameTrigger || rs.next.IsZero() {
		rs.next = e.nextAt(r, now)
	}
	e.watch.add(rs)
}

// sameTrigger reports whether two triggers are the same.
func sameTrigger(a, b Trigger) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// Delete removes a rule, its holds (without putting them back) and
// timers. Control scope.
func (e *Engine) Delete(ctx context.Context, ref string) error {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return err
	}
	r, err := e.lookup(ref)
	if err != nil {
		return err
	}
	if err := e.st.DeleteAutomation(ctx, r.ID); err != nil && service.ErrorCode(err) != service.ENOTFOUND {
		return err
	}
	e.mu.Lock()
	if rs := e.rules[r.ID]; rs != nil {
		e.watch.remove(rs)
		rs.cont, rs.timer, rs.stored = nil, nil, false
		rs.token++
		delete(e.rules, r.ID)
	}
	for id, h := range e.holds {
		if h.RuleID == r.ID {
			delete(e.holds, id)
		}
	}
	e.mu.Unlock()
	e.publish("deleted", r.ID, nil)
	e.svc.Audit(ctx, "automation.deleted", r.Name, nil, "")
	return nil
}

// Duplicate copies a rule, disabled, as "<name> (copy)". Control scope.
func (e *Engine) Duplicate(ctx context.Context, ref string) (View, error) {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return View{}, err
	}
	r, err := e.lookup(ref)
	if err != nil {
		return View{}, err
	}
	now := e.now().UTC()
	r.ID, r.Name, r.Enabled, r.CreatedAt, r.UpdatedAt = newRuleID(), e.copyName(r.Name), false, now, now
	if err := e.st.CreateAutomation(ctx, r); err != nil {
		return View{}, stored(err)
	}
	return e.saved(ctx, r, "created", true), nil
}

// copyName is the first free "<name> (copy)", "<name> (copy 2)", ….
func (e *Engine) copyName(name string) string {
	for n := 1; ; n++ {
		suffix := " (copy)"
		if n > 1 {
			suffix = fmt.Sprintf(" (copy %d)", n)
		}
		base := name
		if len(base)+len(suffix) > maxName {
			// Cut whole characters, never a byte of one.
			for len(base)+len(suffix) > maxName {
				_, size := utf8.DecodeLastRuneInString(base)
				base = base[:len(base)-size]
			}
			base = strings.TrimSpace(base)
		}
		if e.nameFree(base+suffix, "") == nil {
			return base + suffix
		}
	}
}

// RunNow runs a rule's actions now, skipping trigger, conditions and
// cooldown, as the rule; it waits for the first step (the actions before
// any delay) and answers what it did. Control scope.
func (e *Engine) RunNow(ctx context.Context, ref string) (RunResult, error) {
	if err := e.begin(ctx, service.ScopeControl); err != nil {
		return RunResult{}, err
	}
	r, err := e.lookup(ref)
	if err != nil {
		return RunResult{}, err
	}
	at := e.now()
	token, ok := e.claim(r, at, false)
	if !ok {
		return RunResult{}, service.Errorf(service.ENOTFOUND, "automation %q was deleted", r.Name)
	}
	why := "it was run by hand"
	if p, _ := service.PrincipalFrom(ctx); p.Name != "" {
		why = "it was run by hand, by " + p.Name
	}
	return e.execute(context.WithoutCancel(ctx), r, Ran, why, at, token), nil
}

// Trace returns a rule's recent decisions, newest first (at most 100).
// Read scope.
func (e *Engine) Trace(ctx context.Context, ref string, limit int) ([]TraceEntry, error) {
	if err := e.begin(ctx, service.ScopeRead); err != nil {
		return nil, err
	}
	r, err := e.lookup(ref)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > TraceKeep {
		limit = TraceKeep
	}
	e.writes.wait() // the decisions made so far are in the Store
	return e.st.ListTrace(ctx, r.ID, limit)
}
