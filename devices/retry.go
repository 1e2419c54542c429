package devices

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is how long to pause between failed attempts to reach a device:
// Min after the first failure, then twice the last pause but never more
// than Max.
type Backoff struct {
	Min, Max time.Duration
	// Jitter spreads every pause (see Jitter), so that devices lost
	// together are not all asked again in step.
	Jitter bool
}

// Retry calls try until it returns nil or ctx ends, pausing after each
// failure as b says: an adapter asking a configured device who it is
// until it answers. try is given its attempt's number (0 for the first)
// and the pause that follows it if it fails, for its log line. Retry
// returns nil once try succeeds, ctx's error when ctx ends first.
func Retry(ctx context.Context, b Backoff, try func(n int, pause time.Duration) error) error {
	wait := b.Min
	for n := 0; ctx.Err() == nil; n++ {
		pause := wait
		if b.Jitter {
			pause = Jitter(wait)
		}
		if try(n, pause) == nil {
			return nil
		}
		if !Sleep(ctx, pause) {
			break
		}
		wait = min(2*wait, b.Max)
	}
	return ctx.Err()
}

// Jitter spreads d at random over ±20 %.
func Jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
