// Package logtest is a log, for tests, that counts the messages it is
// handed, so a test can wait for something to be logged, with a deadline,
// instead of sleeping.
package logtest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// Counter counts the messages logged through its Logger.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int
	woken  chan struct{}
}

// New is a counter with nothing logged.
func New() *Counter {
	return &Counter{counts: map[string]int{}, woken: make(chan struct{}, 1)}
}

// Logger logs into c, at every level.
func (c *Counter) Logger() *slog.Logger { return slog.New(handler{c}) }

// Wait waits, for at most 10 s, until msg was logged n times.
func (c *Counter) Wait(t testing.TB, msg string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		got := c.counts[msg]
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-c.woken:
		case <-deadline:
			t.Fatalf("%q logged %d times in 10s, want %d", msg, got, n)
		}
	}
}

// Count is how many times msg was logged so far.
func (c *Counter) Count(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[msg]
}

type handler struct{ c *Counter }

func (h handler) Enabled(context.Context, slog.Level) bool { return true }
func (h handler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h handler) WithGroup(string) slog.Handler            { return h }

func (h handler) Handle(_ context.Context, r slog.Record) error {
	h.c.mu.Lock()
	h.c.counts[r.Message]++
	h.c.mu.Unlock()
	select {
	case h.c.woken <- struct{}{}:
	default:
	}
	return nil
}
