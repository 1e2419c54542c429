package v1_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

func TestEventStream(t *testing.T) {
	h := newHarness(t)
	ts := httptest.NewServer(h.handler)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.read)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d, Content-Type %q, Cache-Control %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}

	// The headers arrive once the stream is subscribed: a change now is seen.
	start := time.Now()
	h.represented(t, http.MethodPut, "/api/v1/lights/sim:key-light/state", `{"brightness": 42}`, nil)
	typ, data := nextEvent(t, bufio.NewReader(resp.Body), "light")
	t.Logf("the event arrived %v after the change was asked for", time.Since(start).Round(time.Microsecond))
	h.checkSchema(t, http.MethodGet, "/api/v1/events", h.doc.Components.Schemas["Event"].Value, data)
	var e struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Data struct {
			State struct {
				Brightness int `json:"brightness"`
			} `json:"state"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	if typ != "light" || e.Type != "light" || e.ID != "sim:key-light" || e.Data.State.Brightness != 42 {
		t.Fatalf("event %s: %s", typ, data)
	}

	// The client goes away: the handler must end (and unsubscribe), or
	// closing the server would wait for it forever.
	cancel()
	closed := make(chan struct{})
	go func() { ts.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream outlived its client")
	}
}

// nextEvent reads events until one of type want arrives, and returns its
// type and data.
func nextEvent(t *testing.T, r *bufio.Reader, want string) (string, []byte) {
	t.Helper()
	var typ string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && typ == want:
			return typ, []byte(strings.TrimPrefix(line, "data: "))
		}
	}
}

// streamHub is a hub with no devices, serving /api/v1 with the given
// stream caps over a database file another process may open too.
type streamHub struct {
	svc  *service.Service
	keys *identity.Keys
	url  string
	path string // the database file
}

func newStreamHub(t *testing.T, cfg stream.Config) *streamHub {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := servicetest.Identity(t, svc, db)
	ts := httptest.NewServer(api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Logger: slog.New(slog.DiscardHandler), Streams: cfg}).Handler())
	t.Cleanup(ts.Close)
	return &streamHub{svc: svc, keys: keys, url: ts.URL, path: path}
}

// openStream is an open /api/v1/events stream.
type openStream struct {
	cancel context.CancelFunc
	ended  chan struct{} // closed when the server ends the stream
}

// open asks for /api/v1/events with key. A 200 leaves the stream open
// (until the test ends or close) and returns it; any other answer is
// returned as it is.
func (h *streamHub) open(t *testing.T, key string) (*openStream, response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/api/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := response{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		r.Body, _ = io.ReadAll(resp.Body)
		return nil, r
	}
	s := &openStream{cancel: cancel, ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	t.Cleanup(s.close)
	return s, r
}

// close ends the stream from the client's side.
func (s *openStream) close() { s.cancel(); <-s.ended }

// mustOpen opens a stream that must be admitted.
func (h *streamHub) mustOpen(t *testing.T, key string) *openStream {
	t.Helper()
	s, r := h.open(t, key)
	if s == nil {
		t.Fatalf("GET /api/v1/events = %d %s, want 200", r.Status, r.Body)
	}
	return s
}

// refused opens a stream that must be refused with 429 and message.
func (h *streamHub) refused(t *testing.T, key, message string) {
	t.Helper()
	s, r := h.open(t, key)
	if s != nil {
		t.Fatal("GET /api/v1/events = 200, want 429")
	}
	var e apiError
	r.decode(t, &e)
	if r.Status != http.StatusTooManyRequests || e.Error != "too_many" || e.Message != message ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET /api/v1/events = %d %v %s; want 429 too_many %q", r.Status, r.Header, r.Body, message)
	}
}

// health is the stream count /healthz reports.
func (h *streamHub) health(t *testing.T) stream.Count {
	t.Helper()
	resp, err := http.Get(h.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status  string       `json:"status"`
		Streams stream.Count `json:"streams"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.Status != "ok" {
		t.Fatalf("/healthz = %d %+v, %v", resp.StatusCode, body, err)
	}
	return body.Streams
}

func (h *streamHub) key(t *testing.T, name string) identity.NewKey {
	t.Helper()
	k, err := h.keys.CreateKey(system, name, service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A key revoked by another process (`bifrost keys revoke` writes the
// database itself: the hub hears no revoke event) loses its stream within
// the re-check interval.
func TestEventStreamEndsWhenAnotherProcessRevokesTheKey(t *testing.T) {
	h := newStreamHub(t, stream.Config{Recheck: 20 * time.Millisecond})
	k := h.key(t, "dashboard")
	s := h.mustOpen(t, k.Key)

	// The command line: its own connection to the file, its own service
	// and keys.
	db, err := store.Open(context.Background(), h.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cli, _ := servicetest.Identity(t, service.New(service.Config{Store: db}), db)
	if _, err := cli.RevokeKey(system, k.ID); err != nil {
		t.Fatal(err)
	}

	select {
	case <-s.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the revoked key's stream is still open 10 s after the revocation")
	}
	// And it cannot come back.
	if s, r := h.open(t, k.Key); s != nil || r.Status != http.StatusUnauthorized {
		t.Fatalf("reopening with the revoked key: %d %s", r.Status, r.Body)
	}
}

func TestEventStreamsAreCappedPerKeyAndInAll(t *testing.T) {
	h := newStreamHub(t, stream.Config{PerKey: 2, Max: 3})
	a, b, c := h.key(t, "a"), h.key(t, "b"), h.key(t, "c")

	first := h.mustOpen(t, a.Key)
	h.mustOpen(t, a.Key)
	h.refused(t, a.Key, "Too many open event streams for this key (2); close one or raise BIFROST_MAX_STREAMS_PER_KEY")
	h.mustOpen(t, b.Key) // another key has streams of its own
	h.refused(t, c.Key, "Too many open event streams on this hub (3); close one or raise BIFROST_MAX_STREAMS")
	if got := h.health(t); got != (stream.Count{Open: 3, Max: 3, Keys: 3}) {
		t.Fatalf("health counts %+v, want 3 open of 3, all of keys", got)
	}

	// Closing one lets another in, once the hub has seen it close.
	first.close()
	eventually(t, "the closed stream to be counted out", func() bool { return h.health(t).Open == 2 })
	h.mustOpen(t, a.Key)
	if got := h.health(t); got.Open != 3 || got.Keys != 3 {
		t.Fatalf("health counts %+v, want 3 open", got)
	}
}
