package neewer

import (
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
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

// A proxy that heard no advertisement at all is named as silent (a scan
// through a proxy another client holds hears nothing); one that heard
// any device, and the hub's own radio, are not.
func TestSilentProxies(t *testing.T) {
	studio, attic := &listeningRadio{Radio: neewertest.NewRadio()}, &listeningRadio{Radio: neewertest.NewRadio()}
	p := newRadios([]radio{{label: "hci0", tr: neewertest.NewRadio()}, {label: "studio", tr: studio}, {label: "attic", tr: attic}},
		Timing{}, time.Hour, nil)
	defer p.Close()
	if got := p.silentProxies(); len(got) != 2 {
		t.Fatalf("before any advertisement: %v", got)
	}
	p.saw(1, ble.Advertisement{Address: ble.Address{MAC: "AA:BB:CC:DD:EE:01"}, Name: "a thermometer", RSSI: -70})
	if got := p.silentProxies(); len(got) != 1 || got[0] != p.list[2].name() {
		t.Fatalf("after the studio heard a device: %v", got)
	}
}

// A proxy listened to that hears no device at all for Silent is named,
// once; one that heard a device is not.
func TestSilentProxyIsNamed(t *testing.T) {
	loud, quiet := &listeningRadio{Radio: neewertest.NewRadio()}, &listeningRadio{Radio: neewertest.NewRadio()}
	p := newRadios(nil, Timing{Silent: 2 * time.Second}, time.Hour, nil)
	named := make(chan string, 4)
	p.mu.Lock()
	p.silent = func(name string) { named <- name }
	p.mu.Unlock()
	p.add(radio{label: "studio", tr: loud})
	p.add(radio{label: "attic", tr: quiet})
	p.saw(0, ble.Advertisement{Address: ble.Address{MAC: "AA:BB:CC:DD:EE:01"}, Name: "a thermometer", RSSI: -70})
	select {
	case name := <-named:
		if name != "attic" {
			t.Fatalf("named %q as silent, want attic", name)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the silent proxy was not named")
	}
	_ = p.Close() // waits for every watch to end
	close(named)
	for name := range named {
		t.Errorf("named %q as silent as well", name)
	}
}
