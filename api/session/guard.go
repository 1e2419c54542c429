package session

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// CookieName is the session cookie. It is scoped to /api, the only place
// that reads it.
const CookieName = "bifrost_session"

// CSRFHeader carries the session's CSRF token on every state-changing call.
const CSRFHeader = "X-CSRF-Token"

// ParseProxies parses trusted proxies given as IP addresses or CIDR
// prefixes ("10.0.0.1", "172.16.0.0/12", "::1").
func ParseProxies(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an IP address nor a CIDR prefix", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// peerPolicy decides what a request says about its client: its address,
// and the scheme and host it was sent to. Forwarding headers count only
// when the direct peer is a trusted proxy.
type peerPolicy struct {
	trusted  []netip.Prefix
	clientIP echo.IPExtractor
}

func newPeerPolicy(trusted []netip.Prefix) peerPolicy {
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return peerPolicy{trusted: trusted, clientIP: echo.ExtractIPFromXFFHeader(opts...)}
}

// fromProxy reports whether the direct peer is a trusted proxy.
func (p peerPolicy) fromProxy(req *http.Request) bool {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		host = req.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, t := range p.trusted {
		if t.Contains(a) {
			return true
		}
	}
	return false
}

// client is the address of the client: the direct peer, or, behind
// trusted proxies, the nearest address in X-Forwarded-For that is not one.
func (p peerPolicy) client(req *http.Request) string { return p.clientIP(req) }

// origin is the scheme://host the request was sent to, as a browser would
// write it in an Origin header.
func (p peerPolicy) origin(req *http.Request) string {
	scheme, host := "http", req.Host
	if req.TLS != nil {
		scheme = "https"
	}
	if p.fromProxy(req) {
		if proto := firstValue(req.Header.Get("X-Forwarded-Proto")); proto == "https" || proto == "http" {
			scheme = proto
		}
		if fh := firstValue(req.Header.Get("X-Forwarded-Host")); fh != "" {
			host = fh
		}
	}
	return scheme + "://" + strings.ToLower(host)
}

// firstValue is the first of a comma-separated header's values.
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.ToLower(strings.TrimSpace(first))
}

// sameOrigin refuses a state-changing request a browser sent from another
// site or origin: Sec-Fetch-Site must be same-origin when sent, and Origin
// must be the hub's own when sent. (Clients that are not browsers send
// neither; they still need a session and its CSRF token.)
func (p peerPolicy) sameOrigin(req *http.Request) error {
	if site := req.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return service.Errorf(service.EFORBIDDEN, "cross-site request refused (Sec-Fetch-Site: %s)", site)
	}
	origin := req.Header.Get(echo.HeaderOrigin)
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ToLower(u.Scheme+"://"+u.Host) != p.origin(req) {
		return service.Errorf(service.EFORBIDDEN, "cross-origin request refused (Origin: %s)", origin)
	}
	return nil
}

// safeMethod reports whether a method only reads.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

type sessionKey struct{}

// signedInAs is the session a guarded request carries, with its raw token.
type signedInAs struct {
	token string
	info  identity.SessionInfo
}

// sessionOf returns the session the guard found for this request.
func sessionOf(c echo.Context) signedInAs {
	s, _ := c.Request().Context().Value(sessionKey{}).(signedInAs)
	return s
}

// guard runs every check a route needs before its handler, so a refused
// request changes nothing: the origin of a state-changing call, then the
// session, then its CSRF token. The session's principal rides the request
// context into the service.
func (h *handlers) guard(a access) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if a == kioskKey {
				if err := h.authenticateKiosk(c); err != nil {
					return err
				}
				return next(c)
			}
			if a == keyOrSession && req.Header.Get(echo.HeaderAuthorization) != "" {
				if err := keyauth.Authenticate(c, h.keys); err != nil {
					return err
				}
				return next(c) // a key is never sent by a browser on its own: no CSRF to defend
			}
			unsafe := !safeMethod(req.Method)
			if unsafe {
				if err := h.peer.sameOrigin(req); err != nil {
					return err
				}
			}
			if a == public {
				return next(c)
			}
			s, err := h.authenticate(req)
			if err != nil {
				return err
			}
			if unsafe && !s.info.CSRFValid(req.Header.Get(CSRFHeader)) {
				return service.Errorf(service.EFORBIDDEN, "the CSRF token is missing or wrong; reload the page")
			}
			ctx := context.WithValue(req.Context(), sessionKey{}, s)
			ctx = service.WithPrincipal(ctx, s.info.Principal())
			c.SetRequest(req.WithContext(ctx))
			return next(c)
		}
	}
}

// authenticate finds the session of the request's cookie.
func (h *handlers) authenticate(req *http.Request) (signedInAs, error) {
	ck, err := req.Cookie(CookieName)
	if (err != nil || ck.Value == "") && strings.HasPrefix(req.Header.Get(echo.HeaderAuthorization), "Bearer ") {
		return signedInAs{}, service.Errorf(service.EUNAUTHORIZED,
			"sign in first: an API key does not open the web UI's API under /api; send it to /api/v1 or /mcp")
	}
	if err != nil || ck.Value == "" {
		return signedInAs{}, service.Errorf(service.EUNAUTHORIZED, "sign in first")
	}
	info, err := h.acc.Authenticate(req.Context(), ck.Value)
	if err != nil {
		return signedInAs{}, err
	}
	return signedInAs{token: ck.Value, info: info}, nil
}

// setCookie sets (or, with an empty token, clears) the session cookie:
// HttpOnly, SameSite=Strict, scoped to /api, and Secure when the hub is
// reached over HTTPS or is configured so.
func (h *handlers) setCookie(c echo.Context, token string) {
	ck := &http.Cookie{
		Name: CookieName, Value: token, Path: "/api",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure || strings.HasPrefix(h.peer.origin(c.Request()), "https:"),
	}
	ck.MaxAge = int(identity.SessionLifetime / time.Second)
	if token == "" {
		ck.MaxAge = -1
	}
	c.SetCookie(ck)
}
