package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

type fixture struct {
	db   *store.DB
	srv  *api.Server
	logs *apitest.LogBuffer
}

func newFixture(t *testing.T, bodyLimit int64) *fixture {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	logs := &apitest.LogBuffer{}
	svc := service.New(service.Config{Store: db})
	keys, acc := servicetest.Identity(t, svc, db)
	srv := api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Logger: slog.New(slog.NewJSONHandler(logs, nil)), BodyLimit: bodyLimit})
	return &fixture{db: db, srv: srv, logs: logs}
}

func (f *fixture) get(t *testing.T, path string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(rec, req)
	return rec
}

func body(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON; body %s", ct, rec.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return m
}

func TestHealthAndReadiness(t *testing.T) {
	f := newFixture(t, 0)
	rec := f.get(t, "/healthz", nil)
	if rec.Code != http.StatusOK || body(t, rec)["status"] != "ok" {
		t.Fatalf("healthz %d %s", rec.Code, rec.Body)
	}
	rec = f.get(t, "/readyz", nil)
	if rec.Code != http.StatusOK || body(t, rec)["status"] != "ready" {
		t.Fatalf("readyz %d %s", rec.Code, rec.Body)
	}
	_ = f.db.Close()
	rec = f.get(t, "/readyz", nil)
	if rec.Code != http.StatusServiceUnavailable || body(t, rec)["status"] != "unavailable" {
		t.Fatalf("readyz with the database closed: %d %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "closed") {
		t.Fatalf("readyz leaks detail: %s", rec.Body)
	}
}

func TestPanicIsALogged500(t *testing.T) {
	f := newFixture(t, 0)
	f.srv.Echo().GET("/boom", func(echo.Context) error { panic("the flux capacitor") })
	rec := f.get(t, "/boom", nil)
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", rec.Code)
	}
	m := body(t, rec)
	if m["error"] != "internal" || strings.Contains(rec.Body.String(), "flux") {
		t.Fatalf("body %s should be generic", rec.Body)
	}
	if logs := f.logs.String(); strings.Count(logs, "flux capacitor") != 1 {
		t.Fatalf("the panic should be logged once:\n%s", logs)
	}
	if rec := f.get(t, "/healthz", nil); rec.Code != http.StatusOK {
		t.Fatal("the server did not survive the panic")
	}
}

func TestInternalErrorIsGenericAndLoggedOnce(t *testing.T) {
	f := newFixture(t, 0)
	f.srv.Echo().GET("/broken", func(echo.Context) error { return errSecret })
	rec := f.get(t, "/broken", nil)
	if rec.Code != http.StatusInternalServerError || body(t, rec)["message"] != "Internal error" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if n := strings.Count(f.logs.String(), errSecret.Error()); n != 1 {
		t.Fatalf("the error is logged %d times", n)
	}
}

var errSecret = &secretError{}

type secretError struct{}

func (*secretError) Error() string { return "disk /dev/sda3 on fire" }

func TestServiceErrorsMapToStatuses(t *testing.T) {
	f := newFixture(t, 0)
	cases := []struct {
		code   string
		status int
	}{
		{service.EINVALID, 422}, {service.ENOTFOUND, 404}, {service.ECONFLICT, 409},
		{service.EUNAUTHORIZED, 401}, {service.EFORBIDDEN, 403}, {service.EUNREACHABLE, 502},
		{service.EUNSUPPORTED, 422}, {service.EDEVICE, 502}, {service.ETOOMANY, 429}, {service.EINTERNAL, 500},
	}
	for _, c := range cases {
		path := "/err/" + c.code
		f.srv.Echo().GET(path, func(echo.Context) error {
			return service.Errorf(c.code, "something %s", c.code).With("options", []string{"a", "b"})
		})
		rec := f.get(t, path, nil)
		m := body(t, rec)
		if rec.Code != c.status || m["error"] != c.code {
			t.Errorf("%s: %d %s, want %d", c.code, rec.Code, rec.Body, c.status)
		}
		if c.code != service.EINTERNAL && (m["message"] != "Something "+c.code || m["options"] == nil) {
			t.Errorf("%s: message and details should pass through: %s", c.code, rec.Body)
		}
		if got := rec.Header().Get("WWW-Authenticate"); (c.status == 401) != (got != "") {
			t.Errorf("%s: WWW-Authenticate %q", c.code, got)
		}
	}
}

func TestSecurityHeadersAndJSON404(t *testing.T) {
	f := newFixture(t, 0)
	rec := f.get(t, "/no/such/page", nil)
	if rec.Code != http.StatusNotFound || body(t, rec)["error"] != "not_found" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	for k, want := range map[string]string{
		"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
	} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}

func TestRequestLogKeepsSecretsOut(t *testing.T) {
	f := newFixture(t, 0)
	f.get(t, "/api/v1/lights?token=hunter2", http.Header{"Authorization": {"Bearer bfr_supersecret"}})
	logs := f.logs.String()
	if !strings.Contains(logs, `"path":"/api/v1/lights"`) || !strings.Contains(logs, `"status":401`) {
		t.Fatalf("no request line:\n%s", logs)
	}
	if strings.Contains(logs, "hunter2") || strings.Contains(logs, "supersecret") {
		t.Fatalf("a secret reached the log:\n%s", logs)
	}
}

func TestBodyLimitIsConfigurable(t *testing.T) {
	f := newFixture(t, 64)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/rooms", strings.NewReader(`{"name": "`+strings.Repeat("x", 100)+`"}`))
	rec := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(rec, req)
	if m := body(t, rec); rec.Code != http.StatusRequestEntityTooLarge || m["error"] != "too_large" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
