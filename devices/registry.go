package devices

import (
	"context"
	"slices"
	"sync"
	"time"
)

// DefaultTimeout bounds one command to one device.
const DefaultTimeout = 5 * time.Second

// Change tells a registry listener that a device was added, removed, or
// changed state (or availability) outside a command the hub sent.
type Change struct {
	ID      ID
	Added   bool
	Removed bool
}

// Registry holds the live devices of every adapter, each with its command
// worker. Adapters Add their devices and call Changed when a device's state
// moves on its own; the service layer lists, reads and commands them.
type Registry struct {
	timeout time.Duration

	mu        sync.RWMutex
	entries   map[ID]*entry
	order     []ID
	listeners []func(Change)
}

type entry struct {
	device Device
	worker *worker
}

// NewRegistry makes an empty registry whose commands time out after timeout
// (DefaultTimeout when zero).
func NewRegistry(timeout time.Duration) *Registry {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Registry{timeout: timeout, entries: map[ID]*entry{}}
}

// Timeout is the per-command timeout.
func (r *Registry) Timeout() time.Duration { return r.timeout }

// Add registers a device, replacing one with the same id.
func (r *Registry) Add(d Device) {
	id := d.Info().ID
	r.mu.Lock()
	old := r.entries[id]
	r.entries[id] = &entry{device: d, worker: newWorker(d, r.timeout)}
	if old == nil {
		r.order = append(r.order, id)
	}
	r.mu.Unlock()
	if old != nil {
		old.worker.close()
	}
	r.notify(Change{ID: id, Added: true})
}

// Remove unregisters a device.
func (r *Registry) Remove(id ID) {
	r.mu.Lock()
	e := r.entries[id]
	delete(r.entries, id)
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	if e != nil {
		e.worker.close()
		r.notify(Change{ID: id, Removed: true})
	}
}

// Get returns a device by id.
func (r *Registry) Get(id ID) (Device, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[id]
	if !ok {
		return nil, false
	}
	return e.device, true
}

// List returns every device in the order they were added.
func (r *Registry) List() []Device {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Device, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.entries[id].device)
	}
	return out
}

// Run runs fn as a command to device id on that device's worker: serialised
// with the device's other commands, superseded by a newer command with the
// same key while it waits, bounded by the registry's timeout, and refused at
// once when the device is known to be offline. Every caller gets the value
// of the command that ran: its own, or the newer one that superseded it.
// A failure is an *Error naming the device.
func (r *Registry) Run(ctx context.Context, id ID, key string, fn func(context.Context) (any, error)) (any, error) {
	r.mu.RLock()
	e, ok := r.entries[id]
	r.mu.RUnlock()
	if !ok {
		return nil, &Error{ID: id, Op: key, Err: errNotConnected}
	}
	return e.worker.do(ctx, key, fn)
}

// Do is Run for a command that gives no value.
func (r *Registry) Do(ctx context.Context, id ID, key string, fn func(context.Context) error) error {
	_, err := r.Run(ctx, id, key, func(ctx context.Context) (any, error) { return nil, fn(ctx) })
	return err
}

// Runner runs commands on devices' workers; *Registry is one.
type Runner interface {
	Run(ctx context.Context, id ID, key string, fn func(context.Context) (any, error)) (any, error)
}

// Call is Run for a command that gives a T: every caller, superseded or
// not, gets the T of the command that ran.
func Call[T any](ctx context.Context, r Runner, id ID, key string, fn func(context.Context) (T, error)) (T, error) {
	v, err := r.Run(ctx, id, key, func(ctx context.Context) (any, error) { return fn(ctx) })
	t, _ := v.(T)
	return t, err
}

// Waiting is how many callers wait for device id's queued commands (those
// not yet running): with supersession, many callers can wait on one
// command.
func (r *Registry) Waiting(id ID) int {
	r.mu.RLock()
	e, ok := r.entries[id]
	r.mu.RUnlock()
	if !ok {
		return 0
	}
	return e.worker.waiting()
}

// Subscribe calls fn for every change until the registry is closed. fn must
// not block.
func (r *Registry) Subscribe(fn func(Change)) {
	r.mu.Lock()
	r.listeners = append(r.listeners, fn)
	r.mu.Unlock()
}

// Changed is called by adapters when a device's state or availability moved
// on its own.
func (r *Registry) Changed(id ID) { r.notify(Change{ID: id}) }

func (r *Registry) notify(c Change) {
	r.mu.RLock()
	ls := slices.Clone(r.listeners)
	r.mu.RUnlock()
	for _, fn := range ls {
		fn(c)
	}
}

// Close stops every worker; queued commands fail as unreachable.
func (r *Registry) Close() {
	r.mu.Lock()
	es := make([]*entry, 0, len(r.entries))
	for _, e := range r.entries {
		es = append(es, e)
	}
	r.mu.Unlock()
	for _, e := range es {
		e.worker.close()
	}
}
