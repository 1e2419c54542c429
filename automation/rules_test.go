package automation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

func TestRulesAreStoredByIDAndReadAsSentences(t *testing.T) {
	h := newHouse(t).located()
	h.start()
	r := onMotion("Hall at night", setLight("hallway light", `{"on": true, "brightness": 30}`))
	r.Conditions = []automation.Condition{{Type: automation.CondSun, Sun: automation.Down}}
	r.RestoreAfter = ptr(dur(5 * time.Minute))
	v := h.create(r)
	if v.Trigger.Device != "sim:hallway-motion" || v.Trigger.Reading != "motion" || v.Actions[0].Lights[0] != "sim:hallway-light" {
		t.Fatalf("stored %+v; want targets by id, the reading filled in", v.Rule)
	}
	if string(v.Actions[0].State) != `{"on":true,"brightness":30}` {
		t.Fatalf("state stored as %s", v.Actions[0].State)
	}
	want := "When Hallway Motion detects motion, only after sunset, turn Hallway Light on at 30 %, and put it back after 5 minutes."
	if v.Sentence != want {
		t.Fatalf("sentence =\n%q\nwant\n%q", v.Sentence, want)
	}
	for _, tc := range []struct {
		rule automation.Rule
		want string
	}{
		{automation.Rule{
			Trigger:    automation.Trigger{Type: automation.TriggerOccupancy, Room: "Office", To: automation.Empty, For: dur(15 * time.Minute)},
			Conditions: []automation.Condition{{Type: automation.CondTime, After: "21:00", Before: "06:00"}},
			Actions:    []automation.Action{{Type: automation.ActRoom, Room: "Office", State: state(`{"on": false}`)}},
		}, "When Office stays empty for 15 minutes, only between 21:00 and 06:00, turn Office off."},
		{automation.Rule{
			Trigger: automation.Trigger{Type: automation.TriggerPower, Device: "Living Room TV", To: automation.On},
			Actions: []automation.Action{
				{Type: automation.ActRoom, Room: "Living Room", State: state(`{"brightness": 20}`)},
				{Type: automation.ActPower, Device: "Porch Switch", State: state(`{"on": false}`)},
			},
			Cooldown: dur(10 * time.Minute),
		}, "When Living Room TV turns on, set the lit lights of Living Room to 20 % and turn Porch Switch off, at most once every 10 minutes."},
		{automation.Rule{
			Trigger:    automation.Trigger{Type: automation.TriggerSensor, Device: "Office Motion", Reading: "illuminance", Below: ptr(15.0)},
			Conditions: []automation.Condition{{Type: automation.CondTime, After: "08:00", Before: "17:00", Days: []string{"weekdays"}}},
			Actions:    []automation.Action{setLight("Desk Lamp", `{"on": true, "kelvin": 4000}`)},
		}, "When Office Motion's illuminance drops below 15 lx, only between 08:00 and 17:00 on weekdays, turn Desk Lamp on at 4000 K."},
		{automation.Rule{
			Trigger: automation.Trigger{Type: automation.TriggerSun, Event: automation.Sunrise, Offset: dur(-30 * time.Minute), Days: []string{"sat", "sun"}},
			Actions: []automation.Action{
				{Type: automation.ActMedia, Device: "Kitchen Sonos", State: state(`{"power": true, "volume": 20, "favorite": "Radio"}`)},
				{Type: automation.ActDelay, Wait: dur(90 * time.Second)},
				{Type: automation.ActRemote, Device: "Living Room TV", State: state(`{"app": "Netflix"}`)},
			},
		}, "At 30 minutes before sunrise at weekends, turn Kitchen Sonos on and set its volume to 20 and play Radio on it, wait 1 minute 30 seconds and open Netflix on Living Room TV."},
		{automation.Rule{
			Trigger:    automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open, For: dur(10 * time.Minute)},
			Conditions: []automation.Condition{{Type: automation.CondOccupancy, Room: "Living Room", Is: automation.Empty}},
			Actions:    []automation.Action{setLight("all", `{"on": true, "hex": "ff0000"}`)},
		}, "When Front Door stays open for 10 minutes, only if Living Room is empty, turn every light on in #FF0000."},
	} {
		if got := h.eng.Sentence(h.ctx, mustCheck(t, h, tc.rule)); got != tc.want {
			t.Errorf("sentence =\n%q\nwant\n%q", got, tc.want)
		}
	}
}

