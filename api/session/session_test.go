package session_test

import (
	"bufio"
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/web"
)

// hub is the session API's test hub, with this package's helpers on it.
type hub struct{ *sessiontest.Hub }

func newHub(t *testing.T, adjust ...func(*api.Config)) *hub {
	t.Helper()
	return &hub{sessiontest.NewHub(t, adjust...)}
}

func newHubLogging(t *testing.T, logger *slog.Logger, adjust ...func(*api.Config)) *hub {
	t.Helper()
	return &hub{sessiontest.NewHubLogging(t, logger, adjust...)}
}

func TestSetupAndLogin(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(service.Config{Store: db})
	keys, acc := sessiontest.NewIdentity(t, svc, db, nil)
	h := &hub{&sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc}).Handler()}}

	var need struct{ Needed bool }
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/setup"}).Decode(t, &need)
	if !need.Needed {
		t.Fatal("a hub without users does not ask for setup")
	}
	code, _ := acc.SetupCode(ctx)
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "POST", Path: "/api/setup", Body: `{"code":"wrong","username":"admin","password":"` + sessiontest.Password + `"}`})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"admin","password":"` + sessiontest.Password + `"}`})
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/setup", Body: `{"code":"` + code + `","username":"admin","password":"` + sessiontest.Password + `"}`})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/setup"}).Decode(t, &need)
	if need.Needed {
		t.Fatal("setup is still needed after the admin was created")
	}
	h.Must(t, http.StatusConflict, sessiontest.Req{Method: "POST", Path: "/api/setup", Body: `{"code":"` + code + `","username":"again","password":"` + sessiontest.Password + `"}`})

	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"admin","password":"` + sessiontest.Password + `"}`})
	c := r.Cookie(session.CookieName)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/api" || c.Secure || c.MaxAge != 30*24*3600 || len(c.Value) != 43 {
		t.Fatalf("session cookie %+v; want HttpOnly, SameSite=Strict, Path=/api, 30 days, a 256-bit token, not Secure over plain HTTP", c)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("login answered Cache-Control %q", cc)
	}
	var s struct {
		User      identity.User `json:"user"`
		CSRFToken string        `json:"csrf_token"`
	}
	r.Decode(t, &s)
	if s.User.Username != "admin" || !s.User.Admin || s.CSRFToken == "" || strings.Contains(string(r.Body), "argon2") {
		t.Fatalf("login answered %s", r.Body)
	}
	b := &sessiontest.Browser{Cookie: c.Value, CSRF: s.CSRFToken}
	var again struct {
		CSRFToken string `json:"csrf_token"`
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/session", Session: b}).Decode(t, &again)
	if again.CSRFToken != s.CSRFToken {
		t.Fatalf("GET /api/session gives CSRF token %q, login gave %q", again.CSRFToken, s.CSRFToken)
	}
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/session"})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/home", Session: &sessiontest.Browser{Cookie: strings.Repeat("x", 43)}})
}

func TestSecureCookie(t *testing.T) {
	h := newHub(t)
	body := `{"username":"admin","password":"` + sessiontest.Password + `"}`
	secure := func(r sessiontest.Req) bool {
		t.Helper()
		r.Method, r.Path, r.Body = "POST", "/api/login", body
		return h.Must(t, http.StatusOK, r).Cookie(session.CookieName).Secure
	}
	if !secure(sessiontest.Req{TLS: true}) {
		t.Error("over TLS the cookie is not Secure")
	}
	if !secure(sessiontest.Req{Remote: "10.0.0.1:5000", Header: map[string]string{"X-Forwarded-Proto": "https"}}) {
		t.Error("behind a trusted TLS proxy the cookie is not Secure")
	}
	if secure(sessiontest.Req{Remote: "192.0.2.9:5000", Header: map[string]string{"X-Forwarded-Proto": "https"}}) {
		t.Error("an untrusted peer's X-Forwarded-Proto is believed")
	}
	h2 := newHub(t, func(c *api.Config) { c.SecureCookies = true })
	r := h2.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/login", Body: body})
	if !r.Cookie(session.CookieName).Secure {
		t.Error("SecureCookies does not make the cookie Secure")
	}
}

