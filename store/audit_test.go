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
