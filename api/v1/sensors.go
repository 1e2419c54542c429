package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (h *handlers) listSensors(c echo.Context) error {
	ss, err := h.svc.ListSensors(c.Request().Context())
	return Reply(c, http.StatusOK, ss, err)
}

func (h *handlers) getSensor(c echo.Context) error {
	s, err := h.svc.GetSensor(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, s, err)
}
