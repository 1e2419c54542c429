package history

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

const (
	maxPoints   = 500            // the most points of a series an answer holds
	defaultSpan = 24 * time.Hour // the span asked for when since is not given
)

// Sensors resolves a sensor as a person names it (id or name), with its
// name and the readings it reports now: *service.Service. A device that
// is not a sensor is ENOTFOUND.
type Sensors interface {
	GetSensor(ctx context.Context, ref string) (service.SensorView, error)
}

// Reader answers the sensors' history: GET
// /api/v1/sensors/devices/{id}/history, the web UI's charts and MCP
// list_sensors' since.
type Reader struct {
	store   Store
	keep    Retention
	now     func() time.Time
	sensors Sensors
}

// NewReader returns a Reader of cfg's store, resolving sensors through
// sensors.
func NewReader(cfg Config, sensors Sensors) *Reader {
	cfg = cfg.withDefaults()
	return &Reader{store: cfg.Store, keep: *cfg.Retention, now: cfg.Now, sensors: sensors}
}

// Query is what a reader asks of a sensor's history: since and until as a
// span back from now ("24h", "7d", "90m") or an RFC 3339 time; since
// defaults to 24 hours back, until to now; Type one reading type, or all
// the sensor has.
type Query struct {
	Since, Until, Type string
}

// View is a sensor's history over a span.
type View struct {
	ID    devices.ID `json:"id"`
	Name  string     `json:"name"`
	Since time.Time  `json:"since"`
	Until time.Time  `json:"until"`
	// Resolution is the tier the points come from: raw samples, or 5m
	// or 1h buckets; BucketSecs is how wide each point is (0 for raw
	// samples), wider than the tier's when the span holds more points
	// than an answer does.
	Resolution string   `json:"resolution"`
	BucketSecs int      `json:"bucket_secs"`
	Series     []Series `json:"series"`
}

// Series is one reading's points, oldest first.
type Series struct {
	Type   string  `json:"type"`
	Unit   string  `json:"unit"`
	Points []Point `json:"points"`
	// Over the span: the least, greatest and mean value (nil when it
	// holds no point), and the first and last point's value.
	Min   *float64 `json:"min"`
	Max   *float64 `json:"max"`
	Mean  *float64 `json:"mean"`
	First *float64 `json:"first"`
	Last  *float64 `json:"last"`
}

// Point is a sample (Min and Max absent) or a bucket's mean with its
// least and greatest value; At is the sample's time or the bucket's
// start.
type Point struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
	Min   *float64  `json:"min,omitempty"`
	Max   *float64  `json:"max,omitempty"`
	n     int
}

// SensorHistory answers a sensor's history. A device that is not a sensor
// is ENOTFOUND; a bad since, until or type is EINVALID naming it; a nil
// Reader (a hub that keeps no history) is EUNSUPPORTED.
func (r *Reader) SensorHistory(ctx context.Context, ref string, q Query) (View, error) {
	if _, ok := service.PrincipalFrom(ctx); !ok {
		return View{}, service.Errorf(service.EUNAUTHORIZED, "sign in or send an API key")
	}
	if r == nil {
		return View{}, service.Errorf(service.EUNSUPPORTED, "this hub keeps no sensor history")
	}
	now := r.now().UTC()
	since, until, err := spanOf(q, now)
	if err != nil {
		return View{}, err
	}
	types, err := typesOf(q.Type)
	if err != nil {
		return View{}, err
	}
	v, err := r.sensors.GetSensor(ctx, ref)
	if err != nil {
		return View{}, err
	}
	tier, width := r.tierFor(since, until, now)
	rows, err := r.read(ctx, v.ID, tier, since, until, types)
	if err != nil {
		return View{}, err
	}
	out := View{ID: v.ID, Name: v.Name, Since: since, Until: until, Resolution: tier}
	out.BucketSecs, out.Series = seriesOf(v.Readings, rows, types, since, until, width)
	return out, nil
}

// typesOf is the types a query asks for: typ alone, or all (nil).
func typesOf(typ string) ([]string, error) {
	if typ == "" {
		return nil, nil
	}
	if _, ok := keptTypes[typ]; !ok {
		return nil, service.Errorf(service.EINVALID, "type %q has no history; give one of %s", typ, strings.Join(typeNames(), ", ")).
			With("field", "type").With("options", typeNames())
	}
	return []string{typ}, nil
}

