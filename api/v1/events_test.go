package v1_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Cache-Control") != "no-cache" {
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
