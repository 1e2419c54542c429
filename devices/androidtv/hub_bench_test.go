package androidtv_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
)

// BenchmarkKeyPressThroughTheHub is one key press end to end on loopback:
// POST /api/v1/remote/devices/{tv}/command over HTTP, the service, the
// device's worker, the adapter, TLS, until the fake TV has the key. The
// hub reads the TV again after a key (the app in front may change), and
// answers only after that read: this is what a script waits for.
func BenchmarkKeyPressThroughTheHub(b *testing.B) {
	fake := atvtest.Start(b, atvtest.Options{})
	r, _ := pairedRig(b, fake, config(b))
	h := apitest.Start(b, r.reg, 2*time.Second)
	path := "/remote/devices/" + string(fakeID) + "/command"
	h.V1(b, http.MethodPost, path, `{"key": "up"}`, http.StatusOK, nil)
	base := fake.KeyCount()
	b.ResetTimer()
	for i := range b.N {
		ch := fake.Changed()
		h.V1(b, http.MethodPost, path, `{"key": "up"}`, http.StatusOK, nil)
		for fake.KeyCount() < base+i+1 {
			<-ch
			ch = fake.Changed()
		}
	}
}
