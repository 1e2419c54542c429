package keyauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestBearerToken(t *testing.T) {
	cases := map[string]string{
		"Bearer bfr_abc":     "bfr_abc",
		"bearer  bfr_abc  ":  "bfr_abc",
		"  BEARER bfr_abc":   "bfr_abc",
		"Basic dXNlcjpwYXNz": "",
		"Bearer":             "",
		"Bearer   ":          "",
		"":                   "",
		"bfr_abc":            "",
	}
	for header, want := range cases {
		got, ok := BearerToken(header)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}

func TestTwoAuthorizationHeadersAreABadRequest(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/lights", nil)
	req.Header.Add(echo.HeaderAuthorization, "Bearer bfr_one")
	req.Header.Add(echo.HeaderAuthorization, "Bearer bfr_two")
	c := echo.New().NewContext(req, httptest.NewRecorder())
	// Refused before any key is looked up: no service is needed.
	err := Authenticate(c, nil)
	var he *echo.HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusBadRequest ||
		he.Message != "the request has 2 Authorization headers; send exactly one: Authorization: Bearer bfr_…" {
		t.Fatalf("Authenticate with two Authorization headers = %v, want a 400", err)
	}
}
