package service

import (
	"context"
	"strconv"
	"sync"
)

// Bus fans state-change events out to subscribers without ever waiting
// for one. Each subscriber has its own queue: a change to something it has
// not yet been sent replaces the older one in place (latest wins), so a
// subscriber that falls behind still gets the latest state of every device
// it missed. Only when the queue holds more distinct things than
// maxPending is it replaced by one "resync" event, telling the subscriber
// to read the house again. Nothing is dropped silently.
type Bus struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
	seq    uint64 // numbers events that never coalesce
}

// maxPending bounds one subscriber's queue; subscriberBuffer events wait
// in its channel before the queue starts to coalesce them.
const (
	maxPending       = 4096
	subscriberBuffer = 64
)

// ResyncEvent is the type of the event that replaces a queue that grew past
// its bound: read the house again, the events in between are gone.
const ResyncEvent = "resync"

type subscriber struct {
	out    chan Event
	keep   func(Event) (deliver, end bool)
	wake   chan struct{}
	done   chan struct{} // closed to end the subscription
	ended  chan struct{} // closed when out is
	closed sync.Once

	mu      sync.Mutex
	queue   []string
	pending map[string]Event
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[*subscriber]struct{}{}} }

// Subscribe returns a channel of events and a function that ends the
// subscription and closes the channel.
func (b *Bus) Subscribe() (<-chan Event, func()) {
	sub, stop := b.subscribe(nil)
	return sub.out, stop
}

// subscribe is Subscribe with a filter, applied as events are sent: keep
// says whether to deliver an event, and whether the subscription ends
// there.
func (b *Bus) subscribe(keep func(Event) (bool, bool)) (*subscriber, func()) {
	sub := &subscriber{
		out: make(chan Event, subscriberBuffer), keep: keep, wake: make(chan struct{}, 1),
		done: make(chan struct{}), ended: make(chan struct{}), pending: map[string]Event{},
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(sub.out)
		close(sub.ended)
		return sub, func() {}
	}
	b.subs[sub] = struct{}{}
	go sub.pump()
	return sub, func() { b.drop(sub) }
}

func (b *Bus) drop(sub *subscriber) {
	b.mu.Lock()
	delete(b.subs, sub)
	b.mu.Unlock()
	sub.stop()
}

// Close ends every subscription (their channels close) and refuses new
// ones; used at shutdown so open event streams finish at once.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for sub := range b.subs {
		delete(b.subs, sub)
		sub.stop()
	}
}

// Publish queues e for every subscriber; it never blocks.
func (b *Bus) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := e.Type + "\x00" + e.ID
	if e.ID == "" || e.Action != "changed" {
		// Created, deleted, activated… each is said once, in order.
		b.seq++
		key = "#" + strconv.FormatUint(b.seq, 10)
	}
	for sub := range b.subs {
		sub.push(key, e)
	}
}

func (s *subscriber) push(key string, e Event) {
	s.mu.Lock()
	if _, queued := s.pending[key]; !queued {
		s.queue = append(s.queue, key)
	}
	s.pending[key] = e
	if len(s.queue) > maxPending {
		s.queue = []string{ResyncEvent}
		s.pending = map[string]Event{ResyncEvent: {Type: ResyncEvent, Time: e.Time}}
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) pop() (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Event{}, false
	}
	key := s.queue[0]
	s.queue = s.queue[1:]
	e := s.pending[key]
	delete(s.pending, key)
	return e, true
}

// pump sends the queue to the subscriber, one event at a time, until the
// subscription ends.
func (s *subscriber) pump() {
	defer close(s.ended)
	defer close(s.out)
	for {
		e, ok := s.pop()
		if !ok {
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		deliver, end := true, false
		if s.keep != nil {
			deliver, end = s.keep(e)
		}
		if end {
			return
		}
		if !deliver {
			continue
		}
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
	}
}

func (s *subscriber) stop() { s.closed.Do(func() { close(s.done) }) }

// peopleOnly reports whether events of type typ are the hub's
// management, shown only to people: keys, kiosks and device pairing.
func peopleOnly(typ string) bool {
	return typ == "key" || typ == "kiosk" || typ == "enrollment"
}

// Subscribe follows the house's events for the caller in ctx. Key, kiosk
// and pairing events are shown only to people, and a key's stream ends when that key is
// revoked. The channel closes when ctx ends or the stream is cut; call stop
// to end it early. A reader that falls behind gets the latest of each
// change it missed, or a "resync" event.
func (s *Service) Subscribe(ctx context.Context) (<-chan Event, func(), error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, nil, err
	}
	p, _ := PrincipalFrom(ctx)
	sub, stop := s.events.subscribe(func(e Event) (bool, bool) {
		if p.Kind == "key" && peopleOnly(e.Type) {
			return false, e.Type == "key" && e.Action == "revoked" && e.ID == p.ID
		}
		return true, false
	})
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-sub.ended:
			stop() // ended by revocation: off the bus too
		}
	}()
	return sub.out, stop, nil
}
