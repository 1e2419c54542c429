package sonos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// applyTopology records which player follows which, adds the visible
// players not known yet, moves known ones to their current address, and
// tells the registry about players whose group changed. It returns the
// visible players' UUIDs.
func (a *Adapter) applyTopology(ctx context.Context, groups []upnp.ZoneGroup) []string {
	var (
		uuids   []string
		fresh   []upnp.Member
		changed []*Speaker
		moved   = map[*Speaker]string{}
	)
	a.mu.Lock()
	a.topoAt = time.Now()
	for _, g := range groups {
		for _, m := range g.Members {
			if m.Invisible || m.UUID == "" {
				continue
			}
			uuids = append(uuids, m.UUID)
			if a.coord[m.UUID] != g.Coordinator {
				a.coord[m.UUID] = g.Coordinator
				if s := a.speakers[m.UUID]; s != nil {
					changed = append(changed, s)
				}
			}
			if s := a.speakers[m.UUID]; s == nil {
				fresh = append(fresh, m)
			} else if base := m.BaseURL(); base != "" {
				moved[s] = base
			}
		}
	}
	a.mu.Unlock()
	for s, base := range moved {
		s.moveTo(base)
	}
	for _, m := range fresh {
		if err := a.addSpeaker(ctx, m); err != nil {
			a.log.Warn("adding a player", "player", m.ZoneName, "err", err)
		}
	}
	for _, s := range changed {
		a.cfg.Registry.Changed(s.info.ID)
	}
	return uuids
}

// addSpeaker reads a player's description and registers it.
func (a *Adapter) addSpeaker(ctx context.Context, m upnp.Member) error {
	base := m.BaseURL()
	if base == "" {
		return fmt.Errorf("sonos: %s has no usable location %q", m.ZoneName, m.Location)
	}
	desc, err := a.describe(ctx, base)
	if err != nil {
		return err
	}
	name := m.ZoneName
	if name == "" {
		name = desc.RoomName
	}
	s := newSpeaker(a, m.UUID, base, name, desc)
	a.mu.Lock()
	if a.speakers[m.UUID] != nil {
		a.mu.Unlock()
		return nil
	}
	a.speakers[m.UUID] = s
	a.mu.Unlock()
	a.log.Info("player found", "name", name, "model", desc.ModelName, "uuid", m.UUID, "addr", base)
	a.cfg.Registry.Add(s)
	a.listen()
	a.life.Spawn(func(ctx context.Context) {
		sctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		s.keepSubscriptions(sctx)
	})
	return nil
}

// describe fetches a player's device description.
func (a *Adapter) describe(ctx context.Context, base string) (upnp.Description, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+upnp.DescriptionPath, nil)
	if err != nil {
		return upnp.Description{}, err
	}
	resp, err := a.client.HTTP.Do(req)
	if err != nil {
		return upnp.Description{}, devices.Unreachable(err, "no description from %s", base)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return upnp.Description{}, fmt.Errorf("sonos: %s: description: %w", base, &upnp.StatusError{Status: resp.StatusCode})
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return upnp.Description{}, devices.Unreachable(err, "no description from %s", base)
	}
	return upnp.ParseDescription(b)
}

// coordinatorOf is the player uuid plays in sync with: its group's
// coordinator, itself when it leads or plays alone.
func (a *Adapter) coordinatorOf(uuid string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.coord[uuid]; c != "" {
		return c
	}
	return uuid
}

// speaker returns a known player.
func (a *Adapter) speaker(uuid string) *Speaker {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.speakers[uuid]
}

// followers are the known players that follow coordinator.
func (a *Adapter) followers(coordinator string) []*Speaker {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Speaker
	for u, c := range a.coord {
		if c == coordinator && u != coordinator {
			if s := a.speakers[u]; s != nil {
				out = append(out, s)
			}
		}
	}
	return out
}

// setCoordinator records a group change the adapter made, before the
// topology confirms it.
func (a *Adapter) setCoordinator(uuid, coordinator string) {
	a.mu.Lock()
	a.coord[uuid] = coordinator
	a.topoAt = time.Time{}
	a.mu.Unlock()
}

// allSpeakers lists the known players.
func (a *Adapter) allSpeakers() []*Speaker {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*Speaker, 0, len(a.speakers))
	for _, s := range a.speakers {
		out = append(out, s)
	}
	return out
}

// ensureTopology reads the topology through s when no player sends
// topology events and the last reading is older than the cache.
func (a *Adapter) ensureTopology(ctx context.Context, s *Speaker) error {
	a.mu.Lock()
	stale := time.Since(a.topoAt) > cacheTTL
	a.mu.Unlock()
	if !stale || a.topologyEvents() {
		return nil
	}
	v, err := s.call(ctx, upnp.ZoneGroupTopology, "GetZoneGroupState")
	if err != nil {
		return err
	}
	groups, err := upnp.ParseZoneGroupState(v["ZoneGroupState"])
	if err != nil {
		return err
	}
	a.applyTopology(ctx, groups)
	return nil
}

// topologyEvents reports whether some player sends topology events.
func (a *Adapter) topologyEvents() bool {
	for _, s := range a.allSpeakers() {
		if s.subscribed(upnp.ZoneGroupTopology) {
			return true
		}
	}
	return false
}
