package voice

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/api/qrsvg"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

// Pairing devices and the wall tablets (kiosks), as the Rust hub's kiosk
// app calls them: an admin makes a pairing code (its token shown as a QR
// code), the tablet redeems it for a key, and then checks in, listens
// for commands and reports the sound level with that key. Admins list
// the kiosks, put them in rooms and send them commands.

// KioskCookieName is the cookie in which a kiosk's web view carries its
// key; the app sends its sound level with it.
const KioskCookieName = "bfr_key"

// kioskRoutes are the routes of pairing, and of kiosks when the hub keeps
// them.
func (h *handlers) kioskRoutes() []route {
	const get, put, post = http.MethodGet, http.MethodPut, http.MethodPost
	routes := []route{
		{post, "/enrollment", signedIn, h.createEnrollment},
		{post, "/enrollment/redeem", public, h.redeemEnrollment},
	}
	if h.kiosks == nil {
		return routes
	}
	return append(routes,
		route{post, "/kiosks/checkin", kioskKey, h.checkIn},
		route{get, "/kiosks/stream", kioskKey, h.kioskStream},
		route{post, "/kiosks/self/noise", kioskKey, h.kioskNoise},
		route{get, "/kiosks", signedIn, h.listKiosks},
		route{put, "/kiosks/:id/room", signedIn, h.setKioskRoom},
		route{put, "/kiosks/:id/mic", signedIn, h.setKioskMic},
		route{post, "/kiosks/:id/command", signedIn, h.sendKioskCommand},
	)
}

// authenticateKiosk admits a request with a kiosk's key: sent as
// Authorization: Bearer, or in the bfr_key cookie (its web view's, which
// the app sends its sound level with). A write with the cookie must come
// from the hub's own origin, as a browser could send the cookie.
func (h *handlers) authenticateKiosk(c echo.Context) error {
	req := c.Request()
	if req.Header.Get(echo.HeaderAuthorization) != "" {
		return keyauth.Authenticate(c, h.keys)
	}
	ck, err := req.Cookie(KioskCookieName)
	if err != nil || ck.Value == "" {
		return service.Errorf(service.EUNAUTHORIZED, "send the kiosk's API key: Authorization: Bearer bfr_… (or its bfr_key cookie)")
	}
	if err := h.guard.SameOriginWrite(req); err != nil {
		return err
	}
	p, err := h.keys.AuthenticateKey(req.Context(), ck.Value)
	if err != nil {
		return err
	}
	c.SetRequest(req.WithContext(service.WithPrincipal(req.Context(), p)))
	return nil
}

// kioskKeyOf is the key a kiosk's request carries.
func kioskKeyOf(req *http.Request) string {
	if key, ok := keyauth.BearerToken(req.Header.Get(echo.HeaderAuthorization)); ok {
		return key
	}
	if ck, err := req.Cookie(KioskCookieName); err == nil {
		return ck.Value
	}
	return ""
}

// pairingCode is what the QR code holds, as the kiosk's scanner reads it.
type pairingCode struct {
	V       int    `json:"v"`
	BaseURL string `json:"base_url"`
	Token   string `json:"token"`
}

// enrollment answers POST /api/enrollment: the token (shown this once),
// the text of the QR code, and the QR code to draw.
type enrollment struct {
	identity.NewEnrollment
	Payload string     `json:"payload"`
	QR      qrsvg.Code `json:"qr"`
}

// createEnrollment makes a pairing code for the hub as the admin's
// browser reaches it.
func (h *handlers) createEnrollment(c echo.Context) error {
	e, err := h.keys.CreateEnrollment(c.Request().Context())
	if err != nil {
		return err
	}
	payload, err := json.Marshal(pairingCode{V: 1, BaseURL: h.guard.Origin(c.Request()), Token: e.Token})
	if err != nil {
		return err
	}
	qr, err := qrsvg.Encode(string(payload))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, enrollment{NewEnrollment: e, Payload: string(payload), QR: qr})
}

// redeemBody is the body of POST /api/enrollment/redeem, as the kiosk
// sends it.
type redeemBody struct {
	Token      string `json:"token"`
	DeviceName string `json:"device_name"`
}

func (b *redeemBody) Check() error {
	if strings.TrimSpace(b.Token) == "" {
		return httpjson.Missing("token", "the token of the pairing code")
	}
	return nil
}

// redeemed answers a redemption, as the kiosk reads it.
type redeemed struct {
	Key    string `json:"key"`
	Prefix string `json:"prefix"`
	Name   string `json:"name"`
}

