package resources

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// castBody is the body of POST /media/devices/{id}/cast.
type castBody struct {
	ContentID   string `json:"content_id"`
	ContentType string `json:"content_type"`
}

func (b *castBody) Check() error {
	switch {
	case b.ContentID == "":
		return httpjson.Missing("content_id", "a URL or a provider's content id")
	case b.ContentType == "":
		return httpjson.Missing("content_type", strings.Join(service.CastTypes, ", "))
	}
	return nil
}

// favoriteBody is the body of POST /media/devices/{id}/favorites/play:
// the favourite as the Rust hub names it (favorite_id) or by id, title or
// part of a title (favorite).
type favoriteBody struct {
	FavoriteID string `json:"favorite_id"`
	Favorite   string `json:"favorite"`
}

func (b *favoriteBody) Check() error {
	switch {
	case b.FavoriteID != "" && b.Favorite != "" && b.FavoriteID != b.Favorite:
		return service.Errorf(service.EINVALID, "Give only one of favorite_id and favorite").With("field", "favorite_id")
	case b.FavoriteID != "":
		b.Favorite = b.FavoriteID
	case b.Favorite == "":
		return httpjson.Missing("favorite_id", "a favourite's id (GET …/favorites lists them), or favorite: a title or part of one")
	}
	return nil
}

// groupBody is the body of POST /media/devices/{id}/group: the
// coordinator this speaker joins (the Rust hub's form), or the speakers
// that join this one (members).
type groupBody struct {
	CoordinatorID string   `json:"coordinator_id"`
	Members       []string `json:"members"`
}

func (b *groupBody) Check() error {
	switch {
	case b.CoordinatorID != "" && len(b.Members) > 0:
		return service.Errorf(service.EINVALID, "Give only one of coordinator_id (the speaker this one joins) and members (the speakers that join this one)").
			With("field", "coordinator_id")
	case b.CoordinatorID == "" && len(b.Members) == 0:
		return httpjson.Missing("coordinator_id", "the speaker whose group this one joins (or members: the speakers to join this one)")
	}
	return nil
}

// receiverBody is the body of PUT /media/devices/{id}/receiver: the Rust
// hub's receiver_id (null unbinds) and receiver_source, or the service's
// receiver ("" unbinds) and input.
type receiverBody struct {
	ReceiverID     *string `json:"receiver_id"`
	ReceiverSource *string `json:"receiver_source"`
	Receiver       *string `json:"receiver"`
	Input          *string `json:"input"`
	given          map[string]bool
}

// UnmarshalJSON remembers which fields were given, since a null
// receiver_id (unbind) is not a missing one.
func (b *receiverBody) UnmarshalJSON(data []byte) error {
	type plain receiverBody
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(b)); err != nil {
		return err
	}
	b.given = map[string]bool{}
	for k := range fields {
		b.given[k] = true
	}
	return nil
}

