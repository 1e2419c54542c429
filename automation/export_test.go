package automation

import "github.com/bifrost-hub/bifrost/service"

// OnHandled makes e call fn with each event once Run has handled it; call
// it before Run.
func OnHandled(e *Engine, fn func(service.Event)) { e.handled = fn }

// Handle hands e one event as Run would, for benchmarks.
func Handle(e *Engine, ev service.Event) { e.handle(e.background(), ev) }

// Quiesce waits until the runs and restores e started in the background
// have ended and their Store writes are done.
func Quiesce(e *Engine) { e.quiesce() }
