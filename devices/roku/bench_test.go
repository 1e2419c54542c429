package roku_test

import (
	"context"
	"testing"
	"time"

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
