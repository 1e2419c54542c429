package backups_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// records counts the log messages it is handed, and wakes whoever waits.
type records struct {
	mu     sync.Mutex
	counts map[string]int
	woken  chan struct{}
}

func newRecords() *records {
	return &records{counts: map[string]int{}, woken: make(chan struct{}, 1)}
}

func (r *records) logger() *slog.Logger { return slog.New(recordsHandler{r}) }

// wait waits, for at most 10 s, until msg was logged n times.
func (r *records) wait(t *testing.T, msg string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		got := r.counts[msg]
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-r.woken:
		case <-deadline:
			t.Fatalf("%q logged %d times in 10s, want %d", msg, got, n)
		}
	}
}

type recordsHandler struct{ r *records }

func (h recordsHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordsHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordsHandler) WithGroup(string) slog.Handler            { return h }

func (h recordsHandler) Handle(_ context.Context, rec slog.Record) error {
	h.r.mu.Lock()
	h.r.counts[rec.Message]++
	h.r.mu.Unlock()
	select {
	case h.r.woken <- struct{}{}:
	default:
	}
	return nil
}
