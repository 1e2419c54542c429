package history

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// The Recorder keeps a sample when a series' value changes (at most one
// every gap, the latest winning, and one at least every beat while the
// sensor reports), writes what it keeps in batches, and rolls the tiers up
// once a minute, all in its own loop (Run). Note, what the live model
// calls, never waits for that loop: the reads between the two wait in a
// bounded backlog, and a read the backlog cannot take is counted and said
// in the log. What the loop remembers of each series (its last sample) is
// forgotten once the series has been silent for beat, so sensors that come
// and go leave nothing behind: a sample after that silence is kept anyway.

const (
	gap       = 5 * time.Second  // the least time between two samples of a series
	beat      = 10 * time.Minute // the most time between two samples of a series while it reports
	flushAt   = time.Second      // how often the writer writes what it holds
	batchMax  = 500              // a batch this big is written at once
	backlog   = 1024             // reads of this many wait for the writer
	sayDrops  = time.Minute      // the least time between two warnings of reads not kept
	stopGrace = 5 * time.Second  // how long Run may take to write what it holds once ctx ends
)

// Recorder keeps the sensors' readings: the live model hands it each read
// (Note, a service.ReadingSink), and its own loop (Run) writes them.
type Recorder struct {
	store  Store
	keep   Retention
	log    *slog.Logger
	now    func() time.Time
	rollAt time.Duration // how often the tiers are rolled up, in real time
	in     chan []Sample
	// series is how many series the writer remembers, as of its last
	// roll-up.
	series atomic.Int64
	// stopped is set when Run has returned: what is heard then is not
	// kept.
	stopped atomic.Bool
	drops   drops
}

// NewRecorder returns a Recorder over cfg's store. Readings noted before
// Run starts wait in the backlog; call Run to keep them.
func NewRecorder(cfg Config) *Recorder {
	cfg = cfg.withDefaults()
	return &Recorder{store: cfg.Store, keep: *cfg.Retention, log: cfg.Logger, now: cfg.Now, rollAt: cfg.RollUpEvery,
		in: make(chan []Sample, backlog)}
}

// Note hands a sensor's readings, as read at, to the writer: the numeric
// ones are kept. It never blocks: a read the backlog cannot take is
// counted (Dropped) and said in the log, at most once a minute. Once Run
// has returned, Note keeps nothing.
func (r *Recorder) Note(id devices.ID, rs []devices.Reading, at time.Time) {
	if r.stopped.Load() {
		return
	}
	var batch []Sample
	for _, rd := range rs {
		if _, ok := keptTypes[rd.Type]; ok && rd.Bool == nil {
			batch = append(batch, Sample{Device: id, Type: rd.Type, At: at, Value: rd.Value})
		}
	}
	if len(batch) == 0 {
		return
	}
	select {
	case r.in <- batch:
	default:
		r.drops.add(r.log, r.now())
	}
}

// Dropped is how many reads were not kept because the backlog was full,
// since the Recorder was made.
func (r *Recorder) Dropped() uint64 { return r.drops.total.Load() }

// Series is how many series (a sensor's readings of one type) the
// Recorder remembers, as of its last roll-up: those heard within beat.
func (r *Recorder) Series() int { return int(r.series.Load()) }

// Run writes what Note hands it until ctx ends, and rolls the tiers up
// (once as it starts, then every Config.RollUpEvery); it has written what it holds
// (within 5 s) when it returns. It returns nil; run it once.
func (r *Recorder) Run(ctx context.Context) error {
	w := r.start(ctx)
	defer w.stop(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case b := <-r.in:
			w.heard(ctx, b)
		case <-w.flush.C:
			w.tick(ctx)
		case <-w.roll.C:
			w.rollUp(ctx)
		}
	}
}

// drops counts the reads the backlog could not take, and says them in the
// log: at once, then at most once every sayDrops; the writer says what is
// left unsaid once sayDrops has passed, and as it stops.
type drops struct {
	total  atomic.Uint64
	mu     sync.Mutex
	unsaid uint64    // reads dropped since the last warning
	said   time.Time // when the last warning was logged
}

func (d *drops) add(log *slog.Logger, now time.Time) {
	d.total.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unsaid++
	d.sayLocked(log, now, false)
}

