package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

func mustDataVersion(tb testing.TB, db interface {
	DataVersion(context.Context) (int64, error)
}) int64 {
	tb.Helper()
	v, err := db.DataVersion(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func TestDataVersion_ChangesOnlyOnOtherConnectionsCommits(t *testing.T) {
	ctx := context.Background()
	db, path := MustOpenWithPath(t)
	v0 := mustDataVersion(t, db)
	if v := mustDataVersion(t, db); v != v0 {
		t.Fatalf("data version %d then %d with nothing written", v0, v)
	}

	MustCreateAPIKey(t, db, "k1", service.ScopeControl)
	if err := db.TouchAPIKey(ctx, "k1", t0); err != nil {
		t.Fatal(err)
	}
	if v := mustDataVersion(t, db); v != v0 {
		t.Fatalf("data version %d → %d after the store's own writes; want unchanged", v0, v)
	}

	other := MustOpenPath(t, path) // another connection, as `bifrost keys` is
	if err := other.RevokeAPIKey(ctx, "k1", t0); err != nil {
		t.Fatal(err)
	}
	v1 := mustDataVersion(t, db)
	if v1 == v0 {
		t.Fatal("data version unchanged after another connection's commit")
	}
	if _, err := other.ListAPIKeys(ctx); err != nil { // a read commits nothing
		t.Fatal(err)
	}
	if v := mustDataVersion(t, db); v != v1 {
		t.Fatalf("data version %d → %d after another connection only read", v1, v)
	}

	MustExecRaw(t, path, `UPDATE api_keys SET name = 'renamed' WHERE id = 'k1'`)
	if v := mustDataVersion(t, db); v == v1 {
		t.Fatal("data version unchanged after a raw connection's commit")
	}
}

func TestDataVersion_ClosedStore(t *testing.T) {
	db := MustOpen(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DataVersion(context.Background()); err == nil {
		t.Fatal("DataVersion on a closed store: no error")
	}
}

// BenchmarkDataVersion is the cost the keyring pays on every
// authentication.
func BenchmarkDataVersion(b *testing.B) {
	db := MustOpen(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.DataVersion(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDataVersion_SeesEveryCommitAtOnce checks the wal-index shortcut:
// each commit of another connection, however soon after the last, changes
// the number on the very next call, and the store's own writes in between
// do not.
func TestDataVersion_SeesEveryCommitAtOnce(t *testing.T) {
	ctx := context.Background()
	db, path := MustOpenWithPath(t)
	other := MustOpenPath(t, path)
	last := mustDataVersion(t, db)
	for i := range 200 {
		if err := db.AddAudit(ctx, service.AuditEntry{Time: t0.Add(time.Duration(i) * time.Second), ActorKind: "system", Action: "own", Target: "t", Result: "ok"}); err != nil {
			t.Fatal(err)
		}
		if v := mustDataVersion(t, db); v != last {
			t.Fatalf("round %d: the store's own write changed the number", i)
		}
		if err := other.AddAudit(ctx, service.AuditEntry{Time: t0.Add(time.Duration(i) * time.Second), ActorKind: "system", Action: "other", Target: "t", Result: "ok"}); err != nil {
			t.Fatal(err)
		}
		v := mustDataVersion(t, db)
		if v == last {
			t.Fatalf("round %d: another connection's commit went unseen", i)
		}
		last = v
	}
}