// binding is the receiver (""unbinds) and input asked for.
func (b *receiverBody) binding() (string, string, error) {
	switch {
	case b.given["receiver_id"] && b.given["receiver"]:
		return "", "", service.Errorf(service.EINVALID, "Give only one of receiver_id and receiver").With("field", "receiver_id")
	case b.given["receiver_source"] && b.given["input"]:
		return "", "", service.Errorf(service.EINVALID, "Give only one of receiver_source and input").With("field", "receiver_source")
	case !b.given["receiver_id"] && !b.given["receiver"]:
		return "", "", httpjson.Missing("receiver_id", "a receiver's id, or null to unbind")
	}
	recv, in := b.ReceiverID, b.ReceiverSource
	if b.given["receiver"] {
		recv = b.Receiver
	}
	if b.given["input"] {
		in = b.Input
	}
	return deref(recv), deref(in), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// companionBody is the body of PUT /media/devices/{id}/companion.
type companionBody struct {
	PrimaryID *string `json:"primary_id"` // null unmerges
}

// playOnBody is the body of POST /media/play-on.
type playOnBody struct {
	Device string `json:"device"`
	Query  string `json:"query"`
}

func (b *playOnBody) Check() error {
	switch {
	case b.Device == "":
		return httpjson.Missing("device", "a TV's id or name")
	case b.Query == "":
		return httpjson.Missing("query", `what to open or play, e.g. "Netflix"`)
	}
	return nil
}

// playOnAnswer is a play-on's result with the Rust hub's ok and said.
type playOnAnswer struct {
	service.PlayOnResult
	OK   bool   `json:"ok"`
	Said string `json:"said"`
}

func playOnOf(r service.PlayOnResult) playOnAnswer {
	return playOnAnswer{PlayOnResult: r, OK: true, Said: r.Message}
}

func (h *handlers) listMedia(c echo.Context) error {
	return h.list(c, "media", listedAs(h.svc.ListMedia, h.shapes.Media))
}

func (h *handlers) getMedia(c echo.Context) error {
	m, err := h.svc.GetMedia(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Media(m), err)
}

// artworkMaxAge is how long a browser may keep a player's artwork: its
// URL names one image (the v hash), so a kept copy is never stale.
const artworkMaxAge = "private, max-age=86400"

// artwork answers a player's cover art from the hub's memory.
func (h *handlers) artwork(c echo.Context) error {
	art, err := h.svc.GetArtwork(c.Request().Context(), httpjson.Param(c, "id"), c.QueryParam("v"))
	if err != nil {
		return err
	}
	hd := c.Response().Header()
	hd.Set("Cache-Control", artworkMaxAge)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("ETag", `"`+art.Version+`"`)
	return c.Blob(http.StatusOK, art.ContentType, art.Data)
}

func (h *handlers) setMediaState(c echo.Context) error {
	var b mediaBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	p, err := b.patch()
	if err != nil {
		return err
	}
	m, err := h.svc.SetMedia(c.Request().Context(), httpjson.Param(c, "id"), p)
	return written(c, h.shapes.Media(m), err)
}

func (h *handlers) cast(c echo.Context) error {
	var b castBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.Cast(c.Request().Context(), httpjson.Param(c, "id"), b.ContentID, b.ContentType)
	return written(c, h.shapes.Media(m), err)
}

// favorites lists a player's favourites: none, for a player that has no
// favourites at all (a receiver), as the Rust hub answers.
func (h *handlers) favorites(c echo.Context) error {
	favs, err := h.svc.Favorites(c.Request().Context(), httpjson.Param(c, "id"))
	if service.ErrorCode(err) == service.EUNSUPPORTED {
		favs, err = []devices.Favorite{}, nil
	}
	return httpjson.Reply(c, http.StatusOK, h.shapes.Favorites(favs), err)
}

func (h *handlers) playFavorite(c echo.Context) error {
	var b favoriteBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.PlayFavorite(c.Request().Context(), httpjson.Param(c, "id"), b.Favorite)
	return written(c, h.shapes.Media(m), err)
}

// group joins speakers: {id} into coordinator_id's group, or members into
// {id}'s.
func (h *handlers) group(c echo.Context) error {
	var b groupBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if b.CoordinatorID != "" {
		res, err := h.svc.Group(ctx, b.CoordinatorID, []string{httpjson.Param(c, "id")})
		return written(c, h.shapes.Fanout(res), fanoutError(res, err))
	}
	res, err := h.svc.Group(ctx, httpjson.Param(c, "id"), b.Members)
	return written(c, h.shapes.Fanout(res), fanoutError(res, err))
}

// fanoutError is err, or the one failure of a fan-out that had nothing
// applied: a write the Rust hub answers with 204 must not say 204 when
// nothing happened.
func fanoutError(res service.FanoutResult, err error) error {
	if err != nil || len(res.Applied) > 0 || len(res.Failed) == 0 {
		return err
	}
	f := res.Failed[0]
	code := f.Code
	if code == "" {
		code = service.EUNREACHABLE
	}
	return service.Errorf(code, "%s", f.Error)
}

func (h *handlers) ungroup(c echo.Context) error {
	m, err := h.svc.Ungroup(c.Request().Context(), httpjson.Param(c, "id"))
	return written(c, h.shapes.Media(m), err)
}

func (h *handlers) bindReceiver(c echo.Context) error {
	var b receiverBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	recv, in, err := b.binding()
	if err != nil {
		return err
	}
	m, err := h.svc.BindReceiver(c.Request().Context(), httpjson.Param(c, "id"), recv, in)
	return written(c, h.shapes.Media(m), err)
}

// setCompanion folds a duplicate media device into its primary, or (a
// null primary_id) takes it out again.
func (h *handlers) setCompanion(c echo.Context) error {
	var b companionBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	m, err := h.svc.SetCompanion(c.Request().Context(), httpjson.Param(c, "id"), deref(b.PrimaryID))
	return written(c, h.shapes.Media(m), err)
}

// playOn opens an app or plays a title on a TV, as said: "Netflix",
// "Bob's Burgers".
func (h *handlers) playOn(c echo.Context) error {
	var b playOnBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	res, err := h.svc.PlayOn(c.Request().Context(), b.Device, b.Query)
	return httpjson.Reply(c, http.StatusOK, h.shapes.PlayOn(res), err)
}
