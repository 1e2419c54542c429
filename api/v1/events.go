package v1

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// pingEvery is how often an idle event stream sends a comment, so proxies
// and clients see the connection is alive.
const pingEvery = 15 * time.Second

// events streams state changes as Server-Sent Events until the client goes
// away, or its key is revoked: "event: <type>" and "data: <the event as
// JSON>" per change.
func (h *handlers) events(c echo.Context) error {
	ctx := c.Request().Context()
	ch, stop, err := h.svc.Subscribe(ctx)
	if err != nil {
		return err
	}
	defer stop()

	w := c.Response()
	// A stream outlives any server write timeout; lift it for this response
	// (not every ResponseWriter supports deadlines, and that is fine).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Flush()

	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-ping.C:
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
