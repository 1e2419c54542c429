package session

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
)

// The integrations admins manage in Settings → Integrations. Only the
// session API offers them: API keys never manage credentials. The
// integrations.Manager admits admins only and never answers a secret, only
// whether one is set.

// mqttSettings answers the MQTT settings, which of them the environment
// fixes, and how the connection fares.
func (h *handlers) mqttSettings(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).MQTT)
}

// saveMQTT saves the MQTT settings given (a field left out keeps its saved
// value; an empty password keeps the saved one, clear_password removes
// it) and restarts the adapter. A broker that cannot be reached is a
// warning in the answer, not an error.
func (h *handlers) saveMQTT(c echo.Context) error {
	return saveIntegration(c, h, (*integrations.Manager).SaveMQTT)
}

// deleteMQTT forgets the saved MQTT settings; those of the environment
// stay in force.
func (h *handlers) deleteMQTT(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).DeleteMQTT)
}

// hassSettings answers the Home Assistant settings, which of them the
// environment fixes, and how the connection fares.
func (h *handlers) hassSettings(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).HASS)
}

// saveHASS saves the Home Assistant settings given (as saveMQTT, with the
// token for the password: token, clear_token) and restarts the bridge. A
// Home Assistant that cannot be reached or refuses the token is a warning
// in the answer, not an error.
func (h *handlers) saveHASS(c echo.Context) error {
	return saveIntegration(c, h, (*integrations.Manager).SaveHASS)
}

// deleteHASS forgets the saved Home Assistant settings; those of the
// environment stay in force.
func (h *handlers) deleteHASS(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).DeleteHASS)
}

// answerIntegration answers what call (a read or a delete) answers.
func answerIntegration[V any](c echo.Context, h *handlers, call func(*integrations.Manager, context.Context) (V, error)) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	v, err := call(h.integ, c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, v, err)
}

// saveIntegration decodes the change the body gives and answers what
// save answers.
func saveIntegration[U, V any](c echo.Context, h *handlers, save func(*integrations.Manager, context.Context, U) (V, error)) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	var b U
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	v, err := save(h.integ, c.Request().Context(), b)
	return httpjson.Reply(c, http.StatusOK, v, err)
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
	return answerIntegration(c, h, (*integrations.Manager).Location)
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
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	v, err := h.integ.SaveLocation(c.Request().Context(), b.Latitude, b.Longitude)
	return httpjson.Reply(c, http.StatusOK, v, err)
}
