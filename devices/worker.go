package devices

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// worker runs one device's commands one at a time. A command waiting in the
// queue is superseded by a newer one with the same key (the newer command
// runs once, and both callers get its result), so a slider dragged from 0 to
// 100 sends the last value, not a hundred. Each command runs under its own
// timeout, detached from the caller, so a slow or dead device delays only
// the callers waiting on it.
type worker struct {
	device  Device
	timeout time.Duration

	mu     sync.Mutex
	queue  []*job
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}
	closed bool
}

type job struct {
	key     string
	fn      func(context.Context) error
	waiters []chan error
}

func newWorker(d Device, timeout time.Duration) *worker {
	w := &worker{
		device:  d,
		timeout: timeout,
		wake:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// do queues fn under key and waits for its result, or for ctx.
func (w *worker) do(ctx context.Context, key string, fn func(context.Context) error) error {
	if !w.device.Online() {
		return fmt.Errorf("%s is offline: %w", w.device.Info().Name, ErrUnreachable)
	}
	result := make(chan error, 1)
	if err := w.enqueue(key, fn, result); err != nil {
		return err
	}
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *worker) enqueue(key string, fn func(context.Context) error, result chan error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("%s: hub is shutting down: %w", w.device.Info().Name, ErrUnreachable)
	}
	if key != "" {
		for _, j := range w.queue {
			if j.key == key {
				j.fn = fn
				j.waiters = append(j.waiters, result)
				return nil
			}
		}
	}
	w.queue = append(w.queue, &job{key: key, fn: fn, waiters: []chan error{result}})
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
			w.fail()
			return
		case <-w.wake:
		}
		for j := w.next(); j != nil; j = w.next() {
			err := w.exec(j.fn)
			for _, c := range j.waiters {
				c <- err
			}
		}
	}
}

// exec runs one command under the worker's timeout. A command that ignores
// its context is abandoned at the deadline (its goroutine finishes on its
// own), so the queue moves on.
func (w *worker) exec(fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	res := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				res <- fmt.Errorf("%s: adapter failed: %v", w.device.Info().Name, r)
			}
		}()
		res <- fn(ctx)
	}()
	select {
	case err := <-res:
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("%s: %w", w.device.Info().Name, ErrTimeout)
		}
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", w.device.Info().Name, ErrTimeout)
	}
}

// fail answers every queued command with an error; used at shutdown.
func (w *worker) fail() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, j := range w.queue {
		for _, c := range j.waiters {
			c <- fmt.Errorf("%s: hub is shutting down: %w", w.device.Info().Name, ErrUnreachable)
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