// say logs the reads not said yet, once sayDrops has passed since the
// last warning or when last is set.
func (d *drops) say(log *slog.Logger, now time.Time, last bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sayLocked(log, now, last)
}

func (d *drops) sayLocked(log *slog.Logger, now time.Time, last bool) {
	if d.unsaid == 0 || (!last && now.Sub(d.said) < sayDrops) {
		return
	}
	log.Warn("sensor history is behind; readings were not kept", "reads", d.unsaid, "total", d.total.Load())
	d.unsaid, d.said = 0, now
}

// writer is the Recorder's loop's state: what it has kept of each series,
// what waits for gap, the batch not written yet, and its clocks.
type writer struct {
	r       *Recorder
	seen    map[seriesKey]lastSample
	pending map[seriesKey]Sample // a change held back by gap
	batch   []Sample
	flush   *time.Ticker
	roll    *time.Ticker
}

type lastSample struct {
	at    time.Time
	value float64
}

// start begins writing; the tiers are rolled up at once.
func (r *Recorder) start(ctx context.Context) *writer {
	w := &writer{r: r, seen: map[seriesKey]lastSample{}, pending: map[seriesKey]Sample{},
		flush: time.NewTicker(flushAt), roll: time.NewTicker(r.rollAt)}
	w.rollUp(ctx)
	return w
}

func (w *writer) take(s Sample) {
	w.batch = append(w.batch, s)
	w.seen[seriesKey{s.Device, s.Type}] = lastSample{s.At, s.Value}
}

// heard takes a read's samples: each is kept when its series has none, has
// changed and its last sample is gap old, or its last is beat old; a
// change sooner waits, the latest winning.
func (w *writer) heard(ctx context.Context, b []Sample) {
	for _, s := range b {
		k := seriesKey{s.Device, s.Type}
		prev, ok := w.seen[k]
		switch {
		case !ok, s.At.Sub(prev.at) >= beat, s.Value != prev.value && s.At.Sub(prev.at) >= gap:
			delete(w.pending, k)
			w.take(s)
		case s.Value != prev.value:
			w.pending[k] = s
		default:
			delete(w.pending, k) // back to what was kept
		}
	}
	if len(w.batch) >= batchMax {
		w.write(ctx)
	}
}

// tick keeps the changes that have waited gap, writes, and says the reads
// not kept that are due to be said.
func (w *writer) tick(ctx context.Context) {
	now := w.r.now()
	for k, s := range w.pending {
		if now.Sub(w.seen[k].at) >= gap {
			delete(w.pending, k)
			w.take(Sample{Device: s.Device, Type: s.Type, At: now, Value: s.Value})
		}
	}
	w.write(ctx)
	w.r.drops.say(w.r.log, now, false)
}

func (w *writer) write(ctx context.Context) {
	if len(w.batch) == 0 {
		return
	}
	if err := w.r.store.AppendSamples(ctx, w.batch); err != nil {
		w.r.log.Error("sensor history: writing samples failed", "samples", len(w.batch), "err", err)
	}
	w.batch = w.batch[:0]
}

func (w *writer) rollUp(ctx context.Context) {
	w.write(ctx)
	now := w.r.now()
	if err := w.r.store.RollUpHistory(ctx, now, w.r.keep); err != nil {
		w.r.log.Error("sensor history: rolling up failed", "err", err)
	}
	w.forget(now)
}

// forget drops the series silent for beat, with nothing waiting: the next
// sample of such a series is kept whatever its value, as it would be
// anyway once beat has passed.
func (w *writer) forget(now time.Time) {
	for k, last := range w.seen {
		if _, waits := w.pending[k]; !waits && now.Sub(last.at) >= beat {
			delete(w.seen, k)
		}
	}
	w.r.series.Store(int64(len(w.seen)))
}

// stop writes what the writer holds (what waits, what is queued), within
// stopGrace of ctx's end, stops keeping readings, and says the reads not
// kept that were not said yet.
func (w *writer) stop(ctx context.Context) {
	w.r.stopped.Store(true)
	w.flush.Stop()
	w.roll.Stop()
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
	defer cancel()
	for {
		select {
		case b := <-w.r.in:
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
	w.r.drops.say(w.r.log, w.r.now(), true)
}
