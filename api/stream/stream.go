// Package stream serves the house's changes as Server-Sent Events (and
// other streams of events, such as a kiosk's commands) and keeps the caps
// on them: how many streams may be open in all, per API key and per web
// UI session, and how often an open stream re-checks that its holder may
// still listen. One Streams counts the streams of every surface; each
// mount (/api/v1/events, /api/events, /api/kiosks/stream) authenticates
// its caller and says whom the stream counts against.
package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// pingEvery is how often an idle event stream sends a comment, so proxies
// and clients see the connection is alive.
const pingEvery = 15 * time.Second

// The caps and the re-check interval of the event streams, when a
// Config leaves them zero.
const (
	DefaultMax           = 256
	DefaultMaxPerKey     = 8
	DefaultMaxPerSession = 8
	DefaultRecheck       = 5 * time.Second
)

// Config bounds the event streams of /api/v1/events and
// /api/events. A zero field takes its default.
type Config struct {
	// Max is how many streams may be open in all (DefaultMax).
	Max int
	// PerKey is how many streams one API key may hold open
	// (DefaultMaxPerKey).
	PerKey int
	// PerSession is how many streams one web UI session may hold open
	// (DefaultMaxPerSession).
	PerSession int
	// Recheck is how often a stream checks that its key or session still
	// holds (DefaultRecheck): the stream of a key revoked, or a
	// session ended, by any process ends within it.
	Recheck time.Duration
}

// The kinds of Holder.
const (
	OfKey     = "key"
	OfSession = "session"
	OfKiosk   = "kiosk" // a kiosk's command stream, by its key; capped as keys are
)

// Holder is whom an open stream counts against: an API key (by id), a
// web UI session (by a hash of its token), or a kiosk's key (by id).
type Holder struct {
	Kind string // OfKey or OfSession
	ID   string
}

// Streams counts the open event streams and admits a new one only within
// the caps of its Config. One Streams serves a whole hub, so the
// overall cap spans both surfaces.
type Streams struct {
	cfg Config

	mu       sync.Mutex
	open     int
	byKind   map[string]int
	byHolder map[Holder]int
}

// New returns a counter with cfg's caps, defaults filled in.
func New(cfg Config) *Streams {
	if cfg.Max <= 0 {
		cfg.Max = DefaultMax
	}
	if cfg.PerKey <= 0 {
		cfg.PerKey = DefaultMaxPerKey
	}
	if cfg.PerSession <= 0 {
		cfg.PerSession = DefaultMaxPerSession
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = DefaultRecheck
	}
	return &Streams{cfg: cfg, byKind: map[string]int{}, byHolder: map[Holder]int{}}
}

// Count is how many event streams are open, for the health probe.
type Count struct {
	Open     int `json:"open"`     // in all
	Max      int `json:"max"`      // the overall cap
	Keys     int `json:"keys"`     // held by API keys (/api/v1/events)
	Sessions int `json:"sessions"` // held by web UI sessions (/api/events)
	Kiosks   int `json:"kiosks"`   // kiosks' command streams (/api/kiosks/stream)
}

// Count reports the open streams.
func (s *Streams) Count() Count {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Count{Open: s.open, Max: s.cfg.Max, Keys: s.byKind[OfKey], Sessions: s.byKind[OfSession], Kiosks: s.byKind[OfKiosk]}
}

// admit counts one more stream of h, or refuses it (ETOOMANY, a 429) when
// h, or the hub, holds as many as its cap allows. release ends the count;
// call it once, when the stream ends. A nil Streams admits every stream.
func (s *Streams) admit(h Holder) (release func(), err error) {
	if s == nil {
		return func() {}, nil
	}
	perHolder, what, env := s.cfg.PerKey, "key", "BIFROST_MAX_STREAMS_PER_KEY"
	if h.Kind == OfSession {
		perHolder, what, env = s.cfg.PerSession, "session", "BIFROST_MAX_STREAMS_PER_SESSION"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.byHolder[h] >= perHolder:
		return nil, service.Errorf(service.ETOOMANY, "Too many open event streams for this %s (%d); close one or raise %s",
			what, perHolder, env).With("limit", perHolder)
	case s.open >= s.cfg.Max:
		return nil, service.Errorf(service.ETOOMANY, "Too many open event streams on this hub (%d); close one or raise BIFROST_MAX_STREAMS",
			s.cfg.Max).With("limit", s.cfg.Max)
	}
	s.open++
	s.byKind[h.Kind]++
	s.byHolder[h]++
	return func() { s.release(h) }, nil
}

