package automation

import (
	"context"
	"fmt"
	"time"
)

// verdict is how one condition stands at a moment.
type verdict struct {
	holds bool
	known bool
	// is says what the subject is, as in "<subject> was <is>": "on",
	// "320 lx", "up".
	is string
}

// conditionsHold checks r's conditions at at, in order. When one fails, it
// returns the condition in words and why it failed, in words: an unknown
// subject fails (a rule would rather skip than act blind).
func (e *Engine) conditionsHold(ctx context.Context, nm names, r Rule, at time.Time) (cond, because string, ok bool) {
	for _, c := range r.Conditions {
		v := e.condition(ctx, c, at)
		if v.known && v.holds {
			continue
		}
		return nm.condition(c), nm.because(c, v, e.cfg.Location, at), false
	}
	return "", "", true
}

// condition evaluates one condition at at.
func (e *Engine) condition(ctx context.Context, c Condition, at time.Time) verdict {
	switch c.Type {
	case CondTime:
		in, err := InWindow(at, c.After, c.Before, c.Days, e.cfg.Location)
		return verdict{holds: in, known: err == nil}
	case CondSun:
		lat, lon, located := e.place.get()
		if !located {
			return verdict{}
		}
		is := Down
		if SunUp(at.In(e.cfg.Location), lat, lon) {
			is = Up
		}
		return verdict{holds: is == c.Sun, known: true, is: is}
	case CondOccupancy:
		s := e.roomSubject(ctx, c.Room)
		return onOff(s, c.Is == Occupied, Occupied, Empty)
	case CondPower:
		s := e.deviceSubject(ctx, c.Device)
		return onOff(s, c.Is == On, On, Off)
	case CondSensor:
		return sensorVerdict(e.deviceSubject(ctx, c.Device), c)
	}
	return verdict{}
}

// onOff is the verdict on a two-state subject (occupied or empty, on or
// off): want says which of the two the condition asks for.
func onOff(s subject, want bool, yes, no string) verdict {
	if !s.known {
		return verdict{}
	}
	is := no
	if s.on {
		is = yes
	}
	return verdict{holds: s.on == want, known: true, is: is}
}

func sensorVerdict(s subject, c Condition) verdict {
	if !s.known {
		return verdict{}
	}
	r, ok := findReading(s.readings, c.Reading)
	if !ok {
		return verdict{}
	}
	if r.Bool != nil {
		is := boolState(c.Reading, *r.Bool)
		return verdict{holds: is == c.Is, known: true, is: is}
	}
	holds := (c.Above == nil || r.Value > *c.Above) && (c.Below == nil || r.Value < *c.Below)
	return verdict{holds: holds, known: true, is: fmt.Sprintf("%s%s", number(r.Value), unitOf(c.Reading))}
}
