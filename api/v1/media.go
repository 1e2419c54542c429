package v1

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// castBody is the body of POST /media/devices/{id}/cast.
type castBody struct {
	ContentID   string `json:"content_id"`
	ContentType string `json:"content_type"`
}

func (b *castBody) check() error {
	switch {
	case b.ContentID == "":
		return missing("content_id", "a URL or a provider's content id")
	case b.ContentType == "":
		return missing("content_type", strings.Join(service.CastTypes, ", "))
	}
	return nil
}

// favoriteBody is the body of POST /media/devices/{id}/favorites/play.
type favoriteBody struct {
	Favorite string `json:"favorite"`
}

func (b *favoriteBody) check() error {
	if b.Favorite == "" {
		return missing("favorite", "a favourite's id, title or part of a title")
	}
	return nil
}

// groupBody is the body of POST /media/devices/{id}/group.
type groupBody struct {
	Members []string `json:"members"`
}

func (b *groupBody) check() error {
	if len(b.Members) == 0 {
		return missing("members", "the speakers to play in sync with this one")
	}
	return nil
}

// receiverBody is the body of PUT /media/devices/{id}/receiver; an empty
// receiver removes the binding.
type receiverBody struct {
	Receiver *string `json:"receiver"`
	Input    string  `json:"input"`
}

func (b *receiverBody) check() error {
	if b.Receiver == nil {
		return missing("receiver", `a receiver's id or name, or "" to unbind`)
	}
	return nil
}

// playOnBody is the body of POST /media/play-on.
type playOnBody struct {
	Device string `json:"device"`
	Query  string `json:"query"`
}

func (b *playOnBody) check() error {
	switch {
	case b.Device == "":
		return missing("device", "a TV's id or name")
	case b.Query == "":
		return missing("query", `what to open or play, e.g. "Netflix"`)
	}
	return nil
}

func (h *handlers) listMedia(c echo.Context) error {
	return h.list(c, "media", listed(h.svc.ListMedia))
}

func (h *handlers) getMedia(c echo.Context) error {
	m, err := h.svc.GetMedia(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, m, err)
}

func (h *handlers) setMediaState(c echo.Context) error {
	var p service.MediaPatch
	if err := Decode(c, &p); err != nil {
		return err
	}
	m, err := h.svc.SetMedia(c.Request().Context(), Param(c, "id"), p)
	return Reply(c, http.StatusOK, m, err)
}

func (h *handlers) cast(c echo.Context) error {
	var b castBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.Cast(c.Request().Context(), Param(c, "id"), b.ContentID, b.ContentType)
	return Reply(c, http.StatusOK, m, err)
}

func (h *handlers) favorites(c echo.Context) error {
	favs, err := h.svc.Favorites(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, favs, err)
}

func (h *handlers) playFavorite(c echo.Context) error {
	var b favoriteBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.PlayFavorite(c.Request().Context(), Param(c, "id"), b.Favorite)
	return Reply(c, http.StatusOK, m, err)
}

func (h *handlers) group(c echo.Context) error {
	var b groupBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	res, err := h.svc.Group(c.Request().Context(), Param(c, "id"), b.Members)
	return Reply(c, http.StatusOK, res, err)
}

func (h *handlers) ungroup(c echo.Context) error {
	m, err := h.svc.Ungroup(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, m, err)
}

func (h *handlers) bindReceiver(c echo.Context) error {
	var b receiverBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.BindReceiver(c.Request().Context(), Param(c, "id"), *b.Receiver, b.Input)
	return Reply(c, http.StatusOK, m, err)
}

// playOn opens an app or plays a title on a TV, as said: "Netflix",
// "Bob's Burgers".
func (h *handlers) playOn(c echo.Context) error {
	var b playOnBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	res, err := h.svc.PlayOn(c.Request().Context(), b.Device, b.Query)
	return Reply(c, http.StatusOK, res, err)
}
