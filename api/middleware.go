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

// logRequests writes one line per request: method, path (never the query,
// which may carry a secret; and with any API key in it redacted), status,
// size and duration. Errors are rendered here, so the line carries the
// status the client saw.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		req, res := c.Request(), c.Response()
		s.log.LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("method", req.Method),
			slog.String("path", redactKeys(req.URL.Path)),
			slog.Int("status", res.Status),
			slog.Int64("bytes", res.Size),
			slog.Duration("duration", time.Since(start)),
		)
		return nil
	}
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

// recoverPanics turns a panic in a handler into an internal error, which
// the error renderer logs (with the stack) and answers as a 500.
func recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
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
		return next(c)
	}
}

// securityHeaders sets the headers every answer carries.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		return next(c)
	}
}

// limitBody refuses bodies larger than limit bytes: at once when the
// Content-Length says so, otherwise when reading crosses the limit (the
// decoder then fails with *http.MaxBytesError, rendered as 413). The
// routes in larger, by their route path, take bodies up to their own
// bound, when it is the larger.
func limitBody(limit int64, larger map[string]int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
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
	}
}
