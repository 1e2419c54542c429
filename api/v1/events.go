package v1

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/service"
)

// events streams state changes as Server-Sent Events until the client goes
// away, or its key is revoked: at once when this hub revokes it, within
// the re-check interval when another process (`bifrost keys revoke`) does.
func (h *handlers) events(c echo.Context) error {
	req := c.Request()
	p, _ := service.PrincipalFrom(req.Context())
	key, _ := keyauth.BearerToken(req.Header.Get(echo.HeaderAuthorization))
	return stream.Serve(c, h.svc, h.streams, stream.Holder{Kind: stream.OfKey, ID: p.ID}, func(ctx context.Context) bool {
		_, err := h.keys.AuthenticateKey(ctx, key)
		return err == nil
	})
}
