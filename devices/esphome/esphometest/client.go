package esphometest

import (
	"context"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome"
)

// Run runs the client n until the test ends, when it stops n and waits
// for Run to return; it returns the context n runs under.
func Run(t testing.TB, n *esphome.Node) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ctx
}
