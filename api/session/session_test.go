package session_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
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
	"github.com/bifrost-hub/bifrost/web"
)

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

func TestSetupAndLogin(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(service.Config{Store: db})
	keys, acc := newIdentity(t, svc, db, nil)
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc}).Handler()}

	var need struct{ Needed bool }
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/setup"}).decode(t, &need)
	if !need.Needed {
		t.Fatal("a hub without users does not ask for setup")
	}
	code, _ := acc.SetupCode(ctx)
	h.must(t, http.StatusUnauthorized, req{method: "POST", path: "/api/setup", body: `{"code":"wrong","username":"admin","password":"` + password + `"}`})
	h.must(t, http.StatusUnauthorized, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"` + password + `"}`})
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/setup", body: `{"code":"` + code + `","username":"admin","password":"` + password + `"}`})
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/setup"}).decode(t, &need)
	if need.Needed {
		t.Fatal("setup is still needed after the admin was created")
	}
	h.must(t, http.StatusConflict, req{method: "POST", path: "/api/setup", body: `{"code":"` + code + `","username":"again","password":"` + password + `"}`})

	r := h.must(t, http.StatusOK, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"` + password + `"}`})
	c := r.cookie(session.CookieName)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/api" || c.Secure || c.MaxAge != 30*24*3600 || len(c.Value) != 43 {
		t.Fatalf("session cookie %+v; want HttpOnly, SameSite=Strict, Path=/api, 30 days, a 256-bit token, not Secure over plain HTTP", c)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("login answered Cache-Control %q", cc)
	}
	var s struct {
		User      identity.User `json:"user"`
		CSRFToken string        `json:"csrf_token"`
	}
	r.decode(t, &s)
	if s.User.Username != "admin" || !s.User.Admin || s.CSRFToken == "" || strings.Contains(string(r.body), "argon2") {
		t.Fatalf("login answered %s", r.body)
	}
	b := &browser{cookie: c.Value, csrf: s.CSRFToken}
	var again struct {
		CSRFToken string `json:"csrf_token"`
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/session", session: b}).decode(t, &again)
	if again.CSRFToken != s.CSRFToken {
		t.Fatalf("GET /api/session gives CSRF token %q, login gave %q", again.CSRFToken, s.CSRFToken)
	}
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/session"})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/home", session: &browser{cookie: strings.Repeat("x", 43)}})
}

func TestSecureCookie(t *testing.T) {
	h := newHub(t)
	body := `{"username":"admin","password":"` + password + `"}`
	secure := func(r req) bool {
		t.Helper()
		r.method, r.path, r.body = "POST", "/api/login", body
		return h.must(t, http.StatusOK, r).cookie(session.CookieName).Secure
	}
	if !secure(req{tls: true}) {
		t.Error("over TLS the cookie is not Secure")
	}
	if !secure(req{remote: "10.0.0.1:5000", header: map[string]string{"X-Forwarded-Proto": "https"}}) {
		t.Error("behind a trusted TLS proxy the cookie is not Secure")
	}
	if secure(req{remote: "192.0.2.9:5000", header: map[string]string{"X-Forwarded-Proto": "https"}}) {
		t.Error("an untrusted peer's X-Forwarded-Proto is believed")
	}
	h2 := newHub(t, func(c *api.Config) { c.SecureCookies = true })
	r := h2.must(t, http.StatusOK, req{method: "POST", path: "/api/login", body: body})
	if !r.cookie(session.CookieName).Secure {
		t.Error("SecureCookies does not make the cookie Secure")
	}
}

