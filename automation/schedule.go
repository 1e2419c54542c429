package automation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Times of day and weekday filters for time and sun triggers and time
// conditions. All of them read the wall clock of a location; nil means
// time.Local.

// scheduleClockForm is how an error names the valid time of day.
const scheduleClockForm = `"HH:MM", 00:00 to 23:59 (e.g. "07:30" or "7:30")`

// scheduleDayForm is how an error names the valid day names.
const scheduleDayForm = "mon, tue, wed, thu, fri, sat, sun (or full names such as monday), weekdays or weekends"

// scheduleDayNames maps every accepted day name, lower case, to its days.
var scheduleDayNames = map[string][]time.Weekday{
	"mon": {time.Monday}, "monday": {time.Monday},
	"tue": {time.Tuesday}, "tuesday": {time.Tuesday},
	"wed": {time.Wednesday}, "wednesday": {time.Wednesday},
	"thu": {time.Thursday}, "thursday": {time.Thursday},
	"fri": {time.Friday}, "friday": {time.Friday},
	"sat": {time.Saturday}, "saturday": {time.Saturday},
	"sun": {time.Sunday}, "sunday": {time.Sunday},
	"weekdays": {time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday},
	"weekends": {time.Saturday, time.Sunday},
}

// ParseClock reads a time of day written "HH:MM", 00:00 to 23:59; a
// single-digit hour ("7:05") is accepted too. The minutes always take two
// digits.
func ParseClock(hhmm string) (hour, min int, err error) {
	s := strings.TrimSpace(hhmm)
	bad := func() (int, int, error) {
		return 0, 0, fmt.Errorf("automation: bad time of day %q: want %s", hhmm, scheduleClockForm)
	}
	h, m, found := strings.Cut(s, ":")
	if !found || len(h) < 1 || len(h) > 2 || len(m) != 2 || !scheduleDigits(h) || !scheduleDigits(m) {
		return bad()
	}
	hour, _ = strconv.Atoi(h)
	min, _ = strconv.Atoi(m)
	if hour > 23 || min > 59 {
		return bad()
	}
	return hour, min, nil
}

// scheduleDigits reports whether s is made of ASCII digits only.
func scheduleDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// DayError is ParseDays' refusal of a day it does not know.
type DayError struct{ Day string }

func (e *DayError) Error() string { return "automation: " + e.said() }

// said is the refusal as a person reads it.
func (e *DayError) said() string {
	return fmt.Sprintf("unknown day %q: want %s", e.Day, scheduleDayForm)
}

// ParseDays reads a weekday filter: mon, tue, wed, thu, fri, sat, sun or
// the full names (monday, …), in any case, and "weekdays" (Monday to
// Friday) and "weekends" (Saturday and Sunday). The days come back once
// each, Monday first. An empty list is every day and comes back nil.
func ParseDays(days []string) ([]time.Weekday, error) {
	if len(days) == 0 {
		return nil, nil
	}
	var set [7]bool
	for _, d := range days {
		wd, ok := scheduleDayNames[strings.ToLower(strings.TrimSpace(d))]
		if !ok {
			return nil, &DayError{Day: d}
		}
		for _, w := range wd {
			set[w] = true
		}
	}
	out := make([]time.Weekday, 0, 7)
	for i := 1; i <= 7; i++ { // Monday first, Sunday last
		if w := time.Weekday(i % 7); set[w] {
			out = append(out, w)
		}
	}
	return out, nil
}

// scheduleDaySet is a parsed weekday filter; the zero value (nil) allows
// every day.
type scheduleDaySet []time.Weekday

func (s scheduleDaySet) has(w time.Weekday) bool {
	if len(s) == 0 {
		return true
	}
	for _, d := range s {
		if d == w {
			return true
		}
	}
	return false
}

func scheduleLoc(loc *time.Location) *time.Location {
	if loc == nil {
		return time.Local
	}
	return loc
}

// NextTime is the first instant strictly after after when the wall clock
// in loc (nil: time.Local) reads hhmm on one of days (ParseDays names;
// empty is every day).
//
// Daylight saving time: a wall time skipped by a spring-forward gap (02:30
// on the night the clocks jump from 02:00 to 03:00, as in Europe/Berlin or
// America/New_York) fires once that night, at the first instant after the
// gap (03:00 local), and that day still counts as the day it was scheduled
// for; the next day it fires at 02:30 again. A wall time that occurs twice
// when the clocks go back (01:30 on the autumn night in New York) fires
// once, at its first occurrence.
func NextTime(after time.Time, hhmm string, days []string, loc *time.Location) (time.Time, error) {
	h, m, err := ParseClock(hhmm)
	if err != nil {
		return time.Time{}, err
	}
	wd, err := ParseDays(days)
	if err != nil {
		return time.Time{}, err
	}
	loc = scheduleLoc(loc)
	allowed := scheduleDaySet(wd)
	y, mo, d := after.In(loc).Date()
	// Eight days cover today (perhaps already past) and a whole week; the
	// day before is looked at too, in case a zone's transition moves a
	// late wall time past midnight.
	for i := -1; i <= 8; i++ {
		day := time.Date(y, mo, d+i, 12, 0, 0, 0, time.UTC) // the calendar day, normalised
		if !allowed.has(day.Weekday()) {
			continue
		}
		t := scheduleWallTime(day.Year(), day.Month(), day.Day(), h, m, loc)
		if t.After(after) {
			return t, nil
		}
	}
	// Unreachable: some day of the coming week is always allowed.
	return time.Time{}, fmt.Errorf("automation: no time %s found after %s", hhmm, after)
}

