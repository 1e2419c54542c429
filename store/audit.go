package store

import (
	"context"

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

// scanAudit reads one audit_log row.
func scanAudit(s scanner) (service.AuditEntry, error) {
	var e service.AuditEntry
	err := s.Scan(&e.ID, timeCol{&e.Time}, &e.ActorKind, &e.ActorID, &e.ActorName,
		&e.Action, &e.Target, &e.Result, &e.Detail)
	return e, err
}
