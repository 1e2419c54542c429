package androidtv_test

import (
	"context"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
)

// BenchmarkKeyPress is one key press through the adapter to the fake TV
// on loopback (TLS), until the TV has it.
func BenchmarkKeyPress(b *testing.B) {
	fake := atvtest.Start(b, atvtest.Options{})
	_, tv := pairedRig(b, fake, config(b))
	ctx := context.Background()
	base := fake.KeyCount()
	b.ResetTimer()
	for i := range b.N {
		ch := fake.Changed()
		if err := tv.PressKey(ctx, "up"); err != nil {
			b.Fatal(err)
		}
		for fake.KeyCount() < base+i+1 {
			<-ch
			ch = fake.Changed()
		}
	}
}
