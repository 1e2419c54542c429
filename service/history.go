package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Sensor history: the service hears every sensor's readings (readState),
// and hands the numeric ones to one writer goroutine, which keeps a sample
// when a value changes (at most one per series every historyGap, the
// latest winning, and one at least every historyBeat while the sensor
// reports), writes them in batches, and rolls the store's tiers up once a
// minute. Nothing of it is on the path of an event or a request: a full
// queue drops what it cannot take, and says so in the log.

// DefaultHistoryRetention is how long each tier is kept unless configured.
var DefaultHistoryRetention = HistoryRetention{Raw: 48 * time.Hour, FiveMin: 30 * 24 * time.Hour, Hourly: 365 * 24 * time.Hour}

const (
	historyGap     = 5 * time.Second  // the least time between two samples of a series
	historyBeat    = 10 * time.Minute // the most time between two samples of a series while it reports
	historyFlush   = time.Second      // how often the writer writes what it holds
	historyBatch   = 500              // a batch this big is written at once
	historyRollUp  = time.Minute      // how often the tiers are rolled up
	historyQueue   = 1024             // readings of this many reads wait for the writer
	historyMaxPts  = 500              // the most points of a series an answer holds
	historyDefault = 24 * time.Hour   // the span asked for when since is not given
)

// historyTypes are the readings the history keeps, with the unit each is
// in when the sensor does not say: the numeric ones.
var historyTypes = devices.ReadingUnits

type seriesKey struct {
	id  devices.ID
	typ string
}

// history is the service's side of the sensor history: where readings
// are handed to the writer (note), and how it is read.
type history struct {
	store HistoryStore
	keep  HistoryRetention
	log   *slog.Logger
	now   func() time.Time
	in    chan []Sample
	// running is set while the writer runs (Service.Run); readings heard
	// before are not kept.
	running atomic.Bool

	dropMu  sync.Mutex
	dropped int       // reads dropped since the last warning
	warned  time.Time // when the last warning was logged
}

// note hands a sensor's readings, as read at, to the writer. It never
// blocks.
func (h *history) note(id devices.ID, rs []devices.Reading, at time.Time) {
	if !h.running.Load() {
		return
	}
	var batch []Sample
	for _, rd := range rs {
		if _, kept := historyTypes[rd.Type]; kept && rd.Bool == nil {
			batch = append(batch, Sample{Device: id, Type: rd.Type, At: at, Value: rd.Value})
		}
	}
	if len(batch) == 0 {
		return
	}
	select {
	case h.in <- batch:
	default:
		h.dropMu.Lock()
		h.dropped++
		if at.Sub(h.warned) >= time.Minute {
			h.log.Warn("sensor history is behind; readings were not kept", "reads", h.dropped)
			h.dropped, h.warned = 0, at
		}
		h.dropMu.Unlock()
	}
}

// writer is the history's writing side, which runs in Service.Run's
// loop: what it has kept of each series, what waits for historyGap, the
// batch not written yet, and its clocks.
type writer struct {
	h       *history
	seen    map[seriesKey]lastSample
	pending map[seriesKey]Sample // a change held back by historyGap
	batch   []Sample
	flush   *time.Ticker
	roll    *time.Ticker
}

type lastSample struct {
	at    time.Time
	value float64
}

// start begins writing: readings heard from now on are kept, and the
// tiers are rolled up once at once.
func (h *history) start(ctx context.Context) *writer {
	w := &writer{h: h, seen: map[seriesKey]lastSample{}, pending: map[seriesKey]Sample{},
		flush: time.NewTicker(historyFlush), roll: time.NewTicker(historyRollUp)}
	h.running.Store(true)
	w.rollUp(ctx)
	return w
}

func (w *writer) take(s Sample) {
	w.batch = append(w.batch, s)
	w.seen[seriesKey{s.Device, s.Type}] = lastSample{s.At, s.Value}
}

