package service

import (
	"context"
	"encoding/json"
	"math"
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
func (in *Integrations) Location(ctx context.Context) (Location, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return Location{}, err
	}
	return in.location(ctx)
}

func (in *Integrations) location(ctx context.Context) (Location, error) {
	if in.fixedLocation.Latitude != nil {
		l := in.fixedLocation
		l.Fixed = true
		return l, nil
	}
	rec, err := in.store.GetIntegration(ctx, locationName)
	switch {
	case ErrorCode(err) == ENOTFOUND:
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
func (in *Integrations) SaveLocation(ctx context.Context, latitude, longitude *float64) (Location, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return Location{}, err
	}
	if in.fixedLocation.Latitude != nil {
		return Location{}, Errorf(ECONFLICT, "the location is set by BIFROST_LATITUDE and BIFROST_LONGITUDE; change it there")
	}
	switch {
	case (latitude == nil) != (longitude == nil):
		return Location{}, Errorf(EINVALID, "give both latitude and longitude, or neither to clear the location").With("field", "latitude")
	case latitude != nil && (math.IsNaN(*latitude) || math.Abs(*latitude) > 90):
		return Location{}, Errorf(EINVALID, "latitude %v is not between -90 and 90", *latitude).With("field", "latitude")
	case longitude != nil && (math.IsNaN(*longitude) || math.Abs(*longitude) > 180):
		return Location{}, Errorf(EINVALID, "longitude %v is not between -180 and 180", *longitude).With("field", "longitude")
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	var err error
	if latitude == nil {
		err = in.store.DeleteIntegration(ctx, locationName)
		if ErrorCode(err) == ENOTFOUND {
			err = nil
		}
	} else {
		b, _ := json.Marshal(savedLocation{Latitude: latitude, Longitude: longitude})
		err = in.store.PutIntegration(ctx, IntegrationRecord{Name: locationName, Config: b, UpdatedAt: in.svc.now().UTC()})
	}
	in.svc.audit(ctx, "location.save", "", err, "")
	if err != nil {
		return Location{}, err
	}
	if in.onLocation != nil {
		in.onLocation.SetLocation(latitude, longitude)
	}
	return Location{Latitude: latitude, Longitude: longitude}, nil
}

// StartLocation hands the saved location to the automations at start; the
// configuration's, when it gives one, is theirs already.
func (in *Integrations) StartLocation(ctx context.Context) error {
	if in.onLocation == nil || in.fixedLocation.Latitude != nil {
		return nil
	}
	l, err := in.location(ctx)
	if err != nil {
		return err
	}
	if l.Latitude != nil {
		in.onLocation.SetLocation(l.Latitude, l.Longitude)
	}
	return nil
}
