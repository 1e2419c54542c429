package v1

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

func (h *handlers) listLights(c echo.Context) error {
	return h.list(c, "lights", listed(h.svc.ListLights))
}

func (h *handlers) listPresets(c echo.Context) error {
	presets, err := h.svc.ListPresets(c.Request().Context())
	return Reply(c, http.StatusOK, presets, err)
}

func (h *handlers) getLight(c echo.Context) error {
	l, err := h.svc.GetLight(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, l, err)
}

// setLightState writes a sparse state to one light (a LightResult), or to
// every light when the id is "all" (a FanoutResult).
func (h *handlers) setLightState(c echo.Context) error {
	var p service.LightPatch
	if err := Decode(c, &p); err != nil {
		return err
	}
	ctx, id := c.Request().Context(), Param(c, "id")
	if strings.EqualFold(id, "all") {
		res, err := h.svc.SetLights(ctx, []string{"all"}, p)
		return Reply(c, http.StatusOK, res, err)
	}
	res, err := h.svc.SetLight(ctx, id, p)
	return Reply(c, http.StatusOK, res, err)
}
