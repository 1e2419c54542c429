package history_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// clock is a settable clock for the service and its history.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// house is the simulated home behind a running service that hands its
// readings to a running Recorder, as the hub composes them, and a Reader
// of what it keeps.
type house struct {
	svc    *service.Service
	home   *sim.Home
	db     *store.DB
	rec    *history.Recorder
	reader *history.Reader
	ctx    context.Context
}

func historyHouse(t testing.TB, keep *history.Retention) (*house, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	db := servicetest.Open(t)
	cfg := history.Config{Store: db, Retention: keep, Now: c.now}
	rec := history.NewRecorder(cfg)
	servicetest.Go(t, rec.Run)
	svc := servicetest.Start(t, service.Config{Store: db, Registry: reg, Now: c.now, History: rec})
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &house{svc: svc, home: home, db: db, rec: rec, reader: history.NewReader(cfg, svc), ctx: service.WithPrincipal(context.Background(), p)}, c
}

func ptr[T any](v T) *T { return &v }

// waitHistory polls the sensor's history until cond holds of it, for up
// to 15 s (the writer writes each second).
func waitHistory(t *testing.T, h *house, id string, q history.Query, what string, cond func(history.View) bool) history.View {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, err := h.reader.SensorHistory(h.ctx, id, q)
		if err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; history is %+v", what, v)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func seriesOf(v history.View, typ string) *history.Series {
	for i := range v.Series {
		if v.Series[i].Type == typ {
			return &v.Series[i]
		}
	}
	return nil
}

// TestSensorHistoryRecordsReadings: a reading heard is kept; a change
// within 5 s of the last sample waits, and the latest of such changes is
// kept once 5 s have passed; an unchanged value adds nothing.
func TestSensorHistoryRecordsReadings(t *testing.T) {
	h, c := historyHouse(t, nil)
	sensor := servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, "Bedroom Temperature"))
	id := string(sensor.ID)
	s := h.home.Sensor(sensor.ID)
	q := history.Query{Type: devices.ReadingTemperature}
	temps := func(v history.View) []float64 {
		var out []float64
		if sr := seriesOf(v, devices.ReadingTemperature); sr != nil {
			for _, p := range sr.Points {
				out = append(out, p.Value)
			}
		}
		return out
	}

	// Run reads every device as it starts: what the sensor reports then is
	// its first sample.
	waitHistory(t, h, id, q, "the reading at start", func(v history.View) bool { return len(temps(v)) == 1 })
	c.add(5 * time.Second)
	if err := s.SetReading(devices.ReadingTemperature, 21.5); err != nil {
		t.Fatal(err)
	}
	waitHistory(t, h, id, q, "the first change", func(v history.View) bool { return len(temps(v)) == 2 && temps(v)[1] == 21.5 })
	c.add(time.Second)
	for _, v := range []float64{21.6, 21.7} { // within 5 s: held; the latest wins
		if err := s.SetReading(devices.ReadingTemperature, v); err != nil {
			t.Fatal(err)
		}
	}
	servicetest.WaitFor(t, "the service to hear 21.7", func() bool {
		for _, r := range servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, id)).Readings {
			if r.Type == devices.ReadingTemperature {
				return r.Value == 21.7
			}
		}
		return false
	})
	c.add(5 * time.Second)
	v := waitHistory(t, h, id, q, "the latest change, once 5 s passed", func(v history.View) bool { return len(temps(v)) == 3 })
	if got := temps(v); got[1] != 21.5 || got[2] != 21.7 {
		t.Fatalf("kept %v; want 21.5 then 21.7 (21.6 was overtaken)", got)
	}
	sr := seriesOf(v, devices.ReadingTemperature)
	if sr.Unit != "°C" || *sr.Max != 21.7 || *sr.Last != 21.7 || v.Resolution != history.TierRaw || v.BucketSecs != 0 {
		t.Fatalf("series = %+v in %s/%d; want °C, up to 21.7, last 21.7, raw", sr, v.Resolution, v.BucketSecs)
	}
	for _, p := range sr.Points {
		if p.Min != nil || p.Max != nil {
			t.Fatalf("a raw point with min/max: %+v", p)
		}
	}
	// Disabled, the sensor's readings are not kept; enabled again, they
	// are, and what was kept stays.
	disable := func(off bool) {
		if _, err := h.svc.UpdateDevice(h.ctx, id, service.DevicePatch{Enabled: ptr(!off)}); err != nil {
			t.Fatal(err)
		}
	}
	disable(true)
	c.add(time.Minute)
	if err := s.SetReading(devices.ReadingTemperature, 99); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, "the service to hear 99", func() bool {
		for _, r := range servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, id)).Readings {
			if r.Type == devices.ReadingTemperature {
				return r.Value == 99
			}
		}
		return false
	})
	disable(false)
	c.add(time.Minute)
	if err := s.SetReading(devices.ReadingTemperature, 22); err != nil {
		t.Fatal(err)
	}
	v = waitHistory(t, h, id, q, "the reading after the sensor is enabled again", func(v history.View) bool { return len(temps(v)) == 4 })
	if got := temps(v); got[1] != 21.5 || got[2] != 21.7 || got[3] != 22 {
		t.Fatalf("kept %v; want the start's, 21.5, 21.7, 22 (nothing while disabled)", got)
	}
	// Humidity, reported by the same sensor, has a series too (all types
	// when none is asked for).
	all := servicetest.Must[history.View](t)(h.reader.SensorHistory(h.ctx, id, history.Query{}))
	if seriesOf(all, devices.ReadingHumidity) == nil || seriesOf(all, devices.ReadingTemperature) == nil {
		t.Fatalf("all series: %+v; want temperature and humidity", all.Series)
	}
}

