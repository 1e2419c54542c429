package neewer

import (
	"context"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
)

// pusher is a light's writer: it coalesces commands at the link. Each
// command replaces the wanted state and marks what it touched; the
// writer, when free (not writing, and past the link's pace), sends the
// frames that take the light from what it has to the newest wanted state.
// A command waiting behind a write is thus folded into the next one:
// a hundred brightness steps during one write become one frame, with
// the last value.
type pusher struct {
	l *Light

	mu      sync.Mutex
	want    devices.LightState
	gm      int
	mem     fxMemory
	dirty   dirty
	gen     uint64 // newest command submitted
	waiters []waiter

	lampKnown bool // whether the light's power state is known
	lampOn    bool

	wake chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

type waiter struct {
	gen uint64
	ch  chan error
}

func newPusher(l *Light) *pusher {
	return &pusher{l: l, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

// submit records a command; its generation and the channel its result
// comes on.
func (p *pusher) submit(want devices.LightState, gm int, mem fxMemory, d dirty) (uint64, chan error) {
	ch := make(chan error, 1)
	p.mu.Lock()
	p.want, p.gm, p.mem = copyState(want), gm, mem
	p.dirty = p.dirty.or(d)
	p.gen++
	gen := p.gen
	p.waiters = append(p.waiters, waiter{gen: gen, ch: ch})
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return gen, ch
}

// errClosing: the light is being closed (the adapter stops, or the light
// is made anew) and takes no more writes.
var errClosing = devices.Unreachable(nil, "closing")

// wait blocks until a command (or a newer one that folded it in) was
// written, failed, or ctx ended.
func (p *pusher) wait(ctx context.Context, ch chan error) error {
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return devices.Unreachable(ctx.Err(), "")
	}
}

// lamp records the power state the light reported.
func (p *pusher) lamp(on bool) {
	p.mu.Lock()
	p.lampKnown, p.lampOn = true, on
	p.mu.Unlock()
}

// submitted is the newest generation submitted.
func (p *pusher) submitted() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

func (p *pusher) run() {
	defer close(p.done)
	for {
		select {
		case <-p.quit:
			p.finish(^uint64(0), errClosing)
			return
		case <-p.wake:
		}
		for p.flush() {
		}
	}
}

// flush sends the pending change, if any; false when there is nothing
// more to do now.
func (p *pusher) flush() bool {
	p.mu.Lock()
	if !p.dirty.any() {
		p.mu.Unlock()
		return false
	}
	want, gm, mem, d, gen := copyState(p.want), p.gm, p.mem, p.dirty, p.gen
	known, on := p.lampKnown, p.lampOn
	p.dirty = dirty{}
	p.mu.Unlock()

	var err error
	ctx, cancel := context.WithTimeout(context.Background(), p.l.conn.t.WriteTimeout)
	for _, f := range p.l.frames(want, gm, mem, d, known, on) {
		if err = p.l.conn.write(ctx, f); err != nil {
			break
		}
	}
	cancel()

	p.mu.Lock()
	if err == nil {
		p.lampKnown, p.lampOn = true, want.On
	} else {
		p.dirty = p.dirty.or(d) // the next command sends it again
	}
	p.mu.Unlock()
	p.finish(gen, err)
	return err == nil
}

// finish answers every waiter up to generation gen.
func (p *pusher) finish(gen uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.waiters[:0]
	for _, w := range p.waiters {
		if w.gen <= gen {
			w.ch <- err
			continue
		}
		keep = append(keep, w)
	}
	p.waiters = keep
}

func (p *pusher) close() {
	p.once.Do(func() { close(p.quit) })
	<-p.done
}
