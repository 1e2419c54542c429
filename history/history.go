// Package history is the sensors' history: a Recorder that the live
// model (package service) hands every reading it hears, which keeps the
// numeric ones as samples, writes them in batches, rolls them up into
// 5-minute and hourly tiers and prunes each tier past its retention, all
// in its own loop (Run); and a Reader that answers a sensor's history
// over a span, from the tier that fits it. The SQL is package store's,
// behind the Store interface declared here.
//
// history is a listener and a caller of service, never the other way: the
// model sees the Recorder as a service.ReadingSink, and the Reader
// resolves sensors through the Sensors interface, which *service.Service
// satisfies.
package history

import (
	"context"
	"fmt"
	"log/slog"
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

// Retention is how long each tier is kept; 0 keeps a tier only until it
// is rolled up into the next (and the hourly tier not at all).
type Retention struct {
	Raw, FiveMin, Hourly time.Duration
}

// DefaultRetention is how long each tier is kept unless configured.
var DefaultRetention = Retention{Raw: 48 * time.Hour, FiveMin: 30 * 24 * time.Hour, Hourly: 365 * 24 * time.Hour}

// String names a retention for logs and errors: "raw 48h0m0s, …".
func (k Retention) String() string {
	return fmt.Sprintf("raw %s, 5-minute %s, hourly %s", k.Raw, k.FiveMin, k.Hourly)
}

// Row is a point of a stored series: a raw sample (Min and Max nil, N 1)
// or a bucket, At its start.
type Row struct {
	Type     string
	At       time.Time
	Value    float64 // the sample, or the bucket's mean
	Min, Max *float64
	N        int
}

// Store keeps the sensors' history; package store implements it on
// SQLite.
type Store interface {
	// AppendSamples stores samples in one transaction; a sample at the
	// same device, type and millisecond as a stored one replaces it.
	AppendSamples(ctx context.Context, samples []Sample) error
	// RollUpHistory rolls the raw samples of every 5-minute bucket that
	// ended by now into that bucket, and the 5-minute buckets of every
	// hour that ended into that hour, then deletes what is past keep. It
	// is idempotent: run twice, or again after a stop half-way, it counts
	// nothing twice.
	RollUpHistory(ctx context.Context, now time.Time, keep Retention) error
	// ReadHistory returns a device's points of one tier from from to
	// until, both included (a bucket when any of it falls in the span), of
	// the given types (all when none), ordered by type and time.
	ReadHistory(ctx context.Context, id devices.ID, tier string, from, until time.Time, types []string) ([]Row, error)
}

// Config configures a Recorder and a Reader over the same history.
type Config struct {
	Store Store
	// Retention is how long each tier is kept; DefaultRetention when nil.
	Retention *Retention
	// Logger hears what goes wrong; nothing is logged when nil.
	Logger *slog.Logger
	// Now is the clock; time.Now when nil. It should be the service's.
	Now func() time.Time
	// RollUpEvery is how often, in real time, the Recorder rolls the tiers
	// up and prunes them (DefaultRollUpEvery when 0). A run whose clock
	// (Now) goes faster than real time, such as the soak, shortens it so
	// that the tiers are pruned as often in the clock's time.
	RollUpEvery time.Duration
}

// DefaultRollUpEvery is how often the tiers are rolled up and pruned
// unless configured.
const DefaultRollUpEvery = time.Minute

// withDefaults fills what cfg leaves out.
func (cfg Config) withDefaults() Config {
	if cfg.Retention == nil {
		keep := DefaultRetention
		cfg.Retention = &keep
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RollUpEvery <= 0 {
		cfg.RollUpEvery = DefaultRollUpEvery
	}
	return cfg
}

// keptTypes are the readings the history keeps, with the unit each is in when
// the sensor does not say: the numeric ones.
var keptTypes = devices.ReadingUnits

// seriesKey names one series: a sensor's readings of one type.
type seriesKey struct {
	id  devices.ID
	typ string
}
