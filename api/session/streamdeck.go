package session

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// streamDeck answers whether NeewerLite's Stream Deck API is on:
// {"on": true, "addr": "127.0.0.1:18486", "network": false}.
func (h *handlers) streamDeck(c echo.Context) error {
	return c.JSON(http.StatusOK, struct {
		On bool `json:"on"`
		StreamDeck
	}{h.deck.Addr != "", h.deck})
}
