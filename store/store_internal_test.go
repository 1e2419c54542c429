package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDSN_ConfiguresConnection checks that the DSN settings reach SQLite.
func TestDSN_ConfiguresConnection(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"synchronous":  "1",     // NORMAL
		"cache_size":   "-2000", // KiB: the bound of SQLite's memory
	} {
		var got string
		if err := db.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %q, want %q", pragma, got, want)
		}
	}
	if n := db.db.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("max open connections = %d, want 1 (one writer)", n)
	}
}

func TestDSN_EscapesPath(t *testing.T) {
	got := dsn("/data/a?b#c%d.db")
	want := "file:/data/a%3fb%23c%25d.db?" + dsnParams
	if got != want {
		t.Fatalf("dsn = %q, want %q", got, want)
	}
}

func TestTime_RoundTripAndOrder(t *testing.T) {
	zone := time.FixedZone("X", -7*3600)
	times := []time.Time{
		{},
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999999999, zone),
		time.Date(2026, 1, 2, 3, 4, 6, 0, zone),
	}
	for i, tm := range times {
		s := formatTime(tm)
		back, err := parseTime(s)
		if err != nil {
			t.Fatal(err)
		}
		if !back.Equal(tm) {
			t.Errorf("%v → %q → %v", tm, s, back)
		}
		if i > 0 && formatTime(times[i-1]) >= s {
			t.Errorf("%q does not sort before %q", formatTime(times[i-1]), s)
		}
	}
}

// TestQueryPlans checks that the hot queries use their indexes.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		query, arg string
		want       string // in the plan
	}{
		{apiKeyByHash, "h", "SEARCH api_keys USING INDEX"},
		{listAudit, "10", "SCAN audit_log USING INDEX audit_log_time"},
		{selectDevices + ` WHERE d.id = ?`, "sim:x", "SEARCH d USING INDEX"},
	} {
		plan := queryPlan(t, db, tc.query, tc.arg)
		t.Logf("%s", plan)
		if !strings.Contains(plan, tc.want) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("plan of %s\n= %s\nwant %q and no temporary sort", tc.query, plan, tc.want)
		}
	}
}

func queryPlan(tb testing.TB, db *DB, query string, args ...any) string {
	tb.Helper()
	rows, err := db.db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			tb.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
