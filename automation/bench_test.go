package automation_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
)

// BenchmarkStorm evaluates 1,000 rules (threshold triggers spread over 20
// sensors) against a storm of 1,000 sensor changes, handed to the engine
// as its subscriber would. It reports the time per change, and whether
// the engine keeps up with 1,000 changes in 2 s.
func BenchmarkStorm(b *testing.B) {
	const sensors, rules, changes = 20, 1000, 1000
	var extra []devices.Device
	for i := range sensors {
		extra = append(extra, sim.NewSensor("", fmt.Sprintf("Storm Sensor %d", i), "Attic",
			[]devices.Reading{sim.ValueReading(devices.ReadingTemperature, 20), sim.ValueReading(devices.ReadingHumidity, 40)}, sim.Options{}))
	}
	h := newHouse(b, extra...)
	eng := h.start()
	for i := range rules {
		r := automation.Rule{
			Name: fmt.Sprintf("Storm %d", i), Enabled: true,
			Trigger: automation.Trigger{
				Type: automation.TriggerSensor, Device: fmt.Sprintf("sim:storm-sensor-%d", i%sensors),
				Reading: devices.ReadingTemperature, Above: ptr(30 + float64(i%100)),
			},
			Conditions: []automation.Condition{{Type: automation.CondTime, After: "03:00", Before: "03:01"}},
			Actions:    []automation.Action{setLight("Hallway Light", `{"on": true}`)},
		}
		if i%2 == 1 {
			r.Trigger.Above, r.Trigger.Below = nil, ptr(10-float64(i%100))
		}
		if _, err := eng.Create(h.ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	events := make([]service.Event, changes)
	for i := range events {
		sv, err := h.svc.GetSensor(h.ctx, fmt.Sprintf("sim:storm-sensor-%d", i%sensors))
		if err != nil {
			b.Fatal(err)
		}
		sv.Readings = []devices.Reading{
			sim.ValueReading(devices.ReadingTemperature, 20+0.1*float64(i%7)),
			sim.ValueReading(devices.ReadingHumidity, 40+float64(i%3)),
		}
		events[i] = service.Event{Type: "sensor", ID: string(sv.ID), Action: "changed", Time: time.Now(), Data: sv}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, ev := range events {
			automation.Handle(eng, ev)
		}
	}
	perChange := b.Elapsed() / time.Duration(b.N*changes)
	b.ReportMetric(float64(perChange.Nanoseconds()), "ns/change")
	keepsUp := 0.0
	if perChange*changes < 2*time.Second {
		keepsUp = 1
	}
	b.ReportMetric(keepsUp, "keeps-up(1000/2s)")
}

// signalLight is a simulated light that says when a command reaches it.
type signalLight struct {
	*sim.Light
	hit chan time.Time
}

func (l signalLight) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	select {
	case l.hit <- time.Now():
	default:
	}
	return l.Light.SetLight(ctx, c)
}

// BenchmarkTriggerLatency measures the time from a sensor's change until
// the first command of the rule it triggers reaches the (simulated) light.
func BenchmarkTriggerLatency(b *testing.B) {
	lamp := signalLight{
		Light: sim.NewLight("", "Signal Lamp", "Hallway", devices.LightCaps{Dimmable: true}, sim.Options{}),
		hit:   make(chan time.Time, 1),
	}
	h := newHouse(b, lamp)
	h.start()
	h.create(onMotion("Signal", setLight("Signal Lamp", `{"on": true, "brightness": 70}`)))
	var total time.Duration
	n := 0
	for b.Loop() {
		h.motion(h.hallMotion, false)
		start := time.Now()
		if err := h.hallMotion.SetReading(devices.ReadingMotion, 1); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-lamp.hit:
			total += at.Sub(start)
			n++
		case <-time.After(waitLimit):
			b.Fatal("the lamp never got the command")
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(n), "ns/trigger")
}
