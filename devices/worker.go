package devices

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// worker runs one device's commands one at a time. A command waiting in the
// queue is superseded by a newer one with the same key (the newer command
// runs once, and every caller gets its value), so a slider dragged from 0 to
// 100 sends the last value, not a hundred. Each command runs under its own
// timeout, detached from the caller, so a slow or dead device delays only
// the callers waiting on it.
type worker struct {
	device  Device
	id      ID
	timeout time.Duration

	mu     sync.Mutex
	queue  []*job
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}
	closed bool
}

// result is what a command gave: its value, or its error.
type result struct {
	v   any
	err error
}

type job struct {
	key     string
	fn      func(context.Context) (any, error)
	waiters []chan result
}

// Errors the worker answers with itself; each comes inside an *Error
// naming the device.
var (
	errOffline      = Unreachable(nil, "offline")
	errShuttingDown = Unreachable(nil, "hub is shutting down")
)

func newWorker(d Device, timeout time.Duration) *worker {
	w := &worker{
		device:  d,
		id:      d.Info().ID,
		timeout: timeout,
		wake:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// fail wraps err as this device's error for operation key.
func (w *worker) fail(key string, err error) error {
	var de *Error
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &Error{ID: w.id, Op: key, Err: err}
}

// do queues fn under key and waits for the value of the command that ran
// in its place (its own, or a newer one that superseded it), or for ctx.
func (w *worker) do(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	if !w.device.Online() && !wakeable(w.device) {
		return nil, w.fail(key, errOffline)
	}
	res := make(chan result, 1)
	if err := w.enqueue(key, fn, res); err != nil {
		return nil, err
	}
	select {
	case r := <-res:
		return r.v, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wakeable reports whether an offline device still takes commands: one
// Wake-on-LAN can wake, whose adapter wakes it for a power-on and refuses
// the rest itself.
func wakeable(d Device) bool {
	w, ok := d.(Waker)
	return ok && w.MAC() != ""
}

func (w *worker) enqueue(key string, fn func(context.Context) (any, error), res chan result) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.fail(key, errShuttingDown)
	}
	if key != "" {
		for _, j := range w.queue {
			if j.key == key {
				j.fn = fn
				j.waiters = append(j.waiters, res)
				return nil
			}
		}
	}
	w.queue = append(w.queue, &job{key: key, fn: fn, waiters: []chan result{res}})
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return nil
}

// waiting counts the callers of the queued jobs.
func (w *worker) waiting() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, j := range w.queue {
		n += len(j.waiters)
	}
	return n
}

func (w *worker) next() *job {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return nil
	}
	j := w.queue[0]
	w.queue = w.queue[1:]
	return j
}

func (w *worker) run() {
	defer close(w.done)
	for {
		select {
		case <-w.quit:
			w.failQueued()
			return
		case <-w.wake:
		}
		for j := w.next(); j != nil; j = w.next() {
			v, err := w.exec(j.fn)
			r := result{v: v, err: w.fail(j.key, err)}
			for _, c := range j.waiters {
				c <- r
			}
		}
	}
}

// exec runs one command under the worker's timeout. A command that ignores
// its context is abandoned at the deadline (its goroutine finishes on its
// own, into a buffered channel nobody reads), so the queue moves on.
func (w *worker) exec(fn func(context.Context) (any, error)) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	res := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				res <- result{err: fmt.Errorf("adapter failed: %v", r)}
			}
		}()
		v, err := fn(ctx)
		res <- result{v: v, err: err}
	}()
	select {
	case r := <-res:
		if r.err != nil && ctx.Err() != nil {
			return nil, ErrTimeout
		}
		return r.v, r.err
	case <-ctx.Done():
		return nil, ErrTimeout
	}
}

// failQueued answers every queued command with an error; used at shutdown.
func (w *worker) failQueued() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, j := range w.queue {
		for _, c := range j.waiters {
			c <- result{err: w.fail(j.key, errShuttingDown)}
		}
	}
	w.queue = nil
}

func (w *worker) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.mu.Unlock()
	close(w.quit)
	<-w.done
}