func TestStateChangesNeedCSRFAndTheHubsOrigin(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	// The real token with its first character changed (to one it cannot
	// already be), so the wrong token is wrong on every run.
	wrong := "x" + b.csrf[1:]
	if b.csrf[0] == 'x' {
		wrong = "y" + b.csrf[1:]
	}
	create := func(r req) res {
		r.method, r.path, r.body = "POST", "/api/rooms", `{"name":"Den"}`
		return h.do(r)
	}
	for name, r := range map[string]req{
		"no CSRF token":        {session: &browser{cookie: b.cookie}},
		"a wrong CSRF token":   {session: &browser{cookie: b.cookie, csrf: wrong}},
		"a cross-site Origin":  {session: b, header: map[string]string{"Origin": "http://evil.example"}},
		"another port":         {session: b, header: map[string]string{"Origin": "http://example.com:8080"}},
		"another scheme":       {session: b, header: map[string]string{"Origin": "https://example.com"}},
		"Origin null":          {session: b, header: map[string]string{"Origin": "null"}},
		"Sec-Fetch-Site cross": {session: b, header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"Sec-Fetch-Site same-site (another origin)": {session: b, header: map[string]string{"Sec-Fetch-Site": "same-site"}},
		"no session":                {header: map[string]string{"X-CSRF-Token": b.csrf}},
		"a forged X-Forwarded-Host": {session: b, remote: "192.0.2.9:1", header: map[string]string{"Origin": "http://evil.example", "X-Forwarded-Host": "evil.example"}},
		"an API key instead":        {header: map[string]string{"Authorization": "Bearer " + mintKey(t, h, b)}},
	} {
		got := create(r)
		if got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
			t.Errorf("%s: POST /api/rooms = %d %s; want it refused", name, got.status, got.body)
		}
	}
	var rooms []service.RoomView
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/rooms", session: b}).decode(t, &rooms)
	for _, r := range rooms {
		if r.Name == "Den" {
			t.Fatal("a refused request created the room")
		}
	}

	// The hub's own origin, as a browser sends it; and behind a trusted
	// proxy, the origin the proxy was asked for.
	ok := create(req{session: b, header: map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}})
	if ok.status != http.StatusCreated {
		t.Fatalf("a same-origin POST = %d %s", ok.status, ok.body)
	}
	r := req{session: b, remote: "10.0.0.1:1", header: map[string]string{"Origin": "https://home.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "home.example"}}
	r.method, r.path, r.body = "PATCH", "/api/rooms/Den", `{"name":"Snug"}`
	h.must(t, http.StatusOK, r)

	// Sign-in is refused from another site too (login CSRF).
	h.must(t, http.StatusForbidden, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"` + password + `"}`,
		header: map[string]string{"Origin": "http://evil.example"}})
}

func mintKey(t *testing.T, h *hub, b *browser) string {
	t.Helper()
	var k struct{ Key string }
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/api-keys", body: `{"name":"script"}`, session: b}).decode(t, &k)
	return k.Key
}

func TestLoginThrottle(t *testing.T) {
	h := newHub(t)
	attempt := func(remote, xff, pw string) res {
		r := req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"` + pw + `"}`, remote: remote}
		if xff != "" {
			r.header = map[string]string{"X-Forwarded-For": xff}
		}
		return h.do(r)
	}
	for i := range identity.LoginFailures {
		if got := attempt("192.0.2.50:1000", "", "guess"); got.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d = %d", i+1, got.status)
		}
	}
	got := attempt("192.0.2.50:1001", "", password)
	// The minute runs from the first failure; each failure costs a password
	// hash, so on a busy machine a few of its seconds are gone already.
	if wait, err := strconv.Atoi(got.header.Get("Retry-After")); got.status != http.StatusTooManyRequests || err != nil || wait < 45 || wait > 60 {
		t.Fatalf("sixth attempt = %d, Retry-After %q: %s; want 429 with Retry-After up to 60", got.status, got.header.Get("Retry-After"), got.body)
	}
	if got := attempt("192.0.2.51:1000", "", password); got.status != http.StatusOK {
		t.Fatalf("another client = %d; want 200", got.status)
	}

	// Behind the trusted proxy, clients are told apart by X-Forwarded-For.
	for range identity.LoginFailures {
		attempt("10.0.0.1:1", "203.0.113.5", "guess")
	}
	if got := attempt("10.0.0.1:1", "203.0.113.5", password); got.status != http.StatusTooManyRequests {
		t.Fatalf("a throttled client behind the proxy = %d", got.status)
	}
	if got := attempt("10.0.0.1:1", "203.0.113.6", password); got.status != http.StatusOK {
		t.Fatalf("another client behind the proxy = %d", got.status)
	}
	// An untrusted peer cannot dodge the limit with a forged header.
	for i := range identity.LoginFailures {
		attempt("192.0.2.60:1", "198.51.100."+string(rune('1'+i)), "guess")
	}
	if got := attempt("192.0.2.60:1", "198.51.100.99", password); got.status != http.StatusTooManyRequests {
		t.Fatalf("forged X-Forwarded-For dodged the throttle: %d", got.status)
	}
}