// checked counts the rules mustCheck saved, to name them.
var checked atomic.Int64

// mustCheck saves r under a fresh name and returns it as stored.
func mustCheck(t *testing.T, h *house, r automation.Rule) automation.Rule {
	t.Helper()
	r.Name = fmt.Sprintf("rule %d", checked.Add(1))
	v, err := h.eng.Create(h.ctx, r)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return v.Rule
}

func TestValidation(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.create(onMotion("Taken", setLight("Hallway Light", `{"on": true}`)))
	base := func() automation.Rule { return onMotion("New", setLight("Hallway Light", `{"on": true}`)) }
	for _, tc := range []struct {
		name  string
		edit  func(*automation.Rule)
		code  string
		field string
		says  string
	}{
		{"no name", func(r *automation.Rule) { r.Name = "  " }, service.EINVALID, "name", "needs a name"},
		{"a name in use, any case", func(r *automation.Rule) { r.Name = "TAKEN" }, service.ECONFLICT, "name", "already exists"},
		{"no trigger type", func(r *automation.Rule) { r.Trigger.Type = "" }, service.EINVALID, "trigger.type", "occupancy, sensor, power, time, sun"},
		{"a bad room state", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerOccupancy, Room: "Living Room", To: "sideways"}
		}, service.EINVALID, "trigger.to", `trigger.to: "sideways" is not valid; valid: occupied, empty`},
		{"an unknown room", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerOccupancy, Room: "Cellar", To: automation.Empty}
		}, service.EINVALID, "trigger.room", "trigger.room: no room matches \"Cellar\"; valid: Bedroom, Hallway"},
		{"a room without a presence sensor", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerOccupancy, Room: "Kitchen", To: automation.Empty}
		}, service.EINVALID, "trigger.room", "Kitchen has no presence sensor"},
		{"an unknown sensor", func(r *automation.Rule) { r.Trigger.Device = "Attic Motion" }, service.EINVALID, "trigger.device", "no sensor matches"},
		{"a threshold on a reading the sensor lacks", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerSensor, Device: "Office Motion", Reading: "humidity", Above: ptr(60.0)}
		}, service.EINVALID, "trigger.reading", "Office Motion reports no humidity; valid: motion, illuminance"},
		{"a crossing without a threshold", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerSensor, Device: "Bedroom Temperature", Reading: "temperature"}
		}, service.EINVALID, "trigger.above", "give above or below"},
		{"a threshold on a motion reading", func(r *automation.Rule) {
			r.Trigger.Above = ptr(1.0)
			r.Trigger.Reading = "motion"
		}, service.EINVALID, "trigger.above", "takes no above"},
		{"a contact state on motion", func(r *automation.Rule) { r.Trigger.To = automation.Open }, service.EINVALID, "trigger.to", "valid: detected, clear"},
		{"a negative for", func(r *automation.Rule) { r.Trigger.For = dur(-time.Minute) }, service.EINVALID, "trigger.for", "negative"},
		{"a power device that is not one", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerPower, Device: "Office Motion", To: automation.On}
		}, service.EINVALID, "trigger.device", "no light, power device or media player matches"},
		{"a bad time of day", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerTime, At: "25:00"}
		}, service.EINVALID, "trigger.at", `"25:00" is not a time of day`},
		{"a bad weekday", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerTime, At: "07:00", Days: []string{"mon", "funday"}}
		}, service.EINVALID, "trigger.days", "funday"},
		{"a sun trigger without a location", func(r *automation.Rule) {
			r.Trigger = automation.Trigger{Type: automation.TriggerSun, Event: automation.Sunset, Offset: dur(-time.Hour)}
		}, service.EINVALID, "trigger.event", "set BIFROST_LATITUDE and BIFROST_LONGITUDE"},
		{"a sun condition without a location", func(r *automation.Rule) {
			r.Conditions = []automation.Condition{{Type: automation.CondSun, Sun: automation.Down}}
		}, service.EINVALID, "conditions[0].sun", "BIFROST_LATITUDE"},
		{"a bad window", func(r *automation.Rule) {
			r.Conditions = []automation.Condition{{Type: automation.CondTime, After: "21:00", Before: "6pm"}}
		}, service.EINVALID, "conditions[0].before", "not a time of day"},
		{"a bad condition state", func(r *automation.Rule) {
			r.Conditions = []automation.Condition{{Type: automation.CondPower, Device: "Living Room TV", Is: "asleep"}}
		}, service.EINVALID, "conditions[0].is", "valid: on, off"},
		{"a condition bound upside down", func(r *automation.Rule) {
			r.Conditions = []automation.Condition{{Type: automation.CondSensor, Device: "Bedroom Temperature", Reading: "temperature", Above: ptr(22.0), Below: ptr(18.0)}}
		}, service.EINVALID, "conditions[0].below", "must be greater than above"},
		{"no actions", func(r *automation.Rule) { r.Actions = nil }, service.EINVALID, "actions", "at least one action"},
		{"only a delay", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActDelay, Wait: dur(time.Minute)}}
		}, service.EINVALID, "actions", "at least one action"},
		{"a state that is no light patch", func(r *automation.Rule) {
			r.Actions[0].State = state(`{"brightnes": 30}`)
		}, service.EINVALID, "actions[0].state", `unknown field "brightnes"`},
		{"an empty light patch", func(r *automation.Rule) { r.Actions[0].State = state(`{}`) }, service.EINVALID, "actions[0].state", "nothing to change"},
		{"an unknown light", func(r *automation.Rule) { r.Actions[0].Lights = []string{"Hallway Light", "Garage"} }, service.EINVALID, "actions[0].lights[1]", "no light matches \"Garage\"; valid: "},
		{"a power state without on", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActPower, Device: "Porch Switch", State: state(`{"power": true}`)}}
		}, service.EINVALID, "actions[0].state", `{"on": true}`},
		{"a favourite on a TV", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActMedia, Device: "Living Room TV", State: state(`{"favorite": "Radio"}`)}}
		}, service.EINVALID, "actions[0].state", "has no favourites"},
		{"two remote commands in one", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActRemote, Device: "Living Room TV", State: state(`{"key": "home", "app": "Netflix"}`)}}
		}, service.EINVALID, "actions[0].state", "exactly one of key, text, app and power"},
		{"a colour temperature no lamp has", func(r *automation.Rule) {
			r.Actions[0].State = state(`{"on": true, "kelvin": 99999}`)
		}, service.EINVALID, "actions[0].state", "kelvin 99999 is not a colour temperature"},
		{"a volume past 100", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActMedia, Device: "Living Room TV", State: state(`{"volume": 140}`)}}
		}, service.EINVALID, "actions[0].state", "volume 140 is out of range"},
		{"an unknown scene", func(r *automation.Rule) {
			r.Actions = []automation.Action{{Type: automation.ActScene, Scene: "Disco"}}
		}, service.EINVALID, "actions[0].scene", "no scene matches"},
		{"two commands for one target", func(r *automation.Rule) {
			r.Actions = append(r.Actions, setLight("hallway light", `{"brightness": 20}`))
		}, service.EINVALID, "actions[1]", "actions[0] already changes Hallway Light"},
		{"a room and a light of it", func(r *automation.Rule) {
			r.Actions = []automation.Action{
				{Type: automation.ActRoom, Room: "Hallway", State: state(`{"brightness": 40}`)},
				setLight("Hallway Lamp", `{"on": true}`),
			}
		}, service.EINVALID, "actions[1]", "actions[0] already changes Hallway Lamp"},
		{"all lights and one of them", func(r *automation.Rule) {
			r.Actions = []automation.Action{setLight("Desk Lamp", `{"on": false}`), setLight("all", `{"on": true}`)}
		}, service.EINVALID, "actions[1]", "actions[0] already changes Desk Lamp"},
		{"a power action and the room's bare off", func(r *automation.Rule) {
			r.Actions = []automation.Action{
				{Type: automation.ActPower, Device: "Desk Fan", State: state(`{"on": true}`)},
				{Type: automation.ActRoom, Room: "Office", State: state(`{"on": false}`)},
			}
		}, service.EINVALID, "actions[1]", "actions[0] already changes Desk Fan"},
		{"a delay without a wait", func(r *automation.Rule) {
			r.Actions = append(r.Actions, automation.Action{Type: automation.ActDelay})
		}, service.EINVALID, "actions[1].wait", "give a duration"},
		{"a field the action does not take", func(r *automation.Rule) { r.Actions[0].Scene = "x" }, service.EINVALID, "actions[0].scene", "a light action takes no scene"},
		{"a negative restore", func(r *automation.Rule) { r.RestoreAfter = ptr(dur(-time.Minute)) }, service.EINVALID, "restore_after", "negative"},
		{"10,000 actions", func(r *automation.Rule) {
			r.Actions = slices.Repeat([]automation.Action{{Type: automation.ActDelay, Wait: dur(time.Second)}}, 10000)
		}, service.EINVALID, "actions", "at most 50 actions; this one has 10000"},
		{"10,000 conditions", func(r *automation.Rule) {
			r.Conditions = slices.Repeat([]automation.Condition{{Type: automation.CondTime, After: "08:00"}}, 10000)
		}, service.EINVALID, "conditions", "at most 20 conditions; this one has 10000"},
		{"10,000 lights in an action", func(r *automation.Rule) {
			r.Actions[0].Lights = slices.Repeat([]string{"Hallway Light"}, 10000)
		}, service.EINVALID, "actions[0].lights", "at most 500 lights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.edit(&r)
			_, err := h.eng.Create(h.ctx, r)
			wantCode(t, err, tc.code)
			if f := service.ErrorDetails(err)["field"]; f != tc.field {
				t.Errorf("field = %v, want %q (%v)", f, tc.field, err)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.says)) || !strings.HasPrefix(err.Error(), tc.field+": ") {
				t.Errorf("message %q; want it to begin %q and say %q", err, tc.field+": ", tc.says)
			}
		})
	}
	// Options come with the choices.
	r := base()
	r.Trigger.To = "maybe"
	_, err := h.eng.Create(h.ctx, r)
	if opts, _ := service.ErrorDetails(err)["options"].([]string); !slices.Equal(opts, []string{"detected", "clear"}) {
		t.Errorf("options = %v", service.ErrorDetails(err)["options"])
	}
	// The same device in two steps (a delay between) is fine.
	h.create(onMotion("Twice",
		automation.Action{Type: automation.ActRoom, Room: "Hallway", State: state(`{"on": true}`)},
		automation.Action{Type: automation.ActDelay, Wait: dur(time.Minute)},
		setLight("Hallway Lamp", `{"on": false}`),
	))
	// A negative sun offset is fine; so is a change by id or by name; an
	// offset past 12 hours either way is not.
	h2 := newHouse(t).located()
	h2.start()
	for _, off := range []time.Duration{13 * time.Hour, -12*time.Hour - time.Minute, 400 * 24 * time.Hour} {
		_, err := h2.eng.Create(h2.ctx, automation.Rule{
			Name: "Far", Enabled: true,
			Trigger: automation.Trigger{Type: automation.TriggerSun, Event: "sunset", Offset: dur(off)},
			Actions: []automation.Action{{Type: automation.ActPower, Device: "sim:porch-switch", State: state(`{"on": true}`)}},
		})
		wantCode(t, err, service.EINVALID)
		if f := service.ErrorDetails(err)["field"]; f != "trigger.offset" {
			t.Errorf("offset %s: field %v (%v)", off, f, err)
		}
	}
	h2.create(automation.Rule{
		Name: "Dusk", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSun, Event: "Sunset", Offset: dur(-30 * time.Minute)},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "sim:porch-switch", State: state(`{"on": true}`)}},
	})
}

