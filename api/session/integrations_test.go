package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
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
	keys, acc := sessiontest.NewIdentity(t, svc, db, nil)
	x := &integrationsHub{mqtt: &offRunner[integrations.MQTTSettings]{}, hass: &offRunner[integrations.HASSSettings]{}}
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Secret: secret,
		MQTT: x.mqtt, HASS: x.hass, SettleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	x.hub = &hub{&sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", sessiontest.Password); err != nil {
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
			b := h.Login(t, "admin", sessiontest.Password)
			unset, set := `"`+tc.secretKey+`":{"set":false}`, `"`+tc.secretKey+`":{"set":true}`

			r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: tc.path, Session: b})
			if !strings.Contains(string(r.Body), unset) || !strings.Contains(string(r.Body), `"state":"off"`) ||
				!strings.Contains(string(r.Body), `"can_save_secrets":true`) {
				t.Fatalf("GET before a save: %s", r.Body)
			}
			body := `{"url":"` + tc.url + `","` + tc.secretKey + `":"` + tc.secret + `"}`
			r = h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: tc.path, Body: body, Session: b})
			if strings.Contains(string(r.Body), tc.secret) || !strings.Contains(string(r.Body), set) || !strings.Contains(string(r.Body), `"url":"`+tc.url+`"`) {
				t.Fatalf("PUT answered %s", r.Body)
			}
			if got := tc.applied(h); len(got) != 1 || got[0] != tc.secret {
				t.Fatalf("applied secrets %q", got)
			}
			r = h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: tc.path, Session: b})
			if strings.Contains(string(r.Body), tc.secret) || !strings.Contains(string(r.Body), set) {
				t.Fatalf("GET answers %s", r.Body)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
			r = h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit", Session: b})
			if strings.Contains(string(r.Body), tc.secret) || !strings.Contains(string(r.Body), "integration.save") || !strings.Contains(string(r.Body), `"`+name+`"`) {
				t.Errorf("audit log: %s", r.Body)
			}

			h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: tc.path, Body: `{"url":"tcp://elsewhere.lan"}`, Session: b})
			h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: tc.path, Body: `{"host":"elsewhere.lan"}`, Session: b})
			h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: tc.path, Session: b})
			h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "DELETE", Path: tc.path, Session: b})
		})
	}
}

