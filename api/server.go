// Package api is Bifrost's HTTP server: one Echo instance with the
// middleware every surface shares (recovery, request logging, body limit,
// security headers), the one error renderer, the health probes, and the
// surfaces mounted under it (/api/v1, /mcp, and the session API /api/* with
// the web UI at /, and the voice seam /api/voice, /api/enrollment and
// /api/kiosks beside it).
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/stream"
	v1 "github.com/bifrost-hub/bifrost/api/v1"
	apivoice "github.com/bifrost-hub/bifrost/api/voice"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
	"github.com/bifrost-hub/bifrost/voice/models"
)

// DefaultBodyLimit bounds a request body when Config.BodyLimit is zero.
const DefaultBodyLimit = 1 << 20

// largerBodies are the routes whose bodies may be larger than the body
// limit, with their own bound: a recording of a spoken command.
var largerBodies = map[string]int64{
	"/api/voice/listen": apivoice.ListenBodyLimit,
}

// readyTimeout bounds the database check behind /readyz.
const readyTimeout = 2 * time.Second

// Config configures a Server.
type Config struct {
	Service *service.Service
	// Keys are the API keys /api/v1 and /mcp take, and people manage in
	// the web UI; Accounts are the users and sessions of the web UI. Both
	// are required, beside Service over the same store.
	Keys     *identity.Keys
	Accounts *identity.Accounts
	Logger   *slog.Logger
	// BodyLimit is the largest request body accepted, in bytes
	// (DefaultBodyLimit when zero).
	BodyLimit int64
	// AllowedOrigins are the browser origins (scheme://host[:port]) that may
	// call /mcp; empty allows the origins of the allowed hosts.
	AllowedOrigins []string
	// AllowedHosts are the names (host or host:port) /mcp answers to besides
	// loopback, mDNS names, this machine's name and its interface addresses.
	AllowedHosts []string
	// Version is the hub's version, reported to MCP clients.
	Version string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For (and
	// -Proto, -Host) the session API believes, for login throttling and
	// origin checks.
	TrustedProxies []netip.Prefix
	// SecureCookies marks the session cookie Secure even on plain HTTP.
	SecureCookies bool
	// Integrations are the settings admins manage in the web UI (Settings
	// → Integrations); without them the session API has none to offer.
	Integrations *integrations.Manager
	// Layouts are the people's dashboard layouts; without them the
	// session API does not mount /api/dashboard.
	Layouts *dashboard.Layouts
	// Voice runs spoken and typed commands (/api/voice and the MCP
	// run_command tool); nil leaves them out.
	Voice *voice.Commander
	// Tools is the hub's MCP tool set, when something else (the language
	// model fallback of Voice) calls it too; nil builds /mcp its own.
	Tools *mcp.Tools
	// STT and TTS are the speech-to-text and text-to-speech endpoints in
	// force, read at each request of /api/voice/listen and
	// /api/voice/speak; nil, or an endpoint not set, answers 503.
	STT, TTS func() models.Endpoint
	// Kiosks are the wall tablets that check in (/api/kiosks); nil leaves
	// their routes out (pairing by QR code stays).
	Kiosks *kiosk.Kiosks
	// Automations is the running automation engine. Without one the hub
	// serves no automations: /api/v1/automations and /api/automations are
	// not mounted (a 404 like any unknown path) and MCP lists no
	// automation tools.
	Automations *automation.Engine
	// History reads the sensors' history (/api/v1 and /api's history
	// route, MCP list_sensors' since); without one, asking for a
	// sensor's history is EUNSUPPORTED.
	History *history.Reader
	// Streams caps the open event streams (/api/v1/events per key,
	// /api/events per session, both in all) and sets how often each
	// re-checks its key or session; zero fields take stream's defaults.
	Streams stream.Config
	// StreamDeck says whether NeewerLite's Stream Deck API is on, and
	// where (Settings shows it); it is served on a listener of its own.
	StreamDeck session.StreamDeck
	// Backups are the backups admins list, take and download in Settings
	// → Backups; nil leaves the hub with none to offer.
	Backups *backups.Backups
}

// Server is the HTTP side of the hub.
type Server struct {
	echo *echo.Echo
	svc  *service.Service
	log  *slog.Logger
	mcp  *mcp.Server
	// streams counts the open event streams of both surfaces.
	streams *stream.Streams
	kiosks  *kiosk.Kiosks
	// served counts the requests served.
	served atomic.Uint64
}

// Served is how many requests the server has served.
func (s *Server) Served() uint64 { return s.served.Load() }

// New builds the server with every route mounted.
func New(cfg Config) *Server {
	if cfg.Keys == nil || cfg.Accounts == nil {
		panic("api: the server needs Keys and Accounts") // start-up wiring
	}
	s := &Server{echo: echo.New(), svc: cfg.Service, log: cfg.Logger, streams: stream.New(cfg.Streams), kiosks: cfg.Kiosks}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	limit := cfg.BodyLimit
	if limit <= 0 {
		limit = DefaultBodyLimit
	}
	e := s.echo
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.renderError
	e.Use(s.common(limit, largerBodies))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	v1.Register(e.Group("/api/v1"), s.svc, cfg.Keys, cfg.Automations, cfg.History, s.streams)
	s.mcp = mcp.New(mcp.Config{Service: s.svc, Keys: cfg.Keys, Streams: s.streams, Automations: cfg.Automations, History: cfg.History, Voice: cfg.Voice, Tools: cfg.Tools, Logger: s.log,
		Version: cfg.Version, AllowedOrigins: cfg.AllowedOrigins, AllowedHosts: cfg.AllowedHosts})
	s.mcp.Register(e)
	s.mountSession(cfg)
	s.mountVoice(cfg)
	return s
}

// Handler is the server as an http.Handler: Echo, with API paths'
// trailing slashes trimmed before routing (trimTrailingSlash).
func (s *Server) Handler() http.Handler { return handler{s.echo} }

type handler struct{ e *echo.Echo }

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	trimTrailingSlash(r.URL)
	h.e.ServeHTTP(w, r)
}

