package bleproxy_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/bleproxy"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// N2 of PROTOCOLS.md §1.10: power off.
var powerOff = []byte{0x78, 0x81, 0x01, 0x02, 0xFC}

// house is the Neewer adapter with two proxies in range of one light:
// the studio's hears it loud, the hall's faint.
type house struct {
	studio, hall *esphometest.Node
	ad           *neewer.Adapter
	changes      *signal
}

// signal is closed and replaced at each change of the registry.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *signal) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.ch)
	s.ch = make(chan struct{})
}

func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// proxyNode runs a fake proxy and a node client of it until the test
// ends; before returns, the fake may be changed (its slots).
func proxyNode(t *testing.T, name string, rssi int, before func(*esphometest.Node)) (*esphometest.Node, *bleproxy.Transport) {
	t.Helper()
	fake := esphometest.Start(t, esphometest.Config{Name: name, BluetoothProxy: true, LightRSSI: rssi})
	if before != nil {
		before(fake)
	}
	n, err := esphome.New(esphome.Config{
		Addr: fake.Addr(), Logf: t.Logf,
		Backoff: devices.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := esphometest.Run(t, n)
	var tr *bleproxy.Transport
	bleproxy.Follow(ctx, n, func(x *bleproxy.Transport) { tr = x })
	if tr == nil {
		t.Fatal("the node was not seen as a proxy")
	}
	esphometest.WaitFor(t, name+" subscribed", tr.Changed, func() bool { _, _, ok := tr.Slots(); return ok })
	return fake, tr
}

// newHouse starts both proxies (studio at -50 dBm, hall at -72), then
// the adapter with both as its radios and no local one, its timing as
// tune leaves it (roaming and signal reports at their defaults, of
// seconds, unless tuned).
func newHouse(t *testing.T, studioSetup func(*esphometest.Node), tune ...func(*neewer.Timing)) *house {
	t.Helper()
	studio, trS := proxyNode(t, "studio", -50, studioSetup)
	hall, trH := proxyNode(t, "hall", -72, nil)
	reg := devices.NewRegistry(waitLimit)
	h := &house{studio: studio, hall: hall, changes: &signal{ch: make(chan struct{})}}
	reg.Subscribe(func(devices.Change) { h.changes.fire() })
	timing := neewer.Timing{
		Settle: 200 * time.Millisecond, ConnectTimeout: waitLimit,
		BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond, ProbeInterval: time.Hour,
	}
	for _, f := range tune {
		f(&timing)
	}
	h.ad = neewer.New(neewer.Config{
		Proxies: []ble.Transport{trS, trH}, Registry: reg, ScanFor: time.Hour, Rescan: -1, Timing: timing,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.ad.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		h.ad.Close()
		<-done
		reg.Close()
	})
	return h
}

// via waits until the light is reached through radio, and returns what
// the light says of it.
func (h *house) via(t *testing.T, radio string) devices.Via {
	t.Helper()
	var v devices.Via
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		ch := h.changes.wait()
		if l, ok := h.ad.Light(esphometest.LightMAC); ok {
			var up bool
			if v, up = l.Via(); up && v.Radio == radio {
				return v
			}
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("the light is reached through %+v, want %s", v, radio)
		}
	}
}

// command switches the light on or off.
func (h *house) command(t *testing.T, on bool) {
	t.Helper()
	l, ok := h.ad.Light(esphometest.LightMAC)
	if !ok {
		t.Fatal("no light")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := l.SetLight(ctx, devices.LightChange{On: &on}); err != nil {
		t.Fatal(err)
	}
}

// wrote waits until fake received a write of exactly b to the light's
// write characteristic.
func wrote(t *testing.T, fake *esphometest.Node, b []byte) {
	t.Helper()
	esphometest.WaitFor(t, "the frame", fake.Changed, func() bool { return writes(fake, b) > 0 })
}

func writes(fake *esphometest.Node, b []byte) int {
	n := 0
	ws, _ := received[*espwire.BluetoothGATTWriteRequest](fake)
	for _, w := range ws {
		if w.Handle == esphometest.HandleWrite && bytes.Equal(w.Data, b) {
			n++
		}
	}
	return n
}

func connects(fake *esphometest.Node) int {
	n := 0
	reqs, _ := received[*espwire.BluetoothDeviceRequest](fake)
	for _, r := range reqs {
		if r.RequestType == espwire.BluetoothConnectWithoutCache || r.RequestType == espwire.BluetoothConnectWithCache {
			n++
		}
	}
	return n
}

// Two proxies hear the light: it connects through the louder, the view
// says so with its signal, and a command reaches the light through it
// as the frame of PROTOCOLS.md §1.10 N1; the fainter one is not asked.
func TestLightConnectsThroughTheLoudestProxy(t *testing.T) {
	h := newHouse(t, nil)
	v := h.via(t, "esphome:studio")
	if v.RSSI != -50 {
		t.Fatalf("via %+v, want the studio's -50 dBm", v)
	}
	h.command(t, true)
	wrote(t, h.studio, powerOn)
	if !h.studio.LightConnected() || h.hall.LightConnected() || connects(h.hall) != 0 {
		t.Fatalf("studio connected %v, hall connected %v (asked %d times): want only the studio",
			h.studio.LightConnected(), h.hall.LightConnected(), connects(h.hall))
	}
}

// The louder proxy has no free slot: the light connects through the
// other, which is never refused, and the louder one is never asked.
func TestNoFreeSlotFallsBackToTheNextProxy(t *testing.T) {
	h := newHouse(t, func(studio *esphometest.Node) { studio.SetFreeSlots(0) })
	v := h.via(t, "esphome:hall")
	if v.RSSI != -72 {
		t.Fatalf("via %+v, want the hall's -72 dBm", v)
	}
	h.command(t, true)
	wrote(t, h.hall, powerOn)
	if n := connects(h.studio); n != 0 {
		t.Fatalf("the studio proxy, with no free slot, was asked to connect %d times", n)
	}
}

// The louder proxy goes away (it restarts) or loses the light: the light
// moves to the other proxy, the view follows, and the next command
// reaches the light through it (N2, power off).
func TestLightMovesToTheNextProxy(t *testing.T) {
	for name, lose := range map[string]func(t *testing.T, studio *esphometest.Node){
		"proxy restarts": func(t *testing.T, studio *esphometest.Node) { studio.Restart(t) },
		"light dropped":  func(_ *testing.T, studio *esphometest.Node) { studio.DropLight() },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHouse(t, nil)
			h.via(t, "esphome:studio")
			h.command(t, true)
			wrote(t, h.studio, powerOn)

			lose(t, h.studio)
			v := h.via(t, "esphome:hall")
			if v.RSSI != -72 {
				t.Fatalf("via %+v, want the hall's -72 dBm", v)
			}
			h.command(t, false)
			wrote(t, h.hall, powerOff)
			if writes(h.studio, powerOff) != 0 {
				t.Fatal("the command went to the proxy that lost the light")
			}
		})
	}
}

