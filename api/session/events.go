package session

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// pingEvery is how often an idle stream sends a comment; each ping also
// checks that the session still holds, so a stream ends soon after its
// session is logged out or expires.
const pingEvery = 15 * time.Second

// events streams the house's changes to the web UI as Server-Sent Events,
// in the same shape as /api/v1/events: "event: <type>" and "data: <the
// event as JSON>".
func (h *handlers) events(c echo.Context) error {
	ctx := c.Request().Context()
	ch, stop, err := h.svc.Subscribe(ctx)
	if err != nil {
		return err
	}
	defer stop()

	w := c.Response()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()

	token := sessionOf(c).token
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-ping.C:
			if _, aerr := h.acc.Authenticate(ctx, token); aerr != nil {
				return nil // signed out: the browser reconnects and is told 401
			}
			_, err = fmt.Fprint(w, ": ping\n\n")
		case e, ok := <-ch:
			if !ok {
				return nil
			}
			var data []byte
			if data, err = json.Marshal(e); err != nil {
				return fmt.Errorf("encoding %s event: %w", e.Type, err)
			}
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, data)
		}
		if err != nil {
			return nil // the client went away
		}
		w.Flush()
	}
}