// CloseStreams ends the long-lived MCP SSE streams and the kiosks'
// command streams, so a graceful shutdown need not wait for them
// (register it with http.Server.RegisterOnShutdown).
func (s *Server) CloseStreams() {
	s.mcp.CloseStreams()
	if s.kiosks != nil {
		s.kiosks.Close()
	}
}

// Echo is the underlying Echo instance, for mounting further surfaces.
func (s *Server) Echo() *echo.Echo { return s.echo }

// health is the answer of /healthz.
type health struct {
	Status  string       `json:"status"`
	Streams stream.Count `json:"streams"` // the open event streams
}

// healthz answers as long as the process serves HTTP, with the count of
// open event streams.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, health{Status: "ok", Streams: s.streams.Count()})
}

// readyz answers 200 when the database answers, 503 otherwise.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	if err := s.svc.Ready(ctx); err != nil {
		s.log.Warn("not ready", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// keyedPath reports whether path is on a surface that takes API keys.
func keyedPath(path string) bool {
	switch path {
	case "/api/v1", "/mcp", "/sse", "/message":
		return true
	}
	return strings.HasPrefix(path, "/api/v1/") || strings.HasPrefix(path, "/mcp/") // /mcp/neewerlite and its SSE pair
}

// trimTrailingSlash routes "/api/v1/lights/" as "/api/v1/lights", as
// scripts often write it. Only API paths: the web UI's own stay as they
// are. (It runs before Echo, not as its Pre middleware: Echo wraps a
// handler in those anew for every request.)
func trimTrailingSlash(u *url.URL) {
	if strings.HasPrefix(u.Path, "/api/") && len(u.Path) > len("/api/") && strings.HasSuffix(u.Path, "/") {
		u.Path = strings.TrimRight(u.Path, "/")
		if u.RawPath != "" {
			u.RawPath = strings.TrimRight(u.RawPath, "/")
		}
	}
}
