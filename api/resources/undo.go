package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// undone is what an undo put back: the change it reverted, how long ago
// that change was made, per device what was restored and what failed,
// and the service's sentence for it.
type undone struct {
	Action     string               `json:"action"`
	AgeSeconds int                  `json:"age_seconds"`
	Result     service.FanoutResult `json:"result"`
	Message    string               `json:"message"`
}

// undo reverts the caller's last change (the key's own, or the signed-in
// person's through the session API). Nothing to undo is a 404.
func (h *handlers) undo(c echo.Context) error {
	res, err := h.svc.Undo(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, undone{Action: res.Action, AgeSeconds: res.AgeSecs, Result: fanoutOf(res.Result), Message: res.Message})
}
