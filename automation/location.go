package automation

import "sync"

// place is where the hub is, for sunrise and sunset: Config's at first,
// then what SetLocation says (Settings → Location).
type place struct {
	mu       sync.RWMutex
	lat, lon float64
	ok       bool
}

func (p *place) get() (lat, lon float64, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.lat, p.lon, p.ok
}

func (p *place) set(lat, lon *float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ok = lat != nil && lon != nil
	if p.ok {
		p.lat, p.lon = *lat, *lon
	}
}

// SetLocation moves the hub (both nil: no location), and times the sun
// triggers anew from it. It implements integrations.LocationRunner.
func (e *Engine) SetLocation(latitude, longitude *float64) {
	e.place.set(latitude, longitude)
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, rs := range e.rules {
		if rs.rule.Trigger.Type == TriggerSun {
			rs.next = e.nextAt(rs.rule, now)
		}
	}
}