// Hold counts one more stream of h, for a surface that serves its stream
// itself (MCP's legacy /sse): past a cap it is ETOOMANY, a 429. Call
// release once, when the stream ends.
func (s *Streams) Hold(h Holder) (release func(), err error) { return s.admit(h) }

func (s *Streams) release(h Holder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	s.byKind[h.Kind]--
	if s.byHolder[h]--; s.byHolder[h] == 0 {
		delete(s.byHolder, h)
	}
}

// recheck is how often a stream counted by s checks its holder.
func (s *Streams) recheck() time.Duration {
	if s == nil {
		return DefaultRecheck
	}
	return s.cfg.Recheck
}

// Serve streams the house's changes to the caller in the request's
// context, as Server-Sent Events, counted by streams (nil: uncapped) as
// one of holder's: past a cap it answers 429 and streams nothing. Every
// re-check interval it asks stillAllowed, when given, whether the caller
// may still listen; the stream ends when it may not.
func Serve(c echo.Context, svc *service.Service, streams *Streams, holder Holder, stillAllowed func(context.Context) bool) error {
	ctx := c.Request().Context()
	release, err := streams.admit(holder)
	if err != nil {
		return err
	}
	defer release()
	ch, stop, err := svc.Subscribe(ctx)
	if err != nil {
		return err
	}
	defer stop()
	return streamEvents(c, ch, streams.recheck(), stillAllowed)
}

// ServeText streams, as Server-Sent Events named event, the lines that
// open's channel carries, counted by streams (nil: uncapped) as one of
// holder's: past a cap it answers 429 and opens nothing. It ends when the
// channel closes, the client goes away, or stillAllowed, asked every
// re-check interval when given, says the caller may no longer listen. A
// line must not hold a line break.
func ServeText(c echo.Context, streams *Streams, holder Holder, event string,
	open func(context.Context) (<-chan string, func(), error), stillAllowed func(context.Context) bool) error {
	release, err := streams.admit(holder)
	if err != nil {
		return err
	}
	defer release()
	ch, stop, err := open(c.Request().Context())
	if err != nil {
		return err
	}
	defer stop()
	return serve(c, ch, func(line string) (string, []byte, error) { return event, []byte(line), nil },
		streams.recheck(), stillAllowed)
}

// streamEvents writes events from ch as Server-Sent Events, "event: <type>"
// and "data: <the event as JSON>" each, until ch closes or the client goes
// away. Every recheckEvery it asks stillAllowed, when given, whether the
// caller may still listen; the stream ends when it may not.
func streamEvents(c echo.Context, ch <-chan service.Event, recheckEvery time.Duration, stillAllowed func(context.Context) bool) error {
	return serve(c, ch, func(e service.Event) (string, []byte, error) {
		data, err := json.Marshal(e)
		if err != nil {
			return "", nil, fmt.Errorf("encoding %s event: %w", e.Type, err)
		}
		return e.Type, data, nil
	}, recheckEvery, stillAllowed)
}

// serve writes what ch carries as Server-Sent Events, each named and
// encoded by encode, with a comment every pingEvery so the client and
// the proxies between see the connection is alive, until ch closes or
// the client goes away. Every recheckEvery it asks stillAllowed, when
// given, whether the caller may still listen; the stream ends when it
// may not.
func serve[T any](c echo.Context, ch <-chan T, encode func(T) (string, []byte, error),
	recheckEvery time.Duration, stillAllowed func(context.Context) bool) error {
	w := c.Response()
	// A stream outlives any server write timeout; lift it for this response
	// (not every ResponseWriter supports deadlines, and that is fine).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()

	ctx := c.Request().Context()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	var recheck <-chan time.Time
	if stillAllowed != nil {
		t := time.NewTicker(recheckEvery)
		defer t.Stop()
		recheck = t.C
	}
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-recheck:
			if !stillAllowed(ctx) {
				return nil // the client reconnects and is told 401
			}
			continue
		case <-ping.C:
			_, err = fmt.Fprint(w, ": ping\n\n")
		case v, ok := <-ch:
			if !ok {
				return nil
			}
			name, data, encErr := encode(v)
			if encErr != nil {
				return encErr
			}
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		}
		if err != nil {
			return nil // the client went away
		}
		w.Flush()
	}
}
