package automation

import (
	"context"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// explainDecisions is how many recent decisions Explain tells.
const explainDecisions = 3

// Explain says in words what a rule does and what it last decided, and
// why: "… Last trigger at 21:14: skipped, because Living Room TV was on
// (the condition wants it off)." Read scope.
func (e *Engine) Explain(ctx context.Context, ref string) (string, error) {
	if err := e.begin(ctx, service.ScopeRead); err != nil {
		return "", err
	}
	r, err := e.lookup(ref)
	if err != nil {
		return "", err
	}
	e.writes.wait()
	trace, err := e.st.ListTrace(ctx, r.ID, explainDecisions)
	if err != nil {
		return "", err
	}
	nm := e.names(ctx)
	parts := []string{nm.sentence(r)}
	if !r.Enabled {
		parts = append(parts, "It is disabled.")
	}
	if len(trace) == 0 {
		parts = append(parts, "It has not been triggered yet.")
	}
	lastTrigger := true
	for _, t := range trace {
		parts = append(parts, e.decision(t, lastTrigger && (t.Kind == Fired || t.Kind == Skipped)))
		if t.Kind == Fired || t.Kind == Skipped {
			lastTrigger = false
		}
	}
	e.mu.Lock()
	held, until := e.holding(r.ID)
	e.mu.Unlock()
	if len(held) > 0 {
		ns := make([]string, len(held))
		for i, id := range held {
			ns[i] = nm.device(id)
		}
		parts = append(parts, "It holds "+joinAnd(ns)+", to put back at "+e.clock(*until)+".")
	}
	return strings.Join(parts, " "), nil
}

// decision is one trace entry in words: "Last trigger at 21:14: skipped,
// because …".
func (e *Engine) decision(t TraceEntry, last bool) string {
	head := "At " + e.clock(t.At) + ": "
	if last {
		head = "Last trigger at " + e.clock(t.At) + ": "
	}
	var s string
	switch t.Kind {
	case Fired:
		s = "fired, because " + t.Why
	case Skipped:
		s = "skipped, because " + t.Why
	case Ran:
		s = "ran, because " + t.Why
	case Restored:
		s = t.Why
	case Released:
		s = "let go, because " + t.Why
	default:
		s = t.Kind + ": " + t.Why
	}
	if len(t.Actions) > 0 && t.Kind != Restored {
		s += "; " + actionsText(t.Actions)
	} else if t.Kind == Restored && t.Outcome != "ok" && len(t.Actions) > 0 {
		s += " (" + t.Actions[0].Error + ")"
	}
	return head + s + "."
}

// actionsText is a run's results in words: "turn Hallway Light on at 30 %:
// ok; turn Desk Fan on: failed (Desk Fan is offline)".
func actionsText(results []ActionResult) string {
	parts := make([]string, len(results))
	for i, a := range results {
		if a.OK {
			parts[i] = a.Action + ": ok"
		} else {
			parts[i] = a.Action + ": failed (" + a.Error + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// clock writes a time as the hub's clock shows it: "21:14" today,
// "Mon 2 Jan 21:14" another day.
func (e *Engine) clock(t time.Time) string {
	t = t.In(e.cfg.Location)
	now := e.now().In(e.cfg.Location)
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("Mon 2 Jan 15:04")
}
