package esphometest

import (
	"testing"
	"time"
)

// WaitLimit bounds every wait on a condition; a passing test waits far
// less.
const WaitLimit = 10 * time.Second

// WaitFor waits until cond holds, looking again whenever changed's
// channel closes, for at most WaitLimit.
func WaitFor(t testing.TB, what string, changed func() <-chan struct{}, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(WaitLimit)
	defer deadline.Stop()
	for {
		ch := changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
