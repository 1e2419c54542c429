package neewer

import (
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
)

// listeningRadio is a fake proxy that listens all the time and says
// whether it was closed.
type listeningRadio struct {
	*neewertest.Radio

	mu     sync.Mutex
	closed bool
}

func (r *listeningRadio) ListensAlways() bool { return true }

func (r *listeningRadio) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return r.Radio.Close()
}

func (r *listeningRadio) wasClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// A radio added while the adapter closes is closed with it, or by
// AddRadio once the adapter is closed: none is left open.
func TestAddRadioRacingClose(t *testing.T) {
	for range 50 {
		reg := devices.NewRegistry(time.Second)
		ad := New(Config{Transport: neewertest.NewRadio(), Registry: reg, Timing: fastTiming(), ScanFor: time.Hour, Rescan: -1})
		added := &listeningRadio{Radio: neewertest.NewRadio()}
		done := make(chan struct{})
		go func() {
			defer close(done)
			ad.AddRadio(added)
		}()
		ad.Close()
		<-done
		reg.Close()
		if !added.wasClosed() {
			t.Fatal("a radio added as the adapter closed was left open")
		}
	}
}

// The same for the pool of radios itself, with the adapter's own check
// out of the way.
func TestAddRacingCloseOfRadios(t *testing.T) {
	for range 50 {
		p := newRadios(nil, fastTiming(), time.Hour, nil)
		added := &listeningRadio{Radio: neewertest.NewRadio()}
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.add(radio{tr: added})
		}()
		p.Close()
		<-done
		if !added.wasClosed() {
			t.Fatal("a radio added as the pool closed was left open")
		}
	}
}
