package sim_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

func ptr[T any](v T) *T { return &v }

// mustHome builds the home with no latency.
func mustHome(t *testing.T) *sim.Home {
	t.Helper()
	return sim.NewHome(sim.Options{})
}

// wantErr fails unless err wraps target.
func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one wrapping %v", err, target)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// changes records the registry's change notices.
type changes struct {
	mu  sync.Mutex
	ids []devices.ID
}

func watch(r *devices.Registry) *changes {
	c := &changes{}
	r.Subscribe(func(ch devices.Change) {
		if ch.Added || ch.Removed {
			return
		}
		c.mu.Lock()
		c.ids = append(c.ids, ch.ID)
		c.mu.Unlock()
	})
	return c
}

// count is how many notices named id.
func (c *changes) count(id devices.ID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, x := range c.ids {
		if x == id {
			n++
		}
	}
	return n
}

func (c *changes) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids)
}

// registered builds the home in a fresh registry that records changes.
func registered(t *testing.T) (*sim.Home, *devices.Registry, *changes) {
	t.Helper()
	h := mustHome(t)
	r := devices.NewRegistry(time.Second)
	t.Cleanup(r.Close)
	c := watch(r)
	h.Register(r)
	return h, r, c
}

var bg = context.Background()

// waitFor polls cond until it holds, failing the test after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
