package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

func (h *handlers) listSensors(c echo.Context) error {
	return h.list(c, "sensors", listedAs(h.svc.ListSensors, h.shapes.Sensor))
}

func (h *handlers) getSensor(c echo.Context) error {
	s, err := h.svc.GetSensor(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Sensor(s), err)
}
