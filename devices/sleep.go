package devices

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx ends, and reports whether d passed: the
// pause between an adapter's reconnection attempts or polls.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// BeforeDeadline gives up a little before ctx's deadline, so a caller
// bounding the command by that deadline (the registry's worker) gets the
// adapter's own error, naming what went unanswered, rather than a bare
// timeout.
func BeforeDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := min(time.Until(d)/10, 100*time.Millisecond)
	return context.WithDeadline(ctx, d.Add(-margin))
}
