package automation

import (
	"math"
	"testing"
	"time"
)

func sunTestLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s not available: %v", name, err)
	}
	return loc
}

// sunRef is a published sunrise or sunset, to the minute (or the second
// where the source gives seconds). An empty rise or set is not given by
// the source.
type sunRef struct {
	place     string
	lat, lon  float64
	zone      string
	date      string // YYYY-MM-DD
	rise, set string // local HH:MM or HH:MM:SS
	source    string
}

// The published values the calculation is held to, within two minutes
// (NOAA states its own algorithm to be within a minute between ±72°, and
// the sources round to the minute).
var sunRefs = []sunRef{
	// Colorado. Boulder's own solstice and equinox tables were not found,
	// so Denver (20 km away, timeanddate.com figures) stands in for them.
	{"Denver", 39.7392, -104.9903, "America/Denver", "2021-06-20", "05:32", "20:31",
		"Denver Post, 2021-01-11, 'This week Denver will have its last sunset before 5 p.m. until November' (June solstice)"},
	{"Denver", 39.7392, -104.9903, "America/Denver", "2020-12-21", "07:17", "16:39",
		"The Know / Denver Post, 2020-08-11, 'Tonight is Denver's last 8 p.m. sunset until May 2021', citing timeanddate.com (December solstice)"},
	{"Denver", 39.7392, -104.9903, "America/Denver", "2020-09-22", "", "18:56",
		"The Know / Denver Post, 2020-08-11, citing timeanddate.com (September equinox)"},
	{"Denver", 39.7392, -104.9903, "America/Denver", "2023-09-21", "", "18:58",
		"Out There Colorado / Denver Gazette, 2023-08-08, data from timeanddate.com"},
	{"Boulder", 40.015, -105.2705, "America/Denver", "2022-01-13", "", "16:58",
		"Out There Colorado, 2022-01-13, 'Sun will set after 5 PM for most Coloradans this week' (Boulder: 4:58 PM)"},
	{"Colorado Springs", 38.8339, -104.8214, "America/Denver", "2023-03-20", "07:02", "19:11",
		"KOAA, 2023-03-10, 'Colorado is gaining two and a half minutes of daylight each day' (March equinox)"},
	// New York and the east coast.
	{"New York", 40.7128, -74.0060, "America/New_York", "2023-12-21", "07:16", "16:31",
		"CBS New York, 'Winter solstice 2023: Sunrise and sunset times for NYC'"},
	{"New York", 40.7128, -74.0060, "America/New_York", "2024-03-19", "", "19:07",
		"CBS New York, 'Winter solstice 2023: Sunrise and sunset times for NYC' (March 19, spring equinox: 7:07 p.m.)"},
	{"New York", 40.75, -73.99, "America/New_York", "2015-01-01", "07:20:02", "16:38:16",
		"README of the Ruby gem 'sun' (rubydoc.info/gems/sun), a port of the NOAA solar calculator"},
	{"Raleigh", 35.78, -78.649999, "America/New_York", "2015-03-08", "07:35:30", "",
		"README of the npm package 'solar-calc' (npmjs.com/package/solar-calc), after the NOAA calculator: 2015-03-08T11:35:30Z"},
	{"Washington DC", 38.9, -77.0, "America/New_York", "2002-03-20", "06:12", "18:21",
		"US Naval Observatory table quoted at stevekluge.com/astronomy/equinoxsunrise.html (March equinox)"},
	// Germany.
	{"Berlin", 52.52, 13.405, "Europe/Berlin", "2019-06-21", "04:43", "21:33",
		"Bild, 2019-06, 'Kalendarischer Sommerbeginn: Freitag ist der längste Tag des Jahres' (June solstice)"},
	{"Berlin", 52.52, 13.405, "Europe/Berlin", "2024-12-21", "08:15", "15:54",
		"rbb24, 2024-12-21, 'Wintersonnenwende - Am düstersten' (December solstice)"},
	{"Berlin", 52.52, 13.405, "Europe/Berlin", "2020-09-22", "", "19:04",
		"Berliner Zeitung, 'Der Sternenhimmel im September 2020' (September equinox)"},
	{"Munich", 48.13743, 11.57549, "Europe/Berlin", "2017-03-20", "06:17", "18:27",
		"Bayerischer Rundfunk, Sternenhimmel März 2017, times for München (March equinox)"},
}

