package session

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/integrations"
)

// Settings → Voice: the model endpoints of the voice seam (speech to
// text, the language model, text to speech), which admins manage as they
// do the integrations. Their keys go in and never come out: the answers
// say only whether one is saved.

// voiceSettingsRoutes are the routes of Settings → Voice.
func (h *handlers) voiceSettingsRoutes() []route {
	return []route{
		{http.MethodGet, "/integrations/voice", signedIn, h.voiceSettings},
		{http.MethodPut, "/integrations/voice", signedIn, h.saveVoice},
		{http.MethodDelete, "/integrations/voice", signedIn, h.deleteVoice},
		{http.MethodPost, "/integrations/voice/:role/test", signedIn, h.testVoice},
	}
}

// voiceSettings answers the three endpoints: their saved settings, which
// of them the environment fixes, and whether each is in force.
func (h *handlers) voiceSettings(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).Voice)
}

// saveVoice saves the endpoints the body gives ({stt, llm, tts}, each
// {url, model, key, clear_key}, tts also voice; a field left out keeps
// its value, an empty key the saved key) and puts them in force at once.
// A change refused saves nothing.
func (h *handlers) saveVoice(c echo.Context) error {
	return saveIntegration(c, h, (*integrations.Manager).SaveVoice)
}

// deleteVoice forgets the saved endpoints; those of the environment stay
// in force.
func (h *handlers) deleteVoice(c echo.Context) error {
	return answerIntegration(c, h, (*integrations.Manager).DeleteVoice)
}

// testVoice asks the endpoint of a role (stt, llm, tts) in force which
// models it serves, and answers what it found: {ok, message, models,
// model_listed}. An endpoint that fails is an answer, not an error.
func (h *handlers) testVoice(c echo.Context) error {
	if err := h.hasIntegrations(); err != nil {
		return err
	}
	res, err := h.integ.TestVoice(c.Request().Context(), httpjson.Param(c, "role"))
	return httpjson.Reply(c, http.StatusOK, res, err)
}
