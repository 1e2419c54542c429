// Package sim is a simulated home: lamps with effects, speakers with
// favourites and groups, a receiver, a TV with a remote, plugs, a fan and
// sensors. It backs `bifrost serve --demo` and the tests of the layers above
// the adapters.
//
// Every device implements the interfaces of package devices faithfully,
// keeps its state, answers after a configurable latency (honouring the
// caller's context) and can be made unreachable or slow on demand, so tests
// can exercise timeouts and partial failures. Devices are safe for
// concurrent use.
package sim

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/bifrost-hub/bifrost/devices"
)

// Adapter is the adapter name of every simulated device.
const Adapter = "sim"

// Options tune how simulated devices answer.
type Options struct {
	// Latency is how long every exchange with a device takes.
	Latency time.Duration
	// Jitter adds a random extra delay in [0, Jitter) to each exchange.
	Jitter time.Duration
}

// link is a simulated device's connection: how long it takes to answer,
// whether it answers at all, which registry hears of the changes the device
// makes on its own, and how many commands reached it. Every sim device
// embeds one, which gives it Info, Online, SetUnreachable, SetLatency and
// Commands.
type link struct {
	info devices.Info

	netMu    sync.Mutex // guards the fields below
	latency  time.Duration
	jitter   time.Duration
	down     bool
	registry *devices.Registry
	commands int
}

func newLink(id, name, room, model string, kind devices.Kind, opts Options) *link {
	return &link{
		info: devices.Info{
			ID:      deviceID(id, name),
			Adapter: Adapter,
			Kind:    kind,
			Name:    name,
			Model:   model,
			Room:    room,
		},
		latency: max(opts.Latency, 0),
		jitter:  max(opts.Jitter, 0),
	}
}

// Info describes the device. It never changes.
func (l *link) Info() devices.Info { return l.info }

// Online reports whether the device answers (see SetUnreachable).
func (l *link) Online() bool {
	l.netMu.Lock()
	defer l.netMu.Unlock()
	return !l.down
}

// SetUnreachable makes the device stop answering (true) or answer again
// (false). While unreachable, Online is false and every call fails, after
// the latency, with an error wrapping devices.ErrUnreachable. A change is
// reported to the registry.
func (l *link) SetUnreachable(down bool) {
	l.netMu.Lock()
	changed := l.down != down
	l.down = down
	l.netMu.Unlock()
	if changed {
		l.notify()
	}
}

// SetLatency sets how long every exchange with the device takes.
func (l *link) SetLatency(d time.Duration) {
	l.netMu.Lock()
	defer l.netMu.Unlock()
	l.latency = max(d, 0)
}

// Commands is how many commands reached the device and were applied.
func (l *link) Commands() int {
	l.netMu.Lock()
	defer l.netMu.Unlock()
	return l.commands
}

// applied counts one command that reached the device.
func (l *link) applied() {
	l.netMu.Lock()
	l.commands++
	l.netMu.Unlock()
}

// attach remembers the registry the device was added to.
func (l *link) attach(r *devices.Registry) {
	l.netMu.Lock()
	l.registry = r
	l.netMu.Unlock()
}

// notify tells the registry, if any, that the device changed on its own.
// Callers must hold none of the device's locks.
func (l *link) notify() {
	l.netMu.Lock()
	r := l.registry
	l.netMu.Unlock()
	if r != nil {
		r.Changed(l.info.ID)
	}
}

// delay is how long the next exchange takes.
func (l *link) delay() time.Duration {
	l.netMu.Lock()
	defer l.netMu.Unlock()
	d := l.latency
	if l.jitter > 0 {
		d += rand.N(l.jitter)
	}
	return d
}

// io simulates one exchange with the device: it waits out the latency, or
// gives up when ctx ends first, and fails when the device is unreachable.
// Both failures wrap devices.ErrUnreachable; the first, a *devices.Fault,
// also wraps ctx's error.
func (l *link) io(ctx context.Context) error {
	if err := sleep(ctx, l.delay()); err != nil {
		return devices.Unreachable(err, "")
	}
	if !l.Online() {
		return devices.ErrUnreachable
	}
	return nil
}

// sleep waits for d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attacher is a device that wants to know its registry.
type attacher interface{ attach(*devices.Registry) }

// Register adds devices to r. Sim devices among them remember r, so the
// changes they make on their own (a sensor reading, a switch flipped by
// hand, a speaker following its group, going unreachable) reach r's
// listeners.
func Register(r *devices.Registry, ds ...devices.Device) {
	for _, d := range ds {
		if a, ok := d.(attacher); ok {
			a.attach(r)
		}
		r.Add(d)
	}
}

// deviceID is "sim:" + id, or "sim:" + the slug of name when id is empty.
// A leading "sim:" in id is not doubled.
func deviceID(id, name string) devices.ID {
	id = strings.TrimPrefix(id, Adapter+":")
	if id == "" {
		id = Slug(name)
	}
	return devices.ID(Adapter + ":" + id)
}

// Slug turns a name into a lower-case, dash-separated id: "Key Light" →
// "key-light".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// choose finds v among options, ignoring case, and returns the option as
// spelled there; "" when absent.
func choose(v string, options []string) string {
	for _, o := range options {
		if strings.EqualFold(o, v) {
			return o
		}
	}
	return ""
}
