package esphome

import "context"

// Discover runs one scan's mDNS query to its end.
func (a *Adapter) Discover(ctx context.Context) { a.discover(ctx) }
