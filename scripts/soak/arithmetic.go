package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
)

// The history's bucket widths.
const (
	fiveMin = 5 * time.Minute
	hour    = time.Hour
)

// tier is one of the history's tiers as the arithmetic sees it: how long
// it is kept, how wide its rows are (0 for raw samples), and how long
// past its retention a row may stay: until the next roll-up, and until
// the next tier has taken it.
type tier struct {
	name, table, oldestQ string
	keep, width, lag     time.Duration
	rows                 int64
}

// arithmetic checks the database against the retention's arithmetic at
// the soak's reading rate: each tier holds at most, per series, one row
// for every reading (or bucket, when buckets are wider than the readings
// are apart) within its retention, and nothing older; the audit log at
// most its bound. It prints the figures and says whether they hold.
func arithmetic(ctx context.Context, cfg config, clk clock, c *counter, d *driver, last sample) bool {
	keep := history.DefaultRetention
	rollV := clk.virtual(cfg.rollUp)
	sensors := cfg.devices - int(float64(cfg.devices)*lightShare) - int(float64(cfg.devices)*plugShare)
	series := float64(sensors * len(readingTypes))
	// How far apart, in the house's time, one sensor's readings were.
	perSensor := float64(d.readings.Load()) / float64(sensors)
	step := time.Duration(float64(last.virt) / max(perSensor, 1))
	tiers := []tier{
		{"raw", "sensor_samples", `SELECT min(at) / 1000 FROM sensor_samples`, keep.Raw, 0, rollV + fiveMin, last.raw},
		{"5-minute", "sensor_5m", `SELECT min(bucket) FROM sensor_5m`, keep.FiveMin, fiveMin, rollV + hour, last.fiveM},
		{"hourly", "sensor_1h", `SELECT min(bucket) FROM sensor_1h`, keep.Hourly, hour, rollV, last.hourly},
	}
	fmt.Printf("\nthe database against the retention (%s), %0.f series, a reading every %s of the house's time, a roll-up every %s of it:\n",
		keep, series, step.Round(time.Minute), rollV.Round(time.Minute))
	ok := true
	now := clk.now()
	// The samples were counted a moment before now: allow for it.
	slack := clk.virtual(2 * time.Second)
	for _, t := range tiers {
		window := min(last.virt, t.keep+t.lag)
		perSeries := float64(window)/float64(max(step, t.width))*1.1 + 2
		limit := int64(series * perSeries)
		var oldest int64
		age := time.Duration(0)
		if err := c.db.QueryRowContext(ctx, t.oldestQ).Scan(&oldest); err == nil && oldest > 0 {
			age = now.Sub(time.Unix(oldest, 0))
		}
		maxAge := t.keep + t.lag + t.width + slack
		verdict := "within"
		if t.rows > limit || age > maxAge {
			verdict, ok = "BEYOND", false
		}
		fmt.Printf("  %-9s %8d rows (at most %8d: %5.0f a series over %s), oldest %s old (at most %s): %s\n",
			t.name, t.rows, limit, perSeries, days(window), days(age), days(maxAge), verdict)
	}
	ak := service.DefaultAuditKeep
	// The service prunes every thousand entries and every hour of its
	// clock.
	limit, maxAge := int64(ak.Entries+1000), ak.Age+hour+slack
	verdict := "within"
	if last.audit > limit || last.auditAge > maxAge {
		verdict, ok = "BEYOND", false
	}
	fmt.Printf("  audit     %8d rows (at most %8d), oldest %s old (at most %s): %s\n",
		last.audit, limit, days(last.auditAge), days(maxAge), verdict)
	fmt.Printf("  database  %.1f MiB with its WAL\n", last.dbMiB)
	return ok
}
