package automation_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestOccupancyTriggerFiresOnTheEdgeOnly(t *testing.T) {
	h := newHouse(t)
	h.start()
	occupancy := h.home.Sensor("sim:living-room-occupancy")
	// The living room is occupied at start: a rule for "occupied" does not
	// fire for a state that was already true.
	occupied := h.create(automation.Rule{
		Name: "Welcome", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerOccupancy, Room: "Living Room", To: automation.Occupied},
		Actions: []automation.Action{setLight("Rope Light", `{"on": true}`)},
	})
	empty := h.create(automation.Rule{
		Name: "Lights out", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerOccupancy, Room: "living room", To: automation.Empty},
		Actions: []automation.Action{setLight("Ceiling Light", `{"on": false}`)},
	})
	h.motion(occupancy, false)
	h.waitKinds(empty.ID, automation.Fired)
	waitFor(t, "the ceiling light to go off", func() bool {
		on, _ := lit(h.home.Light("sim:ceiling-light"))
		return !on
	})
	h.motion(occupancy, false) // the same state, reported again: a level, no edge
	h.stillKinds(empty.ID, automation.Fired)
	h.motion(occupancy, true)
	h.waitKinds(occupied.ID, automation.Fired)
	h.motion(occupancy, false)
	h.waitKinds(empty.ID, automation.Fired, automation.Fired)

	// A restart never replays a state that was already true.
	h.restart()
	h.motion(occupancy, false)
	h.stillKinds(empty.ID, automation.Fired, automation.Fired)
	h.stillKinds(occupied.ID, automation.Fired)
}

func TestStaysForFiresAfterTheTimeAndCancelsWhenTheStateBreaks(t *testing.T) {
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
	h.at(t0.Add(14 * time.Minute))
	h.stillKinds(r.ID)
	h.motion(occupancy, true) // someone came back: the countdown is off
	h.at(t0.Add(30 * time.Minute))
	h.stillKinds(r.ID)

	t1 := t0.Add(30 * time.Minute)
	h.motion(occupancy, false)
	h.at(t1.Add(15*time.Minute - time.Second))
	h.stillKinds(r.ID)
	h.at(t1.Add(15 * time.Minute))
	h.waitKinds(r.ID, automation.Fired)
	if tr := h.trace(r.ID); tr[0].Why != "Living Room stayed empty for 15 minutes" {
		t.Fatalf("why = %q", tr[0].Why)
	}
	h.at(t1.Add(time.Hour)) // it stays empty: no second fire
	h.stillKinds(r.ID, automation.Fired)
}

func TestStaysForSurvivesARestart(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := h.create(automation.Rule{
		Name: "Door left open", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open, For: dur(5 * time.Minute)},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": true}`)},
	})
	broken := h.create(automation.Rule{
		Name: "Motion lasts", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Hallway Motion", To: automation.Detected, For: dur(5 * time.Minute)},
		Actions: []automation.Action{setLight("Hallway Lamp", `{"on": true}`)},
	})
	t0 := h.clock.Now()
	h.door(true)
	h.motion(h.hallMotion, true)
	waitFor(t, "both countdowns to be stored", func() bool {
		ts, err := h.db.ListTimers(context.Background())
		return err == nil && len(ts) == 2
	})
	h.stop()
	h.hallMotion.SetReading(devices.ReadingMotion, 0) // while the hub is down, the motion stops
	waitFor(t, "the service to see the motion stop", func() bool {
		s, _ := h.svc.GetSensor(h.ctx, "Hallway Motion")
		return len(s.Readings) == 1 && !*s.Readings[0].Bool
	})
	h.clock.Set(t0.Add(6 * time.Minute))
	h.start()
	h.at(t0.Add(6 * time.Minute))
	h.waitKinds(r.ID, automation.Fired)
	waitFor(t, "the hallway light to go on", func() bool { on, _ := lit(h.hallLight); return on })
	h.stillKinds(broken.ID)
	if on, _ := lit(h.hallLamp); on {
		t.Fatal("a countdown whose state broke while the hub was down fired")
	}
}

