package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

const (
	brokerPassword = "broker-pw-7Rk2Qz"
	haToken        = "ha-long-lived-token.Wq83kz"
)

// offRunner is an adapter (MQTT's, Home Assistant's) that never connects:
// it reports off, and records what it is asked to run.
type offRunner[S any] struct{ applied []S }

func (r *offRunner[S]) Apply(s S) error {
	r.applied = append(r.applied, s)
	return nil
}

func (r *offRunner[S]) Fixed() (none S) { return none }

func (r *offRunner[S]) Status() integrations.Status {
	return integrations.Status{State: integrations.StateOff}
}

// integrationsHub is the HTTP server over real SQLite with an admin,
// "admin", and integrations whose secrets are sealed under a secret.
type integrationsHub struct {
	*hub
	mqtt *offRunner[integrations.MQTTSettings]
	hass *offRunner[integrations.HASSSettings]
}

func newIntegrationsHub(t *testing.T, secret string) *integrationsHub {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := newIdentity(t, svc, db, nil)
	x := &integrationsHub{mqtt: &offRunner[integrations.MQTTSettings]{}, hass: &offRunner[integrations.HASSSettings]{}}
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Secret: secret,
		MQTT: x.mqtt, HASS: x.hass, SettleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	x.hub = &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	return x
}

// integrationCase is one integration as the API tests drive it: where it
// is, a save with its secret, and the secrets its adapter was given.
type integrationCase struct {
	path, url, secretKey, secret string
	applied                      func(*integrationsHub) []string
}

var integrationCases = map[string]integrationCase{
	"mqtt": {path: "/api/integrations/mqtt", url: "mqtt://broker.lan", secretKey: "password", secret: brokerPassword,
		applied: func(h *integrationsHub) []string {
			return secretsOf(h.mqtt.applied, func(s integrations.MQTTSettings) string { return s.Password })
		}},
	"hass": {path: "/api/integrations/hass", url: "http://homeassistant.local:8123", secretKey: "token", secret: haToken,
		applied: func(h *integrationsHub) []string {
			return secretsOf(h.hass.applied, func(s integrations.HASSSettings) string { return s.Token })
		}},
}

func secretsOf[S any](applied []S, secret func(S) string) []string {
	out := []string{}
	for _, s := range applied {
		out = append(out, secret(s))
	}
	return out
}

// TestIntegrationsAPI saves each integration's settings as the web UI
// does: the secret goes in, and never comes out.
func TestIntegrationsAPI(t *testing.T) {
	for name, tc := range integrationCases {
		t.Run(name, func(t *testing.T) {
			h := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
			b := h.login(t, "admin", password)
			unset, set := `"`+tc.secretKey+`":{"set":false}`, `"`+tc.secretKey+`":{"set":true}`

			r := h.must(t, http.StatusOK, req{method: "GET", path: tc.path, session: b})
			if !strings.Contains(string(r.body), unset) || !strings.Contains(string(r.body), `"state":"off"`) ||
				!strings.Contains(string(r.body), `"can_save_secrets":true`) {
				t.Fatalf("GET before a save: %s", r.body)
			}
			body := `{"url":"` + tc.url + `","` + tc.secretKey + `":"` + tc.secret + `"}`
			r = h.must(t, http.StatusOK, req{method: "PUT", path: tc.path, body: body, session: b})
			if strings.Contains(string(r.body), tc.secret) || !strings.Contains(string(r.body), set) || !strings.Contains(string(r.body), `"url":"`+tc.url+`"`) {
				t.Fatalf("PUT answered %s", r.body)
			}
			if got := tc.applied(h); len(got) != 1 || got[0] != tc.secret {
				t.Fatalf("applied secrets %q", got)
			}
			r = h.must(t, http.StatusOK, req{method: "GET", path: tc.path, session: b})
			if strings.Contains(string(r.body), tc.secret) || !strings.Contains(string(r.body), set) {
				t.Fatalf("GET answers %s", r.body)
			}
			if cc := r.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
			r = h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit", session: b})
			if strings.Contains(string(r.body), tc.secret) || !strings.Contains(string(r.body), "integration.save") || !strings.Contains(string(r.body), `"`+name+`"`) {
				t.Errorf("audit log: %s", r.body)
			}

			h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: tc.path, body: `{"url":"tcp://elsewhere.lan"}`, session: b})
			h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: tc.path, body: `{"host":"elsewhere.lan"}`, session: b})
			h.must(t, http.StatusOK, req{method: "DELETE", path: tc.path, session: b})
			h.must(t, http.StatusNotFound, req{method: "DELETE", path: tc.path, session: b})
		})
	}
}

