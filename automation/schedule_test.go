package automation

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseClock(t *testing.T) {
	good := []struct {
		in   string
		h, m int
	}{
		{"00:00", 0, 0}, {"23:59", 23, 59}, {"07:05", 7, 5}, {"7:05", 7, 5}, {"12:30", 12, 30}, {" 06:45 ", 6, 45},
	}
	for _, g := range good {
		h, m, err := ParseClock(g.in)
		if err != nil || h != g.h || m != g.m {
			t.Errorf("ParseClock(%q) = %d, %d, %v; want %d, %d", g.in, h, m, err, g.h, g.m)
		}
	}
	for _, bad := range []string{"", "7", "24:00", "12:60", "7:5", "07:5", "007:05", "07:05:00", "ab:cd", "-1:00", "+7:05", "7.05", "07 05", "１2:00"} {
		_, _, err := ParseClock(bad)
		if err == nil {
			t.Errorf("ParseClock(%q): no error", bad)
			continue
		}
		if !strings.Contains(err.Error(), "HH:MM") || !strings.Contains(err.Error(), "23:59") {
			t.Errorf("ParseClock(%q) error %q does not give the valid form", bad, err)
		}
	}
}

func TestParseDays(t *testing.T) {
	wd := func(ds ...time.Weekday) []time.Weekday { return ds }
	cases := []struct {
		in   []string
		want []time.Weekday
	}{
		{nil, nil},
		{[]string{}, nil},
		{[]string{"mon"}, wd(time.Monday)},
		{[]string{"Sun", "MON"}, wd(time.Monday, time.Sunday)},
		{[]string{"Tuesday", "wednesday", "THURSDAY"}, wd(time.Tuesday, time.Wednesday, time.Thursday)},
		{[]string{"friday", "saturday", "sunday", "monday"}, wd(time.Monday, time.Friday, time.Saturday, time.Sunday)},
		{[]string{"weekdays"}, wd(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)},
		{[]string{"Weekends"}, wd(time.Saturday, time.Sunday)},
		{[]string{"weekends", "mon", "monday", "sat"}, wd(time.Monday, time.Saturday, time.Sunday)},
		{[]string{"weekdays", "weekends"}, wd(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday)},
		{[]string{" fri "}, wd(time.Friday)},
	}
	for _, c := range cases {
		got, err := ParseDays(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseDays(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"funday"}, {"mon", "tues"}, {""}, {"mo"}, {"weekday x"}} {
		_, err := ParseDays(bad)
		if err == nil {
			t.Errorf("ParseDays(%q): no error", bad)
			continue
		}
		msg := err.Error()
		var entry string
		for _, b := range bad {
			if _, ok := scheduleDayNames[strings.ToLower(strings.TrimSpace(b))]; !ok {
				entry = b
				break
			}
		}
		if !strings.Contains(msg, `"`+entry+`"`) {
			t.Errorf("ParseDays(%q) error %q does not name %q", bad, msg, entry)
		}
		for _, want := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun", "weekdays", "weekends"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ParseDays(%q) error %q does not list %q", bad, msg, want)
			}
		}
	}
}

func schedTestLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s not available: %v", name, err)
	}
	return loc
}

