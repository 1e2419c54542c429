package kiosk

import (
	"context"

	"github.com/bifrost-hub/bifrost/service"
)

// A kiosk's command stream. A tablet holds one: when it opens a new one
// (after its connection died without the hub noticing, as Wi-Fi power
// saving does), the new one replaces the old, which ends. So one key
// holds at most one stream open, and a tablet is never locked out by the
// ghosts of its own dead connections.

// listenBuffer is how many commands wait for a slow stream; past it a
// command reaches the kiosk at its next check-in instead.
const listenBuffer = 4

// listener is one open command stream. Its channel is closed by
// whoever takes it out of Kiosks.live, under Kiosks.mu: exactly once.
type listener struct {
	ch chan string
}

// Listen opens the calling kiosk's command stream: the commands sent to
// it from now on, until stop is called, the kiosk opens another stream,
// or the hub closes (the channel then closes). A key that has not
// checked in is ENOTFOUND, as the app expects.
func (ks *Kiosks) Listen(ctx context.Context) (commands <-chan string, stop func(), err error) {
	k, err := ks.kioskOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	l := &listener{ch: make(chan string, listenBuffer)}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.closed {
		return nil, nil, service.Errorf(service.ECONFLICT, "the hub is shutting down")
	}
	if old := ks.live[k.ID]; old != nil {
		close(old.ch)
	}
	ks.live[k.ID] = l
	return l.ch, func() { ks.unlisten(k.ID, l) }, nil
}

// unlisten ends l, if it is still kiosk id's stream.
func (ks *Kiosks) unlisten(id string, l *listener) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.live[id] == l {
		delete(ks.live, id)
		close(l.ch)
	}
}

// push hands a command to kiosk id's stream, if one is open and keeping
// up.
func (ks *Kiosks) push(id, command string) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if l := ks.live[id]; l != nil {
		select {
		case l.ch <- command:
		default:
		}
	}
}

// Close ends every command stream and refuses new ones, as the hub shuts
// down.
func (ks *Kiosks) Close() {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.closed = true
	for id, l := range ks.live {
		delete(ks.live, id)
		close(l.ch)
	}
}
