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
)

// The event storm: 1,000 state changes in about 2 s, reported by the lamps
// themselves, across the 200 lights of the big house. Afterwards every
// light's view and the last event streamed for it show the last value it
// reported; a "resync" on the stream stands for the events it replaced,
// and the view read after it must be right.

const (
	stormChanges  = 1000
	stormDuration = 2 * time.Second
)

// TestEventStorm follows GET /api/v1/events over SSE while the lamps
// report 1,000 random brightness changes, then waits (polling, with a
// deadline) for the views and the stream to settle at the last values.
func TestEventStorm(t *testing.T) {
	h := newBigHouse(t)
	stream := h.follow(t)

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

	deadline := time.Now().Add(15 * time.Second)
	var wrong []string
	for {
		wrong = h.stormErrors(t, want, published, stream)
		if len(wrong) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
	stats := stream.stats()
	if err := stream.failure(); err != nil {
		t.Fatalf("reading the event stream: %v", err)
	}
	if len(wrong) > 0 {
		t.Fatalf("%d changes to %d lights sent in %v; %v later %d lights are wrong (%s):\n%s",
			stormChanges, len(want), sent.Round(time.Millisecond), time.Since(start.Add(sent)).Round(time.Millisecond), len(wrong), stats, strings.Join(wrong, "\n"))
	}
	t.Logf("%d changes to %d lights sent in %v; views and stream settled %v after the last (%s)",
		stormChanges, len(want), sent.Round(time.Millisecond), time.Since(start.Add(sent)).Round(time.Millisecond), stats)
}

// stormErrors names the changed lights whose view, or whose last streamed
// event, does not show the brightness they last reported.
func (h *bigHouse) stormErrors(t *testing.T, want map[int]int, published map[int][]int, s *eventStream) []string {
	t.Helper()
	var lights []lightView
	h.V1(t, http.MethodGet, "/lights", "", http.StatusOK, &lights)
	views := map[string]lightView{}
	for _, l := range lights {
		views[l.ID] = l
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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
		last, seen := s.last[id]
		if s.resyncAt <= last.seq { // no resync after it stands for it
			switch {
			case !seen:
				problems = append(problems, "no event streamed")
			case last.brightness == nil:
				problems = append(problems, fmt.Sprintf("last event (#%d) has no state", last.seq))
			case *last.brightness != b:
				problems = append(problems, fmt.Sprintf("last event (#%d) says brightness %d", last.seq, *last.brightness))
			}
		}
		if len(problems) > 0 {
			wrong = append(wrong, fmt.Sprintf("  %s: reported %s (last %d); %s; events streamed for it: %v",
				id, tail(published[i]), b, strings.Join(problems, "; "), tail(s.history[id])))
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

// eventStream is GET /api/v1/events as a client reads it: the last light
// event for each light, the history of their brightness, and where the
// last resync came.
type eventStream struct {
	mu       sync.Mutex
	seq      int // events read
	events   map[string]int
	last     map[string]lightEvent
	history  map[string][]int // brightness of each light event, in order (-1: no state)
	resyncAt int              // seq of the last resync; 0: none
	resyncs  int
	err      error
}

// lightEvent is the last light event streamed for one light.
type lightEvent struct {
	seq        int
	brightness *int
}

// follow opens the event stream with the key; the stream is subscribed when
// it returns (the hub subscribes before it answers).
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
	s := &eventStream{events: map[string]int{}, last: map[string]lightEvent{}, history: map[string][]int{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer res.Body.Close()
		s.read(bufio.NewScanner(res.Body))
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// read reads Server-Sent Events until the stream ends.
func (s *eventStream) read(sc *bufio.Scanner) {
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue // "event:", "retry:", a ": ping", the blank line between events
		}
		var e struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Data *struct {
				State *struct {
					Brightness int `json:"brightness"`
				} `json:"state"`
			} `json:"data"`
		}
		err := json.Unmarshal([]byte(data), &e)
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = fmt.Errorf("event %q: %w", data, err)
		}
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
		s.mu.Unlock()
	}
}

// stats says what the stream carried.
func (s *eventStream) stats() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := fmt.Sprintf("%d events streamed: %d light, %d resync", s.seq, s.events["light"], s.resyncs)
	if s.err != nil {
		out += "; " + s.err.Error()
	}
	return out
}

// failure is the first event the stream could not decode.
func (s *eventStream) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