func TestNextTime(t *testing.T) {
	ny := schedTestLoc(t, "America/New_York")
	berlin := schedTestLoc(t, "Europe/Berlin")
	utc := time.UTC
	// 2026-01-09 is a Friday.
	cases := []struct {
		name  string
		after time.Time
		hhmm  string
		days  []string
		loc   *time.Location
		want  time.Time
	}{
		{"later today, UTC", time.Date(2026, 1, 5, 6, 59, 0, 0, utc), "07:00", nil, utc,
			time.Date(2026, 1, 5, 7, 0, 0, 0, utc)},
		{"strictly after", time.Date(2026, 1, 5, 7, 0, 0, 0, utc), "07:00", nil, utc,
			time.Date(2026, 1, 6, 7, 0, 0, 0, utc)},
		{"a second before", time.Date(2026, 1, 5, 6, 59, 59, 999, utc), "07:00", nil, utc,
			time.Date(2026, 1, 5, 7, 0, 0, 0, utc)},
		{"across midnight", time.Date(2026, 1, 5, 23, 30, 0, 0, utc), "00:15", nil, utc,
			time.Date(2026, 1, 6, 0, 15, 0, 0, utc)},
		{"across the new year", time.Date(2025, 12, 31, 23, 59, 0, 0, utc), "7:05", nil, utc,
			time.Date(2026, 1, 1, 7, 5, 0, 0, utc)},
		{"after given in another zone", time.Date(2026, 1, 5, 11, 59, 0, 0, utc), "07:00", nil, ny,
			time.Date(2026, 1, 5, 7, 0, 0, 0, ny)}, // 11:59 UTC is 06:59 EST
		{"after given in another zone, at the time", time.Date(2026, 1, 5, 12, 0, 0, 0, utc), "07:00", nil, ny,
			time.Date(2026, 1, 6, 7, 0, 0, 0, ny)}, // 12:00 UTC is 07:00 EST: strictly after
		{"weekdays from Friday", time.Date(2026, 1, 9, 8, 0, 0, 0, utc), "07:00", []string{"weekdays"}, utc,
			time.Date(2026, 1, 12, 7, 0, 0, 0, utc)},
		{"weekdays on Friday morning", time.Date(2026, 1, 9, 6, 0, 0, 0, utc), "07:00", []string{"weekdays"}, utc,
			time.Date(2026, 1, 9, 7, 0, 0, 0, utc)},
		{"saturday", time.Date(2026, 1, 9, 8, 0, 0, 0, utc), "07:00", []string{"sat"}, utc,
			time.Date(2026, 1, 10, 7, 0, 0, 0, utc)},
		{"weekends from Saturday", time.Date(2026, 1, 10, 8, 0, 0, 0, utc), "07:00", []string{"weekends"}, utc,
			time.Date(2026, 1, 11, 7, 0, 0, 0, utc)},
		{"the same weekday, a week on", time.Date(2026, 1, 9, 8, 0, 0, 0, utc), "07:00", []string{"Friday"}, utc,
			time.Date(2026, 1, 16, 7, 0, 0, 0, utc)},
		{"Berlin local", time.Date(2026, 1, 9, 5, 0, 0, 0, utc), "07:00", nil, berlin,
			time.Date(2026, 1, 9, 6, 0, 0, 0, utc)},

		// Spring forward, New York, Sunday 2026-03-08: 02:00 EST → 03:00 EDT.
		{"NY gap fires at 03:00", time.Date(2026, 3, 7, 12, 0, 0, 0, ny), "02:30", nil, ny,
			time.Date(2026, 3, 8, 7, 0, 0, 0, utc)},
		{"NY gap: then the next day at 02:30", time.Date(2026, 3, 8, 7, 0, 0, 0, utc), "02:30", nil, ny,
			time.Date(2026, 3, 9, 2, 30, 0, 0, ny)},
		{"NY gap counts as Sunday", time.Date(2026, 3, 7, 12, 0, 0, 0, ny), "02:30", []string{"sun"}, ny,
			time.Date(2026, 3, 8, 3, 0, 0, 0, ny)},
		{"NY gap: not a Monday", time.Date(2026, 3, 7, 12, 0, 0, 0, ny), "02:30", []string{"mon"}, ny,
			time.Date(2026, 3, 9, 2, 30, 0, 0, ny)},
		{"NY gap: 02:00 too", time.Date(2026, 3, 8, 1, 59, 0, 0, ny), "02:00", nil, ny,
			time.Date(2026, 3, 8, 3, 0, 0, 0, ny)},
		{"NY 03:00 on the gap night", time.Date(2026, 3, 8, 1, 0, 0, 0, ny), "03:00", nil, ny,
			time.Date(2026, 3, 8, 7, 0, 0, 0, utc)},
		{"NY 01:59 before the gap", time.Date(2026, 3, 8, 0, 0, 0, 0, ny), "01:59", nil, ny,
			time.Date(2026, 3, 8, 6, 59, 0, 0, utc)},

		// Spring forward, Berlin, Sunday 2026-03-29: 02:00 CET → 03:00 CEST.
		{"Berlin gap fires at 03:00", time.Date(2026, 3, 28, 12, 0, 0, 0, berlin), "02:30", nil, berlin,
			time.Date(2026, 3, 29, 1, 0, 0, 0, utc)},
		{"Berlin gap: then the next day at 02:30", time.Date(2026, 3, 29, 1, 0, 0, 0, utc), "02:30", nil, berlin,
			time.Date(2026, 3, 30, 0, 30, 0, 0, utc)},

		// Fall back, New York, Sunday 2026-11-01: 01:00–02:00 happens twice.
		{"NY fall back: first 01:30", time.Date(2026, 10, 31, 12, 0, 0, 0, ny), "01:30", nil, ny,
			time.Date(2026, 11, 1, 5, 30, 0, 0, utc)},
		{"NY fall back: not the second 01:30", time.Date(2026, 11, 1, 5, 30, 0, 0, utc), "01:30", nil, ny,
			time.Date(2026, 11, 2, 6, 30, 0, 0, utc)},
		{"NY fall back: between the two", time.Date(2026, 11, 1, 6, 0, 0, 0, utc), "01:30", nil, ny,
			time.Date(2026, 11, 2, 6, 30, 0, 0, utc)},
		{"NY fall back: 02:30 once", time.Date(2026, 11, 1, 0, 0, 0, 0, ny), "02:30", nil, ny,
			time.Date(2026, 11, 1, 7, 30, 0, 0, utc)},
		// Berlin, Sunday 2026-10-25: 02:00–03:00 happens twice.
		{"Berlin fall back: first 02:30", time.Date(2026, 10, 24, 12, 0, 0, 0, berlin), "02:30", nil, berlin,
			time.Date(2026, 10, 25, 0, 30, 0, 0, utc)},
	}
	for _, c := range cases {
		got, err := NextTime(c.after, c.hhmm, c.days, c.loc)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("%s: NextTime(%v, %q, %q) = %v, want %v", c.name, c.after, c.hhmm, c.days, got, c.want.In(c.loc))
		}
		if got.Location() != c.loc {
			t.Errorf("%s: location %v, want %v", c.name, got.Location(), c.loc)
		}
	}
}