// scheduleWallTime is the instant the wall clock in loc reads h:m on the
// given day: the first of two when the clocks go back, and the end of the
// gap when the clocks skip the wall time.
func scheduleWallTime(y int, mo time.Month, d, h, m int, loc *time.Location) time.Time {
	// The wall time read as if it were UTC; subtracting an offset gives a
	// candidate instant.
	naive := time.Date(y, mo, d, h, m, 0, 0, time.UTC)
	// The offsets on either side of any transition near the wall time (a
	// day off is clear of it; zones change offset at most a few times a
	// year).
	_, before := naive.Add(-24 * time.Hour).In(loc).Zone()
	_, later := naive.Add(24 * time.Hour).In(loc).Zone()
	var best time.Time
	for _, off := range []int{before, later} {
		t := naive.Add(-time.Duration(off) * time.Second)
		if _, o := t.In(loc).Zone(); o != off {
			continue // not a valid reading under this offset
		}
		if best.IsZero() || t.Before(best) {
			best = t
		}
	}
	if !best.IsZero() {
		return best.In(loc)
	}
	// In a gap: read with the offset in force before it, the wall time
	// lands after the transition; the zone that started there begins at
	// the first instant after the gap.
	t := naive.Add(-time.Duration(before) * time.Second).In(loc)
	start, _ := t.ZoneBounds()
	if start.IsZero() || start.After(t) {
		return t
	}
	return start.In(loc)
}

// NextSun is the next sunrise or sunset (event "sunrise" or "sunset"),
// moved by offset (negative is before the event), strictly after after,
// whose day, the calendar day in loc (nil: time.Local) of the event
// itself, not of the offset time, is one of days (ParseDays names; empty
// is every day). It is false when there is none within 400 days (the
// polar night or day), when event is neither, or when days does not
// parse; callers check days with ParseDays first.
func NextSun(after time.Time, event string, offset time.Duration, days []string, lat, lon float64, loc *time.Location) (time.Time, bool) {
	var sunset bool
	switch strings.ToLower(strings.TrimSpace(event)) {
	case "sunrise":
	case "sunset":
		sunset = true
	default:
		return time.Time{}, false
	}
	wd, err := ParseDays(days)
	if err != nil {
		return time.Time{}, false
	}
	loc = scheduleLoc(loc)
	allowed := scheduleDaySet(wd)
	y, mo, d := after.In(loc).Date()
	// Start early enough that an event whose offset carries it past
	// after is not missed.
	back := int(offset.Abs()/(24*time.Hour)) + 2
	for i := -back; i <= 400; i++ {
		riseAt, setAt, st := sunDay(y, mo, d+i, loc, lat, lon)
		if st != sunNormal {
			continue
		}
		ev := riseAt
		if sunset {
			ev = setAt
		}
		t := ev.Add(offset)
		if !t.After(after) || !allowed.has(ev.In(loc).Weekday()) {
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

// InWindow reports whether t falls in the window [after, before) of the
// wall clock in loc (nil: time.Local), on one of days (ParseDays names;
// empty is every day). When after is later than before the window runs
// overnight, and days apply to the day it starts: a Saturday 22:00–02:00
// window covers Sunday 01:00, but Saturday 01:00 only if Friday is listed
// too. When after equals before the window is the whole day. The wall
// clock is read as it shows: on the night the clocks go back, an hour
// inside the window is in it both times.
func InWindow(t time.Time, after, before string, days []string, loc *time.Location) (bool, error) {
	ah, am, err := ParseClock(after)
	if err != nil {
		return false, err
	}
	bh, bm, err := ParseClock(before)
	if err != nil {
		return false, err
	}
	wd, err := ParseDays(days)
	if err != nil {
		return false, err
	}
	allowed := scheduleDaySet(wd)
	lt := t.In(scheduleLoc(loc))
	now := lt.Hour()*3600 + lt.Minute()*60 + lt.Second()
	start, end := ah*3600+am*60, bh*3600+bm*60
	today := lt.Weekday()
	switch {
	case start == end:
		return allowed.has(today), nil
	case start < end:
		return now >= start && now < end && allowed.has(today), nil
	case now >= start: // overnight, begun today
		return allowed.has(today), nil
	case now < end: // overnight, begun yesterday
		return allowed.has((today + 6) % 7), nil
	}
	return false, nil
}
