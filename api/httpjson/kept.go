package httpjson

import (
	"strconv"

	"github.com/labstack/echo/v4"
)

// Kept is a JSON answer's body kept to be written again and again (a list
// kept while the house has not changed), with the headers that go with it
// made once.
type Kept struct {
	body   []byte
	length []string // the Content-Length header's value
}

// Keep keeps body, a JSON answer.
func Keep(body []byte) Kept {
	return Kept{body: body, length: []string{strconv.Itoa(len(body))}}
}

// JSONType is the Content-Type header's value of a JSON answer, made
// once: setting a header makes a slice for its value each time.
// (Header.Set and Add never change a slice in place, so answers can share
// it.)
var JSONType = []string{echo.MIMEApplicationJSON}

// Write answers k with status: its bytes, with their length said, so
// that a body of any size goes out in one piece rather than chunked.
func (k Kept) Write(c echo.Context, status int) error {
	w := c.Response()
	h := w.Header()
	h[echo.HeaderContentType] = JSONType
	h[echo.HeaderContentLength] = k.length
	w.WriteHeader(status)
	_, err := w.Write(k.body)
	return err
}
