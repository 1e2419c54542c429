package identity

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestThrottleWindow(t *testing.T) {
	th := newThrottle(5, time.Minute)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		if w := th.reserve("a", t0.Add(time.Duration(i)*time.Second)); w != 0 {
			t.Fatalf("attempt %d must wait %v", i+1, w)
		}
	}
	now := t0.Add(10 * time.Second)
	if w := th.reserve("a", now); w != 50*time.Second {
		t.Fatalf("after 5 failures wait %v; want 50s (until the first leaves the window)", w)
	}
	if w := th.reserve("b", now); w != 0 {
		t.Fatalf("another client must wait %v", w)
	}
	if w := th.reserve("a", t0.Add(time.Minute)); w != 0 {
		t.Fatalf("a minute after the first failure, wait %v; want 0", w)
	}
	// That attempt failed too: the window is full again.
	if w := th.reserve("a", t0.Add(time.Minute)); w != time.Second {
		t.Fatalf("wait %v; want 1s", w)
	}
}

// TestThrottleReleasedAttemptsDoNotCount: an attempt that succeeds gives
// its place back, and only its own.
func TestThrottleReleasedAttemptsDoNotCount(t *testing.T) {
	th := newThrottle(2, time.Minute)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 10 {
		at := t0.Add(time.Duration(i) * time.Second)
		if w := th.reserve("a", at); w != 0 {
			t.Fatalf("success %d had to wait %v", i+1, w)
		}
		th.release("a", at)
	}
	if n := len(th.attempts); n != 0 {
		t.Fatalf("%d clients remembered after successes only", n)
	}
	failed, ok := t0, t0.Add(time.Second)
	th.reserve("a", failed)
	th.reserve("a", ok)
	if w := th.reserve("a", ok); w == 0 {
		t.Fatal("a third attempt while two are out was let through")
	}
	th.release("a", ok)
	if w := th.reserve("a", ok); w != 0 {
		t.Fatalf("after one attempt succeeded, the next must wait %v", w)
	}
	th.release("a", t0.Add(time.Hour)) // a place never taken changes nothing
	if w := th.reserve("a", ok); w != 59*time.Second {
		t.Fatalf("wait %v; want 59s, until the failure leaves the window", w)
	}
}

// TestThrottleReservesAtomically: attempts arriving all at once get no
// more places than the limit.
func TestThrottleReservesAtomically(t *testing.T) {
	th := newThrottle(5, time.Minute)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var admitted atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 100 {
		wg.Go(func() {
			<-start
			if th.reserve("a", now) == 0 {
				admitted.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := admitted.Load(); n != 5 {
		t.Fatalf("%d of 100 simultaneous attempts admitted; want 5", n)
	}
}

func TestThrottleForgetsOldClients(t *testing.T) {
	th := newThrottle(5, time.Minute)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 1000 {
		th.reserve(clientKey("10.0.0."+strconv.Itoa(i%250)), t0)
	}
	th.reserve("late", t0.Add(2*time.Minute))
	if n := len(th.attempts); n != 1 {
		t.Fatalf("%d clients remembered two minutes on; want 1", n)
	}
}

func TestClientKey(t *testing.T) {
	for ip, want := range map[string]string{
		"192.0.2.7":                   "192.0.2.7",
		"::ffff:192.0.2.7":            "192.0.2.7",
		"2001:db8:1:2:aaaa::1":        "2001:db8:1:2::/64",
		"2001:db8:1:2:bbbb:cccc::999": "2001:db8:1:2::/64",
		"garbage":                     "unknown",
	} {
		if got := clientKey(ip); got != want {
			t.Errorf("clientKey(%q) = %q; want %q", ip, got, want)
		}
	}
}
