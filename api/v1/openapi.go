package v1

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// document is the OpenAPI 3.0 description of /api/v1.
//
//go:embed openapi.json
var document []byte

// serveDocument answers the OpenAPI document. It is public: static
// documentation, no house data.
func serveDocument(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, document)
}
