package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

var _ automation.Store = (*DB)(nil)

// ruleBody is the stored form (the body column) of a rule: all of it but
// its id, name, enabled flag and times, which have columns of their own.
type ruleBody struct {
	Trigger      automation.Trigger     `json:"trigger"`
	Conditions   []automation.Condition `json:"conditions"`
	Actions      []automation.Action    `json:"actions"`
	Cooldown     automation.Duration    `json:"cooldown,omitempty"`
	RestoreAfter *automation.Duration   `json:"restore_after,omitempty"`
}

const selectAutomations = `SELECT id, name, enabled, body, created_at, updated_at FROM automations`

// ListAutomations returns every rule, by name.
func (db *DB) ListAutomations(ctx context.Context) ([]automation.Rule, error) {
	rows, err := db.db.QueryContext(ctx, selectAutomations+` ORDER BY name, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []automation.Rule{}
	for rows.Next() {
		r, err := scanAutomation(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, r)
	}
	return list, rows.Err()
}

// GetAutomation returns a rule by id; ENOTFOUND when there is none.
func (db *DB) GetAutomation(ctx context.Context, id string) (automation.Rule, error) {
	r, err := scanAutomation(db.db.QueryRowContext(ctx, selectAutomations+` WHERE id = ?`, id))
	if err != nil {
		return automation.Rule{}, notFound(err, "automation %q not found", id)
	}
	return r, nil
}

// CreateAutomation stores a new rule. A taken id, or a name another rule
// has (case-insensitively), is ECONFLICT. A zero CreatedAt is stamped with
// db.Now, a zero UpdatedAt with CreatedAt.
func (db *DB) CreateAutomation(ctx context.Context, r automation.Rule) error {
	body, err := automationRow(r)
	if err != nil {
		return err
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = db.Now()
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		err := ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "an automation with id %q already exists", r.ID),
			`SELECT 1 FROM automations WHERE id = ?`, r.ID)
		if err != nil {
			return err
		}
		if err := checkAutomationName(ctx, tx, r.ID, r.Name); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO automations (id, name, enabled, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			r.ID, r.Name, r.Enabled, body, formatTime(r.CreatedAt), formatTime(r.UpdatedAt))
		return err
	})
}

// UpdateAutomation replaces a stored rule (its created_at stays). A
// missing rule is ENOTFOUND; a name another rule has is ECONFLICT. A zero
// UpdatedAt is stamped with db.Now.
func (db *DB) UpdateAutomation(ctx context.Context, r automation.Rule) error {
	body, err := automationRow(r)
	if err != nil {
		return err
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = db.Now()
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := ensureAutomation(ctx, tx, r.ID); err != nil {
			return err
		}
		if err := checkAutomationName(ctx, tx, r.ID, r.Name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE automations SET name = ?, enabled = ?, body = ?, updated_at = ? WHERE id = ?`,
			r.Name, r.Enabled, body, formatTime(r.UpdatedAt), r.ID)
		return err
	})
}

// automationRow checks a rule's columns and returns its body.
func automationRow(r automation.Rule) (string, error) {
	if r.ID == "" {
		return "", errEmpty("automation id")
	}
	if strings.TrimSpace(r.Name) == "" {
		return "", errEmpty("automation name")
	}
	b, err := json.Marshal(ruleBody{
		Trigger: r.Trigger, Conditions: r.Conditions, Actions: r.Actions,
		Cooldown: r.Cooldown, RestoreAfter: r.RestoreAfter,
	})
	return string(b), err
}

// checkAutomationName returns ECONFLICT when a rule other than id has the
// name (names compare case-insensitively).
func checkAutomationName(ctx context.Context, tx *sql.Tx, id, name string) error {
	return ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "an automation named %q already exists", name),
		`SELECT 1 FROM automations WHERE name = ? AND id <> ?`, name, id)
}

// ensureAutomation returns ENOTFOUND unless the rule exists.
func ensureAutomation(ctx context.Context, q queryer, id string) error {
	return ensureRow(ctx, q, service.Errorf(service.ENOTFOUND, "automation %q not found", id),
		`SELECT 1 FROM automations WHERE id = ?`, id)
}

