package identity

import (
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Login throttling: at most LoginFailures attempts that fail (a wrong
// password, an unknown user, a wrong setup code) per client in any
// LoginWindow; the next attempt is refused with ETOOMANY until the oldest
// failure leaves the window. Nothing is banned for longer than that.
//
// An attempt takes its place in the window before its password is
// checked, in the same step as the count is read, so attempts arriving at
// once cannot all pass a count that none has added to yet: at most
// LoginFailures of them reach the password check. An attempt that
// succeeds gives its place back.
const (
	LoginFailures = 5
	LoginWindow   = time.Minute
)

// throttle counts recent attempts per client in a sliding window: the
// failed ones, and those still being checked. It lives in memory: a
// restart forgets it, which costs an attacker nothing they would not get
// by waiting a minute.
type throttle struct {
	limit  int
	window time.Duration

	mu        sync.Mutex
	attempts  map[string][]time.Time // client → attempt times, oldest first
	lastSweep time.Time
}

func newThrottle(limit int, window time.Duration) *throttle {
	return &throttle{limit: limit, window: window, attempts: map[string][]time.Time{}}
}

// reserve takes a place for an attempt by client at now and returns 0, or,
// when client's places are used up, takes none and returns how long to
// wait. The place counts as a failure unless it is released.
func (t *throttle) reserve(client string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	recent := t.recent(client, now)
	if len(recent) >= t.limit {
		return recent[len(recent)-t.limit].Add(t.window).Sub(now)
	}
	t.attempts[client] = append(recent, now)
	if now.Sub(t.lastSweep) >= t.window {
		t.sweep(now)
	}
	return 0
}

// release gives back the place client reserved at at: the attempt did
// not fail.
func (t *throttle) release(client string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.attempts[client]
	if i := slices.IndexFunc(list, at.Equal); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(t.attempts, client)
		return
	}
	t.attempts[client] = list
}

// recent returns client's attempts still inside the window, dropping the
// client when none is.
func (t *throttle) recent(client string, now time.Time) []time.Time {
	list := t.attempts[client]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= t.window {
		i++
	}
	if i == len(list) {
		delete(t.attempts, client)
		return nil
	}
	return list[i:]
}

// sweep forgets every client whose attempts have all left the window, so
// the map holds only the clients of the last minute.
func (t *throttle) sweep(now time.Time) {
	for client := range t.attempts {
		t.recent(client, now)
	}
	t.lastSweep = now
}

// clientKey is the throttling bucket of a client address: the address
// itself for IPv4, its /64 for IPv6 (one household's or one host's
// allocation, which an attacker can otherwise walk through freely).
func clientKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return "unknown"
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}
