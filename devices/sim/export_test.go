package sim

import "time"

// SetTick sets how often Run moves the sensors; call it before Run.
func (h *Home) SetTick(d time.Duration) { h.tick = d }
