package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

func (h *handlers) listRemotes(c echo.Context) error {
	return h.list(c, "remotes", listed(h.svc.ListRemotes))
}

func (h *handlers) getRemote(c echo.Context) error {
	r, err := h.svc.GetRemote(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, r, err)
}

func (h *handlers) remoteCommand(c echo.Context) error {
	var cmd service.RemoteCommand
	if err := Decode(c, &cmd); err != nil {
		return err
	}
	r, err := h.svc.RemoteCommand(c.Request().Context(), Param(c, "id"), cmd)
	return Reply(c, http.StatusOK, r, err)
}
