package v1

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// pingEvery is how often an idle event stream sends a comment, so proxies
// and clients see the connection is alive.
const pingEvery = 15 * time.Second

// events streams state changes as Server-Sent Events until the client goes
// away, or its key is revoked.
func (h *handlers) events(c echo.Context) error {
	ch, stop, err := h.svc.Subscribe(c.Request().Context())
	if err != nil {
		return err
	}
	defer stop()
	return StreamEvents(c, ch, nil)
}

// StreamEvents writes events from ch as Server-Sent Events, "event: <type>"
// and "data: <the event as JSON>" each, until ch closes or the client goes
// away. Every ping (each pingEvery) asks stillAllowed, when given, whether
// the caller may still listen; the stream ends when it may not.
func StreamEvents(c echo.Context, ch <-chan service.Event, stillAllowed func(context.Context) bool) error {
	w := c.Response()
	// A stream outlives any server write timeout; lift it for this response
	// (not every ResponseWriter supports deadlines, and that is fine).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()

	ctx := c.Request().Context()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-ping.C:
			if stillAllowed != nil && !stillAllowed(ctx) {
				return nil // the client reconnects and is told 401
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