func TestStateChangesNeedCSRFAndTheHubsOrigin(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	// The real token with its first character changed (to one it cannot
	// already be), so the wrong token is wrong on every run.
	wrong := "x" + b.CSRF[1:]
	if b.CSRF[0] == 'x' {
		wrong = "y" + b.CSRF[1:]
	}
	create := func(r sessiontest.Req) sessiontest.Res {
		r.Method, r.Path, r.Body = "POST", "/api/rooms", `{"name":"Den"}`
		return h.Do(r)
	}
	for name, r := range map[string]sessiontest.Req{
		"no CSRF token":        {Session: &sessiontest.Browser{Cookie: b.Cookie}},
		"a wrong CSRF token":   {Session: &sessiontest.Browser{Cookie: b.Cookie, CSRF: wrong}},
		"a cross-site Origin":  {Session: b, Header: map[string]string{"Origin": "http://evil.example"}},
		"another port":         {Session: b, Header: map[string]string{"Origin": "http://example.com:8080"}},
		"another scheme":       {Session: b, Header: map[string]string{"Origin": "https://example.com"}},
		"Origin null":          {Session: b, Header: map[string]string{"Origin": "null"}},
		"Sec-Fetch-Site cross": {Session: b, Header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"Sec-Fetch-Site same-site (another origin)": {Session: b, Header: map[string]string{"Sec-Fetch-Site": "same-site"}},
		"no session":                {Header: map[string]string{"X-CSRF-Token": b.CSRF}},
		"a forged X-Forwarded-Host": {Session: b, Remote: "192.0.2.9:1", Header: map[string]string{"Origin": "http://evil.example", "X-Forwarded-Host": "evil.example"}},
		"an API key instead":        {Header: map[string]string{"Authorization": "Bearer " + mintKey(t, h, b)}},
	} {
		got := create(r)
		if got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
			t.Errorf("%s: POST /api/rooms = %d %s; want it refused", name, got.Status, got.Body)
		}
	}
	var rooms []service.RoomView
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/rooms", Session: b}).Decode(t, &rooms)
	for _, r := range rooms {
		if r.Name == "Den" {
			t.Fatal("a refused request created the room")
		}
	}

	// The hub's own origin, as a browser sends it; and behind a trusted
	// proxy, the origin the proxy was asked for.
	ok := create(sessiontest.Req{Session: b, Header: map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}})
	if ok.Status != http.StatusCreated {
		t.Fatalf("a same-origin POST = %d %s", ok.Status, ok.Body)
	}
	r := sessiontest.Req{Session: b, Remote: "10.0.0.1:1", Header: map[string]string{"Origin": "https://home.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "home.example"}}
	r.Method, r.Path, r.Body = "PATCH", "/api/rooms/Den", `{"name":"Snug"}`
	h.Must(t, http.StatusOK, r)

	// Sign-in is refused from another site too (login CSRF).
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"admin","password":"` + sessiontest.Password + `"}`,
		Header: map[string]string{"Origin": "http://evil.example"}})
}

func mintKey(t *testing.T, h *hub, b *sessiontest.Browser) string {
	t.Helper()
	var k struct{ Key string }
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/api-keys", Body: `{"name":"script"}`, Session: b}).Decode(t, &k)
	return k.Key
}

func TestLoginThrottle(t *testing.T) {
	h := newHub(t)
	attempt := func(remote, xff, pw string) sessiontest.Res {
		r := sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"admin","password":"` + pw + `"}`, Remote: remote}
		if xff != "" {
			r.Header = map[string]string{"X-Forwarded-For": xff}
		}
		return h.Do(r)
	}
	for i := range identity.LoginFailures {
		if got := attempt("192.0.2.50:1000", "", "guess"); got.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d = %d", i+1, got.Status)
		}
	}
	got := attempt("192.0.2.50:1001", "", sessiontest.Password)
	// The minute runs from the first failure; each failure costs a password
	// hash, so on a busy machine a few of its seconds are gone already.
	if wait, err := strconv.Atoi(got.Header.Get("Retry-After")); got.Status != http.StatusTooManyRequests || err != nil || wait < 45 || wait > 60 {
		t.Fatalf("sixth attempt = %d, Retry-After %q: %s; want 429 with Retry-After up to 60", got.Status, got.Header.Get("Retry-After"), got.Body)
	}
	if got := attempt("192.0.2.51:1000", "", sessiontest.Password); got.Status != http.StatusOK {
		t.Fatalf("another client = %d; want 200", got.Status)
	}

	// Behind the trusted proxy, clients are told apart by X-Forwarded-For.
	for range identity.LoginFailures {
		attempt("10.0.0.1:1", "203.0.113.5", "guess")
	}
	if got := attempt("10.0.0.1:1", "203.0.113.5", sessiontest.Password); got.Status != http.StatusTooManyRequests {
		t.Fatalf("a throttled client behind the proxy = %d", got.Status)
	}
	if got := attempt("10.0.0.1:1", "203.0.113.6", sessiontest.Password); got.Status != http.StatusOK {
		t.Fatalf("another client behind the proxy = %d", got.Status)
	}
	// An untrusted peer cannot dodge the limit with a forged header.
	for i := range identity.LoginFailures {
		attempt("192.0.2.60:1", "198.51.100."+string(rune('1'+i)), "guess")
	}
	if got := attempt("192.0.2.60:1", "198.51.100.99", sessiontest.Password); got.Status != http.StatusTooManyRequests {
		t.Fatalf("forged X-Forwarded-For dodged the throttle: %d", got.Status)
	}
}

