package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/stream"
)

// events streams the house's changes to the web UI as Server-Sent Events,
// in the same shape as /api/v1/events, counted against the session's cap
// of open streams. Every re-check interval the stream also checks that
// the session still holds, so it ends soon after the session is logged
// out or expires.
func (h *handlers) events(c echo.Context) error {
	token := sessionOf(c).token
	sum := sha256.Sum256([]byte(token)) // the holder is counted by hash: no raw token kept
	holder := stream.Holder{Kind: stream.OfSession, ID: hex.EncodeToString(sum[:])}
	return stream.Serve(c, h.svc, h.streams, holder, func(ctx context.Context) bool {
		_, err := h.acc.Authenticate(ctx, token)
		return err == nil
	})
}
