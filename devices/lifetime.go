package devices

import (
	"context"
	"fmt"
	"sync"
)

// Lifetime is an adapter's Run as the rest of the adapter sees it: Run's
// context while it runs, the goroutines started on its behalf, and whether
// it is stopping. An adapter holds one, named after the adapter; the zero
// value is ready once Name is set.
type Lifetime struct {
	Name string // the adapter's, for start-up errors ("sonos")

	once     sync.Once
	started  chan struct{} // closed when Run begins
	mu       sync.Mutex
	ctx      context.Context
	stopping bool
	wg       sync.WaitGroup
}

func (l *Lifetime) init() { l.once.Do(func() { l.started = make(chan struct{}) }) }

// Begin records Run's context; a second Run is refused.
func (l *Lifetime) Begin(ctx context.Context) error {
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx != nil {
		return fmt.Errorf("%s: already running", l.Name)
	}
	l.ctx = ctx
	close(l.started)
	return nil
}

// errNotRunning says why an adapter cannot act; the hub says which adapter
// (or device) it is about.
var errNotRunning = Unreachable(nil, "the adapter is not running")

// Running is Run's context, or an error wrapping ErrUnreachable when Run
// is not running.
func (l *Lifetime) Running() (context.Context, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx == nil || l.ctx.Err() != nil {
		return nil, errNotRunning
	}
	return l.ctx, nil
}

// RunningFor waits, within ctx, for Run to begin (the hub may add a device
// while its adapters start), then answers as Running does.
func (l *Lifetime) RunningFor(ctx context.Context) (context.Context, error) {
	l.init()
	select {
	case <-l.started:
	case <-ctx.Done():
	}
	return l.Running()
}

// Go runs fn as one of Run's goroutines, unless Run is not running or is
// stopping; it reports whether fn was started.
func (l *Lifetime) Go(fn func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx == nil || l.stopping {
		return false
	}
	l.wg.Go(fn)
	return true
}

// Spawn runs fn with Run's context as one of Run's goroutines (unless
// Run is stopping, as Go); when Run is not running it starts nothing and
// returns Running's error.
func (l *Lifetime) Spawn(fn func(ctx context.Context)) error {
	ctx, err := l.Running()
	if err != nil {
		return err
	}
	l.Go(func() { fn(ctx) })
	return nil
}

// Stopping reports whether Run is ending.
func (l *Lifetime) Stopping() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopping
}

// End marks Run as stopping, so Go starts nothing more, and waits for the
// goroutines it started.
func (l *Lifetime) End() {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.wg.Wait()
}