func TestSunTimesReference(t *testing.T) {
	const tolerance = 2 * time.Minute
	for _, r := range sunRefs {
		loc := sunTestLoc(t, r.zone)
		day, err := time.ParseInLocation("2006-01-02", r.date, loc)
		if err != nil {
			t.Fatal(err)
		}
		// Any time of the day names the day.
		rise, set, ok := SunTimes(day.Add(9*time.Hour+17*time.Minute), r.lat, r.lon)
		if !ok {
			t.Errorf("%s %s: ok = false", r.place, r.date)
			continue
		}
		check := func(what, want string, got time.Time) {
			if want == "" {
				return
			}
			layout := "2006-01-02 15:04"
			if len(want) == 8 {
				layout = "2006-01-02 15:04:05"
			}
			w, err := time.ParseInLocation(layout, r.date+" "+want, loc)
			if err != nil {
				t.Fatal(err)
			}
			if got.Location() != loc {
				t.Errorf("%s %s %s: location %v, want %v", r.place, r.date, what, got.Location(), loc)
			}
			d := got.Sub(w)
			t.Logf("%s %s %s: %s, published %s (%+.0fs)", r.place, r.date, what, got.Format("15:04:05"), want, d.Seconds())
			if d.Abs() > tolerance {
				t.Errorf("%s %s %s = %s, want %s ±%v (%s)", r.place, r.date, what,
					got.Format("15:04:05 MST"), want, tolerance, r.source)
			}
		}
		check("sunrise", r.rise, rise)
		check("sunset", r.set, set)
	}
}

func TestSunTimesCalendarDay(t *testing.T) {
	// Whatever the time of day given, the events are those of its
	// calendar day in its own location, and sunrise comes before sunset.
	for _, zone := range []string{"America/Denver", "America/New_York", "Europe/Berlin", "Australia/Sydney", "UTC"} {
		loc := sunTestLoc(t, zone)
		for _, p := range [][2]float64{{40.015, -105.2705}, {40.7128, -74.0060}, {52.52, 13.405}, {-33.8688, 151.2093}, {0, 0}} {
			for _, hour := range []int{0, 6, 12, 23} {
				for day := 1; day <= 365; day += 17 {
					d := time.Date(2026, 1, day, hour, 59, 0, 0, loc)
					rise, set, ok := SunTimes(d, p[0], p[1])
					if !ok {
						t.Fatalf("%v at %v: ok = false", d, p)
					}
					if !rise.Before(set) {
						t.Errorf("%v at %v: rise %v not before set %v", d, p, rise, set)
					}
					// The place's own zone keeps both events on the day;
					// a far-off zone can move one over midnight, but the
					// solar day is still the one nearest the day's noon.
					noon := time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, loc)
					mid := rise.Add(set.Sub(rise) / 2)
					if off := mid.Sub(noon); off.Abs() > 12*time.Hour {
						t.Errorf("%v at %v: solar noon %v is %v from the day's noon", d, p, mid, off)
					}
				}
			}
		}
	}
	// In its own zone a place's events fall on the day asked for.
	berlin := sunTestLoc(t, "Europe/Berlin")
	for day := 1; day <= 366; day++ {
		d := time.Date(2024, 1, day, 0, 0, 0, 0, berlin)
		rise, set, _ := SunTimes(d, 52.52, 13.405)
		if !sunSameDay(rise, d) || !sunSameDay(set, d) {
			t.Errorf("%s: rise %v, set %v not on the day", d.Format("2006-01-02"), rise, set)
		}
	}
}

func sunSameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

