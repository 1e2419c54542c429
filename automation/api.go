package automation

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

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
	// Why says what happened in words, so that "<kind>, because <why>"
	// reads: "Hallway Motion detected motion", "Living Room TV was on (the
	// condition wants it off)", "it was in cooldown until 21:16".
	Why string `json:"why"`
	// Condition is, for a skip, the condition that stopped the rule, in
	// words: "Living Room TV is off".
	Condition string `json:"condition,omitempty"`
	// Actions are the actions' results, in order.
	Actions []ActionResult `json:"actions,omitempty"`
	// Outcome is a run's or a restore's outcome: "ok", "partial",
	// "failed".
	Outcome string `json:"outcome,omitempty"`
	// RunStarted is, for a run's later step (after a delay), when the run
	// began: its last run and cooldown count from then.
	RunStarted *time.Time `json:"run_started,omitempty"`
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
// surfaces while it runs. Its methods are in engine.go (running), rules.go
// (the surfaces' reads and writes) and the files named for each part.
type Engine struct {
	cfg Config
	svc *service.Service
	st  Store
	log *slog.Logger

	loadMu sync.Mutex  // one load of the rules at a time
	loaded atomic.Bool // the rules, timers and holds are in memory

	mu     sync.Mutex // guards the fields below
	rules  map[string]*ruleState
	watch  watchIndex
	holds  map[devices.ID]*heldDevice
	base   context.Context // what runs started by events and the clock live in
	closed bool            // Run has ended: nothing more is started in the background
	runs   sync.WaitGroup  // runs and restores started in the background
	active int             // how many of them are running now
	idle   *sync.Cond      // on e.mu: signalled as one ends

	writes writer // the Store writes decisions make, in order
	place  place  // where the hub is, for the sun

	// handled, when set (by tests, before Run), hears each event once Run
	// has handled it.
	handled func(service.Event)
}

// New returns an engine.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		cfg: cfg, svc: cfg.Service, st: cfg.Store, log: cfg.Logger,
		rules: map[string]*ruleState{}, watch: newWatchIndex(), holds: map[devices.ID]*heldDevice{},
		base: context.Background(),
	}
	e.idle = sync.NewCond(&e.mu)
	e.writes.init(cfg.Store, cfg.Logger)
	e.place.set(cfg.Latitude, cfg.Longitude)
	return e
}

// TraceKeep is how many decisions a rule's trace keeps.
const TraceKeep = 100

// Store keeps rules, traces, holds and timers (package store implements
// it over SQLite).
type Store interface {
	ListAutomations(ctx context.Context) ([]Rule, error)
	GetAutomation(ctx context.Context, id string) (Rule, error) // service ENOTFOUND when missing
	CreateAutomation(ctx context.Context, r Rule) error         // ECONFLICT on a name in use (any case)
	UpdateAutomation(ctx context.Context, r Rule) error         // ENOTFOUND, ECONFLICT
	DeleteAutomation(ctx context.Context, id string) error      // and its trace, holds, timers and pending runs

	// AddTrace records a decision and keeps the newest TraceKeep per rule.
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

	// Runs: a rule's run waiting out a delay, its later steps to come.
	SaveRun(ctx context.Context, p PendingRun) error
	DeleteRun(ctx context.Context, ruleID string) error
	ListRuns(ctx context.Context) ([]PendingRun, error)
}

// PendingRun is a run of a rule waiting out a delay: the step that comes
// next (an index into the rule's actions cut at its delays; 1 is the one
// after the first delay), when it is due, and when the run began.
type PendingRun struct {
	RuleID  string    `json:"rule_id"`
	Kind    string    `json:"kind"` // Fired or Ran
	Step    int       `json:"step"`
	Due     time.Time `json:"due"`
	Started time.Time `json:"started"`
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