func TestSensorTriggers(t *testing.T) {
	h := newHouse(t)
	h.start()
	detect := h.create(onMotion("Motion", setLight("Desk Lamp", `{"brightness": 30}`)))
	clear := h.create(automation.Rule{
		Name: "Quiet", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Hallway Motion", Reading: "motion", To: automation.Clear},
		Actions: []automation.Action{setLight("Hallway Lamp", `{"on": true}`)},
	})
	opens := h.create(automation.Rule{
		Name: "Door opens", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": true}`)},
	})
	closes := h.create(automation.Rule{
		Name: "Door closes", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Closed},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": false}`)},
	})
	h.motion(h.hallMotion, true)
	h.waitKinds(detect.ID, automation.Fired)
	waitFor(t, "the desk lamp at 30 %", func() bool {
		on, b := lit(h.home.Light("sim:desk-lamp"))
		return on && b == 30
	})
	h.motion(h.hallMotion, true)
	h.stillKinds(detect.ID, automation.Fired)
	h.stillKinds(clear.ID)
	h.motion(h.hallMotion, false)
	h.waitKinds(clear.ID, automation.Fired)

	h.door(true)
	h.waitKinds(opens.ID, automation.Fired)
	h.door(true)
	h.door(false)
	h.waitKinds(closes.ID, automation.Fired)
	h.stillKinds(opens.ID, automation.Fired)
	if tr := h.trace(opens.ID); tr[0].Why != "Front Door opened" {
		t.Fatalf("why = %q", tr[0].Why)
	}
}

func TestThresholdCrossingWithHysteresis(t *testing.T) {
	h := newHouse(t)
	h.start()
	temp := h.home.Sensor("sim:bedroom-temperature")
	h.set(temp, devices.ReadingTemperature, 21)
	warm := h.create(automation.Rule{
		Name: "Too warm", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Bedroom Temperature", Reading: "temperature", Above: ptr(22.0)},
		Actions: []automation.Action{setLight("Bedside Lamp", `{"on": true}`)},
	})
	cold := h.create(automation.Rule{
		Name: "Too cold", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Bedroom Temperature", Reading: "temperature", Below: ptr(18.0), Hysteresis: ptr(1.0)},
		Actions: []automation.Action{setLight("Bedside Lamp", `{"on": false}`)},
	})
	h.set(temp, devices.ReadingTemperature, 22.3)
	h.waitKinds(warm.ID, automation.Fired)
	if tr := h.trace(warm.ID); tr[0].Why != "Bedroom Temperature rose above 22 °C (22.3 °C)" {
		t.Fatalf("why = %q", tr[0].Why)
	}
	// A noisy reading around the threshold (within the default hysteresis,
	// 0.5) does not chatter.
	for _, v := range []float64{21.9, 22.2, 21.6, 22.4, 21.8, 22.1} {
		h.set(temp, devices.ReadingTemperature, v)
	}
	h.stillKinds(warm.ID, automation.Fired)
	h.set(temp, devices.ReadingTemperature, 21.4) // back past the hysteresis
	h.set(temp, devices.ReadingTemperature, 22.1)
	h.waitKinds(warm.ID, automation.Fired, automation.Fired)

	for _, v := range []float64{17.9, 18.5, 17.5, 18.9, 17.2} {
		h.set(temp, devices.ReadingTemperature, v)
	}
	h.stillKinds(cold.ID, automation.Fired)
	h.set(temp, devices.ReadingTemperature, 19.1)
	h.set(temp, devices.ReadingTemperature, 17.8)
	h.waitKinds(cold.ID, automation.Fired, automation.Fired)
}

func TestPowerTriggers(t *testing.T) {
	h := newHouse(t)
	h.start()
	porch := h.create(automation.Rule{
		Name: "Porch on", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerPower, Device: "Porch Switch", To: automation.On},
		Actions: []automation.Action{setLight("Hallway Light", `{"on": true}`)},
	})
	tv := h.create(automation.Rule{
		Name: "Movie time", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerPower, Device: "Living Room TV", To: automation.On},
		Actions: []automation.Action{{Type: automation.ActRoom, Room: "Living Room", State: state(`{"brightness": 20}`)}},
	})
	lamp := h.create(automation.Rule{
		Name: "Lamp stays on", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerPower, Device: "Hallway Lamp", To: automation.On, For: dur(10 * time.Minute)},
		Actions: []automation.Action{setLight("Hallway Lamp", `{"on": false}`)},
	})
	t0 := h.clock.Now()
	mark := h.mark()
	h.home.Switch("sim:porch-switch").Toggle() // by hand, at the wall
	h.waitHeard("the porch switch", mark, func(ev service.Event) bool { return ev.ID == "sim:porch-switch" })
	h.waitKinds(porch.ID, automation.Fired)

	if _, err := h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	h.waitKinds(tv.ID, automation.Fired)
	waitFor(t, "the ceiling light dimmed to 20 %", func() bool {
		_, b := lit(h.home.Light("sim:ceiling-light"))
		return b == 20
	})

	h.byHand(h.hallLamp, devices.LightState{On: true, Brightness: 50, Mode: devices.ModeTemperature, Kelvin: 3000})
	h.at(t0.Add(10 * time.Minute))
	h.waitKinds(lamp.ID, automation.Fired)
	waitFor(t, "the hallway lamp to go off", func() bool { on, _ := lit(h.hallLamp); return !on })
}

