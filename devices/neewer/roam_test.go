package neewer

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
)

// slotRadio is a fake radio with a name and a number of free connection
// slots, as an ESPHome proxy says them.
type slotRadio struct {
	ble.Transport
	name string

	mu   sync.Mutex
	free int
}

func (r *slotRadio) Radio() string { return r.name }

func (r *slotRadio) Slots() (free, limit int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.free, 3, true
}

func (r *slotRadio) setFree(n int) {
	r.mu.Lock()
	r.free = n
	r.mu.Unlock()
}

// clock is a clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// pool is two radios, the hall (index 0) and the studio (1), hearing
// one light, on a clock the test moves; signals counts the light's
// signal reports.
type pool struct {
	*radios
	clock        *clock
	hall, studio *slotRadio
	addr         ble.Address
	link         *radioLink

	sigMu   sync.Mutex
	signals int
}

func newPool(t *testing.T) *pool {
	t.Helper()
	addr := ble.Address{MAC: keyMAC}
	mk := func(name string) *slotRadio {
		radio := neewertest.NewRadio()
		radio.Add(keyMAC, "NW-RGB660")
		return &slotRadio{Transport: radio, name: name, free: 3}
	}
	p := &pool{clock: &clock{now: time.Unix(1_000_000, 0)}, hall: mk("hall"), studio: mk("studio"), addr: addr}
	p.radios = newRadios([]radio{{tr: p.hall}, {tr: p.studio}},
		Timing{RoamMargin: 10, RoamAfter: 5 * time.Second, SignalEvery: 5 * time.Second}, time.Hour,
		func(string) { p.sigMu.Lock(); p.signals++; p.sigMu.Unlock() })
	p.radios.now = p.clock.Now
	t.Cleanup(func() { p.radios.Close() })
	return p
}

// ad is an advertisement of the light radio i heard at rssi.
func (p *pool) ad(i, rssi int) {
	p.saw(i, ble.Advertisement{Address: p.addr, Name: "NW-RGB660", RSSI: rssi})
}

