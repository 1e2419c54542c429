package httpjson

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// Throttled adds Retry-After to a rate-limited answer (ETOOMANY with a
// "retry_after" detail in seconds), and returns err as it is.
func Throttled(c echo.Context, err error) error {
	if service.ErrorCode(err) == service.ETOOMANY {
		if secs, ok := service.ErrorDetails(err)["retry_after"].(int); ok {
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		}
	}
	return err
}
