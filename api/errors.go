package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// statusOf maps the service's error codes to HTTP statuses.
var statusOf = map[string]int{
	service.EINVALID:      http.StatusUnprocessableEntity,
	service.ENOTFOUND:     http.StatusNotFound,
	service.ECONFLICT:     http.StatusConflict,
	service.EUNAUTHORIZED: http.StatusUnauthorized,
	service.EFORBIDDEN:    http.StatusForbidden,
	service.EUNREACHABLE:  http.StatusBadGateway,
	service.EUNSUPPORTED:  http.StatusUnprocessableEntity,
	service.EDEVICE:       http.StatusBadGateway,
	service.ETOOMANY:      http.StatusTooManyRequests,
	service.EUNAVAILABLE:  http.StatusServiceUnavailable,
	service.EINTERNAL:     http.StatusInternalServerError,
}

// codeOf names the statuses Echo itself answers with (routing, limits,
// handlers' own HTTP errors) in the same vocabulary.
var codeOf = map[int]string{
	http.StatusBadRequest:            "bad_request",
	http.StatusUnauthorized:          service.EUNAUTHORIZED,
	http.StatusForbidden:             service.EFORBIDDEN,
	http.StatusNotFound:              service.ENOTFOUND,
	http.StatusMethodNotAllowed:      "method_not_allowed",
	http.StatusRequestEntityTooLarge: "too_large",
	http.StatusUnprocessableEntity:   service.EINVALID,
	http.StatusTooManyRequests:       service.ETOOMANY,
	http.StatusInternalServerError:   service.EINTERNAL,
	http.StatusServiceUnavailable:    service.EUNAVAILABLE,
}

// authChallenge is the WWW-Authenticate header of every 401.
const authChallenge = `Bearer realm="bifrost"`

// apiError is an error as the client sees it.
type apiError struct {
	status  int
	code    string
	message string
	details map[string]any
}

// renderError is the one error renderer of the whole API: every error a
// handler or middleware returns, and every error Echo raises itself, is
// answered as JSON {"error": code, "message": …, …details}. Internal errors
// are logged here, once, and answered with a generic message.
func (s *Server) renderError(err error, c echo.Context) {
	req := c.Request()
	e := classify(err, req)
	if e.status == http.StatusInternalServerError {
		s.log.LogAttrs(req.Context(), slog.LevelError, "internal error",
			slog.String("method", req.Method), slog.String("path", redactKeys(req.URL.Path)), slog.Any("err", err))
	}
	if c.Response().Committed {
		return
	}
	if e.status == http.StatusUnauthorized {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, authChallenge)
	}
	body := make(map[string]any, len(e.details)+2)
	for k, v := range e.details {
		body[k] = v
	}
	body["error"] = e.code
	body["message"] = wording.Sentence(e.message)
	if err := c.JSON(e.status, body); err != nil {
		s.log.Warn("writing error response", "err", err)
	}
}

// classify turns err into what the client is told.
func classify(err error, req *http.Request) apiError {
	var he *echo.HTTPError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return apiError{status: http.StatusRequestEntityTooLarge, code: "too_large",
			message: fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit),
			details: map[string]any{"limit": tooBig.Limit}}
	case errors.As(err, &he):
		return fromHTTPError(he, req)
	}
	code := service.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok || code == service.EINTERNAL {
		return apiError{status: http.StatusInternalServerError, code: service.EINTERNAL, message: "Internal error"}
	}
	return apiError{status: status, code: code, message: service.ErrorSaid(err, wordsFor(req)), details: service.ErrorDetails(err)}
}

// wordsFor are the words an error is said in for req: the public API's
// routes for /api/v1, the web UI's pages for the web UI's own /api.
func wordsFor(req *http.Request) service.Words {
	if strings.HasPrefix(req.URL.Path, "/api/v1/") {
		return service.Words{Hint: restHint}
	}
	return service.Words{}
}

// restHint says a next step as a script reaches it, through /api/v1.
func restHint(e *service.Error) string {
	id := url.PathEscape(string(e.ID))
	switch e.Hint {
	case service.HintListPresets:
		return "list them with GET /api/v1/presets"
	case service.HintEnable:
		return `enable it first: PATCH /api/v1/devices/` + id + ` with {"enabled": true}`
	case service.HintPair:
		return "open the Devices page and choose Pair, or POST /api/v1/devices/" + id + "/pair with {} and then with the code the TV shows"
	}
	return ""
}

// fromHTTPError renders one of Echo's errors (or a handler's own).
func fromHTTPError(he *echo.HTTPError, req *http.Request) apiError {
	if inner, ok := he.Internal.(*echo.HTTPError); ok {
		he = inner
	}
	status := he.Code
	code, ok := codeOf[status]
	if !ok {
		code = strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
	}
	msg, _ := he.Message.(string)
	switch {
	case status >= http.StatusInternalServerError:
		msg = "Internal error"
	case status == http.StatusNotFound && (msg == "" || msg == http.StatusText(status)):
		msg = fmt.Sprintf("no endpoint %s %s", req.Method, req.URL.Path)
	case status == http.StatusMethodNotAllowed:
		msg = fmt.Sprintf("%s is not allowed on %s", req.Method, req.URL.Path)
	case msg == "":
		msg = http.StatusText(status)
	}
	return apiError{status: status, code: code, message: msg}
}
