package session

import (
	"context"

	"github.com/labstack/echo/v4"

	v1 "github.com/bifrost-hub/bifrost/api/v1"
)

// events streams the house's changes to the web UI as Server-Sent Events,
// in the same shape as /api/v1/events. Each ping also checks that the
// session still holds, so a stream ends soon after its session is logged
// out or expires.
func (h *handlers) events(c echo.Context) error {
	ch, stop, err := h.svc.Subscribe(c.Request().Context())
	if err != nil {
		return err
	}
	defer stop()
	token := sessionOf(c).token
	return v1.StreamEvents(c, ch, func(ctx context.Context) bool {
		_, err := h.acc.Authenticate(ctx, token)
		return err == nil
	})
}