func TestRuleAdministration(t *testing.T) {
	h := newHouse(t)
	h.start()
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	v := h.create(onMotion("Hall light", setLight("Hallway Light", `{"on": true}`)))
	if !v.Enabled || v.CreatedAt.IsZero() || !strings.HasPrefix(v.ID, "au_") {
		t.Fatalf("created %+v", v)
	}
	got, err := h.eng.Get(h.ctx, "hall LIGHT")
	if err != nil || got.ID != v.ID {
		t.Fatalf("Get by name = %+v, %v", got, err)
	}
	_, err = h.eng.Get(h.ctx, "Porch")
	wantCode(t, err, service.ENOTFOUND)

	// Duplicate: disabled, "(copy)", then "(copy 2)".
	c1, err := h.eng.Duplicate(h.ctx, v.ID)
	if err != nil || c1.Name != "Hall light (copy)" || c1.Enabled || c1.ID == v.ID {
		t.Fatalf("Duplicate = %+v, %v", c1, err)
	}
	c2, err := h.eng.Duplicate(h.ctx, "Hall light")
	if err != nil || c2.Name != "Hall light (copy 2)" {
		t.Fatalf("second Duplicate = %+v, %v", c2, err)
	}
	_, err = h.eng.Get(h.ctx, "copy")
	wantCode(t, err, service.EINVALID) // two match: say which

	// Update: rename, a cooldown; nothing to change is refused.
	u, err := h.eng.Update(h.ctx, c1.ID, automation.Patch{Name: ptr("Hall glow"), Cooldown: ptr(dur(time.Minute))})
	if err != nil || u.Name != "Hall glow" || u.Cooldown != dur(time.Minute) || u.UpdatedAt.IsZero() {
		t.Fatalf("Update = %+v, %v", u, err)
	}
	_, err = h.eng.Update(h.ctx, c1.ID, automation.Patch{})
	wantCode(t, err, service.EINVALID)
	_, err = h.eng.Update(h.ctx, c1.ID, automation.Patch{Name: ptr("hall light")})
	wantCode(t, err, service.ECONFLICT)

	// Replace keeps the id.
	repl := onMotion("Hall glow", setLight("Hallway Lamp", `{"brightness": 10}`))
	rv, err := h.eng.Replace(h.ctx, "Hall glow", repl)
	if err != nil || rv.ID != c1.ID || rv.Actions[0].Lights[0] != "sim:hallway-lamp" || !rv.CreatedAt.Equal(c1.CreatedAt) {
		t.Fatalf("Replace = %+v, %v", rv, err)
	}

	list, err := h.eng.List(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range list {
		names = append(names, l.Name)
	}
	if strings.Join(names, "|") != "Hall glow|Hall light|Hall light (copy 2)" {
		t.Fatalf("List = %v", names)
	}
	if err := h.eng.Delete(h.ctx, c2.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, h.eng.Delete(h.ctx, c2.ID), service.ENOTFOUND)

	// A reader may look, not change.
	reader := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "dash", Scope: service.ScopeRead})
	if _, err := h.eng.List(reader); err != nil {
		t.Fatal(err)
	}
	_, err = h.eng.Create(reader, onMotion("Sneaky", setLight("Hallway Light", `{"on": true}`)))
	wantCode(t, err, service.EFORBIDDEN)
	_, err = h.eng.List(context.Background())
	wantCode(t, err, service.EUNAUTHORIZED)

	// The bus heard each change.
	seen := map[string]bool{}
	deadline := time.After(waitLimit)
	for !seen["created"] || !seen["changed"] || !seen["deleted"] {
		select {
		case e := <-events:
			if e.Type == "automation" {
				seen[e.Action] = true
			}
		case <-deadline:
			t.Fatalf("automation events seen: %v", seen)
		}
	}
}

