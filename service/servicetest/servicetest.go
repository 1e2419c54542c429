// Package servicetest builds a real service for tests: SQLite in a temp
// dir, a device registry, the inventory synced and the change loop running
// until the test ends; and, for tests that need keys or people, the
// identity beside it (Identity).
package servicetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// New is a running service over reg's devices. readTimeout bounds one live
// read (0: the service's default).
func New(tb testing.TB, reg *devices.Registry, readTimeout time.Duration) *service.Service {
	tb.Helper()
	svc, _ := NewWithStore(tb, reg, readTimeout)
	return svc
}

// NewWithStore is New and its store, for tests that run more over the same
// database (an automation engine).
func NewWithStore(tb testing.TB, reg *devices.Registry, readTimeout time.Duration) (*service.Service, *store.DB) {
	tb.Helper()
	db := Open(tb)
	return Start(tb, service.Config{Store: db, Registry: reg, ReadTimeout: readTimeout}), db
}

// Open is an empty store in a temp dir, closed when the test ends.
func Open(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "bifrost.db"))
	if err != nil {
		tb.Fatalf("opening store: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// Start is a service made with cfg, its inventory synced and its change
// loop running until the test ends, for tests that configure more than
// New does (a clock, a sensor history).
func Start(tb testing.TB, cfg service.Config) *service.Service {
	tb.Helper()
	svc := service.New(cfg)
	if err := svc.Sync(context.Background()); err != nil {
		tb.Fatalf("syncing inventory: %v", err)
	}
	Run(tb, svc)
	return svc
}

// Run runs svc's change loop until the test ends, and waits for it to
// stop before cleanups registered earlier (the store, the registry) run.
func Run(tb testing.TB, svc *service.Service) {
	Go(tb, svc.Run)
}

// Go runs fn (a Run loop: the service's, a sensor history's) until the
// test ends, and waits for it to return before cleanups registered earlier
// (the store, the registry) run.
func Go(tb testing.TB, fn func(context.Context) error) {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = fn(ctx) }()
	tb.Cleanup(func() { stop(); <-done })
}

// SimHouse is a running service over the simulated home.
func SimHouse(tb testing.TB) (*service.Service, *sim.Home) {
	tb.Helper()
	reg := devices.NewRegistry(0)
	tb.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	return New(tb, reg, 0), home
}

// Must returns a function that passes on a call's value and fails t on
// its error: must := Must[service.Room](t); r := must(svc.GetRoom(…)).
func Must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// WantCode fails t unless err carries the service error code.
func WantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := service.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q; want %q", err, got, code)
	}
}

// WaitFor polls cond until it holds, failing tb after a deadline.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
