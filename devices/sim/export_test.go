package sim

import "time"

// SetTick sets how often Run moves the sensors; call it before Run.
func (h *Home) SetTick(d time.Duration) { h.tick = d }

// SkipAhead moves what the speaker plays d further on, as if d had passed.
func (s *Speaker) SkipAhead(d time.Duration) {
	s.hh.mu.Lock()
	defer s.hh.mu.Unlock()
	p := s.play
	p.head.started = p.head.started.Add(-d)
	p.head.held += d
	s.setPlayLocked(p)
}
