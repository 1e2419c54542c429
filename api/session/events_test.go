package session_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/api/stream"
)

// uiStream is an open /api/events stream of a browser.
type uiStream struct {
	cancel context.CancelFunc
	ended  chan struct{} // closed when the server ends the stream
}

func (s *uiStream) close() { s.cancel(); <-s.ended }

// openEvents asks ts for /api/events as b. A 200 leaves the stream open
// (until close or the test's end); any other answer is returned with its
// body.
func openEvents(t *testing.T, ts *httptest.Server, b *sessiontest.Browser) (*uiStream, int, http.Header, []byte) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.AddCookie(&http.Cookie{Name: session.CookieName, Value: b.Cookie})
	resp, err := ts.Client().Do(r)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, resp.Header, body
	}
	s := &uiStream{cancel: cancel, ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	t.Cleanup(s.close)
	return s, resp.StatusCode, resp.Header, nil
}

func mustOpenEvents(t *testing.T, ts *httptest.Server, b *sessiontest.Browser) *uiStream {
	t.Helper()
	s, status, _, body := openEvents(t, ts, b)
	if s == nil {
		t.Fatalf("GET /api/events = %d %s, want 200", status, body)
	}
	return s
}

// streamCount is the count of open streams /healthz reports.
func streamCount(t *testing.T, ts *httptest.Server) stream.Count {
	t.Helper()
	resp, err := ts.Client().Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Streams stream.Count `json:"streams"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Streams
}

// waitUntil waits, up to 10 s, until cond holds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEventStreamsAreCappedPerSession(t *testing.T) {
	h := newHub(t, func(c *api.Config) { c.Streams = stream.Config{PerSession: 2} })
	ts := httptest.NewServer(h.Handler)
	t.Cleanup(ts.Close) // after the streams' own cleanups: Close waits for them
	b, other := h.Login(t, "admin", sessiontest.Password), h.Login(t, "admin", sessiontest.Password)

	first := mustOpenEvents(t, ts, b)
	mustOpenEvents(t, ts, b)
	s, status, header, body := openEvents(t, ts, b)
	var e struct{ Error, Message string }
	if s != nil || json.Unmarshal(body, &e) != nil || status != http.StatusTooManyRequests || e.Error != "too_many" ||
		e.Message != "Too many open event streams for this session (2); close one or raise BIFROST_MAX_STREAMS_PER_SESSION" {
		t.Fatalf("a third stream of one session: %d %v %s; want 429", status, header, body)
	}
	mustOpenEvents(t, ts, other) // another session has streams of its own
	if got := streamCount(t, ts); got != (stream.Count{Open: 3, Max: stream.DefaultMax, Sessions: 3}) {
		t.Fatalf("health counts %+v, want 3 open, all of sessions", got)
	}

	first.close()
	waitUntil(t, "the closed stream to be counted out", func() bool { return streamCount(t, ts).Open == 2 })
	mustOpenEvents(t, ts, b)
}

func TestEventStreamEndsSoonAfterLogout(t *testing.T) {
	h := newHub(t, func(c *api.Config) { c.Streams = stream.Config{Recheck: 20 * time.Millisecond} })
	ts := httptest.NewServer(h.Handler)
	t.Cleanup(ts.Close) // after the streams' own cleanups: Close waits for them
	b := h.Login(t, "admin", sessiontest.Password)
	s := mustOpenEvents(t, ts, b)
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "POST", Path: "/api/logout", Session: b})
	select {
	case <-s.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream is still open 10 s after its session logged out")
	}
}