// redeemEnrollment trades a pairing code's token for the device's key:
// no credential needed, the token is the proof (401 when it is unknown,
// used or expired).
func (h *handlers) redeemEnrollment(c echo.Context) error {
	var b redeemBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	k, err := h.keys.RedeemEnrollment(c.Request().Context(), h.guard.Client(c.Request()), b.Token, b.DeviceName)
	if err != nil {
		return httpjson.Throttled(c, err)
	}
	return c.JSON(http.StatusCreated, redeemed{Key: k.Key, Prefix: k.Prefix, Name: k.Name})
}

// checkIn records a kiosk's heartbeat and answers its orders. Fields the
// hub does not know are ignored: a newer app's telemetry never stops its
// heartbeat.
func (h *handlers) checkIn(c echo.Context) error {
	var r kiosk.Report
	if err := httpjson.DecodeOpen(c, &r); err != nil {
		return err
	}
	o, err := h.kiosks.CheckIn(c.Request().Context(), r)
	return httpjson.Reply(c, http.StatusOK, o, err)
}

// kioskStream streams the kiosk's commands as events named "command",
// each a command's name as its data, until its key is revoked or it
// opens another stream.
func (h *handlers) kioskStream(c echo.Context) error {
	p, _ := service.PrincipalFrom(c.Request().Context())
	key := kioskKeyOf(c.Request())
	return stream.ServeText(c, h.streams, stream.Holder{Kind: stream.OfKiosk, ID: p.ID}, "command", h.kiosks.Listen,
		func(ctx context.Context) bool {
			_, err := h.keys.AuthenticateKey(ctx, key)
			return err == nil
		})
}

// noiseBody is a sound-level report, as the kiosk sends it.
type noiseBody struct {
	Elevated *bool    `json:"elevated"`
	Level    *float64 `json:"level"`
}

func (b *noiseBody) Check() error {
	if b.Elevated == nil {
		return httpjson.Missing("elevated", "true when the room is louder than its usual level, else false")
	}
	return nil
}

func (h *handlers) kioskNoise(c echo.Context) error {
	var b noiseBody
	if err := httpjson.DecodeOpen(c, &b); err != nil {
		return err
	}
	return httpjson.NoContent(c, h.kiosks.ReportNoise(c.Request().Context(), kiosk.Noise{Elevated: *b.Elevated, Level: b.Level}))
}

func (h *handlers) listKiosks(c echo.Context) error {
	list, err := h.kiosks.List(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, list, err)
}

// kioskRoomBody puts a kiosk in a room (by id or name), or in none
// ("" or null).
type kioskRoomBody struct {
	Room *string `json:"room"`
}

func (h *handlers) setKioskRoom(c echo.Context) error {
	var b kioskRoomBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	room := ""
	if b.Room != nil {
		room = *b.Room
	}
	k, err := h.kiosks.SetRoom(c.Request().Context(), httpjson.Param(c, "id"), room)
	return httpjson.Reply(c, http.StatusOK, k, err)
}

// kioskMicBody turns a kiosk's sound presence on or off, as the Rust
// hub's route takes it.
type kioskMicBody struct {
	Enabled     *bool  `json:"enabled"`
	Sensitivity string `json:"sensitivity"`
}

func (b *kioskMicBody) Check() error {
	if b.Enabled == nil {
		return httpjson.Missing("enabled", "true or false")
	}
	return nil
}

func (h *handlers) setKioskMic(c echo.Context) error {
	var b kioskMicBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	k, err := h.kiosks.SetMic(c.Request().Context(), httpjson.Param(c, "id"), *b.Enabled, b.Sensitivity)
	return httpjson.Reply(c, http.StatusOK, k, err)
}

// kioskCommandBody is a command for a kiosk: sleep or wake.
type kioskCommandBody struct {
	Command string `json:"command"`
}

func (b *kioskCommandBody) Check() error {
	if b.Command == "" {
		return httpjson.Missing("command", "sleep or wake")
	}
	return nil
}

func (h *handlers) sendKioskCommand(c echo.Context) error {
	var b kioskCommandBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	k, err := h.kiosks.Send(c.Request().Context(), httpjson.Param(c, "id"), b.Command)
	return httpjson.Reply(c, http.StatusOK, k, err)
}

// defaultRoom is the room of a voice command that names none: the room
// of the kiosk whose key sent it, if any.
func (h *handlers) defaultRoom(ctx context.Context, room string) string {
	if room != "" || h.kiosks == nil {
		return room
	}
	return h.kiosks.RoomOf(ctx)
}
