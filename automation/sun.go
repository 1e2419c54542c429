package automation

import (
	"math"
	"time"
)

// Sunrise and sunset follow NOAA's solar calculator (the equations of Jean
// Meeus, Astronomical Algorithms, as NOAA documents them): the sun's
// declination and the equation of time for the instant, then the hour
// angle at which the sun's centre stands 0.833° below the horizon (0.567°
// of refraction plus the 0.266° half-width of the disc). Each event is
// solved again at the time first found, which keeps the results within a
// minute of NOAA's published values between the polar circles. Elevation
// above sea level and the local horizon are not taken into account.

// sunZenith is the sun's zenith distance, in degrees, at sunrise and
// sunset.
const sunZenith = 90.833

// sunState tells a normal day from one on which the sun never rises or
// never sets.
type sunState int

const (
	sunNormal     sunState = iota // the sun rises and sets
	sunPolarDay                   // the sun stays above the horizon all day
	sunPolarNight                 // the sun stays below the horizon all day
)

// SunTimes is the sunrise and the sunset of date's calendar day in date's
// location, at latitude lat and longitude lon (degrees, north and east
// positive), returned in date's location. The events are those of the
// solar day whose noon is nearest the day's 12:00 local time; very near
// the polar circles a sunset can therefore fall just after the following
// midnight. ok is false when the sun neither rises nor sets that day
// (polar day or polar night) or when lat or lon is not a number; rise and
// set are then zero.
func SunTimes(date time.Time, lat, lon float64) (rise, set time.Time, ok bool) {
	y, m, d := date.Date()
	rise, set, st := sunDay(y, m, d, date.Location(), lat, lon)
	if st != sunNormal {
		return time.Time{}, time.Time{}, false
	}
	return rise, set, true
}

// SunUp reports whether the sun is up at t at latitude lat and longitude
// lon: t is at or after sunrise and before sunset of its day (days are
// read in t's location). In a polar day the sun is up all day; in a polar
// night it is not. A sunset that falls after midnight, or a sunrise that
// falls before it, near the polar circles, is counted on the right side
// of midnight.
func SunUp(t time.Time, lat, lon float64) bool {
	loc := t.Location()
	y, m, d := t.Date()
	var today sunState
	for i := -1; i <= 1; i++ {
		rise, set, st := sunDay(y, m, d+i, loc, lat, lon)
		if i == 0 {
			today = st
		}
		if st == sunNormal && !t.Before(rise) && t.Before(set) {
			return true
		}
	}
	return today == sunPolarDay
}

// sunDay computes the sunrise and sunset of the calendar day y-m-d in loc
// (the day is normalised as time.Date does).
func sunDay(y int, m time.Month, d int, loc *time.Location, lat, lon float64) (rise, set time.Time, st sunState) {
	if math.IsNaN(lat) || math.IsNaN(lon) || math.IsInf(lat, 0) || math.IsInf(lon, 0) {
		return time.Time{}, time.Time{}, sunPolarNight
	}
	// Keep away from the poles themselves, where the hour angle formula
	// divides by cos(lat) = 0.
	lat = math.Max(-89.99, math.Min(89.99, lat))
	if loc == nil {
		loc = time.UTC
	}

	// The solar day: the UTC date whose mean solar noon at lon is nearest
	// the civil day's 12:00. Minutes below are counted from its 00:00 UTC.
	noon := time.Date(y, m, d, 12, 0, 0, 0, loc)
	mean := noon.UTC().Add(time.Duration(lon / 15 * float64(time.Hour)))
	my, mm, md := mean.Date()
	day0 := time.Date(my, mm, md, 0, 0, 0, 0, time.UTC)
	jd0 := sunJulianDay(day0)
	at := func(min float64) (decl, eot float64) { return sunPosition(jd0 + min/1440) }

	// Solar noon, refined twice.
	transit := 720 - 4*lon
	for i := 0; i < 3; i++ {
		_, eot := at(transit)
		transit = 720 - 4*lon - eot
	}
	decl, _ := at(transit)
	cosH := sunHourAngleCos(lat, decl)
	switch {
	case cosH < -1:
		return time.Time{}, time.Time{}, sunPolarDay
	case cosH > 1:
		return time.Time{}, time.Time{}, sunPolarNight
	}
	h := sunDeg(math.Acos(cosH))

	// Each event starts from the noon's declination and is solved again at
	// its own time, where the declination and the equation of time differ
	// a little from noon's.
	solve := func(sign float64) float64 {
		t := transit + sign*4*h
		for i := 0; i < 4; i++ {
			decl, eot := at(t)
			c := sunHourAngleCos(lat, decl)
			if c < -1 || c > 1 {
				break // the polar edge: keep the last good estimate
			}
			t = 720 - 4*lon - eot + sign*4*sunDeg(math.Acos(c))
		}
		return t
	}
	toTime := func(min float64) time.Time {
		return day0.Add(time.Duration(min * float64(time.Minute))).Round(time.Second).In(loc)
	}
	return toTime(solve(-1)), toTime(solve(+1)), sunNormal
}

// sunHourAngleCos is the cosine of the sun's hour angle at sunrise or sunset
// for latitude lat and solar declination decl (degrees and radians).
func sunHourAngleCos(lat, decl float64) float64 {
	phi := sunRad(lat)
	return (math.Cos(sunRad(sunZenith)) - math.Sin(phi)*math.Sin(decl)) / (math.Cos(phi) * math.Cos(decl))
}

// sunJulianDay is t as a Julian day number (days since noon UTC, 1 January
// 4713 BC, proleptic Julian calendar).
func sunJulianDay(t time.Time) float64 {
	return float64(t.Unix())/86400 + float64(t.Nanosecond())/86400e9 + 2440587.5
}

// sunPosition is the sun's apparent declination (radians) and the
// equation of time (minutes) at Julian day jd.
func sunPosition(jd float64) (decl, eot float64) {
	c := (jd - 2451545) / 36525 // Julian centuries since J2000.0

	l0 := math.Mod(280.46646+c*(36000.76983+c*0.0003032), 360) // mean longitude
	if l0 < 0 {
		l0 += 360
	}
	mAnom := 357.52911 + c*(35999.05029-0.0001537*c) // mean anomaly
	ecc := 0.016708634 - c*(0.000042037+0.0000001267*c)
	mr := sunRad(mAnom)
	center := math.Sin(mr)*(1.914602-c*(0.004817+0.000014*c)) +
		math.Sin(2*mr)*(0.019993-0.000101*c) +
		math.Sin(3*mr)*0.000289
	trueLong := l0 + center
	omega := sunRad(125.04 - 1934.136*c)
	appLong := trueLong - 0.00569 - 0.00478*math.Sin(omega)

	meanObliq := 23 + (26+(21.448-c*(46.815+c*(0.00059-c*0.001813)))/60)/60
	obliq := sunRad(meanObliq + 0.00256*math.Cos(omega))

	decl = math.Asin(math.Sin(obliq) * math.Sin(sunRad(appLong)))

	y := math.Tan(obliq / 2)
	y *= y
	l0r := sunRad(l0)
	e := y*math.Sin(2*l0r) -
		2*ecc*math.Sin(mr) +
		4*ecc*y*math.Sin(mr)*math.Cos(2*l0r) -
		0.5*y*y*math.Sin(4*l0r) -
		1.25*ecc*ecc*math.Sin(2*mr)
	eot = 4 * sunDeg(e)
	return decl, eot
}

func sunRad(d float64) float64 { return d * math.Pi / 180 }
func sunDeg(r float64) float64 { return r * 180 / math.Pi }
