// Package keyauth admits requests that carry a Bifrost API key
// ("Authorization: Bearer bfr_…"), for the surfaces that take keys: /api/v1
// and /mcp. It puts the key's principal in the request context; scopes are
// the service's business, and which keys hold is identity's (Keys).
package keyauth

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// Keys checks a presented key and returns its principal; the hub's are an
// *identity.Keys.
type Keys interface {
	AuthenticateKey(ctx context.Context, key string) (service.Principal, error)
}

// Authenticate checks the request's key and, when it is good, puts its
// principal in the request context. A missing, malformed, unknown or
// revoked key is an unauthorized error for the error renderer; a request
// with more than one Authorization header is a bad request (400), refused
// before any key is looked at: which one counts would be anyone's guess.
func Authenticate(c echo.Context, keys Keys) error {
	req := c.Request()
	if n := len(req.Header.Values(echo.HeaderAuthorization)); n > 1 {
		return echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("the request has %d Authorization headers; send exactly one: Authorization: Bearer bfr_…", n))
	}
	key, ok := BearerToken(req.Header.Get(echo.HeaderAuthorization))
	if !ok {
		return service.Errorf(service.EUNAUTHORIZED, "send an API key: Authorization: Bearer bfr_…")
	}
	p, err := keys.AuthenticateKey(req.Context(), key)
	if err != nil {
		return err
	}
	c.SetRequest(req.WithContext(service.WithPrincipal(req.Context(), p)))
	return nil
}

// Middleware admits only requests with a good key.
func Middleware(keys Keys) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := Authenticate(c, keys); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// BearerToken extracts the token of an "Authorization: Bearer …" header.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
