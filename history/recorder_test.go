package history_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// gatedStore is a history store whose writes wait while its gate is shut
// (a token in gate): a writer stuck behind a slow database.
type gatedStore struct {
	gate    chan struct{}
	waiting atomic.Int32 // writes waiting at the gate
	mu      sync.Mutex
	samples int
}

func (s *gatedStore) pass(ctx context.Context) error {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	select {
	case s.gate <- struct{}{}:
		<-s.gate
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *gatedStore) shut() { s.gate <- struct{}{} }
func (s *gatedStore) open() { <-s.gate }

func (s *gatedStore) AppendSamples(ctx context.Context, samples []history.Sample) error {
	if err := s.pass(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.samples += len(samples)
	s.mu.Unlock()
	return nil
}

func (s *gatedStore) RollUpHistory(ctx context.Context, _ time.Time, _ history.Retention) error {
	return s.pass(ctx)
}

func (s *gatedStore) ReadHistory(context.Context, devices.ID, string, time.Time, time.Time, []string) ([]history.Row, error) {
	return nil, nil
}

func (s *gatedStore) written() int { s.mu.Lock(); defer s.mu.Unlock(); return s.samples }

// lockedBuffer is a log destination safe for the Recorder's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// warnings are the log's warnings that readings were not kept.
func (b *lockedBuffer) warnings() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.b.String(), "\n") {
		if strings.Contains(l, "readings were not kept") {
			out = append(out, l)
		}
	}
	return out
}

// TestRecorderBacklog: while the writer is held up, Note never blocks;
// the reads past the backlog are counted and said in the log, at once,
// then at most once a minute, and what is left unsaid is said once the
// minute has passed or as the Recorder stops.
func TestRecorderBacklog(t *testing.T) {
	st := &gatedStore{gate: make(chan struct{}, 1)}
	logs := &lockedBuffer{}
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	rec := history.NewRecorder(history.Config{Store: st, Now: c.now, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	st.shut() // the first roll-up, as Run starts, waits
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = rec.Run(ctx) }()
	servicetest.WaitFor(t, "the writer to wait for the store", func() bool { return st.waiting.Load() == 1 })

	reads := 0
	note := func(n int) {
		for range n {
			reads++
			rec.Note(devices.ID(fmt.Sprintf("sim:s%d", reads)), []devices.Reading{{Type: devices.ReadingTemperature, Value: 20}}, c.now())
		}
	}
	const backlog = 1024
	note(backlog + 3)
	if got := rec.Dropped(); got != 3 {
		t.Fatalf("dropped %d reads; want the 3 past the backlog of %d", got, backlog)
	}
	if w := logs.warnings(); len(w) != 1 || !strings.Contains(w[0], "reads=1 ") {
		t.Fatalf("warnings %q; want one, at the first read not kept", w)
	}

	// A minute on, the writer catches up and says the two not said yet.
	c.add(time.Minute)
	st.open()
	servicetest.WaitFor(t, "the backlog to be written", func() bool { return st.written() == backlog })
	deadline := time.Now().Add(5 * time.Second)
	for len(logs.warnings()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if w := logs.warnings(); len(w) != 2 || !strings.Contains(w[1], "reads=2 ") || !strings.Contains(w[1], "total=3") {
		t.Fatalf("warnings %q; want the two left unsaid, a minute on", w)
	}

	// Held up again within the minute: the drops wait to be said, and are
	// said as the Recorder stops.
	st.shut()
	note(1)
	servicetest.WaitFor(t, "the writer to wait for the store", func() bool { return st.waiting.Load() == 1 })
	note(backlog + 2)
	if got := rec.Dropped(); got != 5 {
		t.Fatalf("dropped %d reads in all; want 5", got)
	}
	if w := logs.warnings(); len(w) != 2 {
		t.Fatalf("warnings %q; want none more within the minute", w)
	}
	st.open()
	stop()
	<-done
	if w := logs.warnings(); len(w) != 3 || !strings.Contains(w[2], "reads=2 ") || !strings.Contains(w[2], "total=5") {
		t.Fatalf("warnings %q; want the last two said as the Recorder stops", w)
	}
	if got := st.written(); got != 2*backlog+1 {
		t.Fatalf("%d samples written; want every read the backlog took (%d)", got, 2*backlog+1)
	}
	// Stopped, it keeps nothing and counts nothing.
	note(1)
	if got := rec.Dropped(); got != 5 {
		t.Fatalf("dropped %d after the stop; want 5 still", got)
	}
}

// countingStore is a history store that counts its roll-ups and
// samples.
type countingStore struct {
	rollUps, samples atomic.Int64
}

func (s *countingStore) AppendSamples(_ context.Context, samples []history.Sample) error {
	s.samples.Add(int64(len(samples)))
	return nil
}

func (s *countingStore) RollUpHistory(context.Context, time.Time, history.Retention) error {
	s.rollUps.Add(1)
	return nil
}

func (s *countingStore) ReadHistory(context.Context, devices.ID, string, time.Time, time.Time, []string) ([]history.Row, error) {
	return nil, nil
}

// TestRecorderRollsUpOnItsPeriodAndForgetsSilentSeries: the tiers are
// rolled up every RollUpEvery (a soak with a fast clock shortens it), and
// what the writer remembers of a series goes once it has been silent for
// ten minutes, so sensors that come and go leave nothing behind; a series
// heard again is kept from its first sample.
func TestRecorderRollsUpOnItsPeriodAndForgetsSilentSeries(t *testing.T) {
	st := &countingStore{}
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	rec := history.NewRecorder(history.Config{Store: st, Now: c.now, RollUpEvery: 10 * time.Millisecond})
	servicetest.Go(t, rec.Run)
	servicetest.WaitFor(t, "three roll-ups", func() bool { return st.rollUps.Load() >= 3 })

	const sensors = 200
	for i := range sensors {
		rec.Note(devices.ID(fmt.Sprintf("sim:gone-%d", i)), []devices.Reading{{Type: devices.ReadingTemperature, Value: 20}}, c.now())
	}
	servicetest.WaitFor(t, "the series to be remembered", func() bool { return rec.Series() == sensors })
	c.add(10 * time.Minute)
	servicetest.WaitFor(t, "the silent series to be forgotten", func() bool { return rec.Series() == 0 })

	rec.Note("sim:gone-0", []devices.Reading{{Type: devices.ReadingTemperature, Value: 20}}, c.now())
	servicetest.WaitFor(t, "the series heard again", func() bool { return rec.Series() == 1 && st.samples.Load() == sensors+1 })
}

// BenchmarkRecorderNote is what the live model pays for each sensor read
// it hands the history (two numeric readings and a state), with the
// writer running behind.
func BenchmarkRecorderNote(b *testing.B) {
	st := &gatedStore{gate: make(chan struct{}, 1)}
	rec := history.NewRecorder(history.Config{Store: st})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = rec.Run(ctx) }()
	b.Cleanup(func() { stop(); <-done })
	motion := false
	rs := []devices.Reading{{Type: devices.ReadingTemperature, Value: 21.5}, {Type: devices.ReadingHumidity, Value: 40},
		{Type: devices.ReadingMotion, Bool: &motion}}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for b.Loop() {
		at = at.Add(time.Second)
		rec.Note("sim:bedroom-temperature", rs, at)
	}
	if rec.Dropped() > 0 {
		b.Logf("%d reads dropped: the writer fell behind", rec.Dropped())
	}
}
