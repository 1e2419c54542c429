// Package api is Bifrost's HTTP server: one Echo instance with the
// middleware every surface shares (recovery, request logging, body limit,
// security headers), the one error renderer, the health probes, and the
// surfaces mounted under it (/api/v1, /mcp, and the session API /api/* with
// the web UI at /).
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/mcp"
	v1 "github.com/bifrost-hub/bifrost/api/v1"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

// DefaultBodyLimit bounds a request body when Config.BodyLimit is zero.
const DefaultBodyLimit = 1 << 20

// readyTimeout bounds the database check behind /readyz.
const readyTimeout = 2 * time.Second

// Config configures a Server.
type Config struct {
	Service *service.Service
	Logger  *slog.Logger
	// BodyLimit is the largest request body accepted, in bytes
	// (DefaultBodyLimit when zero).
	BodyLimit int64
	// AllowedOrigins are the browser origins (scheme://host[:port]) that may
	// call /mcp; empty allows only same-host and loopback origins.
	AllowedOrigins []string
	// Version is the hub's version, reported to MCP clients.
	Version string
	// Accounts are the users and sessions of the web UI (made from Service
	// when nil).
	Accounts *service.Accounts
	// TrustedProxies are the reverse proxies whose X-Forwarded-For (and
	// -Proto, -Host) the session API believes, for login throttling and
	// origin checks.
	TrustedProxies []netip.Prefix
	// SecureCookies marks the session cookie Secure even on plain HTTP.
	SecureCookies bool
	// Integrations are the settings admins manage in the web UI (Settings
	// → Integrations); without them the session API has none to offer.
	Integrations *service.Integrations
	// Automations is the running automation engine. Without one the hub
	// serves no automations: /api/v1/automations and /api/automations are
	// not mounted (a 404 like any unknown path) and MCP lists no
	// automation tools.
	Automations *automation.Engine
}

// Server is the HTTP side of the hub.
type Server struct {
	echo *echo.Echo
	svc  *service.Service
	log  *slog.Logger
	mcp  *mcp.Server
}

// New builds the server with every route mounted.
func New(cfg Config) *Server {
	s := &Server{echo: echo.New(), svc: cfg.Service, log: cfg.Logger}
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
	e.Pre(trimTrailingSlash)
	e.Use(s.logRequests, recoverPanics, securityHeaders, limitBody(limit))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	v1.Register(e.Group("/api/v1"), s.svc, cfg.Automations)
	s.mcp = mcp.New(mcp.Config{Service: s.svc, Automations: cfg.Automations, Logger: s.log,
		Version: cfg.Version, AllowedOrigins: cfg.AllowedOrigins})
	s.mcp.Register(e)
	s.mountSession(cfg)
	return s
}

// Handler is the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

// CloseStreams ends the long-lived MCP SSE streams, so a graceful shutdown
// need not wait for them (register it with http.Server.RegisterOnShutdown).
func (s *Server) CloseStreams() { s.mcp.CloseStreams() }

// Echo is the underlying Echo instance, for mounting further surfaces.
func (s *Server) Echo() *echo.Echo { return s.echo }

// healthz answers as long as the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
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

// trimTrailingSlash routes "/api/v1/lights/" as "/api/v1/lights", as
// scripts often write it. Only API paths: the web UI's own stay as they are.
func trimTrailingSlash(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := c.Request().URL
		if strings.HasPrefix(u.Path, "/api/") && len(u.Path) > len("/api/") && strings.HasSuffix(u.Path, "/") {
			u.Path = strings.TrimRight(u.Path, "/")
			if u.RawPath != "" {
				u.RawPath = strings.TrimRight(u.RawPath, "/")
			}
		}
		return next(c)
	}
}
