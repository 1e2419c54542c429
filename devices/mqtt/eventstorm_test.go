package mqtt_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// The event storm: 1,000 state changes in about 2 s, reported by the lamps
// themselves, across the 200 lights of the big house. Afterwards every
// light's view and the last event streamed for it show the last value it
// reported; a "resync" on the stream stands for the events it replaced,
// and the view read after it must be right. Two clients follow the storm:
// one reads GET /api/v1/events (SSE) as it comes; the other subscribes to
// the service and reads nothing until the storm is over, so the bus must
// coalesce its backlog to the latest of each light (or say resync).

const (
	stormChanges  = 1000
	stormDuration = 2 * time.Second
)

// TestEventStorm sends the storm, then waits (polling, with a deadline)
// for the views and both followers to settle at the last values.
func TestEventStorm(t *testing.T) {
	h := newBigHouse(t, hubRestart)
	prompt := h.follow(t)
	stalled, resume := h.followLater(t)

	seed := uint64(time.Now().UnixNano())
	t.Logf("storm seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	want := map[int]int{}        // light → the brightness (%) it last reported
	published := map[int][]int{} // light → every brightness it reported, in order
	tick := time.NewTicker(stormDuration / stormChanges)
	start := time.Now()
	for range stormChanges {
		<-tick.C
		i := rng.IntN(bigLights)
		pct := 1 + rng.IntN(100)
		for pct == h.sim.brightness(i) { // a change, not the same value again
			pct = 1 + rng.IntN(100)
		}
		want[i] = h.sim.dim(i, pct)
		published[i] = append(published[i], want[i])
	}
	tick.Stop()
	sent := time.Since(start)
	resume()

	streams := []*eventStream{prompt, stalled}
	deadline := time.Now().Add(15 * time.Second)
	var wrong []string
	for {
		wrong = h.stormErrors(t, want, published, streams)
		if len(wrong) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
	for _, s := range streams {
		if err := s.failure(); err != nil {
			t.Fatalf("reading %s: %v", s.name, err)
		}
	}
	stats := prompt.stats() + "; " + stalled.stats()
	settled := time.Since(start.Add(sent)).Round(time.Millisecond)
	if len(wrong) > 0 {
		t.Fatalf("%d changes to %d lights sent in %v; %v later, wrong (%s):\n%s",
			stormChanges, len(want), sent.Round(time.Millisecond), settled, stats, strings.Join(wrong, "\n"))
	}
	t.Logf("%d changes to %d lights sent in %v; views and events settled %v after the last (%s)",
		stormChanges, len(want), sent.Round(time.Millisecond), settled, stats)
}

// stormErrors names the changed lights whose view, or whose last event on
// one of the streams, does not show the brightness they last reported.
func (h *bigHouse) stormErrors(t *testing.T, want map[int]int, published map[int][]int, streams []*eventStream) []string {
	t.Helper()
	var lights []lightView
	h.V1(t, http.MethodGet, "/lights", "", http.StatusOK, &lights)
	views := map[string]lightView{}
	for _, l := range lights {
		views[l.ID] = l
	}
	var wrong []string
	for _, i := range sortedKeys(want) {
		id, b := bigLightID(i), want[i]
		var problems []string
		v, ok := views[id]
		switch {
		case !ok:
			problems = append(problems, "not listed")
		case !v.Online || v.State == nil:
			problems = append(problems, fmt.Sprintf("view online=%v state=%v", v.Online, v.State))
		case v.State.Brightness != b || !v.State.On:
			problems = append(problems, fmt.Sprintf("view shows on=%v brightness %d", v.State.On, v.State.Brightness))
		}
		for _, s := range streams {
			problems = append(problems, s.problems(id, b)...)
		}
		if len(problems) > 0 {
			wrong = append(wrong, fmt.Sprintf("  %s: reported %s, last %d; %s", id, tail(published[i]), b, strings.Join(problems, "; ")))
		}
	}
	return wrong
}

func sortedKeys(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// tail is the last few values of a history, for a failure message.
func tail(v []int) string {
	const n = 8
	if len(v) > n {
		return fmt.Sprintf("…%v", v[len(v)-n:])
	}
	return fmt.Sprint(v)
}

// eventStream is one follower's events as it read them: the last light
// event for each light, the history of their brightness, and where the
// last resync came.
type eventStream struct {
	name string

	mu       sync.Mutex
	seq      int // events read
	events   map[string]int
	last     map[string]lightEvent
	history  map[string][]int // brightness of each light event, in order (-1: no state)
	resyncAt int              // seq of the last resync; 0: none
	resyncs  int
	err      error
}

// lightEvent is the last light event read for one light.
type lightEvent struct {
	seq        int
	brightness *int
}

func newEventStream(name string) *eventStream {
	return &eventStream{name: name, events: map[string]int{}, last: map[string]lightEvent{}, history: map[string][]int{}}
}

// follow opens GET /api/v1/events with the key and reads it as it comes;
// the stream is subscribed when it returns (the hub subscribes before it
// answers).
func (h *bigHouse) follow(t *testing.T) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/api/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.Key)
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET /api/v1/events: %v", err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		cancel()
		t.Fatalf("GET /api/v1/events: %d", res.StatusCode)
	}
	s := newEventStream("the SSE stream")
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer res.Body.Close()
		s.readSSE(bufio.NewScanner(res.Body))
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// followLater subscribes to the service's events at once but reads
// nothing until resume is called.
func (h *bigHouse) followLater(t *testing.T) (s *eventStream, resume func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(service.WithPrincipal(context.Background(), service.System))
	ch, stop, err := h.Service.Subscribe(ctx)
	if err != nil {
		cancel()
		t.Fatalf("subscribing: %v", err)
	}
	s = newEventStream("the stalled subscriber")
	start, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-start:
		case <-ctx.Done():
			return
		}
		for e := range ch {
			b, err := json.Marshal(e)
			if err != nil {
				s.fail(fmt.Errorf("encoding %s event: %w", e.Type, err))
				continue
			}
			s.record(b)
		}
	}()
	t.Cleanup(func() { cancel(); stop(); <-done })
	var once sync.Once
	return s, func() { once.Do(func() { close(start) }) }
}

