package store_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/store"
)

// base is a time on an hour, so buckets line up with the samples below.
var base = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

var keepAll = history.Retention{Raw: 48 * time.Hour, FiveMin: 30 * 24 * time.Hour, Hourly: 365 * 24 * time.Hour}

// samplesEvery appends one sample of device's type every step over span
// from start, value i (the sample's number).
func samplesEvery(tb testing.TB, db *store.DB, id devices.ID, typ string, start time.Time, span, step time.Duration) int {
	tb.Helper()
	var batch []history.Sample
	for at := start; at.Before(start.Add(span)); at = at.Add(step) {
		batch = append(batch, history.Sample{Device: id, Type: typ, At: at, Value: float64(len(batch))})
	}
	if err := db.AppendSamples(context.Background(), batch); err != nil {
		tb.Fatal(err)
	}
	return len(batch)
}

func mustRead(tb testing.TB, db *store.DB, id devices.ID, tier string, from, until time.Time, types ...string) []history.Row {
	tb.Helper()
	rows, err := db.ReadHistory(context.Background(), id, tier, from, until, types)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

func TestHistory_AppendAndReadRaw(t *testing.T) {
	db := MustOpen(t)
	samplesEvery(t, db, "sim:t", "temperature", base, time.Minute, 10*time.Second) // 0..5
	samplesEvery(t, db, "sim:t", "humidity", base, 30*time.Second, 10*time.Second) // 0..2
	samplesEvery(t, db, "sim:other", "temperature", base, time.Minute, 10*time.Second)

	rows := mustRead(t, db, "sim:t", history.TierRaw, base.Add(10*time.Second), base.Add(35*time.Second))
	var got []string
	for _, r := range rows {
		if r.Min != nil || r.Max != nil || r.N != 1 {
			t.Errorf("a raw sample with min/max/n: %+v", r)
		}
		got = append(got, fmt.Sprintf("%s@%s=%g", r.Type, r.At.Sub(base), r.Value))
	}
	want := "[humidity@10s=1 humidity@20s=2 temperature@10s=1 temperature@20s=2 temperature@30s=3]"
	if fmt.Sprint(got) != want {
		t.Fatalf("raw [10s, 35s] = %v, want %s", got, want)
	}
	if rows := mustRead(t, db, "sim:t", history.TierRaw, base, base.Add(time.Hour), "humidity"); len(rows) != 3 {
		t.Fatalf("humidity alone: %d rows, want 3", len(rows))
	}
	// A sample at the same millisecond replaces the stored one.
	if err := db.AppendSamples(context.Background(), []history.Sample{{Device: "sim:t", Type: "humidity", At: base, Value: 42}}); err != nil {
		t.Fatal(err)
	}
	if rows := mustRead(t, db, "sim:t", history.TierRaw, base, base.Add(time.Second), "humidity"); len(rows) != 1 || rows[0].Value != 42 {
		t.Fatalf("after a second sample at the same time: %+v", rows)
	}
}

// TestHistory_RollUp checks the buckets' mean, min, max and count, that
// only ended buckets are written, and that rolling again (or after more
// samples arrive in the bucket still filling) counts nothing twice.
func TestHistory_RollUp(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	// Two hours and a bit of a sample every 10 s: values 0, 1, 2, …
	n := samplesEvery(t, db, "sim:t", "temperature", base, 2*time.Hour+7*time.Minute, 10*time.Second)
	now := base.Add(2*time.Hour + 7*time.Minute) // inside the 26th 5-minute bucket of the third hour
	for range 2 {
		if err := db.RollUpHistory(ctx, now, keepAll); err != nil {
			t.Fatal(err)
		}
	}
	fives := mustRead(t, db, "sim:t", history.Tier5m, base, now)
	if len(fives) != 25 { // 24 in two hours, and 10:05–10:10 of the third; not the one filling
		t.Fatalf("%d five-minute buckets, want 25", len(fives))
	}
	for i, b := range fives {
		lo, hi := float64(i*30), float64(i*30+29) // 30 samples a bucket
		if !b.At.Equal(base.Add(time.Duration(i)*5*time.Minute)) || b.N != 30 || *b.Min != lo || *b.Max != hi || b.Value != (lo+hi)/2 {
			t.Fatalf("bucket %d = at %s n %d min %g max %g mean %g; want at %s n 30 min %g max %g mean %g",
				i, b.At, b.N, *b.Min, *b.Max, b.Value, base.Add(time.Duration(i)*5*time.Minute), lo, hi, (lo+hi)/2)
		}
	}
	hours := mustRead(t, db, "sim:t", history.TierHourly, base, now)
	if len(hours) != 2 {
		t.Fatalf("%d hourly buckets, want 2 (the third hour has not ended)", len(hours))
	}
	for i, b := range hours {
		lo, hi := float64(i*360), float64(i*360+359)
		if b.N != 360 || *b.Min != lo || *b.Max != hi || math.Abs(b.Value-(lo+hi)/2) > 1e-9 {
			t.Fatalf("hour %d = n %d min %g max %g mean %g; want n 360 min %g max %g mean %g", i, b.N, *b.Min, *b.Max, b.Value, lo, hi, (lo+hi)/2)
		}
	}

	// Later: the bucket that was filling ends and another sample lands in
	// the newest bucket written before; rolling again rewrites it whole.
	late := []history.Sample{{Device: "sim:t", Type: "temperature", At: now.Add(-3 * time.Minute).Add(time.Millisecond), Value: 1000}}
	if err := db.AppendSamples(ctx, late); err != nil {
		t.Fatal(err)
	}
	if err := db.RollUpHistory(ctx, now.Add(5*time.Minute), keepAll); err != nil {
		t.Fatal(err)
	}
	fives = mustRead(t, db, "sim:t", history.Tier5m, base, now.Add(time.Hour))
	if len(fives) != 26 {
		t.Fatalf("%d five-minute buckets after the next one ended, want 26", len(fives))
	}
	if b := fives[24]; b.N != 31 || *b.Max != 1000 {
		t.Fatalf("the newest bucket, rolled again with a late sample: n %d max %g; want n 31 max 1000", b.N, *b.Max)
	}
	if b := fives[25]; b.N != n-25*30 || *b.Max != float64(n-1) {
		t.Fatalf("the bucket rolled after it ended: n %d max %g; want n %d max %d", b.N, *b.Max, n-25*30, n-1)
	}
	total := 0
	for _, b := range fives {
		total += b.N
	}
	if total != n+1 {
		t.Fatalf("the five-minute buckets count %d samples; %d were stored", total, n+1)
	}
}

// TestHistory_Retention deletes each tier past its retention, but never
// what the next tier has not taken yet.
func TestHistory_Retention(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	samplesEvery(t, db, "sim:t", "temperature", base, 3*time.Hour, time.Minute)
	now := base.Add(3 * time.Hour)
	keep := history.Retention{Raw: time.Hour, FiveMin: 2 * time.Hour, Hourly: 365 * 24 * time.Hour}
	if err := db.RollUpHistory(ctx, now, keep); err != nil {
		t.Fatal(err)
	}
	raw := mustRead(t, db, "sim:t", history.TierRaw, base, now)
	if len(raw) != 60 || !raw[0].At.Equal(now.Add(-time.Hour)) {
		t.Fatalf("raw kept: %d from %v; want the last hour's 60", len(raw), raw[0].At)
	}
	fives := mustRead(t, db, "sim:t", history.Tier5m, base, now)
	if len(fives) != 24 || !fives[0].At.Equal(now.Add(-2*time.Hour)) {
		t.Fatalf("five-minute buckets kept: %d from %v; want the last two hours' 24", len(fives), fives[0].At)
	}
	if hours := mustRead(t, db, "sim:t", history.TierHourly, base, now); len(hours) != 3 {
		t.Fatalf("%d hours kept, want 3", len(hours))
	}

	// A tier turned off (0) keeps only what the next has not taken.
	off := history.Retention{Hourly: 365 * 24 * time.Hour}
	samplesEvery(t, db, "sim:t", "temperature", now, 7*time.Minute, time.Minute)
	if err := db.RollUpHistory(ctx, now.Add(7*time.Minute), off); err != nil {
		t.Fatal(err)
	}
	raw = mustRead(t, db, "sim:t", history.TierRaw, base, now.Add(time.Hour))
	if len(raw) != 2 { // 13:05 and 13:06, in the bucket still filling
		t.Fatalf("raw with its tier off: %d samples, want the 2 not rolled up yet", len(raw))
	}
	if fives := mustRead(t, db, "sim:t", history.Tier5m, base, now.Add(time.Hour)); len(fives) != 1 {
		t.Fatalf("five-minute buckets with the tier off: %d, want the 1 of the hour still filling", len(fives))
	}
}

// TestHistory_GoesWithItsDevice: deleting a device deletes its history.
func TestHistory_GoesWithItsDevice(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:t")
	samplesEvery(t, db, "sim:t", "temperature", base, time.Hour, time.Minute)
	samplesEvery(t, db, "sim:keep", "temperature", base, time.Hour, time.Minute)
	if err := db.RollUpHistory(ctx, base.Add(2*time.Hour), keepAll); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteDevice(ctx, "sim:t"); err != nil {
		t.Fatal(err)
	}
	for _, tier := range []string{history.TierRaw, history.Tier5m, history.TierHourly} {
		if rows := mustRead(t, db, "sim:t", tier, base, base.Add(3*time.Hour)); len(rows) != 0 {
			t.Errorf("%s: %d rows of a deleted device", tier, len(rows))
		}
		if rows := mustRead(t, db, "sim:keep", tier, base, base.Add(3*time.Hour)); len(rows) == 0 {
			t.Errorf("%s: another device's history went too", tier)
		}
	}
}

func BenchmarkHistoryAppend1000(b *testing.B) {
	db := MustOpen(b)
	batch := make([]history.Sample, 1000)
	at := base
	b.ResetTimer()
	for b.Loop() {
		at = at.Add(time.Second)
		for i := range batch {
			batch[i] = history.Sample{Device: devices.ID(fmt.Sprintf("sim:s%d", i)), Type: "temperature", At: at, Value: float64(i)}
		}
		if err := db.AppendSamples(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistoryRollUpADay(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		db := MustOpen(b)
		samplesEvery(b, db, "sim:t", "temperature", base, 24*time.Hour, 5*time.Second) // 17,280 samples
		b.StartTimer()
		if err := db.RollUpHistory(ctx, base.Add(24*time.Hour), keepAll); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistoryRead30Days(b *testing.B) {
	ctx := context.Background()
	db := MustOpen(b)
	// 30 days of 5-minute buckets: 8,640 rows of one series.
	samplesEvery(b, db, "sim:t", "temperature", base, 30*24*time.Hour, 5*time.Minute)
	if err := db.RollUpHistory(ctx, base.Add(30*24*time.Hour), keepAll); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if rows, err := db.ReadHistory(ctx, "sim:t", history.Tier5m, base, base.Add(30*24*time.Hour), nil); err != nil || len(rows) < 8000 {
			b.Fatal(len(rows), err)
		}
	}
}
