package resources

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/service"
)

// powerBody is the body of PUT /power/devices/{id}/state: on, and for a
// fan that takes one, a speed in percent (which turns it on; 0 turns it
// off).
type powerBody struct {
	On    *bool    `json:"on"`
	Speed *float64 `json:"speed"`
}

func (b *powerBody) Check() error {
	switch {
	case b.On == nil && b.Speed == nil:
		return httpjson.Missing("on", "true or false")
	case b.On != nil && !*b.On && b.Speed != nil && *b.Speed != 0:
		return service.Errorf(service.EINVALID, "Give on: false or a speed, not both: a speed turns the fan on").With("field", "speed")
	}
	return nil
}

func (h *handlers) listPower(c echo.Context) error {
	return h.list(c, "power", listedAs(h.svc.ListPower, h.shapes.Power))
}

func (h *handlers) getPower(c echo.Context) error {
	p, err := h.svc.GetPower(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, h.shapes.Power(p), err)
}

func (h *handlers) setPower(c echo.Context) error {
	var b powerBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	speed, err := whole("speed", b.Speed)
	if err != nil {
		return err
	}
	var p service.PowerView
	if speed != nil {
		p, err = h.svc.SetFanSpeed(c.Request().Context(), httpjson.Param(c, "id"), *speed)
	} else {
		p, err = h.svc.SetPower(c.Request().Context(), httpjson.Param(c, "id"), *b.On)
	}
	return written(c, h.shapes.Power(p), err)
}