// quickRoam makes roaming take a fraction of a second: a radio 10 dB
// louder for 100 ms, a link idle for 200 ms.
func quickRoam(t *neewer.Timing) {
	t.RoamAfter, t.RoamIdle = 100*time.Millisecond, 200*time.Millisecond
}

// The louder proxy goes away and the light moves to the other; when it
// returns and hears the light loud again, the light moves back once its
// link is idle, and the next command goes through it (the proxy shows
// the connection and the frame); the other proxy lets the light go.
func TestLightMovesBackToTheLouderProxy(t *testing.T) {
	h := newHouse(t, nil, quickRoam)
	h.via(t, "esphome:studio")
	h.command(t, true)
	wrote(t, h.studio, powerOn)

	h.studio.Close() // the studio's proxy goes away
	h.via(t, "esphome:hall")
	h.command(t, false)
	wrote(t, h.hall, powerOff)

	h.studio.Restart(t) // and comes back, hearing the light at -50 dBm
	if v := h.via(t, "esphome:studio"); v.RSSI != -50 {
		t.Fatalf("via %+v, want the studio's -50 dBm", v)
	}
	esphometest.WaitFor(t, "the hall to let the light go", h.hall.Changed, func() bool { return !h.hall.LightConnected() })
	h.command(t, true)
	esphometest.WaitFor(t, "the frame through the studio", h.studio.Changed, func() bool { return writes(h.studio, powerOn) == 2 })
	if !h.studio.LightConnected() || writes(h.hall, powerOn) != 0 {
		t.Fatalf("studio connected %v, hall asked to switch on %d times: want the studio only",
			h.studio.LightConnected(), writes(h.hall, powerOn))
	}
}
