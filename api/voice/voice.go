// Package voice is the voice seam's HTTP surface, as the Rust hub's wall
// tablet and any script call it: /api/voice/* (a command in words, run by
// the hub's own grammar, and the words it knows; a command in sound, and a
// sentence said), /api/enrollment* (pairing a device by QR code) and
// /api/kiosks/* (the wall tablets checking in, and admins managing them).
// Its handlers are thin: decode, call one method of voice, voice/kiosk or
// identity, encode; errors are returned for the server's one error
// renderer.
//
// It takes the session API's sessions as that API does, through its
// guard (api/session.Guard): a key (Authorization: Bearer bfr_…) or a
// session opens the voice routes, a session alone pairing and managing
// the kiosks, and a kiosk's own key (or its bfr_key cookie) its
// check-ins.
package voice

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/identity"
	hubvoice "github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
	"github.com/bifrost-hub/bifrost/voice/models"
)

// Config configures the voice seam's routes.
type Config struct {
	// Keys are the API keys: those that open the voice routes, the
	// kiosks' own, and those pairing codes are redeemed for.
	Keys *identity.Keys
	// Guard admits requests with a session (or a key) as the session API
	// does.
	Guard *session.Guard
	// Voice runs spoken and typed commands (/api/voice); nil when the hub
	// runs none, and the routes are not mounted.
	Voice *hubvoice.Commander
	// STT and TTS are the speech-to-text and text-to-speech endpoints in
	// force, read at each request of /api/voice/listen and
	// /api/voice/speak (Settings → Voice changes them); nil, or an
	// endpoint not set, answers 503.
	STT, TTS func() models.Endpoint
	// Kiosks are the wall tablets that check in (/api/kiosks); nil when
	// the hub keeps none, and their routes are not mounted.
	Kiosks *kiosk.Kiosks
	// Streams counts and caps the kiosks' command streams, with the
	// other event streams; nil leaves them uncapped.
	Streams *stream.Streams
}

// handlers serves the voice seam.
type handlers struct {
	keys    *identity.Keys
	guard   *session.Guard
	voice   *hubvoice.Commander
	stt     func() models.Endpoint
	tts     func() models.Endpoint
	kiosks  *kiosk.Kiosks
	streams *stream.Streams
}

// Register mounts the voice seam's routes under /api on e. Authentication
// is attached per route, not to a group, so an unknown path stays a 404.
func Register(e *echo.Echo, cfg Config) {
	h := &handlers{keys: cfg.Keys, guard: cfg.Guard, voice: cfg.Voice, stt: cfg.STT, tts: cfg.TTS, kiosks: cfg.Kiosks, streams: cfg.Streams}
	g := e.Group("/api")
	for _, r := range append(h.voiceRoutes(), h.kioskRoutes()...) {
		g.Add(r.method, r.path, r.handle, session.NoStore, h.admit(r.access))
	}
}

// access is who may call a route.
type access int

const (
	public       access = iota // anyone (state-changing calls still need the hub's own origin)
	signedIn                   // a session; state-changing calls need its CSRF token too
	keyOrSession               // an API key (Authorization: Bearer), or signedIn
	kioskKey                   // a kiosk's API key (Authorization: Bearer, or its bfr_key cookie); never a session
)

// route is one endpoint.
type route struct {
	method, path string
	access       access
	handle       echo.HandlerFunc
}

// admit is the check of a route of access a.
func (h *handlers) admit(a access) echo.MiddlewareFunc {
	switch a {
	case public:
		return h.guard.Public()
	case signedIn:
		return h.guard.SignedIn()
	case keyOrSession:
		return h.guard.KeyOrSession()
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := h.authenticateKiosk(c); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// voiceRoutes are the voice seam's routes, when the hub runs one: a key
// (Authorization: Bearer bfr_…) or a session opens them.
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
