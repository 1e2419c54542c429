package automation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// The tests run the engine over a real service and real SQLite, with the
// simulated home and a hallway added to it, on a fake clock that the tests
// move and Tick.

// zone is where the tests' clock reads the time of day.
var zone = time.FixedZone("CET", 3600)

// monday is a Monday noon, where each test's clock starts.
var monday = time.Date(2026, 3, 16, 12, 0, 0, 0, zone)

// Berlin, for sunrise and sunset.
var berlinLat, berlinLon = 52.52, 13.405

// waitLimit bounds every wait for something asynchronous.
const waitLimit = 5 * time.Second

// clock is a fake clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// house is a service over the simulated home, an engine's store, and the
// engine while it runs.
type house struct {
	t     testing.TB
	svc   *service.Service
	home  *sim.Home
	db    *store.DB
	ctx   context.Context // a person with control scope
	clock *clock

	hallLight, hallLamp   *sim.Light
	hallMotion, frontDoor *sim.Sensor
	lat, lon              *float64

	eng  *automation.Engine
	stop func()

	mu    sync.Mutex
	heard []service.Event // what the engine has handled

	// gate, while a test holds it, stops the engine after the event it is
	// handling: the events after it wait on the bus.
	gate sync.Mutex
}

// newHouse builds the house, with extra devices; start runs an engine
// over it.
func newHouse(t testing.TB, extra ...devices.Device) *house {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	h := &house{t: t, home: home, db: db, clock: &clock{now: monday}}
	temp := devices.LightCaps{Dimmable: true, KelvinMin: 2200, KelvinMax: 6500}
	h.hallLight = sim.NewLight("", "Hallway Light", "Hallway", temp, sim.Options{})
	h.hallLamp = sim.NewLight("", "Hallway Lamp", "Hallway", temp, sim.Options{})
	h.hallMotion = sim.NewSensor("", "Hallway Motion", "Hallway", []devices.Reading{sim.BoolReading(devices.ReadingMotion, false)}, sim.Options{})
	h.frontDoor = sim.NewSensor("", "Front Door", "Hallway", []devices.Reading{sim.BoolReading(devices.ReadingContact, true)}, sim.Options{})
	sim.Register(reg, h.hallLight, h.hallLamp, h.hallMotion, h.frontDoor)
	sim.Register(reg, extra...)
	h.svc = service.New(service.Config{Store: db, Registry: reg})
	if err := h.svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close(); db.Close() })
	servicetest.Run(t, h.svc)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	h.ctx = service.WithPrincipal(ctx, p)
	return h
}

// located gives the hub a location (before start).
func (h *house) located() *house {
	h.lat, h.lon = &berlinLat, &berlinLon
	return h
}

// start runs a new engine over the house's store until the test ends (or
// restart), and waits until it follows the service's events.
func (h *house) start() *automation.Engine {
	h.t.Helper()
	eng := automation.New(automation.Config{
		Service: h.svc, Store: h.db, Now: h.clock.Now, Location: zone, Latitude: h.lat, Longitude: h.lon,
	})
	automation.OnHandled(eng, func(ev service.Event) {
		h.gate.Lock()
		h.gate.Unlock() //nolint:staticcheck // a gate: wait until the test opens it
		h.mu.Lock()
		h.heard = append(h.heard, ev)
		h.mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- eng.Run(ctx) }()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					h.t.Errorf("Run: %v", err)
				}
			case <-time.After(waitLimit):
				h.t.Errorf("Run did not end within %s of its context", waitLimit)
			}
		})
	}
	h.t.Cleanup(h.stop)
	h.eng = eng
	h.waitListening()
	return eng
}

// restart stops the engine and starts a new one on the same store.
func (h *house) restart() *automation.Engine {
	h.t.Helper()
	h.stop()
	return h.start()
}

// waitListening pings the bus until the engine hears it: then its
// subscription is in place and its rules have their baseline.
func (h *house) waitListening() {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for n := 0; time.Now().Before(deadline); n++ {
		id := fmt.Sprintf("ping-%d", n)
		mark := h.mark()
		h.svc.Events().Publish(service.Event{Type: "test", ID: id, Action: "ping"})
		for range 20 {
			if h.heardSince(mark, func(ev service.Event) bool { return ev.ID == id }) {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	h.t.Fatal("the engine never followed the service's events")
}

// mark is where the events heard so far end.
func (h *house) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.heard)
}

func (h *house) heardSince(mark int, match func(service.Event) bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.heard[mark:], match)
}

// waitHeard waits until the engine has handled an event since mark that
// matches.
func (h *house) waitHeard(what string, mark int, match func(service.Event) bool) {
	h.t.Helper()
	waitFor(h.t, what, func() bool { return h.heardSince(mark, match) })
}

