package v1

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

func (h *handlers) home(c echo.Context) error {
	home, err := h.svc.Home(c.Request().Context())
	return Reply(c, http.StatusOK, home, err)
}

func (h *handlers) listDevices(c echo.Context) error {
	ds, err := h.svc.ListDevices(c.Request().Context())
	return Reply(c, http.StatusOK, ds, err)
}

func (h *handlers) updateDevice(c echo.Context) error {
	var p service.DevicePatch
	if err := Decode(c, &p); err != nil {
		return err
	}
	d, err := h.svc.UpdateDevice(c.Request().Context(), Param(c, "id"), p)
	return Reply(c, http.StatusOK, d, err)
}

// newDevice is the body of POST /devices.
type newDevice struct {
	Adapter string `json:"adapter"`
	Address string `json:"address"`
}

func (b *newDevice) check() error {
	switch {
	case b.Adapter == "":
		return missing("adapter", "the adapter that talks to it, e.g. \"sonos\"")
	case b.Address == "":
		return missing("address", "the device's address, e.g. an IP address")
	}
	return nil
}

func (h *handlers) addDevice(c echo.Context) error {
	var b newDevice
	if err := Decode(c, &b); err != nil {
		return err
	}
	found, err := h.svc.AddDevice(c.Request().Context(), b.Adapter, b.Address)
	return Reply(c, http.StatusCreated, found, err)
}

func (h *handlers) scanDevices(c echo.Context) error {
	res, err := h.svc.Scan(c.Request().Context())
	return Reply(c, http.StatusOK, res, err)
}

func (h *handlers) listAdapters(c echo.Context) error {
	as, err := h.svc.Adapters(c.Request().Context())
	return Reply(c, http.StatusOK, as, err)
}