func TestNextTimeFiresOnceADay(t *testing.T) {
	// Stepping through 2026 in New York and Berlin, "02:30" and "01:30"
	// fire exactly once on every day, DST nights included.
	for _, zone := range []string{"America/New_York", "Europe/Berlin"} {
		loc := schedTestLoc(t, zone)
		for _, hhmm := range []string{"02:30", "01:30", "00:00", "23:59"} {
			at := time.Date(2025, 12, 31, 12, 0, 0, 0, loc)
			seen := map[string]int{}
			for {
				next, err := NextTime(at, hhmm, nil, loc)
				if err != nil {
					t.Fatal(err)
				}
				if !next.After(at) {
					t.Fatalf("%s %s: %v not after %v", zone, hhmm, next, at)
				}
				if next.Year() > 2026 {
					break
				}
				if next.Year() == 2026 {
					seen[next.Format("2006-01-02")]++
				}
				at = next
			}
			if len(seen) != 365 {
				t.Errorf("%s %s: fired on %d days, want 365", zone, hhmm, len(seen))
			}
			for d, n := range seen {
				if n != 1 {
					t.Errorf("%s %s: fired %d times on %s", zone, hhmm, n, d)
				}
			}
		}
	}
}

func TestNextTimeErrors(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := NextTime(at, "25:00", nil, time.UTC); err == nil || !strings.Contains(err.Error(), "HH:MM") {
		t.Errorf("bad time: err = %v", err)
	}
	if _, err := NextTime(at, "07:00", []string{"mon", "someday"}, time.UTC); err == nil || !strings.Contains(err.Error(), "someday") {
		t.Errorf("bad day: err = %v", err)
	}
}