// heard takes a read's samples: each is kept when its series has none, has
// changed and its last sample is historyGap old, or its last is
// historyBeat old; a change sooner waits, the latest winning.
func (w *writer) heard(ctx context.Context, b []Sample) {
	for _, s := range b {
		k := seriesKey{s.Device, s.Type}
		prev, ok := w.seen[k]
		switch {
		case !ok, s.At.Sub(prev.at) >= historyBeat, s.Value != prev.value && s.At.Sub(prev.at) >= historyGap:
			delete(w.pending, k)
			w.take(s)
		case s.Value != prev.value:
			w.pending[k] = s
		default:
			delete(w.pending, k) // back to what was kept
		}
	}
	if len(w.batch) >= historyBatch {
		w.write(ctx)
	}
}

// tick keeps the changes that have waited historyGap, and writes.
func (w *writer) tick(ctx context.Context) {
	now := w.h.now()
	for k, s := range w.pending {
		if now.Sub(w.seen[k].at) >= historyGap {
			delete(w.pending, k)
			w.take(Sample{Device: s.Device, Type: s.Type, At: now, Value: s.Value})
		}
	}
	w.write(ctx)
}

func (w *writer) write(ctx context.Context) {
	if len(w.batch) == 0 {
		return
	}
	if err := w.h.store.AppendSamples(ctx, w.batch); err != nil {
		w.h.log.Error("sensor history: writing samples failed", "samples", len(w.batch), "err", err)
	}
	w.batch = w.batch[:0]
}

func (w *writer) rollUp(ctx context.Context) {
	w.write(ctx)
	if err := w.h.store.RollUpHistory(ctx, w.h.now(), w.h.keep); err != nil {
		w.h.log.Error("sensor history: rolling up failed", "err", err)
	}
}

// stop writes what the writer holds (what waits, what is queued), within
// 5 s of ctx's end, and stops keeping readings.
func (w *writer) stop(ctx context.Context) {
	w.h.running.Store(false)
	w.flush.Stop()
	w.roll.Stop()
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for {
		select {
		case b := <-w.h.in:
			w.heard(done, b)
			continue
		default:
		}
		break
	}
	for _, s := range w.pending {
		w.take(s)
	}
	w.write(done)
}

// HistoryQuery is what a reader asks of a sensor's history: since and
// until as a span back from now ("24h", "7d", "90m") or an RFC 3339
// time; since defaults to 24 hours back, until to now; Type one reading
// type, or all the sensor has.
type HistoryQuery struct {
	Since, Until, Type string
}

// HistoryView is a sensor's history over a span.
type HistoryView struct {
	ID    devices.ID `json:"id"`
	Name  string     `json:"name"`
	Since time.Time  `json:"since"`
	Until time.Time  `json:"until"`
	// Resolution is the tier the points come from: raw samples, or 5m
	// or 1h buckets; BucketSecs is how wide each point is (0 for raw
	// samples), wider than the tier's when the span holds more points
	// than an answer does.
	Resolution string          `json:"resolution"`
	BucketSecs int             `json:"bucket_secs"`
	Series     []HistorySeries `json:"series"`
}

// HistorySeries is one reading's points, oldest first.
type HistorySeries struct {
	Type   string         `json:"type"`
	Unit   string         `json:"unit"`
	Points []HistoryPoint `json:"points"`
	// Over the span: the least, greatest and mean value (nil when it
	// holds no point), and the first and last point's value.
	Min   *float64 `json:"min"`
	Max   *float64 `json:"max"`
	Mean  *float64 `json:"mean"`
	First *float64 `json:"first"`
	Last  *float64 `json:"last"`
}

// HistoryPoint is a sample (Min and Max absent) or a bucket's mean with
// its least and greatest value; At is the sample's time or the bucket's
// start.
type HistoryPoint struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
	Min   *float64  `json:"min,omitempty"`
	Max   *float64  `json:"max,omitempty"`
	n     int
}