func TestTimeTriggerAtHHMMAcrossMidnight(t *testing.T) {
	h := newHouse(t)
	late := time.Date(2026, 3, 16, 23, 58, 0, 0, zone) // Monday
	h.clock.Set(late)
	h.start()
	r := h.create(automation.Rule{
		Name: "Midnight", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerTime, At: "0:00", Days: []string{"Tuesday"}},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "Porch Switch", State: state(`{"on": true}`)}},
	})
	if r.Trigger.At != "00:00" || r.Trigger.Days[0] != "tue" {
		t.Fatalf("trigger stored as %+v", r.Trigger)
	}
	morning := h.create(automation.Rule{
		Name: "Morning", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerTime, At: "07:00"},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "Desk Fan", State: state(`{"on": true}`)}},
	})
	h.at(late.Add(time.Minute))
	h.stillKinds(r.ID)
	h.at(late.Add(2*time.Minute + 30*time.Second)) // Tuesday 00:00:30
	h.waitKinds(r.ID, automation.Fired)
	h.at(late.Add(3 * time.Minute))
	h.at(late.Add(24 * time.Hour)) // Tuesday 23:58
	h.at(late.Add(26 * time.Hour)) // Wednesday 00:00: not a Tuesday
	h.stillKinds(r.ID, automation.Fired)
	waitFor(t, "the porch switch on", func() bool { return h.home.Switch("sim:porch-switch").On() })
	if tr := h.trace(r.ID); tr[0].Why != "it was 00:00" {
		t.Fatalf("why = %q", tr[0].Why)
	}
	// Every day at 07:00: the clock jumped past Tuesday's (to 23:58), far
	// too late to act on it; Wednesday's fires.
	h.at(time.Date(2026, 3, 18, 7, 0, 0, 0, zone))
	h.waitKinds(morning.ID, automation.Skipped, automation.Fired)
	if tr := h.trace(morning.ID); tr[1].Why != "the clock passed 07:00 only at 23:58, too late to act on it" {
		t.Fatalf("why = %q", tr[1].Why)
	}
	h.at(time.Date(2026, 3, 18, 7, 5, 0, 0, zone))
	h.stillKinds(morning.ID, automation.Skipped, automation.Fired)

	// A time already past when the rule is made waits for the next day.
	h.clock.Set(time.Date(2026, 3, 18, 7, 30, 0, 0, zone))
	past := h.create(automation.Rule{
		Name: "Earlier", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerTime, At: "07:15"},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "Coffee Plug", State: state(`{"on": false}`)}},
	})
	h.at(time.Date(2026, 3, 18, 8, 0, 0, 0, zone))
	h.stillKinds(past.ID)
	h.at(time.Date(2026, 3, 19, 7, 15, 0, 0, zone))
	h.waitKinds(past.ID, automation.Fired)
}

func TestSunTrigger(t *testing.T) {
	h := newHouse(t).located()
	day := time.Date(2026, 6, 21, 12, 0, 0, 0, zone)
	h.clock.Set(day)
	h.start()
	r := h.create(automation.Rule{
		Name: "Dusk", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSun, Event: automation.Sunset, Offset: dur(-30 * time.Minute)},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "Porch Switch", State: state(`{"on": true}`)}},
	})
	_, set, ok := automation.SunTimes(day, berlinLat, berlinLon)
	if !ok {
		t.Fatal("no sunset in Berlin at midsummer")
	}
	due := set.Add(-30 * time.Minute)
	if due.Hour() < 20 || due.Hour() > 21 {
		t.Fatalf("half an hour before sunset in Berlin at midsummer (CET) = %v", due)
	}
	h.at(due.Add(-time.Second))
	h.stillKinds(r.ID)
	h.at(due.Add(time.Second))
	h.waitKinds(r.ID, automation.Fired)
	if tr := h.trace(r.ID); tr[0].Why != "it was 30 minutes before sunset" {
		t.Fatalf("why = %q", tr[0].Why)
	}
	h.at(due.Add(time.Hour))
	h.stillKinds(r.ID, automation.Fired)
	_, set2, _ := automation.SunTimes(day.AddDate(0, 0, 1), berlinLat, berlinLon)
	h.at(set2.Add(-30 * time.Minute))
	h.waitKinds(r.ID, automation.Fired, automation.Fired)
}

func TestDisabledRuleDoesNotFire(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := onMotion("Off duty", setLight("Hallway Light", `{"on": true}`))
	r.Enabled = false
	v := h.create(r)
	h.motion(h.hallMotion, true)
	h.stillKinds(v.ID)
	// Enabled while the motion is on: only the next transition fires it.
	if _, err := h.eng.Update(h.ctx, v.ID, automation.Patch{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	h.motion(h.hallMotion, true)
	h.stillKinds(v.ID)
	h.motion(h.hallMotion, false)
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired)
}
