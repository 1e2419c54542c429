package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the hub's own driver, to count its rows
)

// sample is what the soak measures at one report.
type sample struct {
	at         time.Duration // since the start, real time
	virt       time.Duration // since the start, the house's time
	rss        float64       // MiB
	goroutines float64
	fds        float64
	dbMiB      float64 // bifrost.db and its -wal
	raw, fiveM int64   // history rows of each tier
	hourly     int64
	audit      int64
	auditAge   time.Duration // the oldest audit entry's age, in the house's time
	writes     int           // keyed writes in the interval
	p99        float64       // their 99th percentile, ms
	mem        memory        // where the memory is
}

// procStatus reads a field of /proc/self/status in kB, as MiB.
func procStatus(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return math.NaN()
}

func openFiles() float64 {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return math.NaN()
	}
	return float64(len(es))
}

func fileMiB(paths ...string) float64 {
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return float64(n) / (1 << 20)
}

// counter counts the hub's rows through a read-only connection of its
// own to the same file.
type counter struct{ db *sql.DB }

func openCounter(path string) (*counter, error) {
	// Its page cache is kept small: the counts read every page of their
	// tables once a report, which SQLite's default cache (2000 KiB, some
	// 4 MiB with modernc's allocator) would hold in this process, in the
	// RSS the soak judges, beside the hub's own.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)&_pragma=cache_size(-64)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &counter{db}, nil
}

func (c *counter) count(ctx context.Context, table string) int64 {
	var n int64
	if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		fmt.Fprintf(stderr, "soak: counting %s: %v\n", table, err)
		return -1
	}
	return n
}

// oldestAudit is the time of the oldest audit entry, zero when none.
func (c *counter) oldestAudit(ctx context.Context) time.Time {
	var s sql.NullString
	if err := c.db.QueryRowContext(ctx, `SELECT min(time) FROM audit_log`).Scan(&s); err != nil || !s.Valid {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, s.String)
	return t
}

// measure takes a sample now.
func measure(ctx context.Context, start time.Time, clk clock, b *hub, c *counter, lat []time.Duration) sample {
	s := sample{at: time.Since(start), rss: procStatus("VmRSS"), goroutines: float64(runtime.NumGoroutine()),
		fds: openFiles(), dbMiB: fileMiB(b.dbPath, b.dbPath+"-wal"), mem: readMemory()}
	now := clk.now()
	s.virt = now.Sub(clk.start)
	s.raw, s.fiveM, s.hourly = c.count(ctx, "sensor_samples"), c.count(ctx, "sensor_5m"), c.count(ctx, "sensor_1h")
	s.audit = c.count(ctx, "audit_log")
	if t := c.oldestAudit(ctx); !t.IsZero() {
		s.auditAge = now.Sub(t)
	}
	s.writes, s.p99 = len(lat), percentile(lat, 0.99)
	return s
}

// percentile is the q-quantile of ds, in milliseconds (NaN when empty).
func percentile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return math.NaN()
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return float64(ds[max(i, 0)]) / float64(time.Millisecond)
}

// trend is a least-squares line through a series after its warm-up: its
// slope per hour of real time, the slope's standard error, the mean, and
// how much the line rises over the window.
type trend struct {
	perHour, se, mean, rise float64
	n                       int
}

func fit(xs, ys []float64) trend {
	var t trend
	for i := range xs {
		if !math.IsNaN(ys[i]) {
			t.n++
		}
	}
	if t.n < 3 {
		return trend{perHour: math.NaN(), se: math.NaN(), mean: math.NaN(), rise: math.NaN(), n: t.n}
	}
	var sx, sy float64
	var x, y []float64
	for i := range xs {
		if !math.IsNaN(ys[i]) {
			x, y = append(x, xs[i]), append(y, ys[i])
			sx, sy = sx+xs[i], sy+ys[i]
		}
	}
	n := float64(len(x))
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	b := sxy / sxx
	var ss float64
	for i := range x {
		r := y[i] - (my + b*(x[i]-mx))
		ss += r * r
	}
	t.perHour, t.mean = b, my
	t.se = math.Sqrt(ss / (n - 2) / sxx)
	t.rise = b * (x[len(x)-1] - x[0])
	return t
}

// grows says whether a trend is clearly positive beyond noise: the line
// rises by more than tolerance over the window, and its slope is more
// than three standard errors above zero.
func (t trend) grows(tolerance float64) bool {
	return t.rise > tolerance && t.perHour > 3*t.se
}

// judged is one series the soak judges flat or not, with the rise it
// tolerates over the window after the warm-up.
type judged struct {
	name, unit string
	get        func(sample) float64
	tolerance  func(mean float64) float64
}

var flatSeries = []judged{
	{"RSS", "MiB", func(s sample) float64 { return s.rss }, func(m float64) float64 { return max(4, 0.10*m) }},
	{"RSS less SQLite's", "MiB", func(s sample) float64 { return s.rss - s.mem.other }, func(m float64) float64 { return max(4, 0.10*m) }},
	{"Go live heap", "MiB", func(s sample) float64 { return s.mem.liveHeap }, func(m float64) float64 { return max(2, 0.20*m) }},
	{"goroutines", "", func(s sample) float64 { return s.goroutines }, func(m float64) float64 { return max(20, 0.10*m) }},
	{"open files", "", func(s sample) float64 { return s.fds }, func(m float64) float64 { return max(10, 0.10*m) }},
	{"p99 write latency", "ms", func(s sample) float64 { return s.p99 }, func(m float64) float64 { return max(5, 0.5*m) }},
}

// shown are series whose trends the soak prints beside the judged ones,
// without a verdict: where the memory goes.
var shown = []judged{
	{"Go heap objects", "MiB", func(s sample) float64 { return s.mem.heapObjects }, nil},
	{"Go heap unused", "MiB", func(s sample) float64 { return s.mem.heapUnused }, nil},
	{"Go stacks", "MiB", func(s sample) float64 { return s.mem.stacks }, nil},
	{"Go mapped", "MiB", func(s sample) float64 { return s.mem.goMapped }, nil},
	{"RSS anonymous", "MiB", func(s sample) float64 { return s.mem.rssAnon }, nil},
	{"RSS file", "MiB", func(s sample) float64 { return s.mem.rssFile }, nil},
	{"outside Go", "MiB", func(s sample) float64 { return s.mem.other }, nil},
	{"libc mapped", "MiB", func(s sample) float64 { return s.mem.libc }, nil},
}

// afterWarmUp is the samples after the first warmUp share of the run.
func afterWarmUp(ss []sample, warmUp float64) []sample {
	if len(ss) == 0 {
		return nil
	}
	cut := time.Duration(float64(ss[len(ss)-1].at) * warmUp)
	i := slices.IndexFunc(ss, func(s sample) bool { return s.at >= cut })
	return ss[max(i, 0):]
}

// trendOf fits one series of the samples, x in hours.
func trendOf(ss []sample, get func(sample) float64) trend {
	xs, ys := make([]float64, len(ss)), make([]float64, len(ss))
	for i, s := range ss {
		xs[i], ys[i] = s.at.Hours(), get(s)
	}
	return fit(xs, ys)
}
