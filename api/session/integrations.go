package session

import (
	"net/http"

	"github.com/labstack/echo/v4"

	v1 "github.com/bifrost-hub/bifrost/api/v1"
	"github.com/bifrost-hub/bifrost/service"
)

// The integrations admins manage in Settings → Integrations. Only the
// session API offers them: API keys never manage credentials. The service
// admits admins only and never answers a secret, only whether one is set.

// mqttSettings answers the MQTT settings, which of them the environment
// fixes, and how the connection fares.
func (h *handlers) mqttSettings(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	v, err := h.integ.MQTT(c.Request().Context())
	return v1.Reply(c, http.StatusOK, v, err)
}

// saveMQTT saves the MQTT settings given (a field left out keeps its saved
// value; an empty password keeps the saved one, clear_password removes
// it) and restarts the adapter. A broker that cannot be reached is a
// warning in the answer, not an error.
func (h *handlers) saveMQTT(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	var b service.MQTTUpdate
	if err := v1.Decode(c, &b); err != nil {
		return err
	}
	v, err := h.integ.SaveMQTT(c.Request().Context(), b)
	return v1.Reply(c, http.StatusOK, v, err)
}

// deleteMQTT forgets the saved MQTT settings; those of the environment
// stay in force.
func (h *handlers) deleteMQTT(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	v, err := h.integ.DeleteMQTT(c.Request().Context())
	return v1.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) hasIntegrations() error {
	if h.integ == nil {
		return service.Errorf(service.ENOTFOUND, "this hub has no integrations to manage")
	}
	return nil
}

// locationSettings answers the hub's location and whether the
// configuration fixes it.
func (h *handlers) locationSettings(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	v, err := h.integ.Location(c.Request().Context())
	return v1.Reply(c, http.StatusOK, v, err)
}

// location is the body of PUT /integrations/location: both, or both null
// to clear it.
type location struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
}

func (h *handlers) saveLocation(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	var b location
	if err := v1.Decode(c, &b); err != nil {
		return err
	}
	v, err := h.integ.SaveLocation(c.Request().Context(), b.Latitude, b.Longitude)
	return v1.Reply(c, http.StatusOK, v, err)
}
