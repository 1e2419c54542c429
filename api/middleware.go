package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// common is the middleware every request passes, in this order: the
// request's log line (logRequest), recovery from a panic
// (recoverPanics), the headers every answer carries (securityHeaders,
// noStoreKeyed) and the bound on the body (limitBody). It is one
// middleware rather than five because Echo wraps the handler in its
// middleware anew for every request, and its steps are plain calls
// rather than closures, which would be made anew for every request too.
func (s *Server) common(limit int64, larger map[string]int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			s.served.Add(1)
			start := time.Now()
			if err := recoverPanics(c, limit, larger, next); err != nil {
				c.Error(err)
			}
			s.logRequest(c, start)
			return nil
		}
	}
}

// logRequest writes one line for the request: method, path (never the
// query, which may carry a secret; and with any API key in it redacted),
// status, size and duration. A request answered with success is a debug
// line, one refused or failed an info line. Errors are rendered before
// (by common), so the line carries the status the client saw. Nothing of
// the line is made when the level leaves it out.
func (s *Server) logRequest(c echo.Context, start time.Time) {
	req, res := c.Request(), c.Response()
	level := slog.LevelDebug
	if res.Status >= http.StatusBadRequest {
		level = slog.LevelInfo
	}
	if !s.log.Enabled(req.Context(), level) {
		return
	}
	s.log.LogAttrs(req.Context(), level, "request",
		slog.String("method", req.Method),
		slog.String("path", redactKeys(req.URL.Path)),
		slog.Int("status", res.Status),
		slog.Int64("bytes", res.Size),
		slog.Duration("duration", time.Since(start)),
	)
}

// keyPrefix begins anything shaped like an API key; keyShown is how many
// characters after it a key list shows (they identify a key without
// giving it away), so more of them make a string key-shaped.
const (
	keyPrefix = "bfr_"
	keyShown  = 8
)

// keyRedacted stands in a log for a key taken out of it.
const keyRedacted = "bfr_…redacted"

// redactKeys replaces every key-shaped string in s (a path, a query):
// "bfr_", in any case, and more than keyShown letters or digits, so that a
// key sent where it should not be, such as DELETE /api/api-keys/<the
// key>, never reaches the log. Keys are lowercase base32; any case, hex
// included, is caught, so a mangled key is too.
func redactKeys(s string) string {
	var b strings.Builder
	rest := s
	for {
		i := indexFold(rest, keyPrefix)
		if i < 0 {
			break
		}
		n := i + len(keyPrefix)
		for n < len(rest) && isAlnum(rest[n]) {
			n++
		}
		if n-i-len(keyPrefix) <= keyShown {
			n = i + len(keyPrefix) // not a key: look again after its "bfr_"
			b.WriteString(rest[:n])
		} else {
			b.WriteString(rest[:i])
			b.WriteString(keyRedacted)
		}
		rest = rest[n:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// indexFold is the index of the first sub in s in any case of ASCII
// letters, or -1.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// recoverPanics sets the headers and the body's bound and calls next,
// turning a panic in it into an internal error, which the error renderer
// logs (with the stack) and answers as a 500.
func recoverPanics(c echo.Context, limit int64, larger map[string]int64, next echo.HandlerFunc) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if r == http.ErrAbortHandler { // let net/http abort the response, as it intends
			panic(r)
		}
		err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
	}()
	securityHeaders(c)
	noStoreKeyed(c)
	return limitBody(c, limit, larger, next)
}

// The values of the headers every answer carries, made once: setting a
// header to a value makes a slice for it each time. (Header.Set and Add
// never change a slice in place, so answers can share them.)
var (
	nosniff      = []string{"nosniff"}
	noReferrer   = []string{"no-referrer"}
	frameDeny    = []string{"DENY"}
	noStore      = []string{"no-store"}
	hdrNosniff   = http.CanonicalHeaderKey("X-Content-Type-Options")
	hdrReferrer  = http.CanonicalHeaderKey("Referrer-Policy")
	hdrFrame     = http.CanonicalHeaderKey("X-Frame-Options")
	hdrCacheCtrl = http.CanonicalHeaderKey("Cache-Control")
)

// securityHeaders sets the headers every answer carries.
func securityHeaders(c echo.Context) {
	h := c.Response().Header()
	h[hdrNosniff] = nosniff
	h[hdrReferrer] = noReferrer
	h[hdrFrame] = frameDeny
}

// noStoreKeyed keeps every answer of the key surfaces, /api/v1 and the
// MCP transports, out of caches, errors and 401s included: they carry the
// state of the house, and an answer to one key must never be served to
// another caller. (The session API sets its own.)
func noStoreKeyed(c echo.Context) {
	if keyedPath(c.Request().URL.Path) {
		c.Response().Header()[hdrCacheCtrl] = noStore
	}
}

// limitBody refuses bodies larger than limit bytes: at once when the
// Content-Length says so, otherwise when reading crosses the limit (the
// decoder then fails with *http.MaxBytesError, rendered as 413). The
// routes in larger, by their route path, take bodies up to their own
// bound, when it is the larger.
func limitBody(c echo.Context, limit int64, larger map[string]int64, next echo.HandlerFunc) error {
	req := c.Request()
	bound := max(limit, larger[c.Path()])
	if req.ContentLength > bound {
		return &http.MaxBytesError{Limit: bound}
	}
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = http.MaxBytesReader(c.Response(), req.Body, bound)
	}
	return next(c)
}