func TestKeysAreMintedThroughASession(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	var k struct {
		ID, Key, Prefix string
	}
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/api-keys", Body: `{"name":"curl","scope":"control"}`, Session: b}).Decode(t, &k)
	if !strings.HasPrefix(k.Key, "bfr_") || !strings.HasPrefix(k.Key, k.Prefix) {
		t.Fatalf("new key %+v", k)
	}
	list := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/api-keys", Session: b})
	if strings.Contains(string(list.Body), k.Key) || !strings.Contains(string(list.Body), k.Prefix) {
		t.Fatalf("the key list shows the secret, or not the prefix: %s", list.Body)
	}
	bearer := map[string]string{"Authorization": "Bearer " + k.Key}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Header: bearer})
	// The key opens /api/v1, not the session API; the cookie opens the
	// session API, not /api/v1.
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/rooms", Header: bearer})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Session: b})

	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + k.ID, Session: b})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Header: bearer})
}

func TestLogoutEndsTheSession(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	other := h.Login(t, "admin", sessiontest.Password)
	r := h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "POST", Path: "/api/logout", Session: b})
	if c := r.Cookie(session.CookieName); c == nil || c.MaxAge >= 0 {
		t.Fatalf("logout does not clear the cookie: %+v", c)
	}
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/session", Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/session", Session: other})
}

func TestUsersAndPasswords(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	var bob identity.User
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"bob","password":"` + sessiontest.Password + `"}`, Session: admin}).Decode(t, &bob)
	b1, b2 := h.Login(t, "bob", sessiontest.Password), h.Login(t, "bob", sessiontest.Password)
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"eve","password":"` + sessiontest.Password + `"}`, Session: b1})
	h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: "/api/users/" + bob.ID + "/password", Body: `{"current":"nope","password":"a new passphrase"}`, Session: b1})
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "PUT", Path: "/api/users/" + bob.ID + "/password", Body: `{"current":"` + sessiontest.Password + `","password":"a new passphrase"}`, Session: b1})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/session", Session: b1})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/session", Session: b2})

	h.Must(t, http.StatusConflict, sessiontest.Req{Method: "DELETE", Path: "/api/users/admin", Session: admin})
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "DELETE", Path: "/api/users/bob", Session: admin})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/session", Session: b1})

	var log []service.AuditEntry
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit?limit=5", Session: admin}).Decode(t, &log)
	if len(log) != 5 || log[0].Action != "user.delete" || log[0].ActorName != "admin" || log[0].Target != "bob" {
		t.Fatalf("audit log %+v", log)
	}
}

