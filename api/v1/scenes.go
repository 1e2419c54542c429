package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// newScene is the body of POST /scenes: a Room Scene when Room is given,
// a Home Scene otherwise.
type newScene struct {
	Name string `json:"name"`
	Room string `json:"room"`
}

func (b *newScene) check() error {
	if b.Name == "" {
		return missing("name", "the scene's name")
	}
	return nil
}

func (h *handlers) listScenes(c echo.Context) error {
	return h.list(c, "scenes", listed(h.svc.ListScenes))
}

func (h *handlers) getScene(c echo.Context) error {
	sc, err := h.svc.GetScene(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, sc, err)
}

// captureScene saves the live state of a room or of the house.
func (h *handlers) captureScene(c echo.Context) error {
	var b newScene
	if err := Decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.CaptureScene(c.Request().Context(), b.Name, b.Room)
	return Reply(c, http.StatusCreated, sc, err)
}

func (h *handlers) renameScene(c echo.Context) error {
	var b rename
	if err := Decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.RenameScene(c.Request().Context(), Param(c, "id"), b.Name)
	return Reply(c, http.StatusOK, sc, err)
}

func (h *handlers) activateScene(c echo.Context) error {
	res, err := h.svc.ActivateScene(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, res, err)
}

func (h *handlers) deleteScene(c echo.Context) error {
	return NoContent(c, h.svc.DeleteScene(c.Request().Context(), Param(c, "id")))
}
