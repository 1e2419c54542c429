package automation

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// errNotReady is the scaffold's answer while the engine is being built.
var errNotReady = errors.New("automation: engine not built yet")

// Config configures an Engine. Service and Store are required.
type Config struct {
	Service *service.Service
	Store   Store
	// Now is the clock (time.Now by default); tests drive a fake one and
	// call Engine.Tick.
	Now func() time.Time
	// Location is where times of day are read (time.Local by default).
	Location *time.Location
	// Latitude and Longitude place the hub for sunrise and sunset; a sun
	// trigger or condition without them is refused when saved.
	Latitude, Longitude *float64
	Logger              *slog.Logger
}

// View is a rule as surfaces show it: the rule, the sentence it reads
// as, and when it last ran.
type View struct {
	Rule
	Sentence string     `json:"sentence"`
	LastRun  *time.Time `json:"last_run,omitempty"`
	// LastOutcome is the last run's outcome: "ok", "partial", "failed".
	LastOutcome string `json:"last_outcome,omitempty"`
	// Holding lists the devices a "put things back" still holds, and
	// RestoreAt when they go back.
	Holding   []string   `json:"holding,omitempty"`
	RestoreAt *time.Time `json:"restore_at,omitempty"`
}

// Patch changes some of a rule: what is given changes.
type Patch struct {
	Name         *string      `json:"name,omitempty"`
	Enabled      *bool        `json:"enabled,omitempty"`
	Trigger      *Trigger     `json:"trigger,omitempty"`
	Conditions   *[]Condition `json:"conditions,omitempty"`
	Actions      *[]Action    `json:"actions,omitempty"`
	Cooldown     *Duration    `json:"cooldown,omitempty"`
	RestoreAfter *Duration    `json:"restore_after,omitempty"`
}

// Decision kinds of a trace entry.
const (
	Fired    = "fired"    // the trigger fired, the conditions held, the actions ran
	Skipped  = "skipped"  // the trigger fired but a condition or the cooldown stopped it
	Ran      = "ran"      // Run now
	Restored = "restored" // put things back
	Released = "released" // a held device changed by someone else: it keeps that change
)

// TraceEntry is one decision about a rule.
type TraceEntry struct {
	At     time.Time `json:"at"`
	RuleID string    `json:"rule_id"`
	Kind   string    `json:"kind"`
	// Why says what happened in words: "Hallway motion detected motion",
	// "the condition 'Living Room TV is off' did not hold: it is on", "in
	// cooldown until 21:16".
	Why string `json:"why"`
	// Actions are the actions' results, in order.
	Actions []ActionResult `json:"actions,omitempty"`
}

// ActionResult is how one action went.
type ActionResult struct {
	Action string `json:"action"` // the action in words: "turn Hallway Light on at 30 %"
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	// Failed names the devices that did not take it (a room's, a scene's).
	Failed []service.Outcome `json:"failed,omitempty"`
}

// RunResult is what a run did.
type RunResult struct {
	Rule    string         `json:"rule"`
	Outcome string         `json:"outcome"` // ok, partial, failed
	Actions []ActionResult `json:"actions"`
	Message string         `json:"message"`
}

// Engine runs the rules. Make it with New and Run it; its methods serve the
// surfaces while it runs.
type Engine struct {
	cfg Config
}

// New returns an engine.
func New(cfg Config) *Engine { return &Engine{cfg: cfg} }

// Run follows the service's events and the clock until ctx ends.
func (e *Engine) Run(ctx context.Context) error { <-ctx.Done(); return nil }

// Tick runs what is due at now: "stays … for" timers, time and sun
// triggers, delayed actions, restores. Run calls it as time passes; tests
// with a fake clock call it themselves.
func (e *Engine) Tick(now time.Time) {}

// List returns every rule. Read scope.
func (e *Engine) List(ctx context.Context) ([]View, error) { return nil, errNotReady }

// Get returns a rule by id or name. Read scope.
func (e *Engine) Get(ctx context.Context, ref string) (View, error) { return View{}, errNotReady }

// Create validates and saves a new rule (targets by id or name, stored by
// id). Control scope.
func (e *Engine) Create(ctx context.Context, r Rule) (View, error) { return View{}, errNotReady }

// Replace replaces a rule whole (PUT). Control scope.
func (e *Engine) Replace(ctx context.Context, ref string, r Rule) (View, error) {
	return View{}, errNotReady
}

// Update changes part of a rule (PATCH): enable, disable, rename, …
// Control scope.
func (e *Engine) Update(ctx context.Context, ref string, p Patch) (View, error) {
	return View{}, errNotReady
}

// Delete removes a rule, its holds and timers. Control scope.
func (e *Engine) Delete(ctx context.Context, ref string) error { return errNotReady }

// Duplicate copies a rule, disabled, as "<name> (copy)". Control scope.
func (e *Engine) Duplicate(ctx context.Context, ref string) (View, error) {
	return View{}, errNotReady
}

// RunNow runs a rule's actions now, skipping trigger and conditions.
// Control scope.
func (e *Engine) RunNow(ctx context.Context, ref string) (RunResult, error) {
	return RunResult{}, errNotReady
}

// Trace returns a rule's recent decisions, newest first. Read scope.
func (e *Engine) Trace(ctx context.Context, ref string, limit int) ([]TraceEntry, error) {
	return nil, errNotReady
}

// Explain says in words what a rule does and what it last decided, and
// why: "did not fire at 21:14 because Living Room TV was on". Read scope.
func (e *Engine) Explain(ctx context.Context, ref string) (string, error) { return "", errNotReady }

// Sentence reads a rule as one sentence, with names.
func (e *Engine) Sentence(ctx context.Context, r Rule) string { return "" }

// Store keeps rules, traces, holds and timers (package store implements
// it over SQLite).
type Store interface {
	ListAutomations(ctx context.Context) ([]Rule, error)
	GetAutomation(ctx context.Context, id string) (Rule, error) // service ENOTFOUND when missing
	CreateAutomation(ctx context.Context, r Rule) error         // ECONFLICT on a name in use (any case)
	UpdateAutomation(ctx context.Context, r Rule) error         // ENOTFOUND, ECONFLICT
	DeleteAutomation(ctx context.Context, id string) error      // and its trace, holds and timers

	// AddTrace records a decision and keeps the newest 100 per rule.
	AddTrace(ctx context.Context, t TraceEntry) error
	ListTrace(ctx context.Context, ruleID string, limit int) ([]TraceEntry, error) // newest first

	// Holds: one per (rule, device), with the state to put back and when.
	SaveHold(ctx context.Context, h Hold) error
	DeleteHold(ctx context.Context, ruleID, deviceID string) error
	ListHolds(ctx context.Context) ([]Hold, error)

	// Timers: a rule's "stays … for" countdown, due at Due.
	SaveTimer(ctx context.Context, t Timer) error
	DeleteTimer(ctx context.Context, ruleID string) error
	ListTimers(ctx context.Context) ([]Timer, error)
}

// Hold is a device a rule's "put things back" will restore.
type Hold struct {
	RuleID   string             `json:"rule_id"`
	DeviceID string             `json:"device_id"`
	Prior    service.SceneEntry `json:"prior"`   // the state to put back
	Applied  service.SceneEntry `json:"applied"` // the state the rule left; another change releases the hold
	Until    time.Time          `json:"until"`
}

// Timer is a rule's "stays … for" countdown.
type Timer struct {
	RuleID string    `json:"rule_id"`
	Since  time.Time `json:"since"` // when the state began
	Due    time.Time `json:"due"`
}
