package httpjson_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/service"
)

// named is a body with a required name.
type named struct {
	Name string `json:"name"`
	Age  int    `json:"age"`
}

func (b *named) Check() error {
	if b.Name == "" {
		return httpjson.Missing("name", "a name")
	}
	return nil
}

func request(body string) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	return echo.New().NewContext(req, httptest.NewRecorder())
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		body, want string
		status     int
	}{
		{`{"name":"Ada","age":36}`, "", 0},
		{``, "The request body is empty; send a JSON object", http.StatusBadRequest},
		{`{"name":`, "Malformed JSON: the body ends before the object does", http.StatusBadRequest},
		{`{"name":"Ada"} {}`, "Unexpected data after the JSON object, at byte 16; send one object", http.StatusBadRequest},
		{`{"name":"Ada","age":"old"}`, "Give age as a whole number, not string", 0},
		{`["Ada"]`, "Send the body as an object, not array", 0},
		{`{"nick":"A"}`, `Unknown field "nick"`, 0},
		{`{"age":3}`, "Missing name: give a name", 0},
	} {
		var b named
		err := httpjson.Decode(request(tc.body), &b)
		if tc.want == "" {
			if err != nil || b.Name != "Ada" {
				t.Fatalf("%s: %v, %+v", tc.body, err, b)
			}
			continue
		}
		var he *echo.HTTPError
		switch {
		case err == nil:
			t.Fatalf("%s: no error", tc.body)
		case tc.status != 0 && (!errors.As(err, &he) || he.Code != tc.status):
			t.Fatalf("%s: %v, want status %d", tc.body, err, tc.status)
		case tc.status == 0 && service.ErrorCode(err) != service.EINVALID:
			t.Fatalf("%s: %v, want invalid", tc.body, err)
		case !strings.Contains(err.Error(), tc.want):
			t.Fatalf("%s: %q, want %q", tc.body, err, tc.want)
		}
	}
}

func TestParamDecodesEscapes(t *testing.T) {
	e := echo.New()
	var got string
	e.GET("/lights/:id", func(c echo.Context) error { got = httpjson.Param(c, "id"); return nil })
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/lights/neewer%3AF1%2F2B", nil))
	if got != "neewer:F1/2B" {
		t.Fatalf("Param = %q", got)
	}
}