func TestSunTimesPolar(t *testing.T) {
	oslo := sunTestLoc(t, "Europe/Oslo")
	const lat, lon = 69.65, 18.96 // Tromsø
	for _, d := range []time.Time{
		time.Date(2025, 12, 21, 12, 0, 0, 0, oslo), // polar night
		time.Date(2026, 1, 2, 12, 0, 0, 0, oslo),
		time.Date(2025, 6, 21, 12, 0, 0, 0, oslo), // midnight sun
		time.Date(2026, 7, 1, 12, 0, 0, 0, oslo),
	} {
		if rise, set, ok := SunTimes(d, lat, lon); ok || !rise.IsZero() || !set.IsZero() {
			t.Errorf("Tromsø %s: got %v, %v, %v; want zero times, ok = false", d.Format("2006-01-02"), rise, set, ok)
		}
	}
	// Around the equinox Tromsø has an ordinary day.
	if _, _, ok := SunTimes(time.Date(2026, 3, 20, 12, 0, 0, 0, oslo), lat, lon); !ok {
		t.Error("Tromsø 2026-03-20: ok = false, want an ordinary day")
	}
	// Not a place.
	if _, _, ok := SunTimes(time.Now(), math.NaN(), 0); ok {
		t.Error("NaN latitude: ok = true")
	}
}

func TestSunUp(t *testing.T) {
	berlin := sunTestLoc(t, "Europe/Berlin")
	ny := sunTestLoc(t, "America/New_York")
	oslo := sunTestLoc(t, "Europe/Oslo")
	cases := []struct {
		name     string
		t        time.Time
		lat, lon float64
		want     bool
	}{
		{"Berlin noon, winter", time.Date(2024, 12, 21, 12, 0, 0, 0, berlin), 52.52, 13.405, true},
		{"Berlin midnight, winter", time.Date(2024, 12, 21, 0, 0, 0, 0, berlin), 52.52, 13.405, false},
		{"Berlin 23:59, winter", time.Date(2024, 12, 21, 23, 59, 0, 0, berlin), 52.52, 13.405, false},
		{"Berlin noon, summer", time.Date(2026, 6, 21, 12, 0, 0, 0, berlin), 52.52, 13.405, true},
		{"Berlin midnight, summer", time.Date(2026, 6, 21, 0, 0, 0, 0, berlin), 52.52, 13.405, false},
		{"New York noon", time.Date(2026, 3, 20, 12, 0, 0, 0, ny), 40.7128, -74.0060, true},
		{"New York midnight", time.Date(2026, 3, 20, 0, 0, 0, 0, ny), 40.7128, -74.0060, false},
		{"New York noon, read in UTC", time.Date(2026, 3, 20, 16, 0, 0, 0, time.UTC), 40.7128, -74.0060, true},
		{"New York midnight, read in UTC", time.Date(2026, 3, 20, 4, 0, 0, 0, time.UTC), 40.7128, -74.0060, false},
		{"Tromsø midnight sun", time.Date(2026, 6, 21, 0, 30, 0, 0, oslo), 69.65, 18.96, true},
		{"Tromsø polar night noon", time.Date(2025, 12, 21, 12, 0, 0, 0, oslo), 69.65, 18.96, false},
	}
	for _, c := range cases {
		if got := SunUp(c.t, c.lat, c.lon); got != c.want {
			t.Errorf("%s (%v): SunUp = %v, want %v", c.name, c.t, got, c.want)
		}
	}

	// The edges: up from sunrise, down from sunset.
	day := time.Date(2026, 4, 10, 12, 0, 0, 0, berlin)
	rise, set, _ := SunTimes(day, 52.52, 13.405)
	for _, e := range []struct {
		t    time.Time
		want bool
	}{
		{rise.Add(-time.Second), false}, {rise, true}, {set.Add(-time.Second), true}, {set, false},
	} {
		if got := SunUp(e.t, 52.52, 13.405); got != e.want {
			t.Errorf("SunUp(%v) = %v, want %v (rise %v, set %v)", e.t, got, e.want, rise, set)
		}
	}
}