// readSSE reads Server-Sent Events until the stream ends.
func (s *eventStream) readSSE(sc *bufio.Scanner) {
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			s.record([]byte(data))
		} // else "event:", "retry:", a ": ping", the blank line between events
	}
}

// record reads one event, as JSON.
func (s *eventStream) record(data []byte) {
	var e struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Data *struct {
			State *struct {
				Brightness int `json:"brightness"`
			} `json:"state"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		s.fail(fmt.Errorf("event %s: %w", data, err))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.events[e.Type]++
	switch e.Type {
	case "resync":
		s.resyncAt = s.seq
		s.resyncs++
	case "light":
		ev := lightEvent{seq: s.seq}
		b := -1
		if e.Data != nil && e.Data.State != nil {
			ev.brightness, b = &e.Data.State.Brightness, e.Data.State.Brightness
		}
		s.last[e.ID] = ev
		s.history[e.ID] = append(s.history[e.ID], b)
	}
}

func (s *eventStream) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// problems says what is wrong with the last event read for light id,
// which last reported brightness b: nothing when it carries b, or when a
// resync came after it.
func (s *eventStream) problems(id string, b int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	last, seen := s.last[id]
	var p string
	switch {
	case s.resyncAt > last.seq: // a resync stands for it (and the view is checked)
		return nil
	case !seen:
		p = "no event"
	case last.brightness == nil:
		p = fmt.Sprintf("last event (#%d) has no state", last.seq)
	case *last.brightness != b:
		p = fmt.Sprintf("last event (#%d) says brightness %d", last.seq, *last.brightness)
	default:
		return nil
	}
	return []string{fmt.Sprintf("on %s, %s (its light events: %s)", s.name, p, tail(s.history[id]))}
}

// stats says what the follower read.
func (s *eventStream) stats() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s: %d events, %d light, %d resync", s.name, s.seq, s.events["light"], s.resyncs)
}

// failure is the first event the follower could not read.
func (s *eventStream) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