// connectThroughHall connects the light while only the hall hears it.
func (p *pool) connectThroughHall(t *testing.T) {
	t.Helper()
	p.ad(0, -72)
	p.clock.add(2 * time.Second) // past the settling
	l, err := p.Connect(context.Background(), p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.link = l.(*radioLink)
	if p.link.radio != 0 {
		t.Fatalf("connected through radio %d, want the hall", p.link.radio)
	}
	t.Cleanup(func() { p.link.Close() })
}

// every sends n advertisements from radio i at rssi, a second apart.
func (p *pool) every(i, rssi, n int) {
	for range n {
		p.ad(i, rssi)
		p.ad(0, -72) // the hall goes on hearing the light as before
		p.clock.add(time.Second)
	}
}

func (p *pool) target() (int, bool) { return p.roamTarget(keyMAC, p.link.radio) }

func (p *pool) signalCount() int {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	return p.signals
}

// The roaming rule: a radio takes the light only once it has heard it
// at least RoamMargin louder for RoamAfter, in two advertisements or
// more, and has a free slot; 3 dB louder for a minute is not enough.
func TestRoamTargetNeedsALouderRadioForLong(t *testing.T) {
	p := newPool(t)
	p.connectThroughHall(t)

	p.every(1, -69, 60)
	if i, ok := p.target(); ok {
		t.Fatalf("a radio 3 dB louder for a minute takes the light (radio %d)", i)
	}

	p.ad(1, -60) // 12 dB louder: the run begins
	if _, ok := p.target(); ok {
		t.Fatal("one loud advertisement takes the light")
	}
	p.clock.add(4 * time.Second)
	p.ad(1, -60)
	if _, ok := p.target(); ok {
		t.Fatal("4 s of loud advertisements take the light; want 5 s")
	}
	p.clock.add(time.Second)
	p.ad(1, -60)
	if i, ok := p.target(); !ok || i != 1 {
		t.Fatalf("target %d, %v after 5 s 12 dB louder; want the studio", i, ok)
	}

	p.studio.setFree(0)
	if _, ok := p.target(); ok {
		t.Fatal("a radio without a free slot takes the light")
	}
	p.studio.setFree(1)

	p.clock.add(6 * time.Second) // silence: the studio no longer hears it
	if _, ok := p.target(); ok {
		t.Fatal("a radio that stopped hearing the light takes it")
	}
	p.ad(1, -60) // heard again: a new run, which must last again
	if _, ok := p.target(); ok {
		t.Fatal("a run broken by silence goes on")
	}
	p.every(1, -60, 6)
	if _, ok := p.target(); !ok {
		t.Fatal("the new run, 6 s long, does not take the light")
	}
	p.ad(1, -65) // 7 dB louder only: the run ends
	if _, ok := p.target(); ok {
		t.Fatal("an advertisement less than 10 dB louder does not end the run")
	}
}

// A link idle for RoamIdle leaves for the louder radio; one that carried
// a command lately, or carries one now, stays.
func TestRoamWaitsForAnIdleLink(t *testing.T) {
	p := newPool(t)
	p.connectThroughHall(t)
	c := newConn(p.radios, p.addr, Timing{RoamIdle: 10 * time.Second}, slog.New(slog.DiscardHandler))
	c.now = p.clock.Now
	c.changed = func() {}
	c.setLink(p.link)
	p.every(1, -50, 6) // the studio hears it loud

	if _, ok := c.roamDue(p.link); ok {
		t.Fatal("a link made 6 s ago moves; want 10 s idle")
	}
	p.every(1, -50, 4)
	c.mu.Lock()
	c.busy = 1 // a command is writing
	c.mu.Unlock()
	if _, ok := c.roamDue(p.link); ok {
		t.Fatal("a link moves in the middle of a command")
	}
	c.mu.Lock()
	c.busy, c.lastUse = 0, p.clock.Now()
	c.mu.Unlock()
	p.every(1, -50, 9)
	if _, ok := c.roamDue(p.link); ok {
		t.Fatal("a link that carried a command 9 s ago moves")
	}
	p.every(1, -50, 1)
	to, ok := c.roamDue(p.link)
	if !ok || to != "studio" {
		t.Fatalf("an idle link with a louder radio moves to %q, %v; want the studio", to, ok)
	}
	c.mu.Lock()
	taken := c.link == nil
	c.mu.Unlock()
	if !taken {
		t.Fatal("the link moving is still handed to writers")
	}
}

// The signal of the radio a light is connected through is reported when
// it moves 5 dB or more, at most once every SignalEvery; other radios'
// advertisements report nothing.
func TestSignalReportsAreFewAndMeaningful(t *testing.T) {
	p := newPool(t)
	p.connectThroughHall(t)
	p.clock.add(6 * time.Second)
	p.ad(0, -70)
	p.ad(1, -40)
	if n := p.signalCount(); n != 0 {
		t.Fatalf("%d reports for 2 dB and another radio", n)
	}
	p.ad(0, -66)
	if n := p.signalCount(); n != 1 {
		t.Fatalf("%d reports after a 6 dB move, want 1", n)
	}
	p.clock.add(time.Second)
	p.ad(0, -58)
	if n := p.signalCount(); n != 1 {
		t.Fatalf("%d reports for a second move 1 s after the first, want still 1", n)
	}
	p.clock.add(5 * time.Second)
	p.ad(0, -58)
	if n := p.signalCount(); n != 2 {
		t.Fatalf("%d reports once 5 s have passed, want 2", n)
	}
	if v := p.link.via(); v.RSSI != -58 || v.Radio != "hall" {
		t.Fatalf("via %+v, want the hall at -58", v)
	}
}

// A radio whose link to the light was lost takes it back only after
// hearing it loud for RoamAfter, and twice as long for each further loss
// in a row: a proxy that keeps dropping a light does not keep winning it.
func TestRoamBackOffAfterLosses(t *testing.T) {
	p := newPool(t)
	lose := func() {
		p.mu.Lock()
		p.ended(keyMAC, 1)
		p.mu.Unlock()
	}
	p.connectThroughHall(t)
	for losses, need := range []int{5, 5, 10, 20} {
		if losses > 0 {
			lose()
		}
		p.every(1, -50, need-1)
		p.ad(1, -50)
		if _, ok := p.target(); ok {
			t.Fatalf("after %d losses, %d s of loud advertisements take the light back; want %d s", losses, need-1, need)
		}
		p.clock.add(time.Second)
		p.ad(1, -50)
		if i, ok := p.target(); !ok || i != 1 {
			t.Fatalf("after %d losses, %d s of loud advertisements do not take the light back", losses, need)
		}
	}
}

// A light does not move on the strength of an old reading of the radio
// it is connected through: how loud that radio hears it now is unknown.
func TestRoamNeedsARecentReadingOfTheCurrentRadio(t *testing.T) {
	p := newPool(t)
	p.connectThroughHall(t)
	p.clock.add(9 * time.Second) // the hall's reading is 11 s old
	for range 8 {                // the studio hears it loud, the hall says nothing
		p.ad(1, -50)
		p.clock.add(time.Second)
	}
	p.ad(1, -50)
	if i, ok := p.target(); ok {
		t.Fatalf("a light moves to radio %d against a reading of its radio 19 s old", i)
	}
	p.every(1, -50, 6) // the hall hears it again, quieter than the studio
	if i, ok := p.target(); !ok || i != 1 {
		t.Fatalf("target %d, %v once the hall hears the light again; want the studio", i, ok)
	}
}
