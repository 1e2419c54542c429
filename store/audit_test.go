package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

func TestAudit_NewestFirstWithLimit(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	list, err := db.ListAudit(ctx, 10)
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("empty ListAudit = %#v, %v", list, err)
	}

	// Inserted out of time order; two share a time.
	for _, e := range []service.AuditEntry{
		{Time: t0.Add(2 * time.Second), Target: "c"},
		{Time: t0, Target: "a"},
		{Time: t0.Add(time.Second), Target: "b1"},
		{Time: t0.Add(time.Second), Target: "b2"},
	} {
		e.ActorKind, e.ActorID, e.ActorName = "key", "k1", "script"
		e.Action, e.Result, e.Detail = "light.set", "ok", `{"on":true}`
		if err := db.AddAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	list, err = db.ListAudit(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, e := range list {
		targets = append(targets, e.Target)
	}
	if fmt.Sprint(targets) != "[c b2 b1]" {
		t.Fatalf("ListAudit(3) targets = %v, want [c b2 b1]", targets)
	}
	e := list[0]
	if e.ID == 0 || e.ActorKind != "key" || e.ActorID != "k1" || e.ActorName != "script" ||
		e.Action != "light.set" || e.Result != "ok" || e.Detail != `{"on":true}` {
		t.Fatalf("entry = %+v", e)
	}
	assertTime(t, "time", e.Time, t0.Add(2*time.Second))

	if all, err := db.ListAudit(ctx, 0); err != nil || len(all) != 4 {
		t.Fatalf("ListAudit(0) = %d entries, %v; want all 4", len(all), err)
	}
	assertCode(t, db.AddAudit(ctx, service.AuditEntry{ActorKind: "system"}), service.EINVALID)
}

func TestAudit_Prune(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	for i := range 10 {
		e := service.AuditEntry{Time: t0.Add(time.Duration(i) * time.Hour), ActorKind: "system",
			Action: "light.set", Result: "ok", Target: fmt.Sprint(i)}
		if err := db.AddAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	targets := func() string {
		list, err := db.ListAudit(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range list {
			out = append(out, e.Target)
		}
		return fmt.Sprint(out)
	}
	// By age: what is older than two hours in goes.
	if n, err := db.PruneAudit(ctx, t0.Add(2*time.Hour), 0); err != nil || n != 2 {
		t.Fatalf("PruneAudit by age deleted %d, %v; want 2", n, err)
	}
	if got := targets(); got != "[9 8 7 6 5 4 3 2]" {
		t.Fatalf("after pruning by age: %s", got)
	}
	// By count: the newest five stay.
	if n, err := db.PruneAudit(ctx, t0, 5); err != nil || n != 3 {
		t.Fatalf("PruneAudit by count deleted %d, %v; want 3", n, err)
	}
	if got := targets(); got != "[9 8 7 6 5]" {
		t.Fatalf("after pruning by count: %s", got)
	}
	// Whichever is smaller.
	if n, err := db.PruneAudit(ctx, t0.Add(8*time.Hour), 4); err != nil || n != 3 {
		t.Fatalf("PruneAudit by both deleted %d, %v; want 3", n, err)
	}
	if got := targets(); got != "[9 8]" {
		t.Fatalf("after pruning by both: %s", got)
	}
}

func BenchmarkAddAudit(b *testing.B) {
	ctx := context.Background()
	db := MustOpen(b)
	e := service.AuditEntry{
		ActorKind: "key", ActorID: "k1", ActorName: "dashboard", Action: "light.set",
		Target: "sim:key-light", Result: "ok", Detail: `{"brightness":40}`,
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Time = time.Now()
		if err := db.AddAudit(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}
