package voice

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// BenchmarkUnderstand400 reads and resolves a command in a house of 400
// devices (300 lights, 100 plugs): the house read from the live model,
// the clause parsed and its target found; nothing is carried out.
func BenchmarkUnderstand400(b *testing.B) {
	large := servicetest.LargeHouse(b, 300, 100)
	c := New(large.Service)
	ctx := service.WithPrincipal(context.Background(), service.System)
	for _, text := range []string{"turn off attic light 7", "dim the first floor lights to 20 percent and turn off the garden"} {
		b.Run("cold/"+text, func(b *testing.B) {
			for b.Loop() {
				h, err := c.readNow(ctx) // as after any change in the house
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := h.plan(clauses(words(text))); !ok {
					b.Fatal("not understood")
				}
			}
		})
		b.Run("warm/"+text, func(b *testing.B) {
			for b.Loop() {
				h, err := c.read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := h.plan(clauses(words(text))); !ok {
					b.Fatal("not understood")
				}
			}
		})
	}
}

// BenchmarkCommandDemo runs "turn off the office" (and back on) on the
// simulated home whose devices answer in 1 ms.
func BenchmarkCommandDemo(b *testing.B) {
	reg := devices.NewRegistry(0)
	b.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{Latency: time.Millisecond})
	home.Register(reg)
	svc := servicetest.New(b, reg, 0)
	c := New(svc)
	ctx := service.WithPrincipal(context.Background(), service.System)
	i := 0
	for b.Loop() {
		text := "turn off the office"
		if i%2 == 1 {
			text = "turn on the office"
		}
		i++
		if a, err := c.Command(ctx, text, ""); err != nil || !a.OK {
			b.Fatalf("%+v %v", a, err)
		}
	}
}

// BenchmarkVocabulary400 lists the vocabulary of a house of 400 devices.
func BenchmarkVocabulary400(b *testing.B) {
	large := servicetest.LargeHouse(b, 300, 100)
	c := New(large.Service)
	ctx := service.WithPrincipal(context.Background(), service.System)
	for b.Loop() {
		if _, err := c.Vocabulary(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
