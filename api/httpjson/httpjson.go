// Package httpjson is the HTTP kit every surface shares: reading a request
// (one JSON object as the body, path parameters) and answering it (a JSON
// reply, 204, or the error for the server's one error renderer). It knows
// no route and no authentication; the mounts (/api/v1, the session API)
// and the resource handlers they serve call it.
package httpjson

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
)

// Param returns a path parameter, URL-decoded. Echo matches on the raw
// path when the request's path has escapes that decoding would lose (an
// encoded "/"), so the value is decoded here in that case only.
func Param(c echo.Context, name string) string {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// Reply answers v with status, or returns err for the error renderer.
func Reply(c echo.Context, status int, v any, err error) error {
	if err != nil {
		return err
	}
	return c.JSON(status, v)
}

// NoContent answers 204, or returns err for the error renderer.
func NoContent(c echo.Context, err error) error {
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
