package main

import (
	"context"
	"os"
	"runtime/debug"
	"time"
)

// The garbage collector's pace follows the hub's load. At rest the hub
// runs with Go's default (GOGC 100), which keeps its memory small: the
// heap it has live is small, so the collector runs whenever a few MiB
// have been allocated. Under a stream of requests (a script polling in a
// loop, a load test) that means a collection every few hundred requests,
// and the collector, with the scavenger handing pages back and the
// faults taking them again, was the largest cost of a read beyond
// writing its bytes. While the hub is busy the collector runs at half
// that pace (GOGC 200: the heap may grow to twice as much before a
// collection, a few MiB); once it is quiet again the default comes back
// and the heap grown meanwhile is handed back at once. A GOGC set in the
// environment is the operator's choice, and the pace is left alone.

const (
	// busyRequests is how many requests in one second make the hub busy;
	// a house's own traffic (a dashboard, scripts, an assistant) stays far
	// below it.
	busyRequests = 200
	// quietSeconds is how many seconds in a row below busyRequests make
	// it quiet again.
	quietSeconds = 10
	// busyGCPercent is the collector's target while busy; restGCPercent
	// Go's default.
	busyGCPercent = 200
	restGCPercent = 100
)

// gcPace decides the collector's target from the requests served each
// second. It is driven by observe, once a second; set and free stand for
// debug.SetGCPercent and debug.FreeOSMemory.
type gcPace struct {
	set   func(percent int) int
	free  func()
	busy  bool
	quiet int // seconds in a row below busyRequests while busy
}

func newGCPace() *gcPace {
	return &gcPace{set: debug.SetGCPercent, free: debug.FreeOSMemory}
}

// observe takes the number of requests served in the last second.
func (p *gcPace) observe(served uint64) {
	switch {
	case served >= busyRequests:
		p.quiet = 0
		if !p.busy {
			p.busy = true
			p.set(busyGCPercent)
		}
	case p.busy:
		p.quiet++
		if p.quiet >= quietSeconds {
			p.busy, p.quiet = false, 0
			p.set(restGCPercent)
			p.free()
		}
	}
}

// paceGC samples served (a count of the requests served so far) once a
// second until ctx ends, and sets the collector's pace by it; with GOGC
// set in the environment it does nothing. It puts the default back when
// it ends.
func paceGC(ctx context.Context, served func() uint64) error {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	p := newGCPace()
	defer p.set(restGCPercent)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := served()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			now := served()
			p.observe(now - last)
			last = now
		}
	}
}
