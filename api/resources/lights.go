package resources

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/lightimage"
	"github.com/bifrost-hub/bifrost/service"
)

func (h *handlers) listLights(c echo.Context) error {
	return h.list(c, "lights", listedAs(h.svc.ListLights, h.shapes.Light))
}

func (h *handlers) listPresets(c echo.Context) error {
	presets, err := h.svc.ListPresets(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, presets, err)
}

func (h *handlers) getLight(c echo.Context) error {
	l, err := h.svc.GetLight(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Light(l), err)
}

// lightImage answers a picture of the light as it looks now
// (lightimage), a PNG drawn from its state, so never to be cached: the
// next change makes another.
func (h *handlers) lightImage(c echo.Context) error {
	l, err := h.svc.GetLight(c.Request().Context(), httpjson.Param(c, "id"))
	if err != nil {
		return err
	}
	img, err := lightimage.PNG(l)
	if err != nil {
		return err
	}
	hd := c.Response().Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	return c.Blob(http.StatusOK, "image/png", img)
}

// setLightState writes a state to one light: 204, or its LightResult when
// asked for; or to every light when the id is "all" (counts).
func (h *handlers) setLightState(c echo.Context) error {
	var b lightBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	p, err := b.patch()
	if err != nil {
		return err
	}
	ctx, id := c.Request().Context(), httpjson.Param(c, "id")
	if t := service.ParseLightTarget(id); t.All {
		res, err := h.svc.SetLights(ctx, t, p)
		return httpjson.Reply(c, http.StatusOK, h.shapes.Fanout(res), err)
	}
	res, err := h.svc.SetLight(ctx, id, p)
	return written(c, res, err)
}

// segmentsBody is the body of PUT /lights/{id}/segments.
type segmentsBody struct {
	Segments []segmentBody `json:"segments"`
}

type segmentBody struct {
	Segment    *float64 `json:"segment"`
	RGB        *float64 `json:"rgb"`
	Brightness *float64 `json:"brightness"`
}

func (b *segmentsBody) Check() error {
	if b.Segments == nil {
		return httpjson.Missing("segments", `a list such as [{"segment": 0, "rgb": 16711680}]`)
	}
	return nil
}

// setSegments colours an addressable strip segment by segment.
func (h *handlers) setSegments(c echo.Context) error {
	var b segmentsBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	segs := make([]service.Segment, len(b.Segments))
	for i, s := range b.Segments {
		at := fmt.Sprintf("segments[%d]", i)
		idx, err := whole(at+".segment", s.Segment)
		if err != nil {
			return err
		}
		if idx == nil {
			return httpjson.Missing(at+".segment", "the segment's index, from 0")
		}
		rgb, err := whole(at+".rgb", s.RGB)
		if err != nil {
			return err
		}
		segs[i] = service.Segment{Segment: *idx, RGB: rgb, Brightness: rounded(s.Brightness)}
	}
	res, err := h.svc.SetSegments(c.Request().Context(), httpjson.Param(c, "id"), segs)
	return written(c, res, err)
}
