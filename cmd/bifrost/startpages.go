package main

import (
	"context"
	"runtime/debug"
	"time"
)

// startPagesDelay is how long after the house is read the hub hands back
// the pages only its start used: the first requests, which come at once
// and touch many of the same pages, are served from them, and the start
// is not slowed by faulting them in again.
const startPagesDelay = 5 * time.Second

// releaseStartPagesLater calls releaseStartPages once the start has
// settled, unless ctx ends first, and hands back the heap the start
// grew too (reading the house, the migrations, the first answers), at
// once rather than as the runtime's background scavenger would, a page
// at a time while the first requests are served.
func releaseStartPagesLater(ctx context.Context) error {
	t := time.NewTimer(startPagesDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		releaseStartPages()
		debug.FreeOSMemory()
	}
	return nil
}
