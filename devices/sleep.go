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