func TestRunNowAndItsRecord(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := onMotion("Evening",
		setLight("Hallway Light", `{"on": true, "brightness": 50}`),
		automation.Action{Type: automation.ActPower, Device: "Desk Fan", State: state(`{"on": true}`)},
	)
	r.Enabled = false
	v := h.create(r)
	h.home.Switch("sim:desk-fan").SetUnreachable(true)
	waitFor(t, "the desk fan offline", func() bool {
		p, err := h.svc.GetPower(h.ctx, "Desk Fan")
		return err == nil && !p.Online
	})
	events, stop := h.svc.Events().Subscribe()
	defer stop()
	res, err := h.eng.RunNow(h.ctx, "Evening")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "partial" || len(res.Actions) != 2 || !res.Actions[0].OK || res.Actions[1].OK ||
		!strings.Contains(res.Actions[1].Error, "Desk Fan") || res.Rule != v.ID {
		t.Fatalf("RunNow = %+v", res)
	}
	if res.Message != "Ran \u201cEvening\u201d: 1 of 2 actions failed (Desk Fan is offline)" {
		t.Fatalf("message %q", res.Message)
	}
	waitBrightness(t, h.hallLight, 50)
	got, err := h.eng.Get(h.ctx, v.ID)
	if err != nil || got.LastRun == nil || got.LastOutcome != "partial" {
		t.Fatalf("after the run: %+v, %v", got, err)
	}
	tr := h.trace(v.ID)
	if len(tr) != 1 || tr[0].Kind != automation.Ran || tr[0].Why != "it was run by hand, by tester" || tr[0].Outcome != "partial" ||
		tr[0].Actions[0].Action != "turn Hallway Light on at 50 %" {
		t.Fatalf("trace %+v", tr)
	}
	// The run is on the bus, and the audit log names the rule as the actor.
	deadline := time.After(waitLimit)
	for ran := false; !ran; {
		select {
		case e := <-events:
			ran = e.Type == "automation" && e.Action == automation.Ran && e.ID == v.ID
		case <-deadline:
			t.Fatal("no \"ran\" event on the bus")
		}
	}
	audit, err := h.svc.AuditLog(h.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var byRule, saved int
	for _, a := range audit {
		if a.ActorKind == "automation" && a.ActorID == v.ID && a.ActorName == "Evening" {
			byRule++
		}
		if a.Action == "automation.created" && a.Target == "Evening" && a.ActorKind != "automation" {
			saved++
		}
	}
	if byRule != 2 || saved != 1 {
		t.Fatalf("audit log %+v; want both writes by the rule, and its creation by the caller", audit)
	}

	// A rule fired by its trigger acts as the rule too.
	if _, err := h.eng.Update(h.ctx, v.ID, automation.Patch{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Ran, automation.Fired)
	entries, err := h.svc.AuditLog(h.ctx, 1)
	if err != nil || len(entries) != 1 || entries[0].ActorKind != "automation" || entries[0].ActorID != v.ID {
		t.Fatalf("newest audit entry %+v, %v", entries, err)
	}
	b, _ := json.Marshal(tr[0])
	if !strings.Contains(string(b), `"outcome":"partial"`) {
		t.Fatalf("trace entry JSON %s", b)
	}
}

func TestRunEndsCleanly(t *testing.T) {
	h := newHouse(t)
	before := runtime.NumGoroutine()
	h.start()
	r := onMotion("Busy", setLight("Hallway Light", `{"on": true}`), automation.Action{Type: automation.ActDelay, Wait: dur(time.Hour)},
		setLight("Hallway Light", `{"on": false}`))
	r.RestoreAfter = ptr(dur(time.Hour))
	v := h.create(r)
	h.motion(h.hallMotion, true)
	h.waitKinds(v.ID, automation.Fired)
	h.stop()
	waitFor(t, "the engine's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
	// Stopped, it still answers, and a Tick runs what is due on the caller.
	if _, err := h.eng.List(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.at(h.clock.Now().Add(time.Hour))
	waitFor(t, "the delayed step and the restore", func() bool { on, _ := lit(h.hallLight); return !on })
}
