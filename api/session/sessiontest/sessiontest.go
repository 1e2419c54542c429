// Package sessiontest drives the session API for tests, as a browser
// does: the whole HTTP server over real SQLite and the simulated home
// (Hub), requests with their headers and where they come from (Req), and
// a signed-in session's cookie and CSRF token (Browser).
package sessiontest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// Password is the admin's password on a hub NewHub sets up.
const Password = "correct horse battery"

// Hub is the whole HTTP server over real SQLite and the simulated home,
// with a trusted proxy at 10.0.0.1 and an admin, "admin", set up.
type Hub struct {
	Service  *service.Service
	Keys     *identity.Keys
	Accounts *identity.Accounts
	Handler  http.Handler
	// Registry holds the simulated home; a test may add devices of its own.
	Registry *devices.Registry
}

// NewIdentity is the keys and the accounts beside svc over db, logging to
// logger (nowhere when nil); the key uses they note are written before the
// test's earlier cleanups run.
func NewIdentity(t *testing.T, svc *service.Service, db *store.DB, logger *slog.Logger) (*identity.Keys, *identity.Accounts) {
	t.Helper()
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Logger: logger}
	keys := identity.NewKeys(cfg)
	t.Cleanup(keys.Wait)
	return keys, identity.NewAccounts(cfg, keys)
}

// NewHub is a hub that logs nowhere, its server configured as adjust
// changes it.
func NewHub(t *testing.T, adjust ...func(*api.Config)) *Hub {
	t.Helper()
	return NewHubLogging(t, nil, adjust...)
}

// NewHubLogging is NewHub with the service and the server logging to
// logger (nowhere when nil).
func NewHubLogging(t *testing.T, logger *slog.Logger, adjust ...func(*api.Config)) *Hub {
	t.Helper()
	ctx := context.Background()
	db := servicetest.Open(t)
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	svc := servicetest.Start(t, service.Config{Store: db, Registry: reg, Logger: logger})

	keys, acc := NewIdentity(t, svc, db, logger)
	cfg := api.Config{Service: svc, Keys: keys, Accounts: acc, Logger: logger, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")},
		Layouts: dashboard.New(svc, db)}
	for _, a := range adjust {
		a(&cfg)
	}
	h := &Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(cfg).Handler(), Registry: reg}
	code, err := acc.SetupCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", Password); err != nil {
		t.Fatal(err)
	}
	return h
}

// Req is one request: its headers and where it comes from.
type Req struct {
	Method, Path, Body string
	Header             map[string]string
	Remote             string // "ip:port"; httptest's 192.0.2.1:1234 when empty
	Session            *Browser
	TLS                bool
}

// Res is one answer.
type Res struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode unmarshals the answer's JSON body into v, failing the test when
// it cannot.
func (r Res) Decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Cookie is the cookie the answer sets under name, nil when it sets none.
func (r Res) Cookie(name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Browser is a signed-in session: the cookie and the CSRF token.
type Browser struct {
	Cookie string
	CSRF   string
}

// Do sends r to the hub's handler and returns its answer. A body is sent
// as JSON; a session sends its cookie, and on other methods than GET its
// CSRF token and the web UI's Prefer header too.
func (h *Hub) Do(r Req) Res {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	hr := httptest.NewRequest(r.Method, r.Path, body)
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Remote != "" {
		hr.RemoteAddr = r.Remote
	}
	if r.TLS {
		hr.TLS = &tls.ConnectionState{}
	}
	if r.Session != nil {
		hr.AddCookie(&http.Cookie{Name: session.CookieName, Value: r.Session.Cookie})
		if r.Method != http.MethodGet {
			hr.Header.Set(session.CSRFHeader, r.Session.CSRF)
			hr.Header.Set("Prefer", "return=representation") // as the web UI asks
		}
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.Handler.ServeHTTP(rec, hr)
	return Res{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// Must is Do, failing the test when the answer's status is not want.
func (h *Hub) Must(t *testing.T, want int, r Req) Res {
	t.Helper()
	got := h.Do(r)
	if got.Status != want {
		t.Fatalf("%s %s = %d, want %d: %s", r.Method, r.Path, got.Status, want, got.Body)
	}
	return got
}

// Login signs in as user and returns the browser's session.
func (h *Hub) Login(t *testing.T, user, pw string) *Browser {
	t.Helper()
	r := h.Must(t, http.StatusOK, Req{Method: "POST", Path: "/api/login", Body: `{"username":"` + user + `","password":"` + pw + `"}`})
	var s struct {
		CSRFToken string `json:"csrf_token"`
	}
	r.Decode(t, &s)
	c := r.Cookie(session.CookieName)
	if c == nil || s.CSRFToken == "" {
		t.Fatalf("login answered no cookie or CSRF token: %v %s", r.Header, r.Body)
	}
	return &Browser{Cookie: c.Value, CSRF: s.CSRFToken}
}
