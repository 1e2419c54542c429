package sim

import (
	"context"
	"time"
)

// Adapter names the simulated adapter.
func (h *Home) Adapter() string { return Adapter }

// Scan looks for the home's devices as a discovery would: every device the
// registry has lost is added again, and every device present reports in.
// The simulated house answers at once, so the scan takes no time. Before
// Register there is no registry to report to, and Scan finds nothing.
func (h *Home) Scan(ctx context.Context) (time.Duration, error) {
	h.mu.Lock()
	reg := h.reg
	h.mu.Unlock()
	if reg == nil {
		return 0, nil
	}
	for _, d := range h.devices {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, ok := reg.Get(d.Info().ID); ok {
			reg.Changed(d.Info().ID)
			continue
		}
		Register(reg, d)
	}
	return 0, nil
}
