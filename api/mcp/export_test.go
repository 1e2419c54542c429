package mcp

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// NewHouse is a real service for the tests, and the keys beside it:
// SQLite in a temp dir and the simulated home, its inventory synced and
// its change loop running until the test ends.
func NewHouse(tb testing.TB) (*service.Service, *identity.Keys) {
	tb.Helper()
	reg := devices.NewRegistry(0)
	tb.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	svc, db := servicetest.NewWithStore(tb, reg, 0)
	keys, _ := servicetest.Identity(tb, svc, db)
	return svc, keys
}