func TestNextSun(t *testing.T) {
	berlin := schedTestLoc(t, "Europe/Berlin")
	const lat, lon = 52.52, 13.405
	sun := func(y int, m time.Month, d int) (time.Time, time.Time) {
		rise, set, ok := SunTimes(time.Date(y, m, d, 12, 0, 0, 0, berlin), lat, lon)
		if !ok {
			t.Fatalf("no sun on %d-%d-%d", y, m, d)
		}
		return rise, set
	}
	// 2024-12-21 is a Saturday.
	rise21, set21 := sun(2024, 12, 21)
	rise22, _ := sun(2024, 12, 22)
	_, set22 := sun(2024, 12, 22)
	rise23, _ := sun(2024, 12, 23)

	cases := []struct {
		name   string
		after  time.Time
		event  string
		offset time.Duration
		days   []string
		want   time.Time
	}{
		{"sunset, half an hour before", time.Date(2024, 12, 21, 12, 0, 0, 0, berlin), "sunset", -30 * time.Minute, nil,
			set21.Add(-30 * time.Minute)},
		{"sunset -30m already past", set21.Add(-30 * time.Minute), "sunset", -30 * time.Minute, nil,
			set22.Add(-30 * time.Minute)},
		{"sunrise, 45 minutes after", rise21.Add(10 * time.Minute), "sunrise", 45 * time.Minute, nil,
			rise21.Add(45 * time.Minute)},
		{"sunrise +45m already past", rise21.Add(50 * time.Minute), "Sunrise", 45 * time.Minute, nil,
			rise22.Add(45 * time.Minute)},
		{"strictly after", rise21, "sunrise", 0, nil, rise22},
		{"Mondays only", time.Date(2024, 12, 21, 0, 0, 0, 0, berlin), "sunrise", 0, []string{"mon"}, rise23},
		{"weekends, from Saturday evening", set21.Add(time.Minute), "sunset", 0, []string{"weekends"}, set22},
		// The day is the event's own: Saturday's sunset + 9 h is early
		// Sunday, and is still Saturday's.
		{"offset past midnight keeps the event's day", time.Date(2024, 12, 21, 20, 0, 0, 0, berlin), "sunset", 9 * time.Hour, []string{"sat"},
			set21.Add(9 * time.Hour)},
		{"offset past midnight, after the date changed", time.Date(2024, 12, 22, 0, 10, 0, 0, berlin), "sunset", 9 * time.Hour, []string{"sat"},
			set21.Add(9 * time.Hour)},
		// Sunday's sunrise − 10 h is Saturday evening, and is Sunday's.
		{"offset before midnight keeps the event's day", time.Date(2024, 12, 21, 12, 0, 0, 0, berlin), "sunrise", -10 * time.Hour, []string{"sun"},
			rise22.Add(-10 * time.Hour)},
		{"offset before midnight, Saturday not listed", time.Date(2024, 12, 20, 12, 0, 0, 0, berlin), "sunrise", -10 * time.Hour, []string{"sat"},
			rise21.Add(-10 * time.Hour)},
	}
	for _, c := range cases {
		got, ok := NextSun(c.after, c.event, c.offset, c.days, lat, lon, berlin)
		if !ok || !got.Equal(c.want) {
			t.Errorf("%s: NextSun(%v, %q, %v, %q) = %v, %v; want %v", c.name, c.after, c.event, c.offset, c.days, got, ok, c.want)
		}
	}

	// Close to the published value: 2024-12-21 sunset in Berlin 15:54
	// (rbb24), so 30 minutes before is 15:24.
	got, _ := NextSun(time.Date(2024, 12, 21, 0, 0, 0, 0, berlin), "sunset", -30*time.Minute, nil, lat, lon, berlin)
	if want := time.Date(2024, 12, 21, 15, 24, 0, 0, berlin); got.Sub(want).Abs() > 2*time.Minute {
		t.Errorf("Berlin sunset -30m on 2024-12-21 = %v, want about %v", got, want)
	}

	// Sunset in New York's own zone, given an instant in UTC.
	ny := schedTestLoc(t, "America/New_York")
	got, ok := NextSun(time.Date(2023, 12, 21, 12, 0, 0, 0, time.UTC), "sunset", 0, nil, 40.7128, -74.0060, ny)
	if want := time.Date(2023, 12, 21, 16, 31, 0, 0, ny); !ok || got.Sub(want).Abs() > 2*time.Minute || got.Location() != ny {
		t.Errorf("New York sunset 2023-12-21 = %v, %v; want about %v (CBS New York)", got, ok, want)
	}
}

func TestNextSunPolar(t *testing.T) {
	oslo := schedTestLoc(t, "Europe/Oslo")
	const lat, lon = 69.65, 18.96 // Tromsø
	// In the polar night the next sunrise is in the new year, mid-January.
	got, ok := NextSun(time.Date(2025, 12, 1, 12, 0, 0, 0, oslo), "sunrise", 0, nil, lat, lon, oslo)
	if !ok || got.Year() != 2026 || got.Month() != time.January {
		t.Errorf("Tromsø next sunrise after 2025-12-01 = %v, %v; want January 2026", got, ok)
	}
	// Under the midnight sun the next sunset is in late July.
	got, ok = NextSun(time.Date(2026, 6, 1, 12, 0, 0, 0, oslo), "sunset", 0, nil, lat, lon, oslo)
	if !ok || got.Month() != time.July || got.Day() < 15 {
		t.Errorf("Tromsø next sunset after 2026-06-01 = %v, %v; want late July 2026", got, ok)
	}
	// No sun at all, a bad event, bad days.
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := NextSun(at, "sunrise", 0, nil, math.NaN(), 0, time.UTC); ok {
		t.Error("NaN latitude: ok = true")
	}
	if _, ok := NextSun(at, "noon", 0, nil, 52.52, 13.405, time.UTC); ok {
		t.Error(`event "noon": ok = true`)
	}
	if _, ok := NextSun(at, "sunrise", 0, []string{"caturday"}, 52.52, 13.405, time.UTC); ok {
		t.Error(`days "caturday": ok = true`)
	}
}

