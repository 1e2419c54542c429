package automation

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bifrost-hub/bifrost/service"
)

// writer makes the Store writes that decisions cause (traces, timers,
// holds) off the path that decides them, one at a time and in the order
// they were queued, so a timer saved and then deleted is never left
// behind. Its goroutine runs only while there is something to write.
type writer struct {
	st  Store
	log *slog.Logger

	mu      sync.Mutex
	idle    *sync.Cond // signalled as writes finish
	queue   []writeOp
	queued  uint64 // how many were ever queued
	written uint64 // how many of them are done
	running bool
}

// writeOp is one Store write, with what it is for the log.
type writeOp struct {
	what string
	fn   func(context.Context, Store) error
}

func (w *writer) init(st Store, log *slog.Logger) {
	w.st, w.log = st, log
	w.idle = sync.NewCond(&w.mu)
}

// add queues a write.
func (w *writer) add(what string, fn func(context.Context, Store) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue = append(w.queue, writeOp{what: what, fn: fn})
	w.queued++
	if !w.running {
		w.running = true
		go w.drain()
	}
}

// drain writes until the queue is empty. Writes finish even when the
// engine stops: they are what a restart picks up.
func (w *writer) drain() {
	ctx := context.Background()
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.running = false
			w.idle.Broadcast()
			w.mu.Unlock()
			return
		}
		op := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		switch err := op.fn(ctx, w.st); {
		case service.ErrorCode(err) == service.ENOTFOUND:
			// The rule was deleted meanwhile; its rows went with it.
			w.log.Debug("automation: storing "+op.what, "err", err)
		case err != nil:
			w.log.Warn("automation: storing "+op.what, "err", err)
		}
		w.mu.Lock()
		w.written++
		w.idle.Broadcast()
		w.mu.Unlock()
	}
}

// wait returns once every write queued before it was called is done.
func (w *writer) wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.queued
	for w.written < target {
		w.idle.Wait()
	}
}

// settled waits for the writes and for their goroutine to end.
func (w *writer) settled() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.running {
		w.idle.Wait()
	}
}
