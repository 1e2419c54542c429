package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

func ptr[T any](v T) *T { return &v }

// testRule is a rule with a bit of everything in its body.
func testRule(id, name string) automation.Rule {
	restore := automation.Duration(5 * time.Minute)
	return automation.Rule{
		ID: id, Name: name, Enabled: true,
		Trigger: automation.Trigger{
			Type: automation.TriggerSensor, Device: "sim:office-motion", Reading: devices.ReadingIlluminance,
			Below: ptr(15.0), Hysteresis: ptr(1.5), For: automation.Duration(90 * time.Second),
		},
		Conditions: []automation.Condition{
			{Type: automation.CondTime, After: "21:00", Before: "06:00", Days: []string{"fri", "sat"}},
			{Type: automation.CondPower, Device: "sim:living-room-tv", Is: automation.Off},
		},
		Actions: []automation.Action{
			{Type: automation.ActLight, Lights: []string{"sim:desk-lamp"}, State: json.RawMessage(`{"on":true,"brightness":30}`)},
			{Type: automation.ActDelay, Wait: automation.Duration(time.Minute)},
			{Type: automation.ActScene, Scene: "sc_1"},
		},
		Cooldown:     automation.Duration(10 * time.Minute),
		RestoreAfter: &restore,
		CreatedAt:    t0,
		UpdatedAt:    t0.Add(time.Second),
	}
}

// MustCreateAutomation stores a rule.
func MustCreateAutomation(tb testing.TB, db *store.DB, r automation.Rule) {
	tb.Helper()
	if err := db.CreateAutomation(context.Background(), r); err != nil {
		tb.Fatal(err)
	}
}

// sameJSON fails unless got and want encode alike.
func sameJSON(tb testing.TB, what string, got, want any) {
	tb.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		tb.Fatal(err)
	}
	if string(g) != string(w) {
		tb.Fatalf("%s =\n%s\nwant\n%s", what, g, w)
	}
}

func TestAutomation_RoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	r := testRule("au_1", "Dark desk")
	MustCreateAutomation(t, db, r)

	got, err := db.GetAutomation(ctx, "au_1")
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "created_at", got.CreatedAt, t0)
	assertTime(t, "updated_at", got.UpdatedAt, t0.Add(time.Second))
	got.CreatedAt, got.UpdatedAt = r.CreatedAt, r.UpdatedAt
	sameJSON(t, "stored rule", got, r)

	_, err = db.GetAutomation(ctx, "au_missing")
	assertCode(t, err, service.ENOTFOUND)
}

func TestAutomation_ListByName(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if list, err := db.ListAutomations(ctx); err != nil || list == nil || len(list) != 0 {
		t.Fatalf("empty list = %#v, %v", list, err)
	}
	for i, name := range []string{"porch", "Attic", "kitchen"} {
		MustCreateAutomation(t, db, testRule(fmt.Sprintf("au_%d", i), name))
	}
	list, err := db.ListAutomations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list {
		names = append(names, r.Name)
	}
	if fmt.Sprint(names) != "[Attic kitchen porch]" {
		t.Fatalf("names = %v, want them by name, any case", names)
	}
}

func TestAutomation_NamesAreUniqueInAnyCase(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch light"))
	assertCode(t, db.CreateAutomation(ctx, testRule("au_2", "PORCH LIGHT")), service.ECONFLICT)
	assertCode(t, db.CreateAutomation(ctx, testRule("au_1", "Other")), service.ECONFLICT)
	MustCreateAutomation(t, db, testRule("au_2", "Hall"))
	r := testRule("au_2", "porch light")
	assertCode(t, db.UpdateAutomation(ctx, r), service.ECONFLICT)
	assertCode(t, db.CreateAutomation(ctx, testRule("au_3", " ")), service.EINVALID)
	assertCode(t, db.CreateAutomation(ctx, testRule("", "Nameless id")), service.EINVALID)
}

