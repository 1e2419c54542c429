package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/automation"
)

// LocationConfig places the hub, for automations' sunrise and sunset.
type LocationConfig struct {
	Latitude  optionalFloat // degrees north, -90 … 90
	Longitude optionalFloat // degrees east, -180 … 180
}

func (c *LocationConfig) options() []option {
	return []option{
		{Name: "latitude", Env: "BIFROST_LATITUDE", Value: &c.Latitude,
			Usage: "the hub's latitude in `degrees` north (e.g. 52.52), for sunrise and sunset in automations"},
		{Name: "longitude", Env: "BIFROST_LONGITUDE", Value: &c.Longitude,
			Usage: "the hub's longitude in `degrees` east (e.g. 13.405; west is negative)"},
	}
}

// validate reports a location that cannot be.
func (c LocationConfig) validate() error {
	switch {
	case c.Latitude.set != c.Longitude.set:
		return fmt.Errorf("latitude and longitude: give both, or neither")
	case c.Latitude.set && math.Abs(c.Latitude.v) > 90:
		return fmt.Errorf("latitude: %v is not between -90 and 90", c.Latitude.v)
	case c.Longitude.set && math.Abs(c.Longitude.v) > 180:
		return fmt.Errorf("longitude: %v is not between -180 and 180", c.Longitude.v)
	}
	return nil
}

// newAutomations makes the automation engine over the service; it runs
// once the service has read the house.
func (m *Main) newAutomations() {
	loc := m.Config.Location
	m.automations = automation.New(automation.Config{Service: m.service, Store: m.db,
		Latitude: loc.Latitude.ptr(), Longitude: loc.Longitude.ptr(), Logger: m.Logger})
}

// optionalFloat is a number that may be left unset.
type optionalFloat struct {
	v   float64
	set bool
}

func (f *optionalFloat) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		*f = optionalFloat{}
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a number of degrees such as 52.52", s)
	}
	*f = optionalFloat{v: v, set: true}
	return nil
}

func (f *optionalFloat) String() string {
	if !f.set {
		return ""
	}
	return strconv.FormatFloat(f.v, 'f', -1, 64)
}

func (f optionalFloat) ptr() *float64 {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}