func TestKeysAreMintedThroughASession(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	var k struct {
		ID, Key, Prefix string
	}
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/api-keys", body: `{"name":"curl","scope":"control"}`, session: b}).decode(t, &k)
	if !strings.HasPrefix(k.Key, "bfr_") || !strings.HasPrefix(k.Key, k.Prefix) {
		t.Fatalf("new key %+v", k)
	}
	list := h.must(t, http.StatusOK, req{method: "GET", path: "/api/api-keys", session: b})
	if strings.Contains(string(list.body), k.Key) || !strings.Contains(string(list.body), k.Prefix) {
		t.Fatalf("the key list shows the secret, or not the prefix: %s", list.body)
	}
	bearer := map[string]string{"Authorization": "Bearer " + k.Key}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/v1/lights", header: bearer})
	// The key opens /api/v1, not the session API; the cookie opens the
	// session API, not /api/v1.
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/rooms", header: bearer})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/v1/lights", session: b})

	h.must(t, http.StatusOK, req{method: "DELETE", path: "/api/api-keys/" + k.ID, session: b})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/v1/lights", header: bearer})
}

func TestLogoutEndsTheSession(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	other := h.login(t, "admin", password)
	r := h.must(t, http.StatusNoContent, req{method: "POST", path: "/api/logout", session: b})
	if c := r.cookie(session.CookieName); c == nil || c.MaxAge >= 0 {
		t.Fatalf("logout does not clear the cookie: %+v", c)
	}
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/session", session: b})
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/session", session: other})
}

