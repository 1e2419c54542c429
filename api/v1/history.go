package v1

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// historyParams are the query parameters of GET /sensors/devices/{id}/history.
var historyParams = []string{"since", "until", "type"}

// sensorHistory answers a sensor's stored readings over a span.
func (h *handlers) sensorHistory(c echo.Context) error {
	var q service.HistoryQuery
	params := c.QueryParams()
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if len(params[name]) > 1 {
			return service.Errorf(service.EINVALID, "give %s once", name).With("field", name)
		}
		v := params.Get(name)
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
	}
	v, err := h.svc.SensorHistory(c.Request().Context(), Param(c, "id"), q)
	return Reply(c, http.StatusOK, v, err)
}
