package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (h *handlers) listSensors(c echo.Context) error {
	return h.list(c, "sensors", listedAs(h.svc.ListSensors, sensorOf))
}

func (h *handlers) getSensor(c echo.Context) error {
	s, err := h.svc.GetSensor(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, sensorOf(s), err)
}
