package service_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// bigRoom is a service with one room of n simulated lights, each answering
// after latency.
func bigRoom(b *testing.B, n int, latency time.Duration) (*service.Service, context.Context) {
	b.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "bifrost.db"))
	if err != nil {
		b.Fatal(err)
	}
	reg := devices.NewRegistry(5 * time.Second)
	caps := devices.LightCaps{Dimmable: true, Color: true, Gamut: "C", KelvinMin: 2000, KelvinMax: 6500}
	for i := range n {
		name := fmt.Sprintf("Lamp %02d", i)
		reg.Add(sim.NewLight(fmt.Sprintf("lamp-%02d", i), name, "Hall", caps, sim.Options{Latency: latency}))
	}
	svc := service.New(service.Config{Store: db, Registry: reg})
	if err := svc.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { reg.Close(); db.Close() })
	return svc, service.WithPrincipal(ctx, service.System)
}

// roomLatency is how long each lamp of the benchmarks' big room takes to
// answer: one device round trip.
const roomLatency = 20 * time.Millisecond

// BenchmarkRoomFanout50 sets a room of 50 lights with 20 ms latency each:
// the fan-out must cost about one device's latency, not fifty
// ("x-roundtrip": ms/room over 20 ms).
func BenchmarkRoomFanout50(b *testing.B) {
	svc, ctx := bigRoom(b, 50, roomLatency)
	roomFanout(ctx, b, svc)
}

// BenchmarkRoomFanout50ByKey is the same write made with an API key, whose
// changes can be undone: each lamp's prior state comes from the live
// model, so the write too should cost about one round trip (the target is
// ≤ 1.5 × 20 ms).
func BenchmarkRoomFanout50ByKey(b *testing.B) {
	svc, _ := bigRoom(b, 50, roomLatency)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "bench", Scope: service.ScopeControl})
	roomFanout(key, b, svc)
}

func roomFanout(ctx context.Context, b *testing.B, svc *service.Service) {
	on := true
	b.ResetTimer()
	for i := range b.N {
		bri := 10 + i%90
		res, err := svc.SetRoom(ctx, "Hall", service.RoomPatch{On: &on, Brightness: &bri})
		if err != nil || len(res.Applied) != 50 {
			b.Fatalf("%v %+v", err, res.Failed)
		}
	}
	ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(ms, "ms/room")
	b.ReportMetric(ms/float64(roomLatency.Milliseconds()), "x-roundtrip")
}

// BenchmarkRoomDim50 dims the same room without "on": every light's state is
// read first (in parallel) to leave unlit lights alone.
func BenchmarkRoomDim50(b *testing.B) {
	svc, ctx := bigRoom(b, 50, 20*time.Millisecond)
	on := true
	if _, err := svc.SetRoom(ctx, "Hall", service.RoomPatch{On: &on}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		bri := 10 + i%90
		if _, err := svc.SetRoom(ctx, "Hall", service.RoomPatch{Brightness: &bri}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/room")
}
