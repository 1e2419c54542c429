package mcp

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// NewHouse is a real service for the tests: SQLite in a temp dir and the
// simulated home, its inventory synced and its change loop running until
// the test ends.
func NewHouse(tb testing.TB) (*service.Service, *sim.Home) {
	tb.Helper()
	return servicetest.SimHouse(tb)
}
