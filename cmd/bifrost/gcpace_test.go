package main

import (
	"slices"
	"testing"
)

// TestGCPaceFollowsLoad: a busy second halves the collector's pace at
// once; it comes back, with the heap handed back, only after
// quietSeconds quiet seconds in a row, and a busy second among them
// starts the count again.
func TestGCPaceFollowsLoad(t *testing.T) {
	var calls []string
	p := &gcPace{
		set: func(pc int) int {
			calls = append(calls, map[int]string{busyGCPercent: "busy", restGCPercent: "rest"}[pc])
			return 0
		},
		free: func() { calls = append(calls, "free") },
	}
	feed := func(n int, served uint64) {
		for range n {
			p.observe(served)
		}
	}
	feed(30, busyRequests-1) // a house's own traffic
	if len(calls) != 0 {
		t.Fatalf("at rest: %v", calls)
	}
	feed(1, busyRequests)
	feed(5, 30000)
	if !slices.Equal(calls, []string{"busy"}) {
		t.Fatalf("busy: %v", calls)
	}
	feed(quietSeconds-1, 0)
	feed(1, busyRequests) // busy again before it was quiet long enough
	feed(quietSeconds-1, 10)
	if !slices.Equal(calls, []string{"busy"}) {
		t.Fatalf("not yet quiet: %v", calls)
	}
	feed(1, 10)
	if !slices.Equal(calls, []string{"busy", "rest", "free"}) {
		t.Fatalf("quiet: %v", calls)
	}
	feed(60, 0)
	if len(calls) != 3 {
		t.Fatalf("at rest again: %v", calls)
	}
}