func TestAutomation_UpdateAndDelete(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	db.Now = func() time.Time { return t0.Add(time.Hour) }
	MustCreateAutomation(t, db, testRule("au_1", "Porch light"))

	r := testRule("au_1", "Porch lamp")
	r.Enabled, r.RestoreAfter, r.Conditions, r.UpdatedAt = false, nil, nil, time.Time{}
	r.CreatedAt = t0.Add(24 * time.Hour) // ignored: created_at stays
	if err := db.UpdateAutomation(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetAutomation(ctx, "au_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Porch lamp" || got.Enabled || got.RestoreAfter != nil || len(got.Conditions) != 0 || got.Conditions == nil {
		t.Fatalf("updated rule = %+v", got)
	}
	assertTime(t, "created_at", got.CreatedAt, t0)
	assertTime(t, "updated_at stamped", got.UpdatedAt, t0.Add(time.Hour))

	assertCode(t, db.UpdateAutomation(ctx, testRule("au_missing", "Ghost")), service.ENOTFOUND)
	if err := db.DeleteAutomation(ctx, "au_1"); err != nil {
		t.Fatal(err)
	}
	assertCode(t, db.DeleteAutomation(ctx, "au_1"), service.ENOTFOUND)
	_, err = db.GetAutomation(ctx, "au_1")
	assertCode(t, err, service.ENOTFOUND)
}

func TestAutomationTrace_KeepsTheNewestHundred(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	MustCreateAutomation(t, db, testRule("au_2", "Hall"))
	const n = automation.TraceKeep + 5
	for i := range n {
		e := automation.TraceEntry{At: t0.Add(time.Duration(i) * time.Minute), RuleID: "au_1", Kind: automation.Skipped, Why: fmt.Sprint(i)}
		if err := db.AddTrace(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddTrace(ctx, automation.TraceEntry{At: t0, RuleID: "au_2", Kind: automation.Fired, Why: "other"}); err != nil {
		t.Fatal(err)
	}
	all, err := db.ListTrace(ctx, "au_1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != automation.TraceKeep || all[0].Why != fmt.Sprint(n-1) || all[len(all)-1].Why != "5" {
		t.Fatalf("trace holds %d entries, %q … %q; want the newest %d, newest first", len(all), all[0].Why, all[len(all)-1].Why, automation.TraceKeep)
	}
	assertTime(t, "newest at", all[0].At, t0.Add((n-1)*time.Minute))
	three, err := db.ListTrace(ctx, "au_1", 3)
	if err != nil || len(three) != 3 || three[2].Why != fmt.Sprint(n-3) {
		t.Fatalf("ListTrace(3) = %+v, %v", three, err)
	}
	if other, err := db.ListTrace(ctx, "au_2", 0); err != nil || len(other) != 1 {
		t.Fatalf("the other rule's trace = %+v, %v; want its own entry, untouched", other, err)
	}
	if none, err := db.ListTrace(ctx, "au_missing", 10); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("trace of a missing rule = %#v, %v; want an empty list", none, err)
	}
	assertCode(t, db.AddTrace(ctx, automation.TraceEntry{RuleID: "au_missing", Kind: automation.Fired}), service.ENOTFOUND)
	assertCode(t, db.AddTrace(ctx, automation.TraceEntry{RuleID: "au_1"}), service.EINVALID)
}

func TestAutomationTrace_EntryRoundTrips(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	db.Now = func() time.Time { return t0 }
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	e := automation.TraceEntry{
		RuleID: "au_1", Kind: automation.Fired, Why: "Porch Motion detected motion", Outcome: "partial",
		Actions: []automation.ActionResult{
			{Action: "turn Porch on", OK: true},
			{Action: "turn Hall on", Error: "1 of 2 devices failed", Failed: []service.Outcome{{ID: "sim:x", Name: "X", Error: "X is offline", Code: service.EUNREACHABLE}}},
		},
	}
	if err := db.AddTrace(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := db.ListTrace(ctx, "au_1", 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("ListTrace = %+v, %v", got, err)
	}
	assertTime(t, "at (stamped)", got[0].At, t0)
	e.At = got[0].At
	sameJSON(t, "trace entry", got[0], e)
}

func TestAutomationHolds(t *testing.T) {
	ctx := context.Background()
	db, path := MustOpenWithPath(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	on, off := true, false
	h := automation.Hold{
		RuleID: "au_1", DeviceID: "sim:porch-switch",
		Prior:   service.SceneEntry{DeviceID: "sim:porch-switch", Power: &off},
		Applied: service.SceneEntry{DeviceID: "sim:porch-switch", Power: &on},
		Until:   t0.Add(5 * time.Minute),
	}
	lamp := automation.Hold{
		RuleID: "au_1", DeviceID: "sim:desk-lamp",
		Prior: service.SceneEntry{DeviceID: "sim:desk-lamp", Light: &devices.LightState{On: true, Brightness: 40, Mode: devices.ModeTemperature, Kelvin: 2700}},
		Until: t0.Add(time.Minute),
	}
	for _, x := range []automation.Hold{h, lamp} {
		if err := db.SaveHold(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	h.Until = t0.Add(10 * time.Minute) // a re-fire extends it
	if err := db.SaveHold(ctx, h); err != nil {
		t.Fatal(err)
	}
	db = MustOpenPath(t, path) // holds outlive a restart
	list, err := db.ListHolds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d holds, want 2 (one per rule and device)", len(list))
	}
	assertTime(t, "until", list[1].Until, t0.Add(10*time.Minute))
	list[0].Until, list[1].Until = lamp.Until, h.Until
	sameJSON(t, "holds, soonest first", list, []automation.Hold{lamp, h})

	if err := db.DeleteHold(ctx, "au_1", "sim:desk-lamp"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteHold(ctx, "au_1", "sim:desk-lamp"); err != nil {
		t.Fatalf("deleting a hold already gone = %v, want nil", err)
	}
	if list, _ := db.ListHolds(ctx); len(list) != 1 || list[0].DeviceID != "sim:porch-switch" {
		t.Fatalf("holds after delete = %+v", list)
	}
	h.RuleID = "au_missing"
	assertCode(t, db.SaveHold(ctx, h), service.ENOTFOUND)
}

func TestAutomationTimers(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	MustCreateAutomation(t, db, testRule("au_2", "Hall"))
	for _, tm := range []automation.Timer{
		{RuleID: "au_1", Since: t0, Due: t0.Add(15 * time.Minute)},
		{RuleID: "au_2", Since: t0, Due: t0.Add(5 * time.Minute)},
		{RuleID: "au_1", Since: t0.Add(time.Minute), Due: t0.Add(16 * time.Minute)}, // the state began again
	} {
		if err := db.SaveTimer(ctx, tm); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListTimers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].RuleID != "au_2" || list[1].RuleID != "au_1" {
		t.Fatalf("timers = %+v, want one per rule, soonest first", list)
	}
	assertTime(t, "since", list[1].Since, t0.Add(time.Minute))
	assertTime(t, "due", list[1].Due, t0.Add(16*time.Minute))
	if err := db.DeleteTimer(ctx, "au_2"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteTimer(ctx, "au_2"); err != nil {
		t.Fatalf("deleting a timer already gone = %v, want nil", err)
	}
	if list, _ := db.ListTimers(ctx); len(list) != 1 {
		t.Fatalf("timers after delete = %+v", list)
	}
	assertCode(t, db.SaveTimer(ctx, automation.Timer{RuleID: "au_missing", Due: t0}), service.ENOTFOUND)
}

func TestAutomationRuns(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	MustCreateAutomation(t, db, testRule("au_2", "Hall"))
	for _, p := range []automation.PendingRun{
		{RuleID: "au_1", Kind: automation.Fired, Step: 1, Started: t0, Due: t0.Add(15 * time.Minute)},
		{RuleID: "au_2", Kind: automation.Ran, Step: 1, Started: t0, Due: t0.Add(5 * time.Minute)},
		{RuleID: "au_1", Kind: automation.Fired, Step: 2, Started: t0, Due: t0.Add(20 * time.Minute)}, // its next step
	} {
		if err := db.SaveRun(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].RuleID != "au_2" || list[1].RuleID != "au_1" || list[1].Step != 2 || list[1].Kind != automation.Fired || list[0].Kind != automation.Ran {
		t.Fatalf("runs = %+v, want one per rule, soonest first", list)
	}
	assertTime(t, "started", list[1].Started, t0)
	assertTime(t, "due", list[1].Due, t0.Add(20*time.Minute))
	if err := db.DeleteRun(ctx, "au_2"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteRun(ctx, "au_2"); err != nil {
		t.Fatalf("deleting a run already gone = %v, want nil", err)
	}
	if err := db.DeleteAutomation(ctx, "au_1"); err != nil {
		t.Fatal(err)
	}
	if list, _ := db.ListRuns(ctx); len(list) != 0 {
		t.Fatalf("runs after deletes = %+v, want none", list)
	}
	assertCode(t, db.SaveRun(ctx, automation.PendingRun{RuleID: "au_missing", Kind: automation.Fired, Step: 1, Due: t0}), service.ENOTFOUND)
	if err := db.SaveRun(ctx, automation.PendingRun{RuleID: "au_2", Kind: automation.Fired, Step: 0, Due: t0}); err == nil {
		t.Fatal("a pending run of the first step was stored")
	}
}

func TestAutomation_DeleteTakesItsRows(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	MustCreateAutomation(t, db, testRule("au_2", "Hall"))
	for _, id := range []string{"au_1", "au_2"} {
		if err := db.AddTrace(ctx, automation.TraceEntry{At: t0, RuleID: id, Kind: automation.Fired}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveHold(ctx, automation.Hold{RuleID: id, DeviceID: "sim:lamp", Until: t0}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTimer(ctx, automation.Timer{RuleID: id, Since: t0, Due: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeleteAutomation(ctx, "au_1"); err != nil {
		t.Fatal(err)
	}
	trace, _ := db.ListTrace(ctx, "au_1", 0)
	holds, _ := db.ListHolds(ctx)
	timers, _ := db.ListTimers(ctx)
	if len(trace) != 0 || len(holds) != 1 || holds[0].RuleID != "au_2" || len(timers) != 1 || timers[0].RuleID != "au_2" {
		t.Fatalf("after deleting au_1: trace %d, holds %+v, timers %+v; want only au_2's rows", len(trace), holds, timers)
	}
}

func TestAutomation_BodyIsCheckedJSON(t *testing.T) {
	// The schema refuses a body that is not a JSON object, whoever writes it.
	db, path := MustOpenWithPath(t)
	MustCreateAutomation(t, db, testRule("au_1", "Porch"))
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, body := range []string{`[1]`, `{"trigger":`} {
		if _, err := raw.Exec(`UPDATE automations SET body = ? WHERE id = 'au_1'`, body); err == nil {
			t.Errorf("body %s was stored", body)
		}
	}
}
