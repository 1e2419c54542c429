package integrations

import (
	"context"
	"encoding/json"
	"math"

	"github.com/bifrost-hub/bifrost/service"
)

// Location is where the hub is, for sunrise and sunset: from the
// configuration (BIFROST_LATITUDE and BIFROST_LONGITUDE, which win), or as
// an admin saved it in Settings.
type Location struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
	// Fixed is true when the configuration gives the location: Settings
	// shows it and cannot change it.
	Fixed bool `json:"fixed"`
}

// LocationRunner is told the hub's location whenever it changes (the
// automation engine); cmd/bifrost wires it.
type LocationRunner interface {
	SetLocation(latitude, longitude *float64)
}

const locationName = "location"

// savedLocation is the location as stored.
type savedLocation struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
}

// Location returns the hub's location and whether the configuration fixes
// it. Admins only.
func (m *Manager) Location(ctx context.Context) (Location, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return Location{}, err
	}
	return m.location(ctx)
}

func (m *Manager) location(ctx context.Context) (Location, error) {
	if m.fixedLocation.Latitude != nil {
		l := m.fixedLocation
		l.Fixed = true
		return l, nil
	}
	rec, err := m.store.GetIntegration(ctx, locationName)
	switch {
	case service.ErrorCode(err) == service.ENOTFOUND:
		return Location{}, nil
	case err != nil:
		return Location{}, err
	}
	var s savedLocation
	if err := json.Unmarshal(rec.Config, &s); err != nil {
		return Location{}, err
	}
	return Location{Latitude: s.Latitude, Longitude: s.Longitude}, nil
}

// SaveLocation saves the hub's location (both nil clears it) and hands it
// to the automations at once. Admins only; refused while the configuration
// fixes it.
func (m *Manager) SaveLocation(ctx context.Context, latitude, longitude *float64) (Location, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return Location{}, err
	}
	if m.fixedLocation.Latitude != nil {
		return Location{}, service.Errorf(service.ECONFLICT, "the location is set by BIFROST_LATITUDE and BIFROST_LONGITUDE; change it there")
	}
	switch {
	case (latitude == nil) != (longitude == nil):
		return Location{}, service.Errorf(service.EINVALID, "give both latitude and longitude, or neither to clear the location").With("field", "latitude")
	case latitude != nil && (math.IsNaN(*latitude) || math.Abs(*latitude) > 90):
		return Location{}, service.Errorf(service.EINVALID, "latitude %v is not between -90 and 90", *latitude).With("field", "latitude")
	case longitude != nil && (math.IsNaN(*longitude) || math.Abs(*longitude) > 180):
		return Location{}, service.Errorf(service.EINVALID, "longitude %v is not between -180 and 180", *longitude).With("field", "longitude")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	if latitude == nil {
		err = m.store.DeleteIntegration(ctx, locationName)
		if service.ErrorCode(err) == service.ENOTFOUND {
			err = nil
		}
	} else {
		b, _ := json.Marshal(savedLocation{Latitude: latitude, Longitude: longitude})
		err = m.store.PutIntegration(ctx, Record{Name: locationName, Config: b, UpdatedAt: m.now().UTC()})
	}
	m.audit.Audit(ctx, "location.save", "", err, "")
	if err != nil {
		return Location{}, err
	}
	if m.onLocation != nil {
		m.onLocation.SetLocation(latitude, longitude)
	}
	return Location{Latitude: latitude, Longitude: longitude}, nil
}

// StartLocation hands the saved location to the automations at start; the
// configuration's, when it gives one, is theirs already.
func (m *Manager) StartLocation(ctx context.Context) error {
	if m.onLocation == nil || m.fixedLocation.Latitude != nil {
		return nil
	}
	l, err := m.location(ctx)
	if err != nil {
		return err
	}
	if l.Latitude != nil {
		m.onLocation.SetLocation(l.Latitude, l.Longitude)
	}
	return nil
}
