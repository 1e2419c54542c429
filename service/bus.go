package service

import (
	"context"
	"sync"
)

// Bus fans state-change events out to subscribers. A subscriber that does
// not keep up loses events rather than slowing the house down.
type Bus struct {
	mu     sync.Mutex
	subs   map[chan Event]struct{}
	closed bool
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[chan Event]struct{}{}} }

// Subscribe returns a channel of events and a function that ends the
// subscription and closes the channel.
func (b *Bus) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 64)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch, func() {}
	}
	b.subs[ch] = struct{}{}
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	}
}

// Close ends every subscription (their channels close) and refuses new
// ones; used at shutdown so open event streams finish at once.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.subs {
		delete(b.subs, ch)
		close(ch)
	}
}

// Publish delivers e to every subscriber that has room for it.
func (b *Bus) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

// Subscribe follows the house's events for the caller in ctx. Key events
// are shown only to people, and a key's stream ends when that key is
// revoked. The channel closes when ctx ends or the stream is cut; call stop
// to end it early.
func (s *Service) Subscribe(ctx context.Context) (<-chan Event, func(), error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, nil, err
	}
	p, _ := PrincipalFrom(ctx)
	in, unsubscribe := s.events.Subscribe()
	out := make(chan Event, 64)
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	go func() {
		defer close(out)
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case e, ok := <-in:
				if !ok {
					return
				}
				if e.Type == "key" && p.Kind == "key" {
					if e.Action == "revoked" && e.ID == p.ID {
						return
					}
					continue
				}
				select {
				case out <- e:
				default: // a slow reader loses events rather than holding up the house
				}
			}
		}
	}()
	return out, stop, nil
}
