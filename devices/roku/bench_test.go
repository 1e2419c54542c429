package roku_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices/roku"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

// BenchmarkPressKey is one key press through the adapter to the fake on
// loopback: an HTTP POST on a kept-alive connection and its answer.
func BenchmarkPressKey(b *testing.B) {
	r := startRig(b, roku.Config{PollInterval: time.Hour})
	f := newFake(b, rokutest.Options{})
	d := r.add(b, f)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := d.PressKey(ctx, "select"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeyPressThroughTheHub is one key press end to end on loopback:
// POST /api/v1/remote/devices/{tv}/command over HTTP, the service, the
// device's worker, the adapter's ECP request, the fake's answer, and the
// hub's read of the Roku's state after the key (the app in front may
// change), which a script waits for.
func BenchmarkKeyPressThroughTheHub(b *testing.B) {
	r := startRig(b, roku.Config{PollInterval: time.Hour})
	f := newFake(b, rokutest.Options{})
	d := r.add(b, f)
	h := apitest.Start(b, r.reg, 2*time.Second)
	path := "/remote/devices/" + string(d.Info().ID) + "/command"
	b.ResetTimer()
	for b.Loop() {
		h.V1(b, http.MethodPost, path, `{"key": "select"}`, http.StatusOK, nil)
	}
}
