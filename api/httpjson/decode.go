package httpjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/jsonin"
	"github.com/bifrost-hub/bifrost/service"
)

// Checker is a request body that knows which of its fields are required:
// Decode calls Check once the body is read.
type Checker interface {
	Check() error
}

// Decode reads the request body as exactly one JSON object into v. Broken
// JSON is a 400 with the position; well-formed JSON that does not fit (an
// unknown field, a value of the wrong type, a required field left out) is a
// 422 naming the field. A body over the limit surfaces as
// *http.MaxBytesError, rendered as 413.
func Decode(c echo.Context, v any) error {
	return decode(c, v, true)
}

// DecodeOpen is Decode for a body whose unknown fields are ignored
// rather than refused: a device's report (a kiosk's check-in), which a
// newer app may grow, and which must not stop working when it does.
func DecodeOpen(c echo.Context, v any) error {
	return decode(c, v, false)
}

func decode(c echo.Context, v any, strict bool) error {
	dec := json.NewDecoder(c.Request().Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	_, err := dec.Token()
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return err
	case !errors.Is(err, io.EOF):
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Unexpected data after the JSON object, at byte %d; send one object", dec.InputOffset()))
	}
	if body, ok := v.(Checker); ok {
		return body.Check()
	}
	return nil
}

// decodeError explains why a body could not be decoded.
func decodeError(err error) error {
	var syntax *json.SyntaxError
	var mismatch *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return err
	case errors.Is(err, io.EOF):
		return echo.NewHTTPError(http.StatusBadRequest, "The request body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return echo.NewHTTPError(http.StatusBadRequest, "Malformed JSON: the body ends before the object does")
	case errors.As(err, &syntax):
		return echo.NewHTTPError(http.StatusBadRequest, Malformed(syntax))
	case errors.As(err, &mismatch):
		return typeError(mismatch)
	}
	if field, ok := jsonin.UnknownField(err); ok {
		return service.Errorf(service.EINVALID, "Unknown field %q; the OpenAPI document at /api/v1/openapi.json lists each body's fields", field).With("field", field)
	}
	// What is left is a value's own decoder refusing it (a duration such
	// as "2 mins"): well-formed JSON that does not fit.
	return service.Errorf(service.EINVALID, "%v", err)
}

// Malformed says where JSON is broken, for any surface that reads it.
func Malformed(e *json.SyntaxError) string {
	return fmt.Sprintf("Malformed JSON at byte %d: %v", e.Offset, e)
}

// typeError names the field whose value has the wrong type.
func typeError(e *json.UnmarshalTypeError) error {
	if e.Field == "" {
		return service.Errorf(service.EINVALID, "Send the body as %s, not %s", jsonin.JSONKind(e.Type), e.Value)
	}
	return jsonin.WrongType(e.Field, e.Type, e.Value)
}

// Missing is the error for a required field the body left out: want
// says what to give.
func Missing(field, want string) error {
	return service.Errorf(service.EINVALID, "Missing %s: give %s", field, want).With("field", field)
}