func TestIntegrationsAPI_Guarded(t *testing.T) {
	h := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	admin := h.Login(t, "admin", sessiontest.Password)
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"guest","password":"` + sessiontest.Password + `"}`, Session: admin})
	guest := h.Login(t, "guest", sessiontest.Password)
	key := mintKey(t, h.hub, admin)
	for path, put := range map[string]string{
		"/api/integrations/mqtt": `{"url":"mqtt://evil.example"}`,
		"/api/integrations/hass": `{"url":"http://evil.example:8123","token":"stolen"}`,
	} {
		for name, r := range map[string]sessiontest.Req{
			"a user who is no admin": {Session: guest},
			"no CSRF token":          {Session: &sessiontest.Browser{Cookie: admin.Cookie}},
			"another origin":         {Session: admin, Header: map[string]string{"Origin": "http://evil.example"}},
			"an API key":             {Header: map[string]string{"Authorization": "Bearer " + key}},
			"nobody":                 {},
		} {
			for _, method := range []string{"PUT", "DELETE"} {
				r.Method, r.Path, r.Body = method, path, put
				if method == "DELETE" {
					r.Body = ""
				}
				if got := h.Do(r); got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
					t.Errorf("%s: %s %s = %d %s; want it refused", name, method, path, got.Status, got.Body)
				}
			}
		}
		for name, r := range map[string]sessiontest.Req{"a user who is no admin": {Session: guest}, "an API key": {Header: map[string]string{"Authorization": "Bearer " + key}}} {
			r.Method, r.Path = "GET", path
			if got := h.Do(r); got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
				t.Errorf("%s: GET %s = %d %s", name, path, got.Status, got.Body)
			}
		}
		// /api/v1 has nothing of the kind.
		h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: strings.Replace(path, "/api/", "/api/v1/", 1), Header: map[string]string{"Authorization": "Bearer " + key}})
	}
	if len(h.mqtt.applied) != 0 || len(h.hass.applied) != 0 {
		t.Fatalf("a refused request applied settings: %+v, %+v", h.mqtt.applied, h.hass.applied)
	}
}

// TestIntegrationsAPI_HASSInput sends what the Home Assistant card must
// refuse: each is a 4xx that says what is wrong.
func TestIntegrationsAPI_HASSInput(t *testing.T) {
	h := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	b := h.Login(t, "admin", sessiontest.Password)
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
		r := h.Do(sessiontest.Req{Method: "PUT", Path: "/api/integrations/hass", Body: bad, Session: b})
		if r.Status < 400 || r.Status >= 500 || !strings.Contains(string(r.Body), says) {
			t.Errorf("PUT %s = %d %s; want a 4xx saying %q", bad, r.Status, r.Body, says)
		}
	}
	if len(h.hass.applied) != 0 {
		t.Fatalf("refused settings were applied: %+v", h.hass.applied)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/integrations/hass", Body: `{"url":"http://ha.lan:8123","token":"` + haToken + `"}`, Session: b})
	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/integrations/hass", Body: `{"clear_token":true}`, Session: b})
	if !strings.Contains(string(r.Body), `"token":{"set":false}`) || h.hass.applied[len(h.hass.applied)-1].Token != "" {
		t.Errorf("after clear_token: %s, applied %+v", r.Body, h.hass.applied)
	}
}

func TestIntegrationsAPI_NoSecret(t *testing.T) {
	h := newIntegrationsHub(t, "")
	b := h.Login(t, "admin", sessiontest.Password)
	r := h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: "/api/integrations/mqtt", Session: b,
		Body: `{"url":"mqtt://broker.lan","password":"` + brokerPassword + `"}`})
	if !strings.Contains(string(r.Body), "BIFROST_SECRET") || !strings.Contains(string(r.Body), `"field":"password"`) {
		t.Fatalf("refusal: %s", r.Body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/integrations/mqtt", Session: b, Body: `{"url":"mqtt://broker.lan"}`})
	r = h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: "/api/integrations/hass", Session: b,
		Body: `{"url":"http://ha.lan:8123","token":"` + haToken + `"}`})
	if !strings.Contains(string(r.Body), "BIFROST_SECRET") || !strings.Contains(string(r.Body), `"field":"token"`) || strings.Contains(string(r.Body), haToken) {
		t.Fatalf("refusal of a token: %s", r.Body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/integrations/hass", Session: b, Body: `{"url":"http://ha.lan:8123"}`})
}

func TestIntegrationsAPI_Absent(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/integrations/mqtt", Session: b})
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/integrations/hass", Session: b})
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
	keys, acc := sessiontest.NewIdentity(t, svc, db, nil)
	runner := &locationRunner{}
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Location: runner})
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{&sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", sessiontest.Password); err != nil {
		t.Fatal(err)
	}
	b := h.Login(t, "admin", sessiontest.Password)

	var loc integrations.Location
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/integrations/location", Session: b}).Decode(t, &loc)
	if loc.Latitude != nil || loc.Fixed {
		t.Fatalf("before a save: %+v", loc)
	}
	for _, bad := range []string{`{"latitude": 91, "longitude": 0}`, `{"latitude": 52.5}`, `{"latitude": 52.5, "longitude": 200}`, `{"lat": 1}`} {
		h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "PUT", Path: "/api/integrations/location", Body: bad, Session: b})
	}
	if len(runner.told) != 0 {
		t.Fatalf("a refused location reached the automations: %v", runner.told)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/integrations/location", Body: `{"latitude": 52.52, "longitude": 13.405}`, Session: b})
	if len(runner.told) != 1 || *runner.told[0][0] != 52.52 || *runner.told[0][1] != 13.405 {
		t.Fatalf("the automations were told %v", runner.told)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/integrations/location", Session: b}).Decode(t, &loc)
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
	h2 := &hub{&sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: fixed}).Handler()}}
	b2 := h2.Login(t, "admin", sessiontest.Password)
	h2.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/integrations/location", Session: b2}).Decode(t, &loc)
	if !loc.Fixed || *loc.Latitude != 40 {
		t.Fatalf("with the configuration's location: %+v", loc)
	}
	h2.Must(t, http.StatusConflict, sessiontest.Req{Method: "PUT", Path: "/api/integrations/location", Body: `{"latitude": 1, "longitude": 1}`, Session: b2})
}
