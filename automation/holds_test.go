package automation_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

// warm is a light's state: on at brightness b, 2700 K.
func warm(b int) devices.LightState {
	return devices.LightState{On: true, Brightness: b, Mode: devices.ModeTemperature, Kelvin: 2700}
}

// waitBrightness waits until a light is on at brightness b.
func waitBrightness(tb testing.TB, l *sim.Light, b int) {
	tb.Helper()
	waitFor(tb, l.Info().Name+" on at "+strconv.Itoa(b)+" %", func() bool {
		on, got := lit(l)
		return on && got == b
	})
}

// keepsBrightness checks that a light is on at brightness b, and stays so
// once the engine has caught up.
func (h *house) keepsBrightness(l *sim.Light, b int) {
	h.t.Helper()
	waitBrightness(h.t, l, b)
	h.quiet()
	if on, got := lit(l); !on || got != b {
		h.t.Fatalf("%s is on=%v at %d %%, want on at %d %%", l.Info().Name, on, got, b)
	}
}

// porchLight is a rule: on motion, the hallway light at 30 %, put back
// after 5 minutes.
func porchLight(h *house) automation.View {
	r := onMotion("Hall at night", setLight("Hallway Light", `{"brightness": 30}`))
	r.RestoreAfter = ptr(dur(5 * time.Minute))
	return h.create(r)
}

func TestPutThingsBackAfterTheTime(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.waitKinds(r.ID, automation.Fired)
	v, err := h.eng.Get(h.ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Holding, []string{"sim:hallway-light"}) || v.RestoreAt == nil || !v.RestoreAt.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("view holds %v until %v", v.Holding, v.RestoreAt)
	}
	h.at(t0.Add(5*time.Minute - time.Second))
	h.keepsBrightness(h.hallLight, 30)
	h.at(t0.Add(5 * time.Minute))
	waitBrightness(t, h.hallLight, 60)
	h.waitKinds(r.ID, automation.Fired, automation.Restored)
	tr := h.trace(r.ID)
	if tr[0].Why != "put back Hallway Light after 5 minutes" || tr[0].Outcome != "ok" {
		t.Fatalf("restore entry %+v", tr[0])
	}
	if st := h.hallLight.State(); st.Kelvin != 2700 {
		t.Fatalf("restored to %+v, want its temperature back too", st)
	}
}

func TestPutThingsBackRefireExtendsAndKeepsTheFirstCapture(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.waitKinds(r.ID, automation.Fired)
	h.motion(h.hallMotion, false)
	h.clock.Set(t0.Add(3 * time.Minute))
	h.motion(h.hallMotion, true) // again, while the light is held at 30 %
	h.waitKinds(r.ID, automation.Fired, automation.Fired)
	h.at(t0.Add(5 * time.Minute))
	h.keepsBrightness(h.hallLight, 30)
	h.at(t0.Add(8 * time.Minute))
	waitBrightness(t, h.hallLight, 60) // the first capture, not the rule's own 30 %
	h.waitKinds(r.ID, automation.Fired, automation.Fired, automation.Restored)
}

func TestPutThingsBackOverlappingRulesInheritTheEarlierCapture(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	a := porchLight(h)
	rb := automation.Rule{
		Name: "Door light", Enabled: true,
		Trigger:      automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open},
		Actions:      []automation.Action{setLight("Hallway Light", `{"brightness": 80}`)},
		RestoreAfter: ptr(dur(10 * time.Minute)),
	}
	b := h.create(rb)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	h.clock.Set(t0.Add(time.Minute))
	h.door(true)
	waitBrightness(t, h.hallLight, 80)
	h.waitKinds(a.ID, automation.Fired, automation.Released)
	if why := h.trace(a.ID)[0].Why; why != "\u201cDoor light\u201d took over Hallway Light and puts it back to how it was before" {
		t.Fatalf("why = %q", why)
	}
	h.at(t0.Add(5 * time.Minute)) // the first rule's time: it no longer holds the light
	h.keepsBrightness(h.hallLight, 80)
	h.at(t0.Add(11 * time.Minute))
	waitBrightness(t, h.hallLight, 60) // back to before either rule
	h.waitKinds(b.ID, automation.Fired, automation.Restored)
}