func TestIntegrationsAPI_Guarded(t *testing.T) {
	h := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	admin := h.login(t, "admin", password)
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"guest","password":"` + password + `"}`, session: admin})
	guest := h.login(t, "guest", password)
	key := mintKey(t, h.hub, admin)
	for path, put := range map[string]string{
		"/api/integrations/mqtt": `{"url":"mqtt://evil.example"}`,
		"/api/integrations/hass": `{"url":"http://evil.example:8123","token":"stolen"}`,
	} {
		for name, r := range map[string]req{
			"a user who is no admin": {session: guest},
			"no CSRF token":          {session: &browser{cookie: admin.cookie}},
			"another origin":         {session: admin, header: map[string]string{"Origin": "http://evil.example"}},
			"an API key":             {header: map[string]string{"Authorization": "Bearer " + key}},
			"nobody":                 {},
		} {
			for _, method := range []string{"PUT", "DELETE"} {
				r.method, r.path, r.body = method, path, put
				if method == "DELETE" {
					r.body = ""
				}
				if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
					t.Errorf("%s: %s %s = %d %s; want it refused", name, method, path, got.status, got.body)
				}
			}
		}
		for name, r := range map[string]req{"a user who is no admin": {session: guest}, "an API key": {header: map[string]string{"Authorization": "Bearer " + key}}} {
			r.method, r.path = "GET", path
			if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
				t.Errorf("%s: GET %s = %d %s", name, path, got.status, got.body)
			}
		}
		// /api/v1 has nothing of the kind.
		h.must(t, http.StatusNotFound, req{method: "GET", path: strings.Replace(path, "/api/", "/api/v1/", 1), header: map[string]string{"Authorization": "Bearer " + key}})
	}
	if len(h.mqtt.applied) != 0 || len(h.hass.applied) != 0 {
		t.Fatalf("a refused request applied settings: %+v, %+v", h.mqtt.applied, h.hass.applied)
	}
}

// TestIntegrationsAPI_HASSInput sends what the Home Assistant card must
// refuse: each is a 4xx that says what is wrong.
func TestIntegrationsAPI_HASSInput(t *testing.T) {
	h := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	b := h.login(t, "admin", password)
	for bad, says := range map[string]string{
		`{"url":"homeassistant.local:8123"}`:    `"field":"url"`,
		`{"url":"http://me:pw@ha.lan:8123"}`:    "username or password",
		`{"ca_file":"ha.pem"}`:                  `"field":"ca_file"`,
		`{"token":"two words"}`:                 `"field":"token"`,
		`{"token":"x","clear_token":true}`:      "not both",
		`{"host":"ha.lan"}`:                     "host",
		`{"url":42}`:                            "url",
		`{"url":"http://ha.lan:8123"} trailing`: "one object",
	} {
		r := h.do(req{method: "PUT", path: "/api/integrations/hass", body: bad, session: b})
		if r.status < 400 || r.status >= 500 || !strings.Contains(string(r.body), says) {
			t.Errorf("PUT %s = %d %s; want a 4xx saying %q", bad, r.status, r.body, says)
		}
	}
	if len(h.hass.applied) != 0 {
		t.Fatalf("refused settings were applied: %+v", h.hass.applied)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/hass", body: `{"url":"http://ha.lan:8123","token":"` + haToken + `"}`, session: b})
	r := h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/hass", body: `{"clear_token":true}`, session: b})
	if !strings.Contains(string(r.body), `"token":{"set":false}`) || h.hass.applied[len(h.hass.applied)-1].Token != "" {
		t.Errorf("after clear_token: %s, applied %+v", r.body, h.hass.applied)
	}
}

func TestIntegrationsAPI_NoSecret(t *testing.T) {
	h := newIntegrationsHub(t, "")
	b := h.login(t, "admin", password)
	r := h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/mqtt", session: b,
		body: `{"url":"mqtt://broker.lan","password":"` + brokerPassword + `"}`})
	if !strings.Contains(string(r.body), "BIFROST_SECRET") || !strings.Contains(string(r.body), `"field":"password"`) {
		t.Fatalf("refusal: %s", r.body)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/mqtt", session: b, body: `{"url":"mqtt://broker.lan"}`})
	r = h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/hass", session: b,
		body: `{"url":"http://ha.lan:8123","token":"` + haToken + `"}`})
	if !strings.Contains(string(r.body), "BIFROST_SECRET") || !strings.Contains(string(r.body), `"field":"token"`) || strings.Contains(string(r.body), haToken) {
		t.Fatalf("refusal of a token: %s", r.body)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/hass", session: b, body: `{"url":"http://ha.lan:8123"}`})
}

func TestIntegrationsAPI_Absent(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/api/integrations/mqtt", session: b})
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/api/integrations/hass", session: b})
}

// locationRunner records the locations it is told.
type locationRunner struct{ told [][2]*float64 }

func (l *locationRunner) SetLocation(lat, lon *float64) {
	l.told = append(l.told, [2]*float64{lat, lon})
}

func TestLocationSettings(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := newIdentity(t, svc, db, nil)
	runner := &locationRunner{}
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Location: runner})
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	b := h.login(t, "admin", password)

	var loc integrations.Location
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/location", session: b}).decode(t, &loc)
	if loc.Latitude != nil || loc.Fixed {
		t.Fatalf("before a save: %+v", loc)
	}
	for _, bad := range []string{`{"latitude": 91, "longitude": 0}`, `{"latitude": 52.5}`, `{"latitude": 52.5, "longitude": 200}`, `{"lat": 1}`} {
		h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/location", body: bad, session: b})
	}
	if len(runner.told) != 0 {
		t.Fatalf("a refused location reached the automations: %v", runner.told)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/location", body: `{"latitude": 52.52, "longitude": 13.405}`, session: b})
	if len(runner.told) != 1 || *runner.told[0][0] != 52.52 || *runner.told[0][1] != 13.405 {
		t.Fatalf("the automations were told %v", runner.told)
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/location", session: b}).decode(t, &loc)
	if loc.Latitude == nil || *loc.Latitude != 52.52 {
		t.Fatalf("after a save: %+v", loc)
	}
	// A new start hands the saved location over.
	runner2 := &locationRunner{}
	in2, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Location: runner2})
	if err != nil {
		t.Fatal(err)
	}
	if err := in2.StartLocation(ctx); err != nil || len(runner2.told) != 1 || *runner2.told[0][0] != 52.52 {
		t.Fatalf("at start the automations were told %v (%v)", runner2.told, err)
	}
	// The configuration wins and cannot be changed here.
	lat, lon := 40.0, -105.0
	fixed, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Latitude: &lat, Longitude: &lon})
	if err != nil {
		t.Fatal(err)
	}
	h2 := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: fixed}).Handler()}
	b2 := h2.login(t, "admin", password)
	h2.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/location", session: b2}).decode(t, &loc)
	if !loc.Fixed || *loc.Latitude != 40 {
		t.Fatalf("with the configuration's location: %+v", loc)
	}
	h2.must(t, http.StatusConflict, req{method: "PUT", path: "/api/integrations/location", body: `{"latitude": 1, "longitude": 1}`, session: b2})
}