// SensorHistory answers a sensor's history. A sensor that is not one is
// ENOTFOUND; a bad since, until or type is EINVALID naming it.
func (s *Service) SensorHistory(ctx context.Context, ref string, q HistoryQuery) (HistoryView, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return HistoryView{}, err
	}
	now := s.now().UTC()
	since, until, err := historySpan(q, now)
	if err != nil {
		return HistoryView{}, err
	}
	var types []string
	if q.Type != "" {
		if _, ok := historyTypes[q.Type]; !ok {
			return HistoryView{}, Errorf(EINVALID, "type %q has no history; give one of %s", q.Type, strings.Join(historyTypeNames(), ", ")).
				With("field", "type").With("options", historyTypeNames())
		}
		types = []string{q.Type}
	}
	v, err := s.GetSensor(ctx, ref)
	if err != nil {
		return HistoryView{}, err
	}
	if s.history == nil {
		return HistoryView{}, Errorf(EUNSUPPORTED, "this hub keeps no sensor history")
	}
	tier, width := s.history.tierFor(since, until, now)
	rows, err := s.history.read(ctx, v.ID, tier, since, until, types)
	if err != nil {
		return HistoryView{}, err
	}
	out := HistoryView{ID: v.ID, Name: v.Name, Since: since, Until: until, Resolution: tier, Series: []HistorySeries{}}
	units := map[string]string{}
	var current []string // the types the sensor reports now, which have a series even when empty
	for _, rd := range v.Readings {
		if _, kept := historyTypes[rd.Type]; kept && rd.Bool == nil {
			units[rd.Type] = rd.Unit
			current = append(current, rd.Type)
		}
	}
	byType := map[string][]HistoryPoint{}
	var order []string
	for _, r := range rows {
		if _, ok := byType[r.Type]; !ok {
			order = append(order, r.Type)
		}
		byType[r.Type] = append(byType[r.Type], HistoryPoint{At: r.At, Value: r.Value, Min: r.Min, Max: r.Max, n: r.N})
	}
	for _, t := range current {
		if _, ok := byType[t]; !ok && (len(types) == 0 || types[0] == t) {
			order = append(order, t)
		}
	}
	slices.Sort(order)
	// One width for every series: the tier's, or wider to keep each
	// series within historyMaxPts.
	longest := 0
	for _, pts := range byType {
		longest = max(longest, len(pts))
	}
	span := until.Sub(since)
	if longest > historyMaxPts {
		width = max(width, ceilDuration(span/historyMaxPts, time.Second))
	}
	out.BucketSecs = int(width / time.Second)
	for _, t := range order {
		pts := byType[t]
		if longest > historyMaxPts {
			pts = coarsen(pts, since, width)
		}
		unit := units[t]
		if unit == "" {
			unit = historyTypes[t]
		}
		out.Series = append(out.Series, summarise(HistorySeries{Type: t, Unit: unit, Points: nonNil(pts)}))
	}
	return out, nil
}

// tierFor picks the tier to answer [since, until) from: the coarsest whose
// buckets are no wider than the span over historyMaxPts, among those whose
// retention reaches back to since; raw inside the raw retention otherwise
// finer. It answers the tier and its width (0 for raw).
func (h *history) tierFor(since, until, now time.Time) (string, time.Duration) {
	tiers := []struct {
		name  string
		width time.Duration
		keep  time.Duration
	}{
		{TierRaw, 0, h.keep.Raw},
		{Tier5m, 5 * time.Minute, h.keep.FiveMin},
		{TierHourly, time.Hour, h.keep.Hourly},
	}
	want := until.Sub(since) / historyMaxPts
	pick := -1
	for i, t := range tiers {
		if t.keep <= 0 || now.Sub(since) > t.keep {
			continue // off, or it does not reach back far enough
		}
		if pick < 0 || t.width <= want {
			pick = i
		}
	}
	if pick < 0 { // nothing reaches back so far: the longest kept
		for i, t := range tiers {
			if t.keep > 0 && (pick < 0 || t.keep >= tiers[pick].keep) {
				pick = i
			}
		}
	}
	if pick < 0 {
		return TierRaw, 0
	}
	return tiers[pick].name, tiers[pick].width
}

