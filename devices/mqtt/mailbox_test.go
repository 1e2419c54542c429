package mqtt

import (
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestMailboxesKeepOrderPerKeyAndIsolateSlowKeys(t *testing.T) {
	m := newMailboxes(slog.New(slog.DiscardHandler))
	release := make(chan struct{})
	m.post("slow", func() { <-release })

	var mu sync.Mutex
	var order []int
	done := make(chan struct{})
	start := time.Now()
	for i := range 100 {
		m.post("fast", func() {
			mu.Lock()
			order = append(order, i)
			if len(order) == 100 {
				close(done)
			}
			mu.Unlock()
		})
	}
	for range 100 {
		m.post("slow", func() {}) // posting behind a stuck job never blocks
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("posting blocked")
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a stuck device held up another device's queue")
	}
	mu.Lock()
	sorted := slices.IsSorted(order)
	mu.Unlock()
	if !sorted {
		t.Fatalf("one key's jobs ran out of order: %v", order)
	}
	close(release)
	m.close()
	m.post("late", func() { t.Error("a job posted after close ran") })
}

func TestMailboxDropsTheOldestWhenFull(t *testing.T) {
	m := newMailboxes(slog.New(slog.DiscardHandler))
	release, started := make(chan struct{}), make(chan struct{})
	m.post("k", func() { close(started); <-release })
	<-started // the blocking job is running, not queued to be dropped
	var mu sync.Mutex
	var ran []int
	for i := range mailboxLimit + 10 {
		m.post("k", func() { mu.Lock(); ran = append(ran, i); mu.Unlock() })
	}
	close(release)
	m.close()
	if len(ran) != mailboxLimit || ran[0] != 10 || ran[len(ran)-1] != mailboxLimit+9 {
		t.Fatalf("ran %d jobs from %d to %d; want the newest %d", len(ran), ran[0], ran[len(ran)-1], mailboxLimit)
	}
}