// DeleteAutomation deletes a rule, with its trace, holds and timers. A
// missing rule is ENOTFOUND.
func (db *DB) DeleteAutomation(ctx context.Context, id string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM automations WHERE id = ?`, id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "automation %q not found", id))
}

// scanAutomation reads id, name, enabled, body, created_at, updated_at.
func scanAutomation(s scanner) (automation.Rule, error) {
	var r automation.Rule
	var body string
	if err := s.Scan(&r.ID, &r.Name, &r.Enabled, &body, timeCol{&r.CreatedAt}, timeCol{&r.UpdatedAt}); err != nil {
		return r, err
	}
	var b ruleBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return r, fmt.Errorf("stored body of automation %q: %w", r.ID, err)
	}
	r.Trigger, r.Conditions, r.Actions, r.Cooldown, r.RestoreAfter = b.Trigger, b.Conditions, b.Actions, b.Cooldown, b.RestoreAfter
	if r.Conditions == nil {
		r.Conditions = []automation.Condition{}
	}
	if r.Actions == nil {
		r.Actions = []automation.Action{}
	}
	return r, nil
}

// pruneTrace keeps a rule's newest automation.TraceKeep entries.
const pruneTrace = `
DELETE FROM automation_trace WHERE rule_id = ? AND id NOT IN (
	SELECT id FROM automation_trace WHERE rule_id = ? ORDER BY at DESC, id DESC LIMIT ?)`

// AddTrace records a decision about a rule and keeps the rule's newest
// automation.TraceKeep. A missing rule is ENOTFOUND; a zero At is stamped
// with db.Now.
func (db *DB) AddTrace(ctx context.Context, t automation.TraceEntry) error {
	if t.Kind == "" {
		return errEmpty("trace kind")
	}
	if t.At.IsZero() {
		t.At = db.Now()
	}
	entry, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := ensureAutomation(ctx, tx, t.RuleID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO automation_trace (rule_id, at, kind, why, entry) VALUES (?, ?, ?, ?, ?)`,
			t.RuleID, formatTime(t.At), t.Kind, t.Why, string(entry))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, pruneTrace, t.RuleID, t.RuleID, automation.TraceKeep)
		return err
	})
}

// listTrace reads the rule's part of the trace index backwards.
const listTrace = `
SELECT rule_id, at, kind, entry FROM automation_trace WHERE rule_id = ? ORDER BY at DESC, id DESC LIMIT ?`

// ListTrace returns a rule's newest limit decisions, newest first (a limit
// of 0 or less: all it keeps). A rule without any, or without a row, has
// an empty trace.
func (db *DB) ListTrace(ctx context.Context, ruleID string, limit int) ([]automation.TraceEntry, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.db.QueryContext(ctx, listTrace, ruleID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []automation.TraceEntry{}
	for rows.Next() {
		var t automation.TraceEntry
		var rule, kind, entry string
		var at time.Time
		if err := rows.Scan(&rule, timeCol{&at}, &kind, &entry); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(entry), &t); err != nil {
			return nil, fmt.Errorf("stored trace entry of automation %q: %w", rule, err)
		}
		t.At, t.RuleID, t.Kind = at, rule, kind
		list = append(list, t)
	}
	return list, rows.Err()
}

// SaveHold stores a hold, replacing the rule's hold of the same device. A
// missing rule is ENOTFOUND.
func (db *DB) SaveHold(ctx context.Context, h automation.Hold) error {
	if h.DeviceID == "" {
		return errEmpty("hold device id")
	}
	prior, err := json.Marshal(h.Prior)
	if err != nil {
		return err
	}
	applied, err := json.Marshal(h.Applied)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := ensureAutomation(ctx, tx, h.RuleID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO automation_holds (rule_id, device_id, prior, applied, until) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (rule_id, device_id) DO UPDATE SET prior = excluded.prior, applied = excluded.applied, until = excluded.until`,
			h.RuleID, h.DeviceID, string(prior), string(applied), formatTime(h.Until))
		return err
	})
}

// DeleteHold deletes a rule's hold of a device; one already gone is no
// error.
func (db *DB) DeleteHold(ctx context.Context, ruleID, deviceID string) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM automation_holds WHERE rule_id = ? AND device_id = ?`, ruleID, deviceID)
	return err
}

