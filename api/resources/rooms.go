package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

// newRoom is the body of POST /rooms.
type newRoom struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

func (b *newRoom) Check() error {
	if b.Name == "" {
		return httpjson.Missing("name", "the room's name")
	}
	return nil
}

// rename is the body of a PATCH that renames.
type rename struct {
	Name string `json:"name"`
}

func (b *rename) Check() error {
	if b.Name == "" {
		return httpjson.Missing("name", "the new name")
	}
	return nil
}

// member is the body of POST /rooms/{id}/members.
type member struct {
	Device string `json:"device"`
}

func (b *member) Check() error {
	if b.Device == "" {
		return httpjson.Missing("device", "a device's id or name")
	}
	return nil
}

func (h *handlers) listRooms(c echo.Context) error {
	return h.list(c, "rooms", listedAs(h.svc.ListRooms, h.shapes.Room))
}

func (h *handlers) getRoom(c echo.Context) error {
	r, err := h.svc.GetRoom(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Room(r), err)
}

func (h *handlers) createRoom(c echo.Context) error {
	var b newRoom
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.CreateRoom(c.Request().Context(), b.Name, b.Members)
	return httpjson.Reply(c, http.StatusCreated, h.shapes.Room(r), err)
}

func (h *handlers) renameRoom(c echo.Context) error {
	var b rename
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.RenameRoom(c.Request().Context(), httpjson.Param(c, "id"), b.Name)
	return httpjson.Reply(c, http.StatusOK, h.shapes.Room(r), err)
}

func (h *handlers) deleteRoom(c echo.Context) error {
	return httpjson.NoContent(c, h.svc.DeleteRoom(c.Request().Context(), httpjson.Param(c, "id")))
}

func (h *handlers) setRoomState(c echo.Context) error {
	var b lightBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	p, err := b.patch()
	if err != nil {
		return err
	}
	res, err := h.svc.SetRoom(c.Request().Context(), httpjson.Param(c, "id"), p)
	return httpjson.Reply(c, http.StatusOK, h.shapes.Fanout(res), err)
}

func (h *handlers) addRoomMember(c echo.Context) error {
	var b member
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.AddRoomMember(c.Request().Context(), httpjson.Param(c, "id"), b.Device)
	return httpjson.Reply(c, http.StatusOK, h.shapes.Room(r), err)
}

func (h *handlers) removeRoomMember(c echo.Context) error {
	r, err := h.svc.RemoveRoomMember(c.Request().Context(), httpjson.Param(c, "id"), httpjson.Param(c, "device"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Room(r), err)
}
