package esphome

import "context"

// Discover runs one scan's mDNS query to its end.
func (a *Adapter) Discover(ctx context.Context) { a.discover(ctx) }

// WantedChanged is closed at the next change of KeysWanted.
func (a *Adapter) WantedChanged() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.wantedCh
}
