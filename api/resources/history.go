package resources

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
)

// historyParams are the query parameters of GET /sensors/devices/{id}/history.
var historyParams = []string{"since", "until", "type"}

// sensorHistory answers a sensor's stored readings over a span.
func (h *handlers) sensorHistory(c echo.Context) error {
	var q history.Query
	err := eachParam(c, func(name, v string) error {
		switch name {
		case "since":
			q.Since = v
		case "until":
			q.Until = v
		case "type":
			q.Type = v
		default:
			return service.Errorf(service.EINVALID, "unknown parameter %q; parameters: %s", name, strings.Join(historyParams, ", ")).With("field", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	v, err := h.hist.SensorHistory(c.Request().Context(), httpjson.Param(c, "id"), q)
	return httpjson.Reply(c, http.StatusOK, v, err)
}
