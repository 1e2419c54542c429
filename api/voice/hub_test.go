package voice_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
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
	"github.com/bifrost-hub/bifrost/store"
)

// The hub these tests drive, as the session API's tests drive it: the
// whole HTTP server, a browser signed in to it, and requests as it sends
// them.

const password = "correct horse battery"

// hub is the whole HTTP server over real SQLite and the simulated home,
// with a trusted proxy at 10.0.0.1 and an admin, "admin", set up.
type hub struct {
	svc     *service.Service
	keys    *identity.Keys
	acc     *identity.Accounts
	handler http.Handler
}

// newIdentity is the keys and the accounts beside svc over db, logging to
// logger (nowhere when nil); the key uses they note are written before the
// test's earlier cleanups run.
func newIdentity(t *testing.T, svc *service.Service, db *store.DB, logger *slog.Logger) (*identity.Keys, *identity.Accounts) {
	t.Helper()
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Logger: logger}
	keys := identity.NewKeys(cfg)
	t.Cleanup(keys.Wait)
	return keys, identity.NewAccounts(cfg, keys)
}

func newHub(t *testing.T, adjust ...func(*api.Config)) *hub {
	t.Helper()
	return newHubLogging(t, nil, adjust...)
}

// newHubLogging is newHub with the service and the server logging to
// logger (nowhere when nil).
func newHubLogging(t *testing.T, logger *slog.Logger, adjust ...func(*api.Config)) *hub {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	sim.NewHome(sim.Options{}).Register(reg)
	svc := service.New(service.Config{Store: db, Registry: reg, Logger: logger})
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done; reg.Close(); db.Close() })

	keys, acc := newIdentity(t, svc, db, logger)
	cfg := api.Config{Service: svc, Keys: keys, Accounts: acc, Logger: logger, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")},
		Layouts: dashboard.New(svc, db)}
	for _, a := range adjust {
		a(&cfg)
	}
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(cfg).Handler()}
	code, err := acc.SetupCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	return h
}

// req is one request: its headers and where it comes from.
type req struct {
	method, path, body string
	header             map[string]string
	remote             string // "ip:port"; httptest's 192.0.2.1:1234 when empty
	session            *browser
	tls                bool
}

// res is one answer.
type res struct {
	status int
	header http.Header
	body   []byte
}

func (r res) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func (r res) cookie(name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// browser is a signed-in session: the cookie and the CSRF token.
type browser struct {
	cookie string
	csrf   string
}

func (h *hub) do(r req) res {
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.remote != "" {
		hr.RemoteAddr = r.remote
	}
	if r.tls {
		hr.TLS = &tls.ConnectionState{}
	}
	if r.session != nil {
		hr.AddCookie(&http.Cookie{Name: session.CookieName, Value: r.session.cookie})
		if r.method != http.MethodGet {
			hr.Header.Set(session.CSRFHeader, r.session.csrf)
			hr.Header.Set("Prefer", "return=representation") // as the web UI asks
		}
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, hr)
	return res{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (h *hub) must(t *testing.T, want int, r req) res {
	t.Helper()
	got := h.do(r)
	if got.status != want {
		t.Fatalf("%s %s = %d, want %d: %s", r.method, r.path, got.status, want, got.body)
	}
	return got
}

// login signs in as user and returns the browser's session.
func (h *hub) login(t *testing.T, user, pw string) *browser {
	t.Helper()
	r := h.must(t, http.StatusOK, req{method: "POST", path: "/api/login", body: `{"username":"` + user + `","password":"` + pw + `"}`})
	var s struct {
		CSRFToken string `json:"csrf_token"`
	}
	r.decode(t, &s)
	c := r.cookie(session.CookieName)
	if c == nil || s.CSRFToken == "" {
		t.Fatalf("login answered no cookie or CSRF token: %v %s", r.header, r.body)
	}
	return &browser{cookie: c.Value, csrf: s.CSRFToken}
}