func TestPutThingsBackManualChangeReleasesThatDevice(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	h.byHand(h.hallLamp, warm(40))
	r := onMotion("Hall up", automation.Action{Type: automation.ActRoom, Room: "Hallway", State: state(`{"on": true, "brightness": 30}`)})
	r.RestoreAfter = ptr(dur(5 * time.Minute))
	v := h.create(r)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	waitBrightness(t, h.hallLamp, 30)
	h.waitKinds(v.ID, automation.Fired)

	// Neither an offline blip nor the device's own rounding is a change.
	h.hallLight.SetUnreachable(true)
	waitFor(t, "the hallway light offline", func() bool {
		l, err := h.svc.GetLight(h.ctx, "Hallway Light")
		return err == nil && !l.Online
	})
	h.hallLight.SetUnreachable(false)
	waitFor(t, "the hallway light back", func() bool {
		l, err := h.svc.GetLight(h.ctx, "Hallway Light")
		return err == nil && l.Online && l.State != nil
	})
	rounded := warm(31)
	rounded.Kelvin = h.hallLight.State().Kelvin + 50
	h.byHand(h.hallLight, rounded)
	// Someone turns the lamp up: it keeps that.
	h.byHand(h.hallLamp, warm(100))
	h.waitKinds(v.ID, automation.Fired, automation.Released)
	if why := h.trace(v.ID)[0].Why; why != "Hallway Lamp was changed by someone else, and keeps that change" {
		t.Fatalf("why = %q", why)
	}
	got, err := h.eng.Get(h.ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Holding, []string{"sim:hallway-light"}) {
		t.Fatalf("holding %v, want just the hallway light", got.Holding)
	}
	h.at(t0.Add(5 * time.Minute))
	waitBrightness(t, h.hallLight, 60)
	h.keepsBrightness(h.hallLamp, 100)
	h.waitKinds(v.ID, automation.Fired, automation.Released, automation.Restored)
}

func TestPutThingsBackSurvivesARestart(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(60))
	r := porchLight(h)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 30)
	waitFor(t, "the hold to be stored with the state the rule left", func() bool {
		hs, err := h.db.ListHolds(context.Background())
		return err == nil && len(hs) == 1 && hs[0].Applied.Light != nil && hs[0].Applied.Light.Brightness == 30
	})
	h.stop()
	h.clock.Set(t0.Add(6 * time.Minute)) // overdue by the time the hub is back
	h.start()
	waitBrightness(t, h.hallLight, 60)
	h.waitKinds(r.ID, automation.Fired, automation.Restored)
	waitFor(t, "the hold to be gone from the store", func() bool {
		hs, err := h.db.ListHolds(context.Background())
		return err == nil && len(hs) == 0
	})
}

func TestPutThingsBackExpandsAScene(t *testing.T) {
	h := newHouse(t)
	h.start()
	h.byHand(h.hallLight, warm(70))
	h.byHand(h.hallLamp, warm(70))
	if _, err := h.svc.CaptureScene(h.ctx, "Bright hall", "Hallway"); err != nil {
		t.Fatal(err)
	}
	h.byHand(h.hallLight, warm(10))
	h.byHand(h.hallLamp, devices.LightState{Brightness: 50, Mode: devices.ModeTemperature, Kelvin: 2700})
	r := h.create(automation.Rule{
		Name: "Show the hall", Enabled: false, // Run now runs it even so
		Trigger:      automation.Trigger{Type: automation.TriggerSensor, Device: "Front Door", To: automation.Open},
		Actions:      []automation.Action{{Type: automation.ActScene, Scene: "Bright hall"}},
		RestoreAfter: ptr(dur(time.Minute)),
	})
	t0 := h.clock.Now()
	res, err := h.eng.RunNow(h.ctx, r.ID)
	if err != nil || res.Outcome != "ok" {
		t.Fatalf("RunNow = %+v, %v", res, err)
	}
	waitBrightness(t, h.hallLight, 70)
	waitBrightness(t, h.hallLamp, 70)
	h.at(t0.Add(time.Minute))
	waitBrightness(t, h.hallLight, 10)
	waitFor(t, "the hallway lamp off again", func() bool { on, _ := lit(h.hallLamp); return !on })
	h.waitKinds(r.ID, automation.Ran, automation.Restored)
}

func TestDelayRunsTheRestLater(t *testing.T) {
	h := newHouse(t)
	h.start()
	r := onMotion("Blink",
		setLight("Hallway Light", `{"on": true, "brightness": 90}`),
		automation.Action{Type: automation.ActDelay, Wait: dur(5 * time.Minute)},
		setLight("Hallway Light", `{"on": false}`),
	)
	v := h.create(r)
	t0 := h.clock.Now()
	h.motion(h.hallMotion, true)
	waitBrightness(t, h.hallLight, 90)
	h.waitKinds(v.ID, automation.Fired)
	h.at(t0.Add(4 * time.Minute))
	h.keepsBrightness(h.hallLight, 90)
	h.at(t0.Add(5 * time.Minute))
	waitFor(t, "the hallway light off after the delay", func() bool { on, _ := lit(h.hallLight); return !on })
	h.waitKinds(v.ID, automation.Fired, automation.Fired)
	if tr := h.trace(v.ID); tr[0].Why != "its wait of 5 minutes was over" || len(tr[0].Actions) != 1 || len(tr[1].Actions) != 1 {
		t.Fatalf("trace %+v", tr)
	}
}
