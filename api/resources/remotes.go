package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

func (h *handlers) listRemotes(c echo.Context) error {
	return h.list(c, "remotes", listedAs(h.svc.ListRemotes, remoteOf))
}

// getRemote answers one remote as both the Rust hub's RemoteState and the
// record.
func (h *handlers) getRemote(c echo.Context) error {
	r, err := h.svc.GetRemote(c.Request().Context(), httpjson.Param(c, "id"))
	v := remoteOf(r)
	return httpjson.Reply(c, http.StatusOK, remoteRead{remote: v, On: v.State.On, Reachable: v.State.Reachable}, err)
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
	return written(c, remoteOf(r), err)
}
