package store

import (
	"context"
	"math"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// listAudit reads the time index backwards (see TestQueryPlans).
const listAudit = `
SELECT id, time, actor_kind, actor_id, actor_name, action, target, result, detail
FROM audit_log ORDER BY time DESC, id DESC LIMIT ?`

// AddAudit appends an entry to the audit log (its ID is assigned by the
// database and ignored here). A zero Time is stamped with db.Now.
func (db *DB) AddAudit(ctx context.Context, e service.AuditEntry) error {
	if e.Action == "" {
		return errEmpty("audit action")
	}
	if e.Time.IsZero() {
		e.Time = db.Now()
	}
	_, err := db.db.ExecContext(ctx, `
		INSERT INTO audit_log (time, actor_kind, actor_id, actor_name, action, target, result, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		formatTime(e.Time), e.ActorKind, e.ActorID, e.ActorName, e.Action, e.Target, e.Result, e.Detail)
	return err
}

// ListAudit returns the newest limit entries, newest first (entries with
// the same time in reverse order of insertion). A limit of 0 or less means
// no limit.
func (db *DB) ListAudit(ctx context.Context, limit int) ([]service.AuditEntry, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.db.QueryContext(ctx, listAudit, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []service.AuditEntry{}
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, e)
	}
	return list, rows.Err()
}

// PruneAudit deletes the entries older than before, and all but the
// newest keep (in the order ListAudit reads them); it returns how many
// it deleted. A keep of 0 or less keeps any number.
func (db *DB) PruneAudit(ctx context.Context, before time.Time, keep int) (int64, error) {
	if keep <= 0 {
		keep = math.MaxInt64 // an OFFSET past every row
	}
	res, err := db.db.ExecContext(ctx, `
		DELETE FROM audit_log WHERE time < ? OR id IN (
			SELECT id FROM audit_log ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?)`,
		formatTime(before), keep)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// scanAudit reads one audit_log row.
func scanAudit(s scanner) (service.AuditEntry, error) {
	var e service.AuditEntry
	err := s.Scan(&e.ID, timeCol{&e.Time}, &e.ActorKind, &e.ActorID, &e.ActorName,
		&e.Action, &e.Target, &e.Result, &e.Detail)
	return e, err
}