// ListHolds returns every hold, soonest restore first.
func (db *DB) ListHolds(ctx context.Context) ([]automation.Hold, error) {
	rows, err := db.db.QueryContext(ctx, `
		SELECT rule_id, device_id, prior, applied, until FROM automation_holds ORDER BY until, rule_id, device_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []automation.Hold{}
	for rows.Next() {
		var h automation.Hold
		var prior, applied string
		if err := rows.Scan(&h.RuleID, &h.DeviceID, &prior, &applied, timeCol{&h.Until}); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(prior), &h.Prior); err != nil {
			return nil, fmt.Errorf("stored hold of %q by automation %q: %w", h.DeviceID, h.RuleID, err)
		}
		if err := json.Unmarshal([]byte(applied), &h.Applied); err != nil {
			return nil, fmt.Errorf("stored hold of %q by automation %q: %w", h.DeviceID, h.RuleID, err)
		}
		list = append(list, h)
	}
	return list, rows.Err()
}

// SaveTimer stores a rule's countdown, replacing the one it had. A missing
// rule is ENOTFOUND.
func (db *DB) SaveTimer(ctx context.Context, t automation.Timer) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := ensureAutomation(ctx, tx, t.RuleID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO automation_timers (rule_id, since, due) VALUES (?, ?, ?)
			ON CONFLICT (rule_id) DO UPDATE SET since = excluded.since, due = excluded.due`,
			t.RuleID, formatTime(t.Since), formatTime(t.Due))
		return err
	})
}

// DeleteTimer deletes a rule's countdown; none is no error.
func (db *DB) DeleteTimer(ctx context.Context, ruleID string) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM automation_timers WHERE rule_id = ?`, ruleID)
	return err
}

// ListTimers returns every countdown, soonest due first.
func (db *DB) ListTimers(ctx context.Context) ([]automation.Timer, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT rule_id, since, due FROM automation_timers ORDER BY due, rule_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []automation.Timer{}
	for rows.Next() {
		var t automation.Timer
		if err := rows.Scan(&t.RuleID, timeCol{&t.Since}, timeCol{&t.Due}); err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	return list, rows.Err()
}

// SaveRun stores a rule's run waiting out a delay, replacing the one it
// had. A missing rule is ENOTFOUND.
func (db *DB) SaveRun(ctx context.Context, p automation.PendingRun) error {
	if p.Step <= 0 {
		return fmt.Errorf("store: a pending run of automation %q needs a step after the first, not %d", p.RuleID, p.Step)
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := ensureAutomation(ctx, tx, p.RuleID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO automation_runs (rule_id, kind, step, due, started) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (rule_id) DO UPDATE SET kind = excluded.kind, step = excluded.step, due = excluded.due, started = excluded.started`,
			p.RuleID, p.Kind, p.Step, formatTime(p.Due), formatTime(p.Started))
		return err
	})
}

// DeleteRun deletes a rule's pending run; none is no error.
func (db *DB) DeleteRun(ctx context.Context, ruleID string) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM automation_runs WHERE rule_id = ?`, ruleID)
	return err
}

// ListRuns returns every pending run, soonest due first.
func (db *DB) ListRuns(ctx context.Context) ([]automation.PendingRun, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT rule_id, kind, step, due, started FROM automation_runs ORDER BY due, rule_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []automation.PendingRun{}
	for rows.Next() {
		var p automation.PendingRun
		if err := rows.Scan(&p.RuleID, &p.Kind, &p.Step, timeCol{&p.Due}, timeCol{&p.Started}); err != nil {
			return nil, err
		}
		list = append(list, p)
	}
	return list, rows.Err()
}
