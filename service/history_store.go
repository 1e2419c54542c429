package service

import (
	"context"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Sample is one numeric reading of one sensor at one time, as the history
// keeps it.
type Sample struct {
	Device devices.ID
	Type   string
	At     time.Time
	Value  float64
}

// The history's tiers, finest first: raw samples, then 5-minute and
// hourly buckets.
const (
	TierRaw    = "raw"
	Tier5m     = "5m"
	TierHourly = "1h"
)

// HistoryRetention is how long each tier is kept; 0 keeps a tier only
// until it is rolled up into the next (and the hourly tier not at all).
type HistoryRetention struct {
	Raw, FiveMin, Hourly time.Duration
}

// HistoryRow is a point of a stored series: a raw sample (Min and Max
// nil, N 1) or a bucket, At its start.
type HistoryRow struct {
	Type     string
	At       time.Time
	Value    float64 // the sample, or the bucket's mean
	Min, Max *float64
	N        int
}

// HistoryStore keeps the sensors' history.
type HistoryStore interface {
	// AppendSamples stores samples in one transaction; a sample at the
	// same device, type and millisecond as a stored one replaces it.
	AppendSamples(ctx context.Context, samples []Sample) error
	// RollUpHistory rolls the raw samples of every 5-minute bucket that
	// ended by now into that bucket, and the 5-minute buckets of every
	// hour that ended into that hour, then deletes what is past keep. It
	// is idempotent: run twice, or again after a stop half-way, it counts
	// nothing twice.
	RollUpHistory(ctx context.Context, now time.Time, keep HistoryRetention) error
	// ReadHistory returns a device's points of one tier from from to
	// until, both included (a bucket when any of it falls in the span), of
	// the given types (all when none), ordered by type and time.
	ReadHistory(ctx context.Context, id devices.ID, tier string, from, until time.Time, types []string) ([]HistoryRow, error)
}
