package service

import (
	"context"

	"github.com/bifrost-hub/bifrost/devices"
)

// Snapshot is the last known state of each device, as a scene keeps it: a
// light's full state, a power device's on/off, a media player's power,
// volume and source. No device is asked; a device whose state the model
// does not know (offline, never reported, a sensor) is left out. It is what
// an automation's "put things back" captures.
func (s *Service) Snapshot(ctx context.Context, ids []devices.ID) ([]SceneEntry, error) {
	inv, err := s.inventoryFor(ctx, ScopeRead)
	if err != nil {
		return nil, err
	}
	out := make([]SceneEntry, 0, len(ids))
	for _, id := range ids {
		rec, ok := inv.byID(id)
		if !ok || !rec.Enabled {
			continue
		}
		if e, ok := s.knownEntry(rec, true, false); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Restore puts devices back as Snapshot captured them, in parallel, and
// reports per device. A player is sent only what differs from its state
// now; a device no longer in the inventory is reported, not restored.
func (s *Service) Restore(ctx context.Context, entries []SceneEntry) (FanoutResult, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return FanoutResult{}, err
	}
	targets, byID := sceneTargets(inv, Scene{Entries: entries})
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		if rec.Kind == "" {
			return Errorf(ENOTFOUND, "%s is no longer in the inventory", rec.ID)
		}
		return s.restore(ctx, rec, byID[rec.ID])
	})
	s.audit(ctx, "restore", "", res.err(), "")
	return res, nil
}
