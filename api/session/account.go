package session

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/audit"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// setupBody is the body of POST /api/setup.
type setupBody struct {
	Code     string `json:"code"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// loginBody is the body of POST /api/login.
type loginBody struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// newUserBody is the body of POST /api/users.
type newUserBody struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Admin    bool   `json:"admin"`
}

// passwordBody is the body of PUT /api/users/{id}/password; Current is
// needed when people change their own.
type passwordBody struct {
	Current  string `json:"current"`
	Password string `json:"password"`
}

// newKeyBody is the body of POST /api/api-keys.
type newKeyBody struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
}

// setupNeeded tells the UI whether to show the first-admin page.
func (h *handlers) setupNeeded(c echo.Context) error {
	need, err := h.acc.SetupNeeded(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, map[string]bool{"needed": need}, err)
}

// setup creates the first admin with the code from the hub's log.
func (h *handlers) setup(c echo.Context) error {
	var b setupBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	u, err := h.acc.Setup(c.Request().Context(), h.peer.client(c.Request()), b.Code, b.Username, b.Password)
	return httpjson.Reply(c, http.StatusCreated, u, httpjson.Throttled(c, err))
}

// login starts a session: a new token in the cookie, the session (with its
// CSRF token) in the body.
func (h *handlers) login(c echo.Context) error {
	var b loginBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	s, err := h.acc.Login(ctx, h.peer.client(c.Request()), b.Username, b.Password)
	if err != nil {
		return httpjson.Throttled(c, err)
	}
	if old, err := c.Cookie(CookieName); err == nil && old.Value != "" {
		if err := h.acc.Logout(ctx, old.Value); err != nil { // the browser's previous session, replaced by this one
			h.log.Warn("ending the replaced session", "err", err)
		}
	}
	h.setCookie(c, s.Token)
	return c.JSON(http.StatusOK, s.SessionInfo)
}

// logout ends the session and clears the cookie.
func (h *handlers) logout(c echo.Context) error {
	err := h.acc.Logout(c.Request().Context(), sessionOf(c).token)
	h.setCookie(c, "")
	return httpjson.NoContent(c, err)
}

// session says who is signed in, with the CSRF token to send back.
func (h *handlers) session(c echo.Context) error {
	return c.JSON(http.StatusOK, sessionOf(c).info)
}

func (h *handlers) listKeys(c echo.Context) error {
	keys, err := h.keys.ListKeys(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, keys, err)
}

// createKey mints a key; the answer is the only time its secret is seen.
func (h *handlers) createKey(c echo.Context) error {
	var b newKeyBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	k, err := h.keys.CreateKey(c.Request().Context(), b.Name, b.Scope)
	return httpjson.Reply(c, http.StatusCreated, k, err)
}

func (h *handlers) revokeKey(c echo.Context) error {
	k, err := h.keys.RevokeKey(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, k, err)
}

func (h *handlers) listUsers(c echo.Context) error {
	users, err := h.acc.ListUsers(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, users, err)
}

func (h *handlers) addUser(c echo.Context) error {
	var b newUserBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	u, err := h.acc.AddUser(c.Request().Context(), b.Username, b.Password, b.Admin)
	return httpjson.Reply(c, http.StatusCreated, u, err)
}

func (h *handlers) removeUser(c echo.Context) error {
	return httpjson.NoContent(c, h.acc.RemoveUser(c.Request().Context(), httpjson.Param(c, "id")))
}

// setPassword sets a user's password; this browser stays signed in, every
// other session of that user ends.
func (h *handlers) setPassword(c echo.Context) error {
	var b passwordBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	err := h.acc.ChangePassword(c.Request().Context(), identity.PasswordChange{
		User: httpjson.Param(c, "id"), Current: b.Current, New: b.Password, KeepSession: sessionOf(c).token,
	})
	return httpjson.NoContent(c, err)
}

// audit lists the newest audit entries (?limit=, at most 1000) to an
// admin, each with its sentence and actor for people.
func (h *handlers) audit(c echo.Context) error {
	limit := 0
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return service.Errorf(service.EINVALID, "limit must be a number, not %q", s)
		}
		limit = n
	}
	log, err := h.acc.AuditLog(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	lines := make([]auditLine, len(log))
	for i, e := range log {
		lines[i] = auditLine{AuditEntry: e, Sentence: audit.Sentence(e), By: audit.Actor(e)}
	}
	return c.JSON(http.StatusOK, lines)
}

// auditLine is an audit entry as people read it: besides its codes, what
// it did as a sentence ("Turned Office off") and who did it ("Voice
// key").
type auditLine struct {
	service.AuditEntry
	Sentence string `json:"sentence"`
	By       string `json:"by"`
}