func TestInWindow(t *testing.T) {
	berlin := schedTestLoc(t, "Europe/Berlin")
	// 2026-01-10 is a Saturday.
	at := func(d, h, m int) time.Time { return time.Date(2026, 1, d, h, m, 0, 0, berlin) }
	cases := []struct {
		name          string
		t             time.Time
		after, before string
		days          []string
		want          bool
	}{
		{"normal: inside", at(12, 9, 0), "08:00", "17:00", nil, true},
		{"normal: start included", at(12, 8, 0), "08:00", "17:00", nil, true},
		{"normal: end excluded", at(12, 17, 0), "08:00", "17:00", nil, false},
		{"normal: a second before the end", at(12, 16, 59).Add(59 * time.Second), "08:00", "17:00", nil, true},
		{"normal: before", at(12, 7, 59), "08:00", "17:00", nil, false},
		{"normal: weekday", at(12, 9, 0), "08:00", "17:00", []string{"weekdays"}, true},
		{"normal: not on Saturday", at(10, 9, 0), "08:00", "17:00", []string{"weekdays"}, false},
		{"normal: single digit hour", at(12, 7, 30), "7:05", "7:45", nil, true},

		{"overnight: Saturday evening", at(10, 23, 0), "22:00", "02:00", []string{"sat"}, true},
		{"overnight: start included", at(10, 22, 0), "22:00", "02:00", []string{"sat"}, true},
		{"overnight: Sunday 01:00 belongs to Saturday", at(11, 1, 0), "22:00", "02:00", []string{"sat"}, true},
		{"overnight: Sunday 02:00 is the end", at(11, 2, 0), "22:00", "02:00", []string{"sat"}, false},
		{"overnight: Saturday 01:00 belongs to Friday", at(10, 1, 0), "22:00", "02:00", []string{"sat"}, false},
		{"overnight: Saturday 01:00 with Friday", at(10, 1, 0), "22:00", "02:00", []string{"fri", "sat"}, true},
		{"overnight: Sunday evening not listed", at(11, 23, 0), "22:00", "02:00", []string{"sat"}, false},
		{"overnight: midday is outside", at(10, 12, 0), "22:00", "02:00", nil, false},
		{"overnight: every day", at(13, 0, 30), "22:00", "02:00", nil, true},
		{"overnight: across the year", time.Date(2026, 1, 1, 1, 0, 0, 0, berlin), "22:00", "02:00", []string{"wed"}, true}, // 2025-12-31 is a Wednesday

		{"whole day", at(12, 3, 17), "00:00", "00:00", nil, true},
		{"whole day, other time", at(12, 23, 59), "07:00", "07:00", nil, true},
		{"whole day, listed day", at(12, 0, 0), "07:00", "07:00", []string{"mon"}, true},
		{"whole day, other day", at(13, 12, 0), "07:00", "07:00", []string{"mon"}, false},

		{"read in loc, not t's zone", time.Date(2026, 1, 12, 7, 30, 0, 0, time.UTC), "08:00", "09:00", nil, true}, // 08:30 in Berlin
	}
	for _, c := range cases {
		got, err := InWindow(c.t, c.after, c.before, c.days, berlin)
		if err != nil || got != c.want {
			t.Errorf("%s: InWindow(%v, %q, %q, %q) = %v, %v; want %v", c.name, c.t, c.after, c.before, c.days, got, err, c.want)
		}
	}
}

func TestInWindowErrors(t *testing.T) {
	at := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		after, before string
		days          []string
		mention       string
	}{
		{"25:00", "17:00", nil, "HH:MM"},
		{"08:00", "7", nil, "HH:MM"},
		{"", "17:00", nil, "HH:MM"},
		{"08:00", "17:00", []string{"workdays"}, "workdays"},
	} {
		got, err := InWindow(at, c.after, c.before, c.days, time.UTC)
		if err == nil || got || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("InWindow(%q, %q, %q) = %v, %v; want an error mentioning %q", c.after, c.before, c.days, got, err, c.mention)
		}
	}
}
