package upnp

import (
	"strconv"
	"strings"
	"time"
)

// ParseTime reads a UPnP time ("H+:MM:SS", optionally with a fraction of
// a second, as in TrackDuration and RelTime); ok is false for
// "NOT_IMPLEMENTED", an empty value, or anything else.
func ParseTime(s string) (d time.Duration, ok bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || m < 0 || m > 59 || sec < 0 || sec >= 60 {
		return 0, false
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second)), true
}
