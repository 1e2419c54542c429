package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

func (h *handlers) listRemotes(c echo.Context) error {
	return h.list(c, "remotes", listedAs(h.svc.ListRemotes, h.shapes.Remote))
}

func (h *handlers) getRemote(c echo.Context) error {
	r, err := h.svc.GetRemote(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.RemoteRead(r), err)
}

func (h *handlers) remoteCommand(c echo.Context) error {
	var b remoteBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	cmd, err := b.command()
	if err != nil {
		return err
	}
	r, err := h.svc.RemoteCommand(c.Request().Context(), httpjson.Param(c, "id"), cmd)
	return written(c, h.shapes.Remote(r), err)
}
