package session

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// nameBody is the body of a create or rename.
type nameBody struct {
	Name string `json:"name"`
}

// newRoomBody is the body of POST /api/rooms.
type newRoomBody struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// memberBody is the body of POST /api/rooms/{id}/members.
type memberBody struct {
	Device string `json:"device"`
}

// newSceneBody is the body of POST /api/scenes: a Room Scene when Room is
// given, a Home Scene otherwise.
type newSceneBody struct {
	Name string `json:"name"`
	Room string `json:"room"`
}

// powerBody is the body of PUT /api/power/devices/{id}/state.
type powerBody struct {
	On *bool `json:"on"`
}

// favoriteBody is the body of POST /api/media/devices/{id}/favorites/play.
type favoriteBody struct {
	Favorite string `json:"favorite"`
}

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

func (h *handlers) setLight(c echo.Context) error {
	var p service.LightPatch
	if err := decode(c, &p); err != nil {
		return err
	}
	res, err := h.svc.SetLight(c.Request().Context(), param(c, "id"), p)
	return reply(c, http.StatusOK, res, err)
}

func (h *handlers) listRooms(c echo.Context) error {
	rooms, err := h.svc.ListRooms(c.Request().Context())
	return reply(c, http.StatusOK, rooms, err)
}

func (h *handlers) createRoom(c echo.Context) error {
	var b newRoomBody
	if err := decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.CreateRoom(c.Request().Context(), b.Name, b.Members)
	return reply(c, http.StatusCreated, r, err)
}

func (h *handlers) renameRoom(c echo.Context) error {
	var b nameBody
	if err := decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.RenameRoom(c.Request().Context(), param(c, "id"), b.Name)
	return reply(c, http.StatusOK, r, err)
}

func (h *handlers) deleteRoom(c echo.Context) error {
	return noContent(c, h.svc.DeleteRoom(c.Request().Context(), param(c, "id")))
}

func (h *handlers) setRoom(c echo.Context) error {
	var p service.RoomPatch
	if err := decode(c, &p); err != nil {
		return err
	}
	res, err := h.svc.SetRoom(c.Request().Context(), param(c, "id"), p)
	return reply(c, http.StatusOK, res, err)
}

func (h *handlers) addMember(c echo.Context) error {
	var b memberBody
	if err := decode(c, &b); err != nil {
		return err
	}
	r, err := h.svc.AddRoomMember(c.Request().Context(), param(c, "id"), b.Device)
	return reply(c, http.StatusOK, r, err)
}

func (h *handlers) removeMember(c echo.Context) error {
	r, err := h.svc.RemoveRoomMember(c.Request().Context(), param(c, "id"), param(c, "device"))
	return reply(c, http.StatusOK, r, err)
}

func (h *handlers) listScenes(c echo.Context) error {
	scenes, err := h.svc.ListScenes(c.Request().Context())
	return reply(c, http.StatusOK, scenes, err)
}

// captureScene saves the live state of a room or of the house.
func (h *handlers) captureScene(c echo.Context) error {
	var b newSceneBody
	if err := decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.CaptureScene(c.Request().Context(), b.Name, b.Room)
	return reply(c, http.StatusCreated, sc, err)
}

func (h *handlers) renameScene(c echo.Context) error {
	var b nameBody
	if err := decode(c, &b); err != nil {
		return err
	}
	sc, err := h.svc.RenameScene(c.Request().Context(), param(c, "id"), b.Name)
	return reply(c, http.StatusOK, sc, err)
}

func (h *handlers) deleteScene(c echo.Context) error {
	return noContent(c, h.svc.DeleteScene(c.Request().Context(), param(c, "id")))
}

func (h *handlers) activateScene(c echo.Context) error {
	res, err := h.svc.ActivateScene(c.Request().Context(), param(c, "id"))
	return reply(c, http.StatusOK, res, err)
}

func (h *handlers) setMedia(c echo.Context) error {
	var p service.MediaPatch
	if err := decode(c, &p); err != nil {
		return err
	}
	m, err := h.svc.SetMedia(c.Request().Context(), param(c, "id"), p)
	return reply(c, http.StatusOK, m, err)
}

func (h *handlers) favorites(c echo.Context) error {
	favs, err := h.svc.Favorites(c.Request().Context(), param(c, "id"))
	return reply(c, http.StatusOK, favs, err)
}

func (h *handlers) playFavorite(c echo.Context) error {
	var b favoriteBody
	if err := decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.PlayFavorite(c.Request().Context(), param(c, "id"), b.Favorite)
	return reply(c, http.StatusOK, m, err)
}

func (h *handlers) setPower(c echo.Context) error {
	var b powerBody
	if err := decode(c, &b); err != nil {
		return err
	}
	if b.On == nil {
		return service.Errorf(service.EINVALID, "on is required: give true or false").With("field", "on")
	}
	p, err := h.svc.SetPower(c.Request().Context(), param(c, "id"), *b.On)
	return reply(c, http.StatusOK, p, err)
}

func (h *handlers) remoteCommand(c echo.Context) error {
	var cmd service.RemoteCommand
	if err := decode(c, &cmd); err != nil {
		return err
	}
	r, err := h.svc.RemoteCommand(c.Request().Context(), param(c, "id"), cmd)
	return reply(c, http.StatusOK, r, err)
}