func TestHomeThroughTheSession(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	var home service.Home
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/home", Session: b}).Decode(t, &home)
	if len(home.Lights) == 0 || len(home.Rooms) == 0 {
		t.Fatalf("home %+v", home)
	}
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/rooms", Body: `{"name":"Studio"}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/rooms/Studio/members", Body: `{"device":"sim:key-light"}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/rooms/Studio/members", Body: `{"device":"Fill Light"}`, Session: b})
	var fan service.FanoutResult
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/rooms/Studio/state", Body: `{"brightness":30}`, Session: b}).Decode(t, &fan)
	if len(fan.Applied) != 2 {
		t.Fatalf("room write %+v", fan)
	}
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/scenes", Body: `{"name":"Focus","room":"Studio"}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/lights/sim%3Akey-light/state", Body: `{"on":false}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/scenes/Focus/activate", Session: b})
	var l service.Light
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/v1/lights/sim:key-light", Header: map[string]string{"Authorization": "Bearer " + mintKey(t, h, b)}}).Decode(t, &l)
	if l.State == nil || !l.State.On || l.State.Brightness != 30 {
		t.Fatalf("after the scene, Key Light is %+v", l.State)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PATCH", Path: "/api/devices/sim:key-light", Body: `{"name":"Key"}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/power/devices/Coffee%20Plug/state", Body: `{"on":false}`, Session: b})
	h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: "/api/power/devices/Coffee%20Plug/state", Body: `{}`, Session: b})
	h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "POST", Path: "/api/rooms", Body: `{"name":"X","bogus":1}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/media/devices/Kitchen%20Sonos/state", Body: `{"volume":12}`, Session: b})
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/media/devices/Kitchen%20Sonos/favorites", Session: b})
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "DELETE", Path: "/api/scenes/Focus", Session: b})
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "DELETE", Path: "/api/rooms/Studio", Session: b})
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
		got := h.Do(sessiontest.Req{Method: c.method, Path: c.path})
		if got.Status != c.want || !strings.HasPrefix(got.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s = %d %s; want %d JSON", c.method, c.path, got.Status, got.Header.Get("Content-Type"), c.want)
		}
	}
}

func TestEventsFollowTheHouse(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	ts := httptest.NewServer(h.Handler)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events", nil)
	r.AddCookie(&http.Cookie{Name: session.CookieName, Value: b.Cookie})
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /api/events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/lights/Key%20Light/state", Body: `{"brightness":42}`, Session: b})
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
	page := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/"})
	hd := page.Header
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
	h.Must(t, http.StatusNotModified, sessiontest.Req{Method: "GET", Path: "/", Header: map[string]string{"If-None-Match": hd.Get("ETag")}})

	if regexp.MustCompile(`<script(?:\s+type="module")?>|<script[^>]*>[^<]+</script>| on[a-z]+=`).Match(page.Body) {
		t.Errorf("the page has inline script:\n%s", page.Body)
	}
	m := regexp.MustCompile(`src="(/assets/([0-9a-f]{12})/app\.js)"`).FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("the page does not load a versioned app.js:\n%s", page.Body)
	}
	js := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: string(m[1])})
	if !strings.Contains(js.Header.Get("Content-Type"), "javascript") || !strings.Contains(js.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("app.js answered %q, cached %q", js.Header.Get("Content-Type"), js.Header.Get("Cache-Control"))
	}
	old := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/assets/000000000000/app.js"})
	if old.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an asset of another version is cached as %q", old.Header.Get("Cache-Control"))
	}
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/assets/" + string(m[2]) + "/nothing.js"})
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/assets/" + string(m[2]) + "/../index.html"})
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
