// Command soak runs a hub for a long while in this process, under the
// load of a large house, and checks that what it holds stays bounded: a
// year in a box.
//
//	go run ./scripts/soak -duration 30m
//
// The hub is wired as cmd/bifrost wires it (store, registry, sensor
// history, service, identity, automation engine, HTTP server on
// loopback) over a simulated house of -devices devices: half lights, a
// tenth plugs, the rest sensors of temperature, humidity and
// illuminance, in rooms of twenty. The house's clock runs -accel times
// faster than the wall's (5400: each real second is an hour and a half),
// so that 30 minutes stand for more than 100 days of readings: the
// service, the history and the engine take it as their clock, and the
// history is rolled up every -rollup of real time.
//
// While it runs, each sensor reports every -reading-every (real time),
// -writers clients send keyed light writes (PUT /api/v1/lights/{id}/state)
// at -writes a second in all, a room scene is activated every
// -scene-every (with an undo now and then), rules created through
// /api/v1/automations fire when the temperatures cross their thresholds,
// and -sse event-stream clients (/api/v1/events) come and go, each
// holding its stream for a few seconds to a minute.
//
// Every -report it prints the process's RSS, goroutines and open files,
// the database's size (bifrost.db and its WAL), the history's rows per
// tier, the audit log's rows, and the keyed writes' p99 latency in the
// interval; then, after a bar, where the memory is (see memory): the Go
// heap marked live by the last collection, the heap's objects, its
// unused and free spans, the goroutine stacks, all the Go runtime holds,
// the resident file pages, the anonymous resident memory outside the Go
// runtime (SQLite's, through modernc.org/libc), and, when built with
// -tags memory.counters, what libc's allocator has mapped. With -profile
// DIR it also writes a heap profile at each report, to compare late with
// early:
//
//	go run -tags memory.counters ./scripts/soak -duration 12m -profile /tmp/soak
//	go tool pprof -sample_index=inuse_space -top -diff_base /tmp/soak/heap-012-….pb.gz /tmp/soak/heap-059-….pb.gz
//
// At the end it fits a least-squares line through each of RSS, the live
// Go heap, goroutines, open files and p99 latency after the warm-up (the
// first -warmup of the run), prints the lines of the other memory
// figures beside them, and checks the database against the retention's
// arithmetic at the soak's reading rate. It exits 1 when a judged line
// rises clearly beyond noise or the database holds more than the
// arithmetic allows.
//
// The RSS has a part that fills rather than grows: SQLite's memory,
// outside the Go heap (see package store and sqliteBound), reaches its
// high-water mark in steps over the first tens of minutes, and
// modernc's allocator gives pages back and takes them again now and
// then. So beside RSS the soak judges RSS less that part flat, that
// part against its bound, and the live Go heap, where a leak of the
// hub's own would show, flat and more tightly. The soak's own
// connection, which counts the rows, keeps a small page cache so that
// it adds next to nothing.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bifrost-hub/bifrost/devices/sim"
)

var stderr io.Writer = os.Stderr

// config is the soak's options.
type config struct {
	duration     time.Duration
	accel        float64
	devices      int
	readingEvery time.Duration
	writeRate    float64
	writers      int
	sse          int
	sceneEvery   time.Duration
	ruleSensors  int
	report       time.Duration
	rollUp       time.Duration
	latency      time.Duration
	warmUp       float64
	dir          string
	profile      string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.DurationVar(&c.duration, "duration", 30*time.Minute, "how long to run, in real time")
	fs.Float64Var(&c.accel, "accel", 5400, "how many seconds of the house's time each real second stands for")
	fs.IntVar(&c.devices, "devices", 400, "how many devices the house has")
	fs.DurationVar(&c.readingEvery, "reading-every", 2*time.Second, "how often each sensor reports, in real time")
	fs.Float64Var(&c.writeRate, "writes", 20, "keyed light writes a second, in all")
	fs.IntVar(&c.writers, "writers", 4, "how many clients send the writes")
	fs.IntVar(&c.sse, "sse", 50, "how many event-stream clients come and go")
	fs.DurationVar(&c.sceneEvery, "scene-every", 5*time.Second, "how often a scene is activated")
	fs.IntVar(&c.ruleSensors, "rule-sensors", 8, "how many sensors have rules (two each)")
	fs.DurationVar(&c.report, "report", 0, "how often to report (default: a sixtieth of the run, 5s to 1m)")
	fs.DurationVar(&c.rollUp, "rollup", 250*time.Millisecond, "how often the history is rolled up, in real time")
	fs.DurationVar(&c.latency, "latency", 2*time.Millisecond, "how long a simulated device takes to answer")
	fs.Float64Var(&c.warmUp, "warmup", 0.2, "the share of the run left out of the trends")
	fs.StringVar(&c.dir, "dir", "", "where the database goes (default: a temporary directory, removed after)")
	fs.StringVar(&c.profile, "profile", "", "write a heap profile to this directory at each report")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.report <= 0 {
		c.report = min(max(c.duration/60, 5*time.Second), time.Minute)
	}
	if c.devices < 10 || c.accel < 1 || c.writers < 1 || c.writeRate <= 0 || c.readingEvery <= 0 {
		return c, fmt.Errorf("soak: -devices ≥ 10, -accel ≥ 1, -writers ≥ 1, -writes and -reading-every > 0")
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2)
	}
	ok, err := run(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(cfg config) (bool, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir := cfg.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "bifrost-soak-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	prof, err := newProfiler(cfg.profile)
	if err != nil {
		return false, err
	}
	clk := clock{start: time.Now(), accel: cfg.accel}
	h := newHouse(cfg.devices, sim.Options{Latency: cfg.latency, Jitter: cfg.latency / 2})
	b, err := startHub(ctx, dir, h, clk, cfg.rollUp)
	if err != nil {
		return false, err
	}
	defer b.close()
	c, err := openCounter(b.dbPath)
	if err != nil {
		return false, err
	}
	defer c.db.Close()
	d := newDriver(b, h, clk, cfg)
	rules, err := d.rules(ctx, cfg.ruleSensors)
	if err != nil {
		return false, err
	}
	fmt.Printf("soak: %d devices (%d lights, %d plugs, %d sensors), %d rules, %d event streams, %.0f writes/s; "+
		"each real second is %s of the house's; %s; database in %s\n",
		cfg.devices, len(h.lights), len(h.plugs), len(h.sensors), len(rules), cfg.sse, cfg.writeRate,
		clk.virtual(time.Second), cfg.duration, dir)
	samples, end := soak(ctx, cfg, clk, b, c, d, prof)
	if len(samples) < 3 {
		return false, fmt.Errorf("only %d samples: run longer than three reports (-report %s)", len(samples), cfg.report)
	}
	return conclude(ctx, cfg, clk, b, c, d, rules, samples, end), nil
}

// soak drives the hub for the run's duration (or until a signal),
// reporting every cfg.report, and returns the samples taken while it
// drove and one taken once the driving stopped (the figures at the end).
func soak(ctx context.Context, cfg config, clk clock, b *hub, c *counter, d *driver, prof *profiler) ([]sample, sample) {
	dctx, stopDriving := context.WithTimeout(ctx, cfg.duration)
	defer stopDriving()
	driven := make(chan struct{})
	go func() { defer close(driven); d.run(dctx) }()
	printHeader()
	var samples []sample
	t := time.NewTicker(cfg.report)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-dctx.Done():
		}
		if dctx.Err() != nil {
			break
		}
		s := measure(ctx, clk.start, clk, b, c, d.takeLatencies())
		samples = append(samples, s)
		printSample(s, d)
		prof.write(s)
	}
	<-driven
	end := measure(context.WithoutCancel(ctx), clk.start, clk, b, c, d.takeLatencies())
	fmt.Print("at the end:\n")
	printSample(end, d)
	return samples, end
}