// tierWidths are the widths of the tiers' buckets; the finer tier of each.
var (
	tierWidths = map[string]time.Duration{TierRaw: 0, Tier5m: 5 * time.Minute, TierHourly: time.Hour}
	finerTier  = map[string]string{Tier5m: TierRaw, TierHourly: Tier5m}
)

// read reads a tier's points over the span, and after each series' newest
// bucket what the finer tiers hold that has not been rolled up yet, in
// buckets of the tier's width: the last minutes show before the roll-up
// has taken them.
func (h *history) read(ctx context.Context, id devices.ID, tier string, since, until time.Time, types []string) ([]HistoryRow, error) {
	rows, err := h.store.ReadHistory(ctx, id, tier, since, until, types)
	if err != nil || tier == TierRaw {
		return rows, err
	}
	width := tierWidths[tier]
	ends := map[string]time.Time{} // after each type's newest bucket
	for _, r := range rows {
		ends[r.Type] = r.At.Add(width) // rows come oldest first
	}
	wanted := types
	if len(wanted) == 0 {
		wanted = historyTypeNames()
	}
	var fine []HistoryRow
	for _, t := range wanted { // each from its newest bucket, or all its span
		from := since
		if e, ok := ends[t]; ok {
			from = maxTime(since, e)
		}
		part, err := h.read(ctx, id, finerTier[tier], from, until, []string{t})
		if err != nil {
			return nil, err
		}
		fine = append(fine, part...)
	}
	type key struct {
		typ string
		at  time.Time
	}
	tail := map[key]*bucket{}
	var order []key
	for _, r := range fine {
		if e, ok := ends[r.Type]; ok && r.At.Before(e) {
			continue // in a bucket the tier holds
		}
		k := key{r.Type, r.At.Truncate(width)}
		if tail[k] == nil {
			tail[k] = &bucket{}
			order = append(order, k)
		}
		tail[k].add(r.Value, r.Min, r.Max, r.N)
	}
	for _, k := range order {
		b := tail[k]
		rows = append(rows, HistoryRow{Type: k.typ, At: k.at, Value: b.mean(), Min: &b.lo, Max: &b.hi, N: b.n})
	}
	slices.SortStableFunc(rows, func(a, b HistoryRow) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return a.At.Compare(b.At)
	})
	return rows, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// coarsen merges points into buckets width wide from since: each the
// count-weighted mean of its points, with their least and greatest value.
func coarsen(pts []HistoryPoint, since time.Time, width time.Duration) []HistoryPoint {
	var out []HistoryPoint
	var b *bucket
	flush := func() {
		if b != nil {
			p := &out[len(out)-1]
			p.Value, p.Min, p.Max, p.n = b.mean(), &b.lo, &b.hi, b.n
		}
	}
	for _, p := range pts {
		// A bucket that began before since falls in the first; a point at
		// until in the last.
		i := min(max(p.At.Sub(since)/width, 0), historyMaxPts-1)
		start := since.Add(i * width)
		if len(out) == 0 || !out[len(out)-1].At.Equal(start) {
			flush()
			out = append(out, HistoryPoint{At: start})
			b = &bucket{}
		}
		b.add(p.Value, p.Min, p.Max, p.n)
	}
	flush()
	return out
}

// bucket gathers points into one: their count-weighted mean, and their
// least and greatest value.
type bucket struct {
	sum    float64
	n      int
	lo, hi float64
}

