package esphome

import "context"

// Discover runs one scan's mDNS query to its end.
func (a *Adapter) Discover(ctx context.Context) { a.discover(ctx) }

// PercentLevel and LevelPercent map a fan's speed in percent to a level
// and back.
var PercentLevel, LevelPercent = percentLevel, levelPercent
