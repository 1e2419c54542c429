package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// powerBody is the body of PUT /power/devices/{id}/state.
type powerBody struct {
	On *bool `json:"on"`
}

func (b *powerBody) check() error {
	if b.On == nil {
		return missing("on", "true or false")
	}
	return nil
}

func (h *handlers) listPower(c echo.Context) error {
	return h.list(c, "power", listedAs(h.svc.ListPower, powerOf))
}

func (h *handlers) getPower(c echo.Context) error {
	p, err := h.svc.GetPower(c.Request().Context(), Param(c, "id"))
	return Reply(c, http.StatusOK, powerOf(p), err)
}

func (h *handlers) setPower(c echo.Context) error {
	var b powerBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	p, err := h.svc.SetPower(c.Request().Context(), Param(c, "id"), *b.On)
	return written(c, powerOf(p), err)
}