// add counts a point: a value, or a bucket's mean with its least and
// greatest value (lo and hi not nil) and its count n.
func (b *bucket) add(v float64, lo, hi *float64, n int) {
	n = max(n, 1)
	l, h := v, v
	if lo != nil {
		l, h = *lo, *hi
	}
	if b.n == 0 || l < b.lo {
		b.lo = l
	}
	if b.n == 0 || h > b.hi {
		b.hi = h
	}
	b.sum += v * float64(n)
	b.n += n
}

func (b *bucket) mean() float64 { return b.sum / float64(b.n) }

// summarise fills a series' min, max, mean, first and last.
func summarise(s HistorySeries) HistorySeries {
	if len(s.Points) == 0 {
		return s
	}
	var all bucket
	for _, p := range s.Points {
		all.add(p.Value, p.Min, p.Max, p.n)
	}
	mean := all.mean()
	first, last := s.Points[0].Value, s.Points[len(s.Points)-1].Value
	s.Min, s.Max, s.Mean, s.First, s.Last = &all.lo, &all.hi, &mean, &first, &last
	return s
}

func ceilDuration(d, unit time.Duration) time.Duration {
	if r := d % unit; r != 0 {
		d += unit - r
	}
	return max(d, unit)
}

// historySpan parses since and until, each a span back from now or an
// RFC 3339 time.
func historySpan(q HistoryQuery, now time.Time) (since, until time.Time, err error) {
	until = now
	if q.Until != "" {
		if until, err = historyTime("until", q.Until, now); err != nil {
			return
		}
	}
	since = until.Add(-historyDefault)
	if q.Since != "" {
		if since, err = historyTime("since", q.Since, now); err != nil {
			return
		}
	}
	if !since.Before(until) {
		err = Errorf(EINVALID, "since (%s) must be before until (%s)", since.Format(time.RFC3339), until.Format(time.RFC3339)).With("field", "since")
	}
	return
}

// ErrSpanTooLong is ParseSpan's refusal of a span over a century.
var ErrSpanTooLong = errors.New("more than a century")

var spanPattern = regexp.MustCompile(`^(\d+(?:\.\d+)?)(d|w)$`)

// ParseSpan reads a span of time: a Go duration ("90m", "48h", "1h30m"),
// or days or weeks ("30d", "2w", "1.5d"); "0" is none. A negative span, or
// one that is not a span, is an error; one over a century is
// ErrSpanTooLong. The history's bounds and the options of its retention
// are written this way.
func ParseSpan(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if m := spanPattern.FindStringSubmatch(v); m != nil {
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

// maxSpan is a century: far from time.Duration's limit.
const maxSpan = 100 * 365 * 24 * time.Hour

// historyTime parses one bound: "24h", "7d", "2w", "90m" back from now, or
// an RFC 3339 time.
func historyTime(field, v string, now time.Time) (time.Time, error) {
	back, err := ParseSpan(v)
	switch {
	case errors.Is(err, ErrSpanTooLong):
		return time.Time{}, Errorf(EINVALID, "%s %q reaches back more than a century", field, v).With("field", field)
	case err == nil:
		return now.Add(-back), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, Errorf(EINVALID, "%s %q is neither a span back from now (such as 24h, 7d or 90m) nor an RFC 3339 time (such as 2026-12-01T18:00:00Z)", field, v).
		With("field", field)
}

func historyTypeNames() []string {
	names := make([]string, 0, len(historyTypes))
	for t := range historyTypes {
		names = append(names, t)
	}
	slices.Sort(names)
	return names
}

// disabled reports whether the inventory lists the device as disabled (a
// device not recorded yet is not).
func disabled(inv inventory, id devices.ID) bool {
	rec, ok := inv.byID(id)
	return ok && !rec.Enabled
}

// String names a retention for logs and errors: "48h0m0s raw, …".
func (k HistoryRetention) String() string {
	return fmt.Sprintf("raw %s, 5-minute %s, hourly %s", k.Raw, k.FiveMin, k.Hourly)
}
