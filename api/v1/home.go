package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

func (h *handlers) home(c echo.Context) error {
	home, err := h.svc.Home(c.Request().Context())
	return reply(c, http.StatusOK, home, err)
}

func (h *handlers) listDevices(c echo.Context) error {
	ds, err := h.svc.ListDevices(c.Request().Context())
	return reply(c, http.StatusOK, ds, err)
}

func (h *handlers) updateDevice(c echo.Context) error {
	var p service.DevicePatch
	if err := decode(c, &p); err != nil {
		return err
	}
	d, err := h.svc.UpdateDevice(c.Request().Context(), param(c, "id"), p)
	return reply(c, http.StatusOK, d, err)
}
