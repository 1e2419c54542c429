package session

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

// The voice seam, as the Rust hub's wall tablet and any script call it:
// a command in words, run by the hub's own grammar, and the words it
// knows; a command in sound, and a sentence said (speech.go). A key
// (Authorization: Bearer bfr_…) or a session opens it.

// voiceRoutes are the voice seam's routes, when the hub runs one.
func (h *handlers) voiceRoutes() []route {
	if h.voice == nil {
		return nil
	}
	return []route{
		{http.MethodPost, "/voice/command", keyOrSession, h.voiceCommand},
		{http.MethodGet, "/voice/vocabulary", keyOrSession, h.vocabulary},
		{http.MethodPost, "/voice/listen", keyOrSession, h.listen},
		{http.MethodPost, "/voice/speak", keyOrSession, h.speak},
	}
}

// commandBody is a command as the kiosk sends it.
type commandBody struct {
	Text    string `json:"text"`
	Context *struct {
		Room string `json:"room"`
	} `json:"context"`
}

// voiceCommand runs a command: {ok, said, clauses}. One that names no
// room, sent with a kiosk's key, is said in the kiosk's room.
func (h *handlers) voiceCommand(c echo.Context) error {
	var b commandBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	room := ""
	if b.Context != nil {
		room = b.Context.Room
	}
	ctx := c.Request().Context()
	a, err := h.voice.Command(ctx, b.Text, h.defaultRoom(ctx, room))
	return httpjson.Reply(c, http.StatusOK, a, err)
}

// vocabulary answers {words: [...]}.
func (h *handlers) vocabulary(c echo.Context) error {
	ws, err := h.voice.Vocabulary(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, map[string][]string{"words": ws}, err)
}
