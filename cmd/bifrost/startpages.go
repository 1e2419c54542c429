package main

import (
	"context"
	"time"
)

// startPagesDelay is how long after the house is read the hub hands back
// the pages only its start used: the first requests, which come at once
// and touch many of the same pages, are served from them, and the start
// is not slowed by faulting them in again.
const startPagesDelay = 5 * time.Second

// releaseStartPagesLater calls releaseStartPages once the start has
// settled, unless ctx ends first.
func releaseStartPagesLater(ctx context.Context) error {
	t := time.NewTimer(startPagesDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		releaseStartPages()
	}
	return nil
}
