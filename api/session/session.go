// Package session is the surface people use: the session API under /api/*
// that the embedded web UI calls, and the UI itself at /. People sign in
// with a username and password (argon2id, in identity) and get a session
// cookie; every state-changing call must also carry the session's CSRF
// token and come from the hub's own origin. The home's resources are the
// handlers of api/resources, mounted here behind a session as /api/v1
// mounts them behind a key, answering in the service's own views where
// /api/v1 answers in the Rust hub's shapes; this package's own handlers
// (sign-in, users, keys, settings, the event stream) are thin: decode,
// call one service (or identity, or backups) method, encode. Errors are returned,
// never written: the server's one error renderer answers them.
//
// /api/v1 and /mcp are not affected: they take API keys, never cookies.
package session

import (
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/resources"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
)

// Config configures the session API and the web UI.
type Config struct {
	Service *service.Service
	// Automations is the automation engine whose rules the web UI
	// manages; nil when the hub runs none.
	Automations *automation.Engine
	// History reads the sensors' history for the web UI's charts; nil
	// when the hub keeps none.
	History *history.Reader
	// Accounts are the users and sessions; Keys the API keys people
	// manage in the web UI.
	Accounts *identity.Accounts
	Keys     *identity.Keys
	// Integrations are the settings of Settings → Integrations; nil
	// when the hub offers none.
	Integrations *integrations.Manager
	// Layouts are the people's dashboard layouts (/api/dashboard); nil
	// when the hub keeps none, and the route is not mounted.
	Layouts *dashboard.Layouts
	// Streams counts and caps the event streams, with /api/v1's; nil
	// leaves them uncapped.
	Streams *stream.Streams
	Logger  *slog.Logger
	// TrustedProxies are the reverse proxies whose X-Forwarded-For,
	// X-Forwarded-Proto and X-Forwarded-Host are believed. Requests from
	// anywhere else are taken at face value.
	TrustedProxies []netip.Prefix
	// SecureCookies marks the session cookie Secure even on plain HTTP (for
	// a TLS-terminating proxy that is not listed as trusted).
	SecureCookies bool
	// UI is the web UI's files: index.html and assets/.
	UI fs.FS
	// StreamDeck is where NeewerLite's Stream Deck API listens, for
	// Settings to show.
	StreamDeck StreamDeck
	// Backups are the backups of Settings → Backups; nil when the hub
	// keeps none to offer.
	Backups *backups.Backups
}

// StreamDeck is whether NeewerLite's Stream Deck API is on: the address
// it listens on ("" when off), and whether it was let beyond loopback.
type StreamDeck struct {
	Addr    string `json:"addr,omitempty"`
	Network bool   `json:"network"`
}

// handlers serves /api from the service.
type handlers struct {
	svc     *service.Service
	acc     *identity.Accounts
	keys    *identity.Keys
	integ   *integrations.Manager
	layouts *dashboard.Layouts
	log     *slog.Logger
	streams *stream.Streams
	gate    *Guard
	peer    peerPolicy
	secure  bool
	deck    StreamDeck
	backups *backups.Backups
}

// Register mounts the session API under /api and the web UI at / on e.
// Authentication is attached per route, not to a group, so an unknown path
// stays a 404 and /api/v1 keeps its own routes and errors.
func Register(e *echo.Echo, cfg Config) error {
	h := &handlers{svc: cfg.Service, acc: cfg.Accounts, keys: cfg.Keys, integ: cfg.Integrations, layouts: cfg.Layouts, log: cfg.Logger, streams: cfg.Streams,
		gate: NewGuard(cfg.Accounts, cfg.Keys, cfg.TrustedProxies), secure: cfg.SecureCookies, deck: cfg.StreamDeck,
		backups: cfg.Backups}
	h.peer = h.gate.peer
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	g := e.Group("/api")
	for _, r := range slices.Concat(h.routes(), h.layoutRoutes(), h.voiceSettingsRoutes(), h.backupRoutes()) {
		g.Add(r.method, r.path, r.handle, NoStore, h.guard(r.access))
	}
	// The home's resources are the handlers /api/v1 mounts too, behind a
	// session and in the service's own views, which the web UI reads; and
	// the web UI draws every device, so its snapshot is never a summary.
	for _, r := range resources.Routes(resources.ServiceViews(), cfg.Service, cfg.Automations, cfg.History) {
		if r.Method == http.MethodGet && r.Path == "/home" {
			r.Handle = resources.WholeHome(cfg.Service)
		}
		g.Add(r.Method, r.Path, r.Handle, NoStore, h.guard(signedIn))
	}
	return registerUI(e, cfg.UI)
}

// access is who may call a route.
type access int

const (
	public       access = iota // anyone (state-changing calls still need the hub's own origin)
	signedIn                   // a session; state-changing calls need its CSRF token too
	keyOrSession               // an API key (Authorization: Bearer), or signedIn
)

// route is one endpoint.
type route struct {
	method, path string
	access       access
	handle       echo.HandlerFunc
}

// routes is the whole session API.
func (h *handlers) routes() []route {
	const get, put, post, patch, del = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodPatch, http.MethodDelete
	return []route{
		{get, "/setup", public, h.setupNeeded},
		{post, "/setup", public, h.setup},
		{post, "/login", public, h.login},
		{post, "/logout", signedIn, h.logout},
		{get, "/session", signedIn, h.session},

		{get, "/api-keys", signedIn, h.listKeys},
		{post, "/api-keys", signedIn, h.createKey},
		{del, "/api-keys/:id", signedIn, h.revokeKey},

		{get, "/users", signedIn, h.listUsers},
		{post, "/users", signedIn, h.addUser},
		{del, "/users/:id", signedIn, h.removeUser},
		{put, "/users/:id/password", signedIn, h.setPassword},

		{get, "/integrations/mqtt", signedIn, h.mqttSettings},
		{put, "/integrations/mqtt", signedIn, h.saveMQTT},
		{del, "/integrations/mqtt", signedIn, h.deleteMQTT},
		{get, "/integrations/hass", signedIn, h.hassSettings},
		{put, "/integrations/hass", signedIn, h.saveHASS},
		{del, "/integrations/hass", signedIn, h.deleteHASS},
		{get, "/integrations/location", signedIn, h.locationSettings},
		{put, "/integrations/location", signedIn, h.saveLocation},
		{get, "/streamdeck", signedIn, h.streamDeck},

		{get, "/audit", signedIn, h.audit},
		{get, "/events", signedIn, h.events},
	}
}

// NoStore keeps every /api answer out of caches: they carry the CSRF
// token, keys shown once, the state of the house.
func NoStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}
