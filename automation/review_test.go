package automation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// waitOnline waits until the service sees a light online (or offline).
func (h *house) waitOnline(name string, online bool) {
	h.t.Helper()
	waitFor(h.t, fmt.Sprintf("%s online=%v", name, online), func() bool {
		l, err := h.svc.GetLight(h.ctx, name)
		return err == nil && l.Online == online && (!online || l.State != nil)
	})
}

// storedHolds is how many holds the Store keeps, once the engine's writes
// are done.
func (h *house) storedHolds() int {
	h.t.Helper()
	automation.Quiesce(h.eng)
	hs, err := h.db.ListHolds(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return len(hs)
}

func TestPutThingsBackRefireDuringTheRestoreKeepsTheFirstCapture(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.waitKinds(r.ID, automation.Fired)
	h.motion(h.hallMotion, false)
	h.quiet()
	// The light answers slowly: its restore is still under way when the
	// rule fires again.
	h.hallLight.SetLatency(400 * time.Millisecond)
	t1 := t0.Add(5 * time.Minute)
	h.at(t1)
	h.motion(h.hallMotion, true)
	h.waitKinds(r.ID, automation.Fired, automation.Restored, automation.Fired)
	waitBrightness(t, h.hallLight, 30)
	h.hallLight.SetLatency(0)
	v, err := h.eng.Get(h.ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Holding) != 1 || v.RestoreAt == nil || !v.RestoreAt.Equal(t1.Add(5*time.Minute)) {
		t.Fatalf("holding %v until %v, want the light until %v", v.Holding, v.RestoreAt, t1.Add(5*time.Minute))
	}
	h.at(t1.Add(5 * time.Minute))
	waitBrightness(t, h.hallLight, 60) // the first capture, not the rule's own 30 %
	h.waitKinds(r.ID, automation.Fired, automation.Restored, automation.Fired, automation.Restored)
}

func TestPutThingsBackRetriesADeviceThatWasOffline(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.waitKinds(r.ID, automation.Fired)
	h.hallLight.SetUnreachable(true)
	h.waitOnline("Hallway Light", false)
	h.at(t0.Add(5 * time.Minute)) // due while the light is away
	h.waitKinds(r.ID, automation.Fired, automation.Restored)
	if tr := h.trace(r.ID); tr[0].Outcome != "failed" {
		t.Fatalf("restore entry %+v, want it failed", tr[0])
	}
	h.quiet()
	if n := h.storedHolds(); n != 1 {
		t.Fatalf("%d holds stored after a restore the light did not take, want it kept", n)
	}
	if v, _ := h.eng.Get(h.ctx, r.ID); len(v.Holding) != 1 {
		t.Fatalf("holding %v, want the light still", v.Holding)
	}
	// A retry while it is still away changes nothing and says nothing.
	h.at(t0.Add(5*time.Minute + 30*time.Second))
	h.stillKinds(r.ID, automation.Fired, automation.Restored)
	// Back: it is put back at once.
	h.hallLight.SetUnreachable(false)
	waitBrightness(t, h.hallLight, 60)
	h.waitKinds(r.ID, automation.Fired, automation.Restored, automation.Restored)
	if tr := h.trace(r.ID); tr[0].Outcome != "ok" {
		t.Fatalf("restore entry %+v, want ok", tr[0])
	}
	waitFor(t, "the hold to be gone", func() bool { return h.storedHolds() == 0 })
}

func TestPutThingsBackGivesUpADayLate(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.waitKinds(r.ID, automation.Fired)
	h.hallLight.SetUnreachable(true)
	h.waitOnline("Hallway Light", false)
	due := t0.Add(5 * time.Minute)
	h.at(due)
	h.waitKinds(r.ID, automation.Fired, automation.Restored)
	h.quiet()
	// Restarted while it is away: the hold is still there, and still owed.
	h.restart()
	h.at(due.Add(time.Hour))
	h.quiet()
	if n := h.storedHolds(); n != 1 {
		t.Fatalf("%d holds stored, want 1", n)
	}
	h.at(due.Add(24 * time.Hour))
	waitFor(t, "the engine to give up", func() bool {
		tr := h.trace(r.ID)
		return len(tr) > 0 && tr[0].Kind == automation.Released
	})
	if why := h.trace(r.ID)[0].Why; !strings.Contains(why, "did not take being put back within 24 hours") {
		t.Fatalf("why = %q", why)
	}
	waitFor(t, "the hold to be gone", func() bool { return h.storedHolds() == 0 })
}

func TestChangingARuleKeepsItsCountdownAndDelays(t *testing.T) {
	h := newHouse(t)
	h.start()
	occupancy := h.home.Sensor("sim:living-room-occupancy")
	r := h.create(automation.Rule{
		Name: "Empty room off", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerOccupancy, Room: "Living Room", To: automation.Empty, For: dur(15 * time.Minute)},
		Actions: []automation.Action{setLight("Ceiling Light", `{"on": false}`)},
	})
	t0 := h.clock.Now()
	h.motion(occupancy, false)
	h.at(t0.Add(5 * time.Minute))
	if _, err := h.eng.Update(h.ctx, r.ID, automation.Patch{Name: ptr("Empty room, lights off"), Cooldown: ptr(dur(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.Update(h.ctx, r.ID, automation.Patch{Enabled: ptr(true), Actions: &[]automation.Action{setLight("Ceiling Light", `{"on": false}`)}}); err != nil {
		t.Fatal(err)
	}
	h.at(t0.Add(15 * time.Minute))
	h.waitKinds(r.ID, automation.Fired)

	// Disabling cancels a countdown; enabling again starts from now.
	h.motion(occupancy, true)
	t1 := t0.Add(20 * time.Minute)
	h.clock.Set(t1)
	h.motion(occupancy, false)
	if _, err := h.eng.Update(h.ctx, r.ID, automation.Patch{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.Update(h.ctx, r.ID, automation.Patch{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	h.at(t1.Add(16 * time.Minute))
	h.stillKinds(r.ID, automation.Fired)

	// A run's delayed steps outlive a change to its name.
	b := h.create(onMotion("Blink",
		setLight("Hallway Light", `{"on": true, "brightness": 90}`),
		automation.Action{Type: automation.ActDelay, Wait: dur(5 * time.Minute)},
		setLight("Hallway Light", `{"on": false}`),
	))
	t2 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 90)
	h.waitKinds(b.ID, automation.Fired)
	if _, err := h.eng.Update(h.ctx, b.ID, automation.Patch{Name: ptr("Blink once")}); err != nil {
		t.Fatal(err)
	}
	h.at(t2.Add(5 * time.Minute))
	waitFor(t, "the hallway light off after the delay", func() bool { on, _ := lit(h.hallLight); return !on })
	h.waitKinds(b.ID, automation.Fired, automation.Fired)
}

func TestDisablingCancelsDelayedSteps(t *testing.T) {
	h := newHouse(t)
	h.start()
	b := h.create(onMotion("Blink",
		setLight("Hallway Light", `{"on": true, "brightness": 90}`),
		automation.Action{Type: automation.ActDelay, Wait: dur(5 * time.Minute)},
		setLight("Hallway Light", `{"on": false}`),
	))
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 90)
	h.waitKinds(b.ID, automation.Fired)
	if _, err := h.eng.Update(h.ctx, b.ID, automation.Patch{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	h.at(t0.Add(5 * time.Minute))
	h.keepsBrightness(h.hallLight, 90)
	h.stillKinds(b.ID, automation.Fired)
	automation.Quiesce(h.eng)
	if runs, _ := h.db.ListRuns(context.Background()); len(runs) != 0 {
		t.Fatalf("pending runs %+v after disabling, want none", runs)
	}
}

func TestDelayedStepsSurviveARestart(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := onMotion("Blink",
		setLight("Hallway Light", `{"on": true, "brightness": 90}`),
		automation.Action{Type: automation.ActDelay, Wait: dur(5 * time.Minute)},
		setLight("Hallway Light", `{"on": false}`),
	)
	r.Cooldown = dur(10 * time.Minute)
	v := h.create(r)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 90)
	h.waitKinds(v.ID, automation.Fired)
	waitFor(t, "the pending run to be stored", func() bool {
		runs, err := h.db.ListRuns(context.Background())
		return err == nil && len(runs) == 1 && runs[0].Step == 1 && runs[0].Started.Equal(t0)
	})
	h.stop()
	h.clock.Set(t0.Add(6 * time.Minute)) // overdue when the hub is back
	h.start()
	waitFor(t, "the hallway light off after the delay", func() bool { on, _ := lit(h.hallLight); return !on })
	h.waitKinds(v.ID, automation.Fired, automation.Fired)
	tr := h.trace(v.ID)
	if tr[0].RunStarted == nil || !tr[0].RunStarted.Equal(t0) || tr[0].Why != "its wait of 5 minutes was over" {
		t.Fatalf("later step %+v, want it recorded as the run of %v", tr[0], t0)
	}
	got, err := h.eng.Get(h.ctx, v.ID)
	if err != nil || got.LastRun == nil || !got.LastRun.Equal(t0) {
		t.Fatalf("last run %v (%v), want the run's start %v", got.LastRun, err, t0)
	}
	automation.Quiesce(h.eng)
	if runs, _ := h.db.ListRuns(context.Background()); len(runs) != 0 {
		t.Fatalf("pending runs %+v after the last step, want none", runs)
	}
	// The cooldown counts from the run's start, after another restart too.
	h.restart()
	h.motion(h.hallMotion, false)
	h.clock.Set(t0.Add(9 * time.Minute))
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired, automation.Fired, automation.Skipped)
	if why := h.trace(v.ID)[0].Why; why != "it was in cooldown until 12:10" {
		t.Fatalf("why = %q, want the cooldown from the run's start", why)
	}
}

func TestRestartNeverReplaysAStateAlreadyTrue(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := h.create(automation.Rule{
		Name: "Door open", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": true}`)},
	})
	h.stop()
	// While the hub is down, the door opens: at start it is already open.
	if err := h.frontDoor.SetReading(devices.ReadingContact, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the service to see the door open", func() bool {
		s, err := h.svc.GetSensor(h.ctx, "Front Door")
		return err == nil && len(s.Readings) == 1 && s.Readings[0].Bool != nil && !*s.Readings[0].Bool
	})
	h.start()
	h.at(h.clock.Now().Add(time.Minute))
	h.stillKinds(r.ID)
	if on, _ := lit(h.hallLight); on {
		t.Fatal("a restart replayed a state that was already true")
	}
	h.door(false)
	h.door(true)
	h.waitKinds(r.ID, automation.Fired)
}

// TestResyncReadsTheHouseAgain: a subscriber that missed events (the bus
// replaced its queue with a resync) fires the edges that happened and
// starts countdowns from the resync.
func TestResyncReadsTheHouseAgain(t *testing.T) {
	h := newHouse(t)
	h.start()
	now := h.create(automation.Rule{
		Name: "Door open", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": true}`)},
	})
	long := h.create(automation.Rule{
		Name: "Door left open", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open, For: dur(5 * time.Minute)},
		Actions: []automation.Action{setLight("Hallway Lamp", `{"on": true}`)},
	})
	t0 := h.clock.Now()
	h.gate.Lock() // the engine stops after the event it handles next
	bus := h.svc.Events()
	for i := range 200 { // fills what waits in the engine's channel
		bus.Publish(service.Event{Type: "test", ID: fmt.Sprintf("fill-%d", i), Action: "fill"})
	}
	if err := h.frontDoor.SetReading(devices.ReadingContact, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the service to see the door open", func() bool {
		s, err := h.svc.GetSensor(h.ctx, "Front Door")
		return err == nil && len(s.Readings) == 1 && s.Readings[0].Bool != nil && !*s.Readings[0].Bool
	})
	t1 := t0.Add(2 * time.Minute)
	h.clock.Set(t1)
	for i := range 5000 { // past the bound: the queue becomes a resync
		bus.Publish(service.Event{Type: "test", ID: fmt.Sprintf("flood-%d", i), Action: "flood"})
	}
	mark := h.mark()
	h.gate.Unlock()
	h.waitHeard("the resync", mark, func(ev service.Event) bool { return ev.Type == service.ResyncEvent })
	h.waitKinds(now.ID, automation.Fired)
	waitFor(t, "the hallway light on", func() bool { on, _ := lit(h.hallLight); return on })
	h.at(t1.Add(5*time.Minute - time.Second))
	h.stillKinds(long.ID)
	h.at(t1.Add(5 * time.Minute)) // the countdown runs from the resync
	h.waitKinds(long.ID, automation.Fired)
	h.stillKinds(now.ID, automation.Fired)
}

func TestDuplicateCutsALongNameByCharacters(t *testing.T) {
	h := newHouse(t)
	h.start()
	name := strings.Repeat("é", 49) + "x" // 99 bytes
	v := h.create(onMotion(name, setLight("Hallway Light", `{"on": true}`)))
	c, err := h.eng.Duplicate(h.ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(c.Name, " (copy)") || !utf8Valid(c.Name) || len(c.Name) > 100 {
		t.Fatalf("copy named %q (%d bytes)", c.Name, len(c.Name))
	}
	if _, err := h.eng.Update(h.ctx, c.ID, automation.Patch{Enabled: ptr(true)}); err != nil {
		t.Fatalf("the copy's name does not pass its own check: %v", err)
	}
}

func utf8Valid(s string) bool {
	return !strings.ContainsRune(s, '\uFFFD') && strings.ToValidUTF8(s, "\uFFFD") == s
}
