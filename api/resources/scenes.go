package resources

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/service"
)

// newScene is the body of POST /scenes: a Room Scene when Room is given,
// a Home Scene otherwise.
type newScene struct {
	Name   string  `json:"name"`
	Room   string  `json:"room"`    // a room's id or name
	RoomID *string `json:"room_id"` // the Rust hub's spelling: a room's id, or null
}

func (b *newScene) Check() error {
	if strings.TrimSpace(b.Name) == "" {
		return service.Errorf(service.EINVALID, "Scene name is required: give the scene a name").With("field", "name")
	}
	if b.RoomID != nil && *b.RoomID != "" {
		if b.Room != "" && b.Room != *b.RoomID {
			return service.Errorf(service.EINVALID, "Give only one of room and room_id").With("field", "room_id")
		}
		b.Room = *b.RoomID
	}
	return nil
}

func (h *handlers) listScenes(c echo.Context) error {
	return h.list(c, "scenes", listedAs(h.svc.ListScenes, h.shapes.Scene))
}

func (h *handlers) getScene(c echo.Context) error {
	sc, err := h.svc.GetScene(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Scene(sc), err)
}

// captureScene saves the live state of a room or of the house.
func (h *handlers) captureScene(c echo.Context) error {
	var b newScene
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.CaptureScene(c.Request().Context(), b.Name, b.Room)
	return httpjson.Reply(c, http.StatusCreated, h.shapes.Scene(sc), err)
}

func (h *handlers) renameScene(c echo.Context) error {
	var b rename
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.RenameScene(c.Request().Context(), httpjson.Param(c, "id"), b.Name)
	return httpjson.Reply(c, http.StatusOK, h.shapes.Scene(sc), err)
}

func (h *handlers) activateScene(c echo.Context) error {
	res, err := h.svc.ActivateScene(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Fanout(res), err)
}

// deleteScene is idempotent, as the Rust hub documents: a scene that is
// not there is deleted already.
func (h *handlers) deleteScene(c echo.Context) error {
	err := h.svc.DeleteScene(c.Request().Context(), httpjson.Param(c, "id"))
	if service.ErrorCode(err) == service.ENOTFOUND {
		err = nil
	}
	return httpjson.NoContent(c, err)
}
