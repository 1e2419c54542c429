package mcp

import (
	"net"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/service"
)

// The guard runs before any MCP processing: it refuses a browser origin
// that is not allowed (403) and a missing, malformed, unknown or revoked
// key (401, answered by the server's one error renderer with
// WWW-Authenticate), and puts the key's principal in the request context.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if origin := req.Header.Get(echo.HeaderOrigin); origin != "" && !s.origins.allows(origin, req.Host) {
			return service.Errorf(service.EFORBIDDEN, "Requests from origin %q are not allowed: add it to the hub's allowed origins", service.Clip(origin))
		}
		if err := keyauth.Authenticate(c, s.svc); err != nil {
			return err
		}
		return next(c)
	}
}

// noOAuth answers the OAuth discovery and registration probes MCP clients
// send after a 401 with a quick JSON 404, so a client with a bad key fails
// at once instead of waiting in an authorization flow.
func noOAuth(echo.Context) error {
	return service.Errorf(service.ENOTFOUND, "this hub does not use OAuth: send an API key as Authorization: Bearer bfr_…")
}

// originPolicy decides which browser origins may call. An empty list
// allows an origin on the same host as the request and loopback origins.
type originPolicy struct {
	allowed map[string]bool // normalised origins; empty: same host only
}

func newOriginPolicy(origins []string) originPolicy {
	p := originPolicy{allowed: map[string]bool{}}
	for _, o := range origins {
		if n, ok := normalOrigin(o); ok {
			p.allowed[n] = true
		}
	}
	return p
}

// allows reports whether a request to host may come from origin.
func (p originPolicy) allows(origin, host string) bool {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // includes "null", sent by sandboxed and file:// pages
	}
	if len(p.allowed) > 0 {
		n, _ := normalOrigin(origin)
		return p.allowed[n]
	}
	if isLoopback(u.Hostname()) {
		return true
	}
	return strings.EqualFold(withoutDefaultPort(u.Scheme, u.Host), withoutDefaultPort(u.Scheme, host))
}

// normalOrigin is scheme://host[:port] in lower case, without a default
// port.
func normalOrigin(origin string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme + "://" + strings.ToLower(withoutDefaultPort(scheme, u.Host)), true
}

func withoutDefaultPort(scheme, host string) string {
	switch {
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		return strings.TrimSuffix(host, ":80")
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		return strings.TrimSuffix(host, ":443")
	}
	return host
}

func isLoopback(hostname string) bool {
	if strings.EqualFold(hostname, "localhost") {
		return true
	}
	ip := net.ParseIP(hostname)
	return ip != nil && ip.IsLoopback()
}
