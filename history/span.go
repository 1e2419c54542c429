package history

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// ErrSpanTooLong is ParseSpan's refusal of a span over a century.
var ErrSpanTooLong = errors.New("more than a century")

var spanPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:\.\d+)?)(d|w)$`) })

// maxSpan is a century: far from time.Duration's limit.
const maxSpan = 100 * 365 * 24 * time.Hour

// ParseSpan reads a span of time: a Go duration ("90m", "48h", "1h30m"),
// or days or weeks ("30d", "2w", "1.5d"); "0" is none. A negative span, or
// one that is not a span, is an error; one over a century is
// ErrSpanTooLong. The history's bounds and the options of its retention
// are written this way.
func ParseSpan(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if m := spanPattern().FindStringSubmatch(v); m != nil {
		n, _ := strconv.ParseFloat(m[1], 64)
		unit := map[string]float64{"d": float64(24 * time.Hour), "w": float64(7 * 24 * time.Hour)}[m[2]]
		if n*unit > float64(maxSpan) {
			return 0, ErrSpanTooLong
		}
		return time.Duration(n * unit), nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, err
	case d > maxSpan:
		return 0, ErrSpanTooLong
	case d < 0:
		return 0, fmt.Errorf("%q is negative", v)
	}
	return d, nil
}

// spanOf parses a query's since and until, each a span back from now or
// an RFC 3339 time; since defaults to defaultSpan before until, until to
// now.
func spanOf(q Query, now time.Time) (since, until time.Time, err error) {
	until = now
	if q.Until != "" {
		if until, err = bound("until", q.Until, now); err != nil {
			return
		}
	}
	since = until.Add(-defaultSpan)
	if q.Since != "" {
		if since, err = bound("since", q.Since, now); err != nil {
			return
		}
	}
	if !since.Before(until) {
		err = service.Errorf(service.EINVALID, "since (%s) must be before until (%s)", since.Format(time.RFC3339), until.Format(time.RFC3339)).With("field", "since")
	}
	return
}

// bound parses one bound: "24h", "7d", "2w", "90m" back from now, or an
// RFC 3339 time.
func bound(field, v string, now time.Time) (time.Time, error) {
	back, err := ParseSpan(v)
	switch {
	case errors.Is(err, ErrSpanTooLong):
		return time.Time{}, service.Errorf(service.EINVALID, "%s %q reaches back more than a century", field, v).With("field", field)
	case err == nil:
		return now.Add(-back), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, service.Errorf(service.EINVALID, "%s %q is neither a span back from now (such as 24h, 7d or 90m) nor an RFC 3339 time (such as 2026-12-01T18:00:00Z)", field, v).
		With("field", field)
}