func TestUsersAndPasswords(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	var bob identity.User
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"bob","password":"` + password + `"}`, session: admin}).decode(t, &bob)
	b1, b2 := h.login(t, "bob", password), h.login(t, "bob", password)
	h.must(t, http.StatusForbidden, req{method: "POST", path: "/api/users", body: `{"username":"eve","password":"` + password + `"}`, session: b1})
	h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/users/" + bob.ID + "/password", body: `{"current":"nope","password":"a new passphrase"}`, session: b1})
	h.must(t, http.StatusNoContent, req{method: "PUT", path: "/api/users/" + bob.ID + "/password", body: `{"current":"` + password + `","password":"a new passphrase"}`, session: b1})
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/session", session: b1})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/session", session: b2})

	h.must(t, http.StatusConflict, req{method: "DELETE", path: "/api/users/admin", session: admin})
	h.must(t, http.StatusNoContent, req{method: "DELETE", path: "/api/users/bob", session: admin})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/session", session: b1})

	var log []service.AuditEntry
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit?limit=5", session: admin}).decode(t, &log)
	if len(log) != 5 || log[0].Action != "user.delete" || log[0].ActorName != "admin" || log[0].Target != "bob" {
		t.Fatalf("audit log %+v", log)
	}
}

func TestHomeThroughTheSession(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	var home service.Home
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/home", session: b}).decode(t, &home)
	if len(home.Lights) == 0 || len(home.Rooms) == 0 {
		t.Fatalf("home %+v", home)
	}
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/rooms", body: `{"name":"Studio"}`, session: b})
	h.must(t, http.StatusOK, req{method: "POST", path: "/api/rooms/Studio/members", body: `{"device":"sim:key-light"}`, session: b})
	h.must(t, http.StatusOK, req{method: "POST", path: "/api/rooms/Studio/members", body: `{"device":"Fill Light"}`, session: b})
	var fan service.FanoutResult
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/rooms/Studio/state", body: `{"brightness":30}`, session: b}).decode(t, &fan)
	if len(fan.Applied) != 2 {
		t.Fatalf("room write %+v", fan)
	}
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/scenes", body: `{"name":"Focus","room":"Studio"}`, session: b})
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/lights/sim%3Akey-light/state", body: `{"on":false}`, session: b})
	h.must(t, http.StatusOK, req{method: "POST", path: "/api/scenes/Focus/activate", session: b})
	var l service.Light
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/v1/lights/sim:key-light", header: map[string]string{"Authorization": "Bearer " + mintKey(t, h, b)}}).decode(t, &l)
	if l.State == nil || !l.State.On || l.State.Brightness != 30 {
		t.Fatalf("after the scene, Key Light is %+v", l.State)
	}
	h.must(t, http.StatusOK, req{method: "PATCH", path: "/api/devices/sim:key-light", body: `{"name":"Key"}`, session: b})
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/power/devices/Coffee%20Plug/state", body: `{"on":false}`, session: b})
	h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/power/devices/Coffee%20Plug/state", body: `{}`, session: b})
	h.must(t, http.StatusUnprocessableEntity, req{method: "POST", path: "/api/rooms", body: `{"name":"X","bogus":1}`, session: b})
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/media/devices/Kitchen%20Sonos/state", body: `{"volume":12}`, session: b})
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/media/devices/Kitchen%20Sonos/favorites", session: b})
	h.must(t, http.StatusNoContent, req{method: "DELETE", path: "/api/scenes/Focus", session: b})
	h.must(t, http.StatusNoContent, req{method: "DELETE", path: "/api/rooms/Studio", session: b})
}

// The session routes sit beside /api/v1 without taking its paths.
func TestRoutesLeaveAPIv1Alone(t *testing.T) {
	h := newHub(t)
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/api/v1/nothing", http.StatusNotFound},
		{"PATCH", "/api/v1/lights", http.StatusMethodNotAllowed},
		{"GET", "/api/v1/lights", http.StatusUnauthorized},
		{"GET", "/api/nothing", http.StatusNotFound},
		{"GET", "/nothing", http.StatusNotFound},
		{"GET", "/api/v1/openapi.json", http.StatusOK},
	} {
		got := h.do(req{method: c.method, path: c.path})
		if got.status != c.want || !strings.HasPrefix(got.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s = %d %s; want %d JSON", c.method, c.path, got.status, got.header.Get("Content-Type"), c.want)
		}
	}
}

func TestEventsFollowTheHouse(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	ts := httptest.NewServer(h.handler)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events", nil)
	r.AddCookie(&http.Cookie{Name: session.CookieName, Value: b.cookie})
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /api/events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/lights/Key%20Light/state", body: `{"brightness":42}`, session: b})
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), `"sim:key-light"`) && strings.Contains(sc.Text(), `"brightness":42`) {
			return
		}
	}
	t.Fatalf("no event for the light: %v", sc.Err())
}

func TestTheUI(t *testing.T) {
	h := newHub(t)
	page := h.must(t, http.StatusOK, req{method: "GET", path: "/"})
	hd := page.header
	csp := hd.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q allows unsafe sources", csp)
	}
	if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Referrer-Policy") == "" || !strings.HasPrefix(hd.Get("Content-Type"), "text/html") {
		t.Errorf("headers %v", hd)
	}
	if hd.Get("Cache-Control") != "no-cache" || hd.Get("ETag") == "" {
		t.Errorf("the page is cached as %q, ETag %q", hd.Get("Cache-Control"), hd.Get("ETag"))
	}
	h.must(t, http.StatusNotModified, req{method: "GET", path: "/", header: map[string]string{"If-None-Match": hd.Get("ETag")}})

	if regexp.MustCompile(`<script(?:\s+type="module")?>|<script[^>]*>[^<]+</script>| on[a-z]+=`).Match(page.body) {
		t.Errorf("the page has inline script:\n%s", page.body)
	}
	m := regexp.MustCompile(`src="(/assets/([0-9a-f]{12})/app\.js)"`).FindSubmatch(page.body)
	if m == nil {
		t.Fatalf("the page does not load a versioned app.js:\n%s", page.body)
	}
	js := h.must(t, http.StatusOK, req{method: "GET", path: string(m[1])})
	if !strings.Contains(js.header.Get("Content-Type"), "javascript") || !strings.Contains(js.header.Get("Cache-Control"), "immutable") {
		t.Errorf("app.js answered %q, cached %q", js.header.Get("Content-Type"), js.header.Get("Cache-Control"))
	}
	old := h.must(t, http.StatusOK, req{method: "GET", path: "/assets/000000000000/app.js"})
	if old.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an asset of another version is cached as %q", old.header.Get("Cache-Control"))
	}
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/assets/" + string(m[2]) + "/nothing.js"})
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/assets/" + string(m[2]) + "/../index.html"})
}

// The UI's code never turns text into markup: no innerHTML and friends, no
// eval, no inline handlers.
func TestUIRendersTextAsText(t *testing.T) {
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function|setAttribute\('on`)
	err := fs.WalkDir(web.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		b, err := fs.ReadFile(web.Files(), p)
		if err != nil {
			return err
		}
		if loc := banned.FindIndex(b); loc != nil {
			t.Errorf("%s uses %s", p, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
