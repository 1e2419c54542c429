package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

const brokerPassword = "broker-pw-7Rk2Qz"

// offRunner is an MQTT adapter that never connects: it reports off.
type offRunner struct{ applied []service.MQTTSettings }

func (r *offRunner) Apply(s service.MQTTSettings) error {
	r.applied = append(r.applied, s)
	return nil
}
func (r *offRunner) Fixed() service.MQTTSettings { return service.MQTTSettings{} }
func (r *offRunner) Status() service.IntegrationStatus {
	return service.IntegrationStatus{State: service.IntegrationOff}
}

// newIntegrationsHub is the HTTP server over real SQLite with an admin,
// "admin", and integrations whose secrets are sealed under secret.
func newIntegrationsHub(t *testing.T, secret string) (*hub, *offRunner) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := newIdentity(t, svc, db, nil)
	r := &offRunner{}
	in, err := service.NewIntegrations(svc, service.IntegrationsConfig{Store: db, Admins: acc, Secret: secret, MQTT: r, SettleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	return h, r
}

func TestIntegrationsAPI(t *testing.T) {
	h, runner := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	b := h.login(t, "admin", password)

	var v struct {
		URL      string
		Password struct{ Set bool }
		Status   struct{ State string }
		CanSave  bool `json:"can_save_secrets"`
		Warning  string
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/mqtt", session: b}).decode(t, &v)
	if v.Password.Set || v.Status.State != "off" || !v.CanSave {
		t.Fatalf("GET before a save: %+v", v)
	}
	body := `{"url":"mqtt://broker.lan","username":"hub","password":"` + brokerPassword + `"}`
	r := h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/mqtt", body: body, session: b})
	if strings.Contains(string(r.body), brokerPassword) {
		t.Fatalf("the save answers the password: %s", r.body)
	}
	r.decode(t, &v)
	if v.URL != "mqtt://broker.lan" || !v.Password.Set {
		t.Fatalf("PUT answered %s", r.body)
	}
	if len(runner.applied) != 1 || runner.applied[0].Password != brokerPassword {
		t.Fatalf("applied %+v", runner.applied)
	}
	r = h.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/mqtt", session: b})
	if strings.Contains(string(r.body), brokerPassword) || !strings.Contains(string(r.body), `"password":{"set":true}`) {
		t.Fatalf("GET answers %s", r.body)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	r = h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit", session: b})
	if strings.Contains(string(r.body), brokerPassword) || !strings.Contains(string(r.body), "integration.save") {
		t.Errorf("audit log: %s", r.body)
	}

	h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/mqtt", body: `{"url":"http://broker.lan"}`, session: b})
	h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/mqtt", body: `{"host":"broker.lan"}`, session: b})
	h.must(t, http.StatusOK, req{method: "DELETE", path: "/api/integrations/mqtt", session: b})
	h.must(t, http.StatusNotFound, req{method: "DELETE", path: "/api/integrations/mqtt", session: b})
}

func TestIntegrationsAPI_Guarded(t *testing.T) {
	h, runner := newIntegrationsHub(t, "an-install-secret-of-32-chars-ok")
	admin := h.login(t, "admin", password)
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"guest","password":"` + password + `"}`, session: admin})
	guest := h.login(t, "guest", password)
	key := mintKey(t, h, admin)
	put := `{"url":"mqtt://evil.example"}`
	for name, r := range map[string]req{
		"a user who is no admin": {session: guest},
		"no CSRF token":          {session: &browser{cookie: admin.cookie}},
		"another origin":         {session: admin, header: map[string]string{"Origin": "http://evil.example"}},
		"an API key":             {header: map[string]string{"Authorization": "Bearer " + key}},
		"nobody":                 {},
	} {
		for _, method := range []string{"PUT", "DELETE"} {
			r.method, r.path, r.body = method, "/api/integrations/mqtt", put
			if method == "DELETE" {
				r.body = ""
			}
			if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
				t.Errorf("%s: %s = %d %s; want it refused", name, method, got.status, got.body)
			}
		}
	}
	for name, r := range map[string]req{"a user who is no admin": {session: guest}, "an API key": {header: map[string]string{"Authorization": "Bearer " + key}}} {
		r.method, r.path = "GET", "/api/integrations/mqtt"
		if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
			t.Errorf("%s: GET = %d %s", name, got.status, got.body)
		}
	}
	// /api/v1 has nothing of the kind.
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/api/v1/integrations/mqtt", header: map[string]string{"Authorization": "Bearer " + key}})
	if len(runner.applied) != 0 {
		t.Fatalf("a refused request applied settings: %+v", runner.applied)
	}
}

func TestIntegrationsAPI_NoSecret(t *testing.T) {
	h, _ := newIntegrationsHub(t, "")
	b := h.login(t, "admin", password)
	r := h.must(t, http.StatusUnprocessableEntity, req{method: "PUT", path: "/api/integrations/mqtt", session: b,
		body: `{"url":"mqtt://broker.lan","password":"` + brokerPassword + `"}`})
	if !strings.Contains(string(r.body), "BIFROST_SECRET") || !strings.Contains(string(r.body), `"field":"password"`) {
		t.Fatalf("refusal: %s", r.body)
	}
	h.must(t, http.StatusOK, req{method: "PUT", path: "/api/integrations/mqtt", session: b, body: `{"url":"mqtt://broker.lan"}`})
}

func TestIntegrationsAPI_Absent(t *testing.T) {
	h := newHub(t)
	b := h.login(t, "admin", password)
	h.must(t, http.StatusNotFound, req{method: "GET", path: "/api/integrations/mqtt", session: b})
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
	in, err := service.NewIntegrations(svc, service.IntegrationsConfig{Store: db, Admins: acc, Location: runner})
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in}).Handler()}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	b := h.login(t, "admin", password)

	var loc service.Location
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
	in2, err := service.NewIntegrations(svc, service.IntegrationsConfig{Store: db, Admins: acc, Location: runner2})
	if err != nil {
		t.Fatal(err)
	}
	if err := in2.StartLocation(ctx); err != nil || len(runner2.told) != 1 || *runner2.told[0][0] != 52.52 {
		t.Fatalf("at start the automations were told %v (%v)", runner2.told, err)
	}
	// The configuration wins and cannot be changed here.
	lat, lon := 40.0, -105.0
	fixed, err := service.NewIntegrations(svc, service.IntegrationsConfig{Store: db, Admins: acc, Latitude: &lat, Longitude: &lon})
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
