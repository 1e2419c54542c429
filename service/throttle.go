package service

import (
	"net/netip"
	"sync"
	"time"
)

// Login throttling: at most LoginFailures failed attempts (a wrong password,
// an unknown user, a wrong setup code) per client in any LoginWindow; the
// next attempt is refused with ETOOMANY until the oldest failure leaves the
// window. Nothing is banned for longer than that.
const (
	LoginFailures = 5
	LoginWindow   = time.Minute
)

// throttle counts recent failures per client in a sliding window. It lives
// in memory: a restart forgets it, which costs an attacker nothing they
// would not get by waiting a minute.
type throttle struct {
	limit  int
	window time.Duration

	mu        sync.Mutex
	failures  map[string][]time.Time // client → failure times, oldest first
	lastSweep time.Time
}

func newThrottle(limit int, window time.Duration) *throttle {
	return &throttle{limit: limit, window: window, failures: map[string][]time.Time{}}
}

// wait returns how long client must wait before its next attempt, 0 when it
// may try now.
func (t *throttle) wait(client string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	recent := t.recent(client, now)
	if len(recent) < t.limit {
		return 0
	}
	return recent[len(recent)-t.limit].Add(t.window).Sub(now)
}

// fail records a failed attempt by client at now.
func (t *throttle) fail(client string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	recent := t.recent(client, now)
	if len(recent) >= t.limit { // keep only what the window can use
		recent = recent[len(recent)-t.limit+1:]
	}
	t.failures[client] = append(recent, now)
	if now.Sub(t.lastSweep) >= t.window {
		t.sweep(now)
	}
}

// recent returns client's failures still inside the window, dropping the
// client when none is.
func (t *throttle) recent(client string, now time.Time) []time.Time {
	list := t.failures[client]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= t.window {
		i++
	}
	if i == len(list) {
		delete(t.failures, client)
		return nil
	}
	return list[i:]
}

// sweep forgets every client whose failures have all left the window, so
// the map holds only the clients of the last minute.
func (t *throttle) sweep(now time.Time) {
	for client := range t.failures {
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
