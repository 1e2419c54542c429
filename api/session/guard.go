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

// Guard admits a request to a route of the session API, or of a surface
// that takes its sessions too (api/voice), by the route's access: the
// origin of a state-changing call, then the session, then its CSRF token;
// or an API key where the route takes one. A refused request changes
// nothing. The session's principal rides the request context into the
// service.
type Guard struct {
	acc  *identity.Accounts
	keys *identity.Keys
	peer peerPolicy
}

// NewGuard is the guard of sessions of acc and keys of keys, believing
// the forwarding headers of trustedProxies.
func NewGuard(acc *identity.Accounts, keys *identity.Keys, trustedProxies []netip.Prefix) *Guard {
	return &Guard{acc: acc, keys: keys, peer: newPeerPolicy(trustedProxies)}
}

// Public admits anyone; a state-changing call must still come from the
// hub's own origin.
func (g *Guard) Public() echo.MiddlewareFunc { return g.admit(public) }

// SignedIn admits a session; a state-changing call needs its CSRF token
// and the hub's own origin too.
func (g *Guard) SignedIn() echo.MiddlewareFunc { return g.admit(signedIn) }

// KeyOrSession admits an API key (Authorization: Bearer), or what
// SignedIn admits.
func (g *Guard) KeyOrSession() echo.MiddlewareFunc { return g.admit(keyOrSession) }

// SameOriginWrite refuses a state-changing request a browser sent from
// another site or origin; a request that only reads passes.
func (g *Guard) SameOriginWrite(req *http.Request) error {
	if safeMethod(req.Method) {
		return nil
	}
	return g.peer.sameOrigin(req)
}

// Origin is the scheme://host the request was sent to, as the client
// reached the hub (through a trusted proxy's forwarding headers).
func (g *Guard) Origin(req *http.Request) string { return g.peer.origin(req) }

// Client is the address of the client: the direct peer, or, behind
// trusted proxies, the nearest address in X-Forwarded-For that is not one.
func (g *Guard) Client(req *http.Request) string { return g.peer.client(req) }

// admit runs every check a route of access a needs before its handler.
func (g *Guard) admit(a access) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if a == keyOrSession && req.Header.Get(echo.HeaderAuthorization) != "" {
				if err := keyauth.Authenticate(c, g.keys); err != nil {
					return err
				}
				return next(c) // a key is never sent by a browser on its own: no CSRF to defend
			}
			unsafe := !safeMethod(req.Method)
			if unsafe {
				if err := g.peer.sameOrigin(req); err != nil {
					return err
				}
			}
			if a == public {
				return next(c)
			}
			s, err := g.authenticate(req)
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

// guard is the check of a session API route of access a.
func (h *handlers) guard(a access) echo.MiddlewareFunc { return h.gate.admit(a) }

// authenticate finds the session of the request's cookie.
func (g *Guard) authenticate(req *http.Request) (signedInAs, error) {
	ck, err := req.Cookie(CookieName)
	if (err != nil || ck.Value == "") && strings.HasPrefix(req.Header.Get(echo.HeaderAuthorization), "Bearer ") {
		return signedInAs{}, service.Errorf(service.EUNAUTHORIZED,
			"sign in first: an API key does not open the web UI's API under /api; send it to /api/v1 or /mcp")
	}
	if err != nil || ck.Value == "" {
		return signedInAs{}, service.Errorf(service.EUNAUTHORIZED, "sign in first")
	}
	info, err := g.acc.Authenticate(req.Context(), ck.Value)
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