// seriesOf groups rows into series, one for each type the rows hold and
// each type the sensor reports now (current) among those asked, in
// order of type; each is coarsened to one width, the tier's or wider to
// keep each within maxPoints, which it answers in seconds.
func seriesOf(current []devices.Reading, rows []Row, types []string, since, until time.Time, width time.Duration) (int, []Series) {
	units := map[string]string{}
	byType := map[string][]Point{}
	var order []string
	for _, r := range rows {
		if _, ok := byType[r.Type]; !ok {
			order = append(order, r.Type)
		}
		byType[r.Type] = append(byType[r.Type], Point{At: r.At, Value: r.Value, Min: r.Min, Max: r.Max, n: r.N})
	}
	for _, rd := range current { // the types the sensor reports now have a series even when empty
		if _, ok := keptTypes[rd.Type]; !ok || rd.Bool != nil {
			continue
		}
		units[rd.Type] = rd.Unit
		if _, ok := byType[rd.Type]; !ok && (len(types) == 0 || types[0] == rd.Type) {
			order = append(order, rd.Type)
		}
	}
	slices.Sort(order)
	longest := 0
	for _, pts := range byType {
		longest = max(longest, len(pts))
	}
	if longest > maxPoints {
		width = max(width, ceilDuration(until.Sub(since)/maxPoints, time.Second))
	}
	out := []Series{}
	for _, t := range order {
		pts := byType[t]
		if longest > maxPoints {
			pts = coarsen(pts, since, width)
		}
		unit := units[t]
		if unit == "" {
			unit = keptTypes[t]
		}
		if pts == nil {
			pts = []Point{}
		}
		out = append(out, summarise(Series{Type: t, Unit: unit, Points: pts}))
	}
	return int(width / time.Second), out
}

// tierFor picks the tier to answer [since, until) from: the coarsest whose
// buckets are no wider than the span over maxPoints, among those whose
// retention reaches back to since; raw inside the raw retention otherwise
// finer. It answers the tier and its width (0 for raw).
func (r *Reader) tierFor(since, until, now time.Time) (string, time.Duration) {
	tiers := []struct {
		name  string
		width time.Duration
		keep  time.Duration
	}{
		{TierRaw, 0, r.keep.Raw},
		{Tier5m, 5 * time.Minute, r.keep.FiveMin},
		{TierHourly, time.Hour, r.keep.Hourly},
	}
	want := until.Sub(since) / maxPoints
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
func (r *Reader) read(ctx context.Context, id devices.ID, tier string, since, until time.Time, types []string) ([]Row, error) {
	rows, err := r.store.ReadHistory(ctx, id, tier, since, until, types)
	if err != nil || tier == TierRaw {
		return rows, err
	}
	width := tierWidths[tier]
	ends := map[string]time.Time{} // after each type's newest bucket
	for _, row := range rows {
		ends[row.Type] = row.At.Add(width) // rows come oldest first
	}
	fine, err := r.readFiner(ctx, id, tier, since, until, types, ends)
	if err != nil {
		return nil, err
	}
	rows = append(rows, tail(fine, ends, width)...)
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return a.At.Compare(b.At)
	})
	return rows, nil
}

// readFiner reads the tier finer than tier, each type from the end of its
// newest bucket (ends), or over all the span.
func (r *Reader) readFiner(ctx context.Context, id devices.ID, tier string, since, until time.Time, types []string, ends map[string]time.Time) ([]Row, error) {
	wanted := types
	if len(wanted) == 0 {
		wanted = typeNames()
	}
	var fine []Row
	for _, t := range wanted {
		from := since
		if e, ok := ends[t]; ok {
			from = maxTime(since, e)
		}
		part, err := r.read(ctx, id, finerTier[tier], from, until, []string{t})
		if err != nil {
			return nil, err
		}
		fine = append(fine, part...)
	}
	return fine, nil
}

// tail merges the finer rows that fall after each type's newest bucket
// (ends) into buckets width wide.
func tail(fine []Row, ends map[string]time.Time, width time.Duration) []Row {
	type key struct {
		typ string
		at  time.Time
	}
	buckets := map[key]*bucket{}
	var order []key
	for _, row := range fine {
		if e, ok := ends[row.Type]; ok && row.At.Before(e) {
			continue // in a bucket the tier holds
		}
		k := key{row.Type, row.At.Truncate(width)}
		if buckets[k] == nil {
			buckets[k] = &bucket{}
			order = append(order, k)
		}
		buckets[k].add(row.Value, row.Min, row.Max, row.N)
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		b := buckets[k]
		out = append(out, Row{Type: k.typ, At: k.at, Value: b.mean(), Min: &b.lo, Max: &b.hi, N: b.n})
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// coarsen merges points into buckets width wide from since: each the
// count-weighted mean of its points, with their least and greatest value.
func coarsen(pts []Point, since time.Time, width time.Duration) []Point {
	var out []Point
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
		i := min(max(p.At.Sub(since)/width, 0), maxPoints-1)
		start := since.Add(i * width)
		if len(out) == 0 || !out[len(out)-1].At.Equal(start) {
			flush()
			out = append(out, Point{At: start})
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
func summarise(s Series) Series {
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

// typeNames are the types the history keeps, sorted.
func typeNames() []string {
	names := make([]string, 0, len(keptTypes))
	for t := range keptTypes {
		names = append(names, t)
	}
	slices.Sort(names)
	return names
}
