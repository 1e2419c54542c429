package mcp

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// NewHouse is a real service for the tests: SQLite in a temp dir and the
// simulated home, its inventory synced and its change loop running until
// the test ends.
func NewHouse(tb testing.TB) (*service.Service, *sim.Home) {
	tb.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(tb.TempDir(), "bifrost.db"))
	if err != nil {
		tb.Fatalf("opening store: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	reg := devices.NewRegistry(0)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	svc := service.New(service.Config{Store: db, Registry: reg})
	if err := svc.Sync(ctx); err != nil {
		tb.Fatalf("syncing inventory: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx) }()
	tb.Cleanup(func() { stop(); <-done })
	return svc, home
}
