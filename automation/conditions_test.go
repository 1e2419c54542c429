package automation_test

import (
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// decide ticks the clock to at and returns the decision a rule made then.
func (h *house) decide(id string, at time.Time) automation.TraceEntry {
	h.t.Helper()
	h.at(at)
	var got automation.TraceEntry
	waitFor(h.t, "a decision at "+at.Format("Mon 15:04"), func() bool {
		for _, e := range h.trace(id) {
			if e.At.Equal(at) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// gated is a rule on a time trigger, gated by one condition.
func gated(h *house, name, at string, c automation.Condition) string {
	h.t.Helper()
	return h.create(automation.Rule{
		Name: name, Enabled: true,
		Trigger:    automation.Trigger{Type: automation.TriggerTime, At: at},
		Conditions: []automation.Condition{c},
		Actions:    []automation.Action{{Type: automation.ActPower, Device: "Desk Fan", State: state(`{"on": true}`)}},
	}).ID
}

func TestConditions(t *testing.T) {
	h := newHouse(t).located()
	friday := time.Date(2026, 3, 20, 12, 0, 0, 0, zone)
	saturday, sunday := friday.AddDate(0, 0, 1), friday.AddDate(0, 0, 2)
	at := func(day time.Time, hh, mm int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), hh, mm, 0, 0, zone)
	}
	h.clock.Set(friday)
	h.start()
	night := automation.Condition{Type: automation.CondTime, After: "21:00", Before: "06:00"}
	late := gated(h, "Late", "23:00", night)
	early := gated(h, "Early", "05:00", night)
	noon := gated(h, "Noon", "12:30", night)
	saturdayNight := gated(h, "Saturday night", "01:00", automation.Condition{Type: automation.CondTime, After: "22:00", Before: "02:00", Days: []string{"sat"}})
	dark := gated(h, "Dark", "23:30", automation.Condition{Type: automation.CondSun, Sun: automation.Down})
	day := gated(h, "Day", "13:00", automation.Condition{Type: automation.CondSun, Sun: automation.Down})
	dim := gated(h, "Dim", "14:00", automation.Condition{Type: automation.CondSensor, Device: "Office Motion", Reading: "illuminance", Below: ptr(20.0)})
	shut := gated(h, "Shut", "15:00", automation.Condition{Type: automation.CondSensor, Device: "Front Door", Is: automation.Closed})
	alone := gated(h, "Alone", "16:00", automation.Condition{Type: automation.CondOccupancy, Room: "Living Room", Is: automation.Empty})
	noTV := gated(h, "No TV", "17:00", automation.Condition{Type: automation.CondPower, Device: "Living Room TV", Is: automation.Off})
	calm := gated(h, "Calm", "18:00", automation.Condition{Type: automation.CondSensor, Device: "Hallway Motion", Is: automation.Clear})

	type want struct {
		kind, why, cond string
	}
	check := func(id string, when time.Time, w want) {
		t.Helper()
		e := h.decide(id, when)
		if e.Kind != w.kind || (w.why != "" && e.Why != w.why) || e.Condition != w.cond {
			t.Fatalf("at %s: %s because %q (condition %q); want %s because %q (condition %q)",
				when.Format("Mon 15:04"), e.Kind, e.Why, e.Condition, w.kind, w.why, w.cond)
		}
	}
	fired := want{kind: automation.Fired}
	check(late, at(friday, 23, 0), fired)
	check(dark, at(friday, 23, 30), fired)
	// The window 22:00–02:00 on Saturdays starts on Saturday: Saturday 01:00
	// belongs to Friday's night.
	check(saturdayNight, at(saturday, 1, 0), want{automation.Skipped,
		"it was 01:00 on a Saturday (the condition wants 22:00 to 02:00 on Sat)", "the time is between 22:00 and 02:00 on Sat"})
	check(early, at(saturday, 5, 0), fired)
	check(noon, at(saturday, 12, 30), want{automation.Skipped,
		"it was 12:30 on a Saturday (the condition wants 21:00 to 06:00)", "the time is between 21:00 and 06:00"})
	check(day, at(saturday, 13, 0), want{automation.Skipped, "the sun was up (the condition wants it down)", "the sun is down"})
	check(dim, at(saturday, 14, 0), want{automation.Skipped,
		"Office Motion's illuminance was 320 lx (the condition wants below 20 lx)", "Office Motion's illuminance is below 20 lx"})
	check(shut, at(saturday, 15, 0), fired)
	check(alone, at(saturday, 16, 0), want{automation.Skipped, "Living Room was occupied (the condition wants it empty)", "Living Room is empty"})
	check(noTV, at(saturday, 17, 0), fired)

	// Unknown fails closed: a sensor that does not answer satisfies nothing.
	h.hallMotion.SetUnreachable(true)
	waitFor(t, "Hallway Motion to be offline", func() bool {
		s, err := h.svc.GetSensor(h.ctx, "Hallway Motion")
		return err == nil && !s.Online
	})
	check(calm, at(saturday, 18, 0), want{automation.Skipped,
		"Hallway Motion was not known (the condition wants it clear), and an unknown state never satisfies a condition", "Hallway Motion is clear"})

	h.set(h.home.Sensor("sim:office-motion"), devices.ReadingIlluminance, 10)
	h.door(true)
	h.motion(h.home.Sensor("sim:living-room-occupancy"), false)
	if _, err := h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	check(saturdayNight, at(sunday, 1, 0), fired)
	check(dim, at(sunday, 14, 0), fired)
	check(shut, at(sunday, 15, 0), want{automation.Skipped, "Front Door was open (the condition wants it closed)", "Front Door is closed"})
	check(alone, at(sunday, 16, 0), fired)
	check(noTV, at(sunday, 17, 0), want{automation.Skipped, "Living Room TV was on (the condition wants it off)", "Living Room TV is off"})

	explain, err := h.eng.Explain(h.ctx, "No TV")
	if err != nil {
		t.Fatal(err)
	}
	wantText := "At 17:00, unless Living Room TV is on, turn Desk Fan on. " +
		"Last trigger at 17:00: skipped, because Living Room TV was on (the condition wants it off). " +
		"At Sat 21 Mar 17:00: fired, because it was 17:00; turn Desk Fan on: ok. " +
		// Made at Friday noon, first ticked at Friday 23:00:
		"At Fri 20 Mar 23:00: skipped, because the clock passed 17:00 only at 23:00, too late to act on it."
	if explain != wantText {
		t.Fatalf("Explain =\n%q\nwant\n%q", explain, wantText)
	}
}

func TestCooldown(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := onMotion("Busy hallway", setLight("Hallway Light", `{"on": true}`))
	r.Cooldown = dur(10 * time.Minute)
	v := h.create(r)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired)
	h.motion(h.hallMotion, false)
	h.clock.Set(t0.Add(time.Minute))
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired, automation.Skipped)
	if tr := h.trace(v.ID); tr[0].Why != "it was in cooldown until 12:10" {
		t.Fatalf("why = %q", tr[0].Why)
	}
	h.motion(h.hallMotion, false)
	h.clock.Set(t0.Add(10 * time.Minute))
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired, automation.Skipped, automation.Fired)
	// The cooldown survives a restart: it is read from the trace.
	h.motion(h.hallMotion, false)
	h.restart()
	h.clock.Set(t0.Add(15 * time.Minute))
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired, automation.Skipped, automation.Fired, automation.Skipped)
}
