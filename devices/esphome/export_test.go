package esphome

import "context"

// Discover runs one scan's mDNS query to its end.
func (a *Adapter) Discover(ctx context.Context) { a.discover(ctx) }

// PercentLevel and LevelPercent map a fan's speed in percent to a level
// and back.
var PercentLevel, LevelPercent = percentLevel, levelPercent

// WantedChanged is closed at the next change of KeysWanted.
func (a *Adapter) WantedChanged() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.wantedCh
}