// TestSensorHistoryTiers: the answer comes from the finest tier that
// reaches back far enough, coarsened to at most 500 points.
func TestSensorHistoryTiers(t *testing.T) {
	h, c := historyHouse(t, nil)
	sensor := servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, "Bedroom Temperature"))
	now := c.now()
	// 40 days of a sample every 5 minutes, rising one a sample, as a
	// reading the sensor does not report (so nothing it reports mixes in).
	const typ = devices.ReadingBattery
	var batch []history.Sample
	start := now.Add(-40 * 24 * time.Hour)
	for at, i := start, 0; at.Before(now); at, i = at.Add(5*time.Minute), i+1 {
		batch = append(batch, history.Sample{Device: sensor.ID, Type: typ, At: at, Value: float64(i)})
	}
	ctx := context.Background()
	if err := h.db.AppendSamples(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := h.db.RollUpHistory(ctx, now, history.Retention{Raw: 365 * 24 * time.Hour, FiveMin: 365 * 24 * time.Hour, Hourly: 365 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := h.db.RollUpHistory(ctx, now, history.DefaultRetention); err != nil { // prune to the defaults
		t.Fatal(err)
	}
	for _, tt := range []struct {
		since, res string
		bucket     int
		points     int
	}{
		{"1h", history.TierRaw, 0, 12},
		{"24h", history.TierRaw, 0, 288},
		{"7d", history.Tier5m, 1210, 500},       // 2,016 buckets in 500 of 1,210 s
		{"30d", history.TierHourly, 5184, 500},  // 720 hours in 500 of 5,184 s
		{"60d", history.TierHourly, 10368, 334}, // the 960 hours kept, in buckets of 60 days / 500
	} {
		v := servicetest.Must[history.View](t)(h.reader.SensorHistory(h.ctx, "Bedroom Temperature", history.Query{Since: tt.since, Type: typ}))
		sr := seriesOf(v, typ)
		if v.Resolution != tt.res || v.BucketSecs != tt.bucket || sr == nil || len(sr.Points) < tt.points-1 || len(sr.Points) > tt.points+1 || len(sr.Points) > 500 {
			n := -1
			if sr != nil {
				n = len(sr.Points)
			}
			t.Errorf("since %s: %s, %d s buckets, %d points; want %s, %d s, about %d", tt.since, v.Resolution, v.BucketSecs, n, tt.res, tt.bucket, tt.points)
			continue
		}
		// The values rise by one a minute: each bucket's mean lies within
		// its min and max, and the summary spans the points.
		for _, p := range sr.Points {
			if p.Min != nil && (p.Value < *p.Min || p.Value > *p.Max) {
				t.Errorf("since %s: point %+v has its mean outside its range", tt.since, p)
				break
			}
		}
		if *sr.Last < float64(len(batch)-70) || *sr.Max < *sr.Last || *sr.Min > *sr.First {
			t.Errorf("since %s: summary min %g max %g first %g last %g", tt.since, *sr.Min, *sr.Max, *sr.First, *sr.Last)
		}
	}
}

func TestSensorHistoryRefusals(t *testing.T) {
	h, _ := historyHouse(t, nil)
	for _, tt := range []struct {
		ref  string
		q    history.Query
		code string
	}{
		{"Bedroom Temperature", history.Query{Since: "yesterday"}, service.EINVALID},
		{"Bedroom Temperature", history.Query{Until: "soon"}, service.EINVALID},
		{"Bedroom Temperature", history.Query{Since: "1h", Until: "2h"}, service.EINVALID},
		{"Bedroom Temperature", history.Query{Type: "motion"}, service.EINVALID},
		{"Bedroom Temperature", history.Query{Type: "colour"}, service.EINVALID},
		{"Ceiling Light", history.Query{}, service.ENOTFOUND},
		{"sim:nothing", history.Query{}, service.ENOTFOUND},
	} {
		_, err := h.reader.SensorHistory(h.ctx, tt.ref, tt.q)
		servicetest.WantCode(t, err, tt.code)
	}
	_, err := h.reader.SensorHistory(h.ctx, "Bedroom Temperature", history.Query{Since: "yesterday"})
	if e, ok := err.(*service.Error); !ok || e.Details["field"] != "since" {
		t.Fatalf("a bad since: %v; want it named", err)
	}
	// An RFC 3339 since works.
	if _, err := h.reader.SensorHistory(h.ctx, "Bedroom Temperature", history.Query{Since: "2026-12-01T11:00:00Z", Until: "2026-12-01T11:30:00+00:00"}); err != nil {
		t.Fatal(err)
	}
}

// TestSensorHistoryTail: what is not rolled up yet is answered from the
// finer tier, in the coarser tier's buckets, so the last minutes show in
// a 7-day or a year's chart too.
func TestSensorHistoryTail(t *testing.T) {
	h, c := historyHouse(t, nil)
	sensor := servicetest.Must[service.SensorView](t)(h.svc.GetSensor(h.ctx, "Bedroom Temperature"))
	now := c.now()
	ctx := context.Background()
	const typ = devices.ReadingBattery // not reported by the sensor: nothing mixes in
	// Two hours of a sample a minute, rolled up to an hour ago; then an
	// hour of samples not rolled up.
	var batch []history.Sample
	for i := range 180 {
		batch = append(batch, history.Sample{Device: sensor.ID, Type: typ, At: now.Add(time.Duration(i-180) * time.Minute), Value: float64(i)})
		if i == 119 {
			if err := h.db.AppendSamples(ctx, batch); err != nil {
				t.Fatal(err)
			}
			if err := h.db.RollUpHistory(ctx, now.Add(-time.Hour), history.DefaultRetention); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	if err := h.db.AppendSamples(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		since string
		res   string
		n     int
	}{{"7d", history.Tier5m, 36}, {"365d", history.TierHourly, 3}} {
		v := servicetest.Must[history.View](t)(h.reader.SensorHistory(h.ctx, "Bedroom Temperature", history.Query{Since: tt.since, Type: typ}))
		sr := seriesOf(v, typ)
		if v.Resolution != tt.res || sr == nil || len(sr.Points) != tt.n || *sr.Max != 179 || *sr.Min != 0 {
			t.Fatalf("since %s: %s, %+v; want %s, %d points from 0 to 179", tt.since, v.Resolution, sr, tt.res, tt.n)
		}
		if mean := *sr.Mean; mean != 89.5 {
			t.Fatalf("since %s: mean %g of the points, want 89.5 (every sample once)", tt.since, mean)
		}
	}
}

// BenchmarkSensorHistory30Days reads a month of one reading through the
// Reader, as the dashboard's 30-day chart asks: 720 hourly buckets and
// the tail not rolled up yet, merged into 500 points.
func BenchmarkSensorHistory30Days(b *testing.B) {
	h, c := historyHouse(b, nil)
	now := c.now()
	var batch []history.Sample
	for at, i := now.Add(-31*24*time.Hour), 0; at.Before(now); at, i = at.Add(5*time.Minute), i+1 {
		batch = append(batch, history.Sample{Device: "sim:bedroom-temperature", Type: devices.ReadingBattery, At: at, Value: float64(i % 100)})
	}
	ctx := context.Background()
	if err := h.db.AppendSamples(ctx, batch); err != nil {
		b.Fatal(err)
	}
	if err := h.db.RollUpHistory(ctx, now.Add(-10*time.Minute), history.DefaultRetention); err != nil {
		b.Fatal(err)
	}
	q := history.Query{Since: "30d", Type: devices.ReadingBattery}
	b.ResetTimer()
	for b.Loop() {
		v, err := h.reader.SensorHistory(h.ctx, "sim:bedroom-temperature", q)
		if err != nil || len(v.Series) != 1 || len(v.Series[0].Points) < 400 {
			b.Fatal(v, err)
		}
	}
}

func TestParseSpan(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute, "48h": 48 * time.Hour,
		"30d": 30 * 24 * time.Hour, "1.5d": 36 * time.Hour, "2w": 14 * 24 * time.Hour, " 7d ": 7 * 24 * time.Hour,
	} {
		if got, err := history.ParseSpan(in); err != nil || got != want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "-1h", "3x", "d", "1.5.2d", "99999999999999999999h"} {
		if _, err := history.ParseSpan(in); err == nil || errors.Is(err, history.ErrSpanTooLong) {
			t.Errorf("ParseSpan(%q): %v; want it refused as no span", in, err)
		}
	}
	for _, in := range []string{"40000d", "6000w", "900000h"} {
		if _, err := history.ParseSpan(in); !errors.Is(err, history.ErrSpanTooLong) {
			t.Errorf("ParseSpan(%q): %v; want ErrSpanTooLong", in, err)
		}
	}
}