// set sets a sensor's reading (for presence and contact, v ≠ 0 is true)
// and waits until the engine has handled the change.
func (h *house) set(s *sim.Sensor, typ string, v float64) {
	h.t.Helper()
	mark := h.mark()
	if err := s.SetReading(typ, v); err != nil {
		h.t.Fatal(err)
	}
	h.waitHeard(fmt.Sprintf("%s %s = %v to reach the engine", s.Info().Name, typ, v), mark, func(ev service.Event) bool {
		sv, ok := ev.Data.(service.SensorView)
		if !ok || sv.ID != s.Info().ID {
			return false
		}
		for _, r := range sv.Readings {
			if r.Type == typ && ((r.Bool != nil && *r.Bool == (v != 0)) || (r.Bool == nil && r.Value == v)) {
				return true
			}
		}
		return false
	})
}

// motion sets a motion or occupancy sensor.
func (h *house) motion(s *sim.Sensor, on bool) {
	h.t.Helper()
	v := 0.0
	if on {
		v = 1
	}
	typ := devices.ReadingMotion
	if s.Current()[0].Type == devices.ReadingOccupancy {
		typ = devices.ReadingOccupancy
	}
	h.set(s, typ, v)
}

// door opens (true) or closes the front door.
func (h *house) door(open bool) {
	h.t.Helper()
	v := 1.0
	if open {
		v = 0
	}
	h.set(h.frontDoor, devices.ReadingContact, v)
}

// byHand changes a light as its wall switch would, and waits until the
// engine has heard.
func (h *house) byHand(l *sim.Light, st devices.LightState) {
	h.t.Helper()
	mark := h.mark()
	l.SetState(st)
	h.waitHeard(l.Info().Name+" changed by hand to reach the engine", mark, func(ev service.Event) bool {
		v, ok := ev.Data.(service.Light)
		return ok && v.ID == l.Info().ID && v.State != nil && *v.State == st
	})
}

// at sets the clock and ticks the engine.
func (h *house) at(t time.Time) {
	h.clock.Set(t)
	h.eng.Tick(t)
}

// create saves a rule, failing the test on an error.
func (h *house) create(r automation.Rule) automation.View {
	h.t.Helper()
	v, err := h.eng.Create(h.ctx, r)
	if err != nil {
		h.t.Fatalf("creating %q: %v", r.Name, err)
	}
	return v
}

// trace is a rule's decisions, newest first.
func (h *house) trace(id string) []automation.TraceEntry {
	h.t.Helper()
	tr, err := h.eng.Trace(h.ctx, id, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return tr
}

// kinds lists a rule's decisions' kinds, oldest first.
func (h *house) kinds(id string) []string {
	tr := h.trace(id)
	out := make([]string, len(tr))
	for i, t := range tr {
		out[len(tr)-1-i] = t.Kind
	}
	return out
}

// waitKinds waits until a rule's decisions are want, oldest first.
func (h *house) waitKinds(id string, want ...string) {
	h.t.Helper()
	waitFor(h.t, fmt.Sprintf("the decisions %v", want), func() bool { return slices.Equal(h.kinds(id), want) })
}

// stillKinds checks that a rule's decisions are want, and stay so once
// the engine has caught up (nothing more is on its way).
func (h *house) stillKinds(id string, want ...string) {
	h.t.Helper()
	h.waitKinds(id, want...)
	h.quiet()
	if got := h.kinds(id); !slices.Equal(got, want) {
		for _, e := range h.trace(id) {
			h.t.Logf("%v %s: %s", e.At.In(zone), e.Kind, e.Why)
		}
		h.t.Fatalf("decisions = %v, want %v", got, want)
	}
}

// markers numbers the marker events quiet sends.
var markers atomic.Int64

// quiet waits until the engine has caught up with the house: it has
// handled a marker event published after everything before (the bus keeps
// their order), and the runs and restores it started have ended, with
// their writes. Twice, so the events those runs caused are handled too.
func (h *house) quiet() {
	h.t.Helper()
	for range 2 {
		id := fmt.Sprintf("marker-%d", markers.Add(1))
		mark := h.mark()
		h.svc.Events().Publish(service.Event{Type: "test", ID: id, Action: "marker"})
		h.waitHeard("the engine to handle "+id, mark, func(ev service.Event) bool { return ev.ID == id })
		automation.Quiesce(h.eng)
	}
}

// waitFor polls cond every few milliseconds until it holds, failing the
// test after waitLimit.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// state is an action's state.
func state(s string) json.RawMessage { return json.RawMessage(s) }

func ptr[T any](v T) *T { return &v }

func dur(d time.Duration) automation.Duration { return automation.Duration(d) }

// lit is a light's state: on at brightness b, or off.
func lit(l *sim.Light) (on bool, brightness int) {
	st := l.State()
	return st.On, st.Brightness
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := service.ErrorCode(err); got != code {
		tb.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

// onMotion is a rule: when Hallway Motion detects motion, do acts.
func onMotion(name string, acts ...automation.Action) automation.Rule {
	return automation.Rule{
		Name: name, Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSensor, Device: "Hallway Motion", To: automation.Detected},
		Actions: acts,
	}
}

// setLight is a light action.
func setLight(name, st string) automation.Action {
	return automation.Action{Type: automation.ActLight, Lights: []string{name}, State: state(st)}
}

func contains(s, part string) bool { return strings.Contains(s, part) }
