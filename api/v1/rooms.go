package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// newRoom is the body of POST /rooms.
type newRoom struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

func (b *newRoom) check() error {
	if b.Name == "" {
		return missing("name", "the room's name")
	}
	return nil
}

// rename is the body of a PATCH that renames.
type rename struct {
	Name string `json:"name"`
}

func (b *rename) check() error {
	if b.Name == "" {
		return missing("name", "the new name")
	}
	return nil
}

// member is the body of POST /rooms/{id}/members.
type member struct {
	Device string `json:"device"`
}

func (b *member) check() error {
	if b.Device == "" {
		return missing("device", "a device's id or name")
	}
	return nil
}

func (h *handlers) listRooms(c echo.Context) error {
	return h.list(c, "rooms", listedAs(h.svc.ListRooms, roomOf))
}

func (h *handlers) getRoom(c echo.Context) error {
	r, err := h.svc.GetRoom(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, roomOf(r), err)
}

func (h *handlers) createRoom(c echo.Context) error {
	var b newRoom
	if err := Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.CreateRoom(c.Request().Context(), b.Name, b.Members)
	return Reply(c, http.StatusCreated, roomOf(r), err)
}

func (h *handlers) renameRoom(c echo.Context) error {
	var b rename
	if err := Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.RenameRoom(c.Request().Context(), Param(c, "id"), b.Name)
	return Reply(c, http.StatusOK, roomOf(r), err)
}

func (h *handlers) deleteRoom(c echo.Context) error {
	return NoContent(c, h.svc.DeleteRoom(c.Request().Context(), Param(c, "id")))
}

func (h *handlers) setRoomState(c echo.Context) error {
	var b lightBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	p, err := b.patch()
	if err != nil {
		return err
	}
	res, err := h.svc.SetRoom(c.Request().Context(), Param(c, "id"), p)
	return Reply(c, http.StatusOK, countsOf(res), err)
}

func (h *handlers) addRoomMember(c echo.Context) error {
	var b member
	if err := Decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.AddRoomMember(c.Request().Context(), Param(c, "id"), b.Device)
	return Reply(c, http.StatusOK, roomOf(r), err)
}

func (h *handlers) removeRoomMember(c echo.Context) error {
	r, err := h.svc.RemoveRoomMember(c.Request().Context(), Param(c, "id"), Param(c, "device"))
	return Reply(c, http.StatusOK, roomOf(r), err)
}