func printHeader() {
	fmt.Printf("%7s %9s %8s %6s %5s %8s %8s %8s %8s %8s %7s %6s %6s %7s %5s | %6s %6s %6s %6s %6s %6s %6s %6s %6s\n",
		"real", "house", "RSS MiB", "gorou", "fds", "db MiB", "raw", "5m", "1h", "audit", "writes", "p99ms", "fired", "events", "open",
		"live", "heap", "unused", "free", "stacks", "Go", "file", "other", "libc")
}

func printSample(s sample, d *driver) {
	m := s.mem
	fmt.Printf("%7s %9s %8.1f %6.0f %5.0f %8.1f %8d %8d %8d %8d %7d %6.1f %6d %7d %5d | %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f\n",
		s.at.Round(time.Second), days(s.virt), s.rss, s.goroutines, s.fds, s.dbMiB, s.raw, s.fiveM, s.hourly,
		s.audit, s.writes, s.p99, d.fired.Load(), d.events.Load(), d.openNow.Load(),
		m.liveHeap, m.heapObjects, m.heapUnused, m.heapFree, m.stacks, m.goMapped, m.rssFile, m.other, m.libc)
}

// days writes a duration of the house's time in days, to one decimal.
func days(d time.Duration) string { return fmt.Sprintf("%.1fd", d.Hours()/24) }

// conclude prints the totals, the trends and the arithmetic, and says
// whether the run passed.
func conclude(ctx context.Context, cfg config, clk clock, b *hub, c *counter, d *driver, rules []string, ss []sample, last sample) bool {
	fmt.Printf("\nsoak: %s of real time stood for %s of the house's\n", last.at.Round(time.Second), days(last.virt))
	fmt.Printf("  sensor reports %d, keyed writes %d, scene activations %d, undos %d, failed calls %d, rules fired %d (longest trace %d)\n",
		d.readings.Load(), d.writes.Load(), d.scenes.Load(), d.undos.Load(), d.failed.Load(), d.fired.Load(), d.longestTrace(ctx, rules))
	fmt.Printf("  event streams opened %d (refused %d), events read %d; history recorder follows %d series, dropped %d reads\n",
		d.streams.Load(), d.refused.Load(), d.events.Load(), b.rec.Series(), b.rec.Dropped())
	ok := true
	win := afterWarmUp(ss, cfg.warmUp)
	fmt.Printf("\ntrends after the warm-up (%d samples from %s), least squares:\n", len(win), win[0].at.Round(time.Second))
	for _, j := range flatSeries {
		t := trendOf(win, j.get)
		tol := j.tolerance(t.mean)
		verdict := "flat"
		if t.grows(tol) {
			verdict, ok = "GROWS", false
		}
		fmt.Printf("  %-18s mean %8.1f %-3s slope %+8.2f/h (± %.2f), rise over the window %+7.2f (tolerated %.1f): %s\n",
			j.name, t.mean, j.unit, t.perHour, t.se, t.rise, tol, verdict)
	}
	fmt.Println("  where the memory is (not judged):")
	for _, j := range shown {
		t := trendOf(win, j.get)
		fmt.Printf("    %-16s mean %8.1f %-3s slope %+8.2f/h (± %.2f), rise over the window %+7.2f\n",
			j.name, t.mean, j.unit, t.perHour, t.se, t.rise)
	}
	if !withinSQLiteBound(win) {
		ok = false
	}
	if !arithmetic(ctx, cfg, clk, c, d, last) {
		ok = false
	}
	if ok {
		fmt.Println("\nsoak: PASS")
	} else {
		fmt.Println("\nsoak: FAIL")
	}
	return ok && !math.IsNaN(last.rss)
}
