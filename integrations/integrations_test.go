package integrations_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

const (
	hubSecret  = "k7Qx2vN9pL4sR8tW1yZ5bC3dF6gH0jM2"
	mqttPass   = "broker-pass-Zq81xk"
	otherHubSk = "another-secret-entirely-0123456789"
)

// fakeRunner stands for the MQTT adapter: it records what it is asked to
// run and reports the state it is told to.
type fakeRunner struct {
	mu       sync.Mutex
	fixed    integrations.MQTTSettings
	applied  []integrations.MQTTSettings
	applyErr error
	status   integrations.Status
}

func (f *fakeRunner) Apply(s integrations.MQTTSettings) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, s)
	return f.applyErr
}

func (f *fakeRunner) Fixed() integrations.MQTTSettings {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fixed
}

// set changes how the runner behaves from now on.
func (f *fakeRunner) set(change func(f *fakeRunner)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeRunner) Status() integrations.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeRunner) last(t *testing.T) integrations.MQTTSettings {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.applied) == 0 {
		t.Fatal("nothing was applied")
	}
	return f.applied[len(f.applied)-1]
}

// people is a service over real SQLite, no devices, with the accounts
// beside it as the hub wires them.
type people struct {
	svc *service.Service
	acc *identity.Accounts
	db  *store.DB
	sys context.Context // the command line
}

func newPeople(t *testing.T) *people {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(service.Config{Store: db})
	_, acc := servicetest.Identity(t, svc, db)
	return &people{svc: svc, acc: acc, db: db, sys: service.WithPrincipal(ctx, service.System)}
}

const pw = "correct horse battery"

// setup creates the first admin, "admin", through the setup code.
func (p *people) setup(t *testing.T) {
	t.Helper()
	code, err := p.acc.SetupCode(context.Background())
	if err != nil || code == "" {
		t.Fatalf("SetupCode = %q, %v", code, err)
	}
	if _, err := p.acc.Setup(context.Background(), "192.0.2.1", code, "admin", pw); err != nil {
		t.Fatal(err)
	}
}

func (p *people) login(t *testing.T, user, password string) identity.NewSession {
	t.Helper()
	s, err := p.acc.Login(context.Background(), "192.0.2.1", user, password)
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return s
}

func (p *people) as(si identity.SessionInfo) context.Context {
	return service.WithPrincipal(context.Background(), si.Principal())
}

// integrationsHub is a service with an admin, over real SQLite, and its
// integrations with a fake MQTT runner.
type integrationsHub struct {
	*people
	in     *integrations.Manager
	runner *fakeRunner
	admin  context.Context
	path   string
}

func newIntegrations(t *testing.T, secret string) *integrationsHub {
	t.Helper()
	p := newPeople(t)
	p.setup(t)
	s := p.login(t, "admin", pw)
	x := &integrationsHub{people: p, runner: &fakeRunner{status: integrations.Status{State: integrations.StateConnected}},
		admin: p.as(s.SessionInfo)}
	x.in = x.reopen(t, secret, x.runner)
	return x
}

// reopen makes the integrations again over the same database, as a
// restarted hub would.
func (x *integrationsHub) reopen(t *testing.T, secret string, r integrations.AdapterRunner[integrations.MQTTSettings]) *integrations.Manager {
	t.Helper()
	in, err := integrations.New(integrations.Config{Store: x.db, Admins: x.acc, Audit: x.svc, Secret: secret, MQTT: r, SettleTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func str(s string) *string { return &s }

func (x *integrationsHub) save(t *testing.T, u integrations.MQTTUpdate) integrations.MQTTSaved {
	t.Helper()
	res, err := x.in.SaveMQTT(x.admin, u)
	if err != nil {
		t.Fatalf("SaveMQTT: %v", err)
	}
	return res
}

func TestIntegrations_SaveAndRead(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	v, err := x.in.MQTT(x.admin)
	if err != nil || v.UpdatedAt != nil || v.Password.Set || !v.CanSaveSecrets || v.Status.State != integrations.StateConnected {
		t.Fatalf("before any save: %+v, %v", v, err)
	}
	res := x.save(t, integrations.MQTTUpdate{URL: str(" mqtt://broker.lan:1883 "), Username: str("hub"), Password: mqttPass, ClientID: str("bifrost-den")})
	if res.Warning != "" || res.URL != "mqtt://broker.lan:1883" || res.Username != "hub" || !res.Password.Set || res.UpdatedAt == nil {
		t.Fatalf("saved = %+v", res)
	}
	if got := x.runner.last(t); got != (integrations.MQTTSettings{URL: "mqtt://broker.lan:1883", Username: "hub", Password: mqttPass, ClientID: "bifrost-den"}) {
		t.Errorf("applied %+v", got)
	}

	// An empty password keeps the saved one; a field left out keeps its
	// value.
	x.save(t, integrations.MQTTUpdate{Username: str("hub2")})
	if got := x.runner.last(t); got.Password != mqttPass || got.URL != "mqtt://broker.lan:1883" || got.Username != "hub2" {
		t.Errorf("after a save without a password, applied %+v", got)
	}
	// A restarted hub opens the password.
	again := &fakeRunner{}
	if saved, err := x.reopen(t, hubSecret, again).StartMQTT(context.Background()); err != nil || !saved {
		t.Fatalf("StartMQTT = %v, %v", saved, err)
	}
	if got := again.last(t); got.Password != mqttPass || got.Username != "hub2" {
		t.Errorf("at start, applied %+v", got)
	}

	res = x.save(t, integrations.MQTTUpdate{ClearPassword: true})
	if res.Password.Set || x.runner.last(t).Password != "" {
		t.Errorf("after clearing: %+v, applied %+v", res, x.runner.last(t))
	}
	if _, err := x.in.SaveMQTT(x.admin, integrations.MQTTUpdate{Password: "x", ClearPassword: true}); service.ErrorCode(err) != service.EINVALID {
		t.Errorf("a password and clear_password = %v", err)
	}
}

func TestIntegrations_SecretNeverShown(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	x.save(t, integrations.MQTTUpdate{URL: str("mqtts://broker.lan"), Password: mqttPass})
	v, err := x.in.MQTT(x.admin)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), mqttPass) || !strings.Contains(string(b), `"password":{"set":true}`) {
		t.Fatalf("the view shows %s", b)
	}
	log, err := x.svc.AuditLog(x.admin, 10)
	if err != nil {
		t.Fatal(err)
	}
	if log[0].Action != "integration.save" || log[0].Target != "mqtt" || log[0].Detail != "changed url, password" || log[0].Result != "ok" {
		t.Errorf("audit entry %+v", log[0])
	}
	for _, e := range log {
		if b, _ := json.Marshal(e); strings.Contains(string(b), mqttPass) {
			t.Errorf("the audit log holds the password: %s", b)
		}
	}
	rec, err := x.db.GetIntegration(context.Background(), "mqtt")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec.Config), mqttPass) || strings.Contains(string(rec.Secret), mqttPass) || len(rec.Secret) == 0 {
		t.Errorf("stored config %s, secret %x", rec.Config, rec.Secret)
	}
}

// TestIntegrations_DatabaseFileHoldsNoPlaintext reads the SQLite files
// themselves (the database and its write-ahead log).
func TestIntegrations_DatabaseFileHoldsNoPlaintext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Config{Store: db})
	idc := identity.Config{Store: db, Audit: svc, Events: svc.Events()}
	admins := identity.NewAccounts(idc, identity.NewKeys(idc))
	in, err := integrations.New(integrations.Config{Store: db, Admins: admins, Audit: svc, Secret: hubSecret})
	if err != nil {
		t.Fatal(err)
	}
	sys := service.WithPrincipal(ctx, service.System)
	for range 3 { // each save a fresh nonce
		if _, err := in.SaveMQTT(sys, integrations.MQTTUpdate{URL: str("mqtt://broker.lan"), Password: mqttPass}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "bifrost.db*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), mqttPass) {
			t.Errorf("%s holds the password in plaintext", filepath.Base(f))
		}
	}
	if len(files) == 0 {
		t.Fatal("no database file")
	}
}

func TestIntegrations_ChangedSecretIsTold(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	x.save(t, integrations.MQTTUpdate{Embedded: str(":1883"), Username: str("devices"), Password: mqttPass})

	r := &fakeRunner{}
	other := x.reopen(t, otherHubSk, r)
	const want = "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again"
	v, err := other.MQTT(x.admin)
	if err != nil || v.Problem != want || !v.Password.Set {
		t.Fatalf("view with another secret = %+v, %v; want the problem %q", v, err, want)
	}
	if _, err := other.StartMQTT(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.last(t); got.Password != "" || got.Embedded != ":1883" || got.Username != "devices" {
		t.Errorf("started with %+v; want the settings without the password", got)
	}
	// Saving other settings keeps the warning; entering the password again
	// clears it.
	res, err := other.SaveMQTT(x.admin, integrations.MQTTUpdate{ClientID: str("hub")})
	if err != nil || res.Problem != want || !strings.Contains(res.Warning, want) {
		t.Fatalf("save without the password: %+v, %v", res, err)
	}
	res, err = other.SaveMQTT(x.admin, integrations.MQTTUpdate{Password: mqttPass})
	if err != nil || res.Problem != "" || r.last(t).Password != mqttPass {
		t.Fatalf("save with the password again: %+v, %v", res, err)
	}

	none := x.reopen(t, "", &fakeRunner{})
	v, _ = none.MQTT(x.admin)
	if !strings.Contains(v.Problem, "not set now") || v.CanSaveSecrets {
		t.Errorf("view without a secret: %+v", v)
	}
}

func TestIntegrations_NoSecretRefusesPasswords(t *testing.T) {
	x := newIntegrations(t, "")
	_, err := x.in.SaveMQTT(x.admin, integrations.MQTTUpdate{URL: str("mqtt://broker.lan"), Password: mqttPass})
	if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "BIFROST_SECRET") ||
		!strings.Contains(err.Error(), "openssl rand") || service.ErrorDetails(err)["field"] != "password" {
		t.Fatalf("a password without BIFROST_SECRET = %v", err)
	}
	if _, err := x.db.GetIntegration(context.Background(), "mqtt"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("the refused save stored something: %v", err)
	}
	res := x.save(t, integrations.MQTTUpdate{URL: str("mqtt://broker.lan"), Username: str("hub")})
	if res.URL != "mqtt://broker.lan" || res.Password.Set || res.CanSaveSecrets {
		t.Fatalf("a save without a password: %+v", res)
	}
	if _, err := integrations.New(integrations.Config{Store: x.db, Admins: x.acc, Audit: x.svc, Secret: "too-short"}); err == nil {
		t.Error("a 9-character BIFROST_SECRET is accepted")
	}
}

func TestIntegrations_Validation(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	for _, tc := range []struct {
		field string
		u     integrations.MQTTUpdate
	}{
		{"url", integrations.MQTTUpdate{URL: str("http://broker.lan")}},
		{"url", integrations.MQTTUpdate{URL: str("tcp://broker.lan")}},
		{"url", integrations.MQTTUpdate{URL: str("mqtt://")}},
		{"url", integrations.MQTTUpdate{URL: str("mqtt://user:pw@broker.lan")}},
		{"url", integrations.MQTTUpdate{URL: str("mqtt://broker.lan:70000")}},
		{"url", integrations.MQTTUpdate{URL: str("mqtt://broker.lan/?x=1")}},
		{"url", integrations.MQTTUpdate{URL: str("broker.lan:1883")}},
		{"url", integrations.MQTTUpdate{URL: str(strings.Repeat("a", 3000))}},
		{"username", integrations.MQTTUpdate{Username: str("hub\x00")}},
		{"client_id", integrations.MQTTUpdate{ClientID: str("hub id")}},
		{"client_id", integrations.MQTTUpdate{ClientID: str("hub/1")}},
		{"client_id", integrations.MQTTUpdate{ClientID: str("hüb")}},
		{"client_id", integrations.MQTTUpdate{ClientID: str(strings.Repeat("a", 65))}},
		{"ca_file", integrations.MQTTUpdate{CAFile: str("certs/ca.pem")}},
		{"embedded", integrations.MQTTUpdate{Embedded: str("1883")}},
		{"embedded", integrations.MQTTUpdate{Embedded: str(":http")}},
		{"embedded", integrations.MQTTUpdate{Embedded: str(":99999")}},
		{"embedded", integrations.MQTTUpdate{Embedded: str("a b:1883")}},
		{"password", integrations.MQTTUpdate{Password: strings.Repeat("p", 1025)}},
		{"zigbee_base_topic", integrations.MQTTUpdate{ZigbeeBaseTopic: str("zigbee/#")}},
		{"zigbee_base_topic", integrations.MQTTUpdate{ZigbeeBaseTopic: str("/zigbee")}},
		{"zigbee_base_topic", integrations.MQTTUpdate{ZigbeeBaseTopic: str("a//b")}},
		{"discovery_prefix", integrations.MQTTUpdate{DiscoveryPrefix: str("ha/+")}},
		{"discovery_prefix", integrations.MQTTUpdate{DiscoveryPrefix: str("$SYS")}},
		{"tasmota_full_topic", integrations.MQTTUpdate{TasmotaFullTopic: str("%topic%/%prefix%/+/")}},
		{"tasmota_full_topic", integrations.MQTTUpdate{TasmotaFullTopic: str("tele/%topic%/")}},
	} {
		_, err := x.in.SaveMQTT(x.admin, tc.u)
		if service.ErrorCode(err) != service.EINVALID || service.ErrorDetails(err)["field"] != tc.field {
			t.Errorf("%+v: %v (details %v); want invalid %s", tc.u, err, service.ErrorDetails(err), tc.field)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("the error repeats a URL's credentials: %v", err)
		}
	}
	ok := integrations.MQTTUpdate{URL: str("wss://broker.example:443/mqtt"), ClientID: str("bifrost_hub-1.den"),
		CAFile: str("/etc/ssl/ca.pem"), Embedded: str("0.0.0.0:0"), Username: str("ünïcode user"),
		ZigbeeBaseTopic: str("house/zigbee"), DiscoveryPrefix: str("ha"), TasmotaFullTopic: str("%prefix%/home/%topic%/")}
	if _, err := x.in.SaveMQTT(x.admin, ok); err != nil {
		t.Errorf("valid settings refused: %v", err)
	}
	if _, err := x.in.SaveMQTT(x.admin, integrations.MQTTUpdate{URL: str(""), Embedded: str("")}); err != nil {
		t.Errorf("turning MQTT off refused: %v", err)
	}
}

func TestIntegrations_EnvironmentWins(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	x.runner.set(func(f *fakeRunner) {
		f.fixed = integrations.MQTTSettings{URL: "mqtt://env:secretpw@broker.env", Password: "env-password"}
	})
	v, err := x.in.MQTT(x.admin)
	if err != nil {
		t.Fatal(err)
	}
	if v.Fixed["url"] != (integrations.FixedSetting{Value: "mqtt://env@broker.env", Env: "BIFROST_MQTT_URL"}) ||
		v.Fixed["password"] != (integrations.FixedSetting{Env: "BIFROST_MQTT_PASSWORD"}) || len(v.Fixed) != 2 {
		t.Fatalf("fixed = %+v", v.Fixed)
	}
	if b, _ := json.Marshal(v); strings.Contains(string(b), "env-password") || strings.Contains(string(b), "secretpw") {
		t.Fatalf("the view shows the environment's password: %s", b)
	}
	for _, u := range []integrations.MQTTUpdate{{URL: str("mqtt://mine")}, {Password: "mine"}, {ClearPassword: true}} {
		if _, err := x.in.SaveMQTT(x.admin, u); service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "BIFROST_MQTT_") {
			t.Errorf("changing a fixed field %+v = %v", u, err)
		}
	}
	x.save(t, integrations.MQTTUpdate{Username: str("hub")})
	// The adapter runs with the saved settings under the environment's.
	want := integrations.MQTTSettings{URL: "mqtt://env:secretpw@broker.env", Password: "env-password", Username: "hub"}
	if got := x.runner.last(t); got != want {
		t.Errorf("applied %+v; want %+v", got, want)
	}
}

func TestIntegrations_AdaptersTroubleIsAWarning(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	x.runner.set(func(f *fakeRunner) {
		f.status = integrations.Status{State: integrations.StateError, Message: "connection refused"}
	})
	res := x.save(t, integrations.MQTTUpdate{URL: str("mqtt://127.0.0.1:1")})
	if !strings.Contains(res.Warning, "cannot connect to the broker: connection refused") || res.Status.State != integrations.StateError {
		t.Errorf("unreachable broker: %+v", res)
	}
	x.runner.set(func(f *fakeRunner) { f.status = integrations.Status{State: integrations.StateConnecting} })
	begin := time.Now()
	res = x.save(t, integrations.MQTTUpdate{URL: str("mqtt://10.255.255.1")})
	if !strings.Contains(res.Warning, "still connecting") || time.Since(begin) > 4*time.Second {
		t.Errorf("a broker slow to answer: %+v after %v", res, time.Since(begin))
	}
	x.runner.set(func(f *fakeRunner) { f.applyErr = errors.New("listen tcp :1883: address already in use") })
	res = x.save(t, integrations.MQTTUpdate{Embedded: str(":1883")})
	if !strings.Contains(res.Warning, "cannot start: listen tcp :1883: address already in use") {
		t.Errorf("a port in use: %+v", res)
	}
	v, _ := x.in.MQTT(x.admin)
	if v.Embedded != ":1883" {
		t.Errorf("the settings were not saved despite the warning: %+v", v)
	}
}

func TestIntegrations_Delete(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	if _, err := x.in.DeleteMQTT(x.admin); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("deleting nothing = %v", err)
	}
	x.save(t, integrations.MQTTUpdate{URL: str("mqtt://broker.lan"), Password: mqttPass})
	x.runner.set(func(f *fakeRunner) { f.status = integrations.Status{State: integrations.StateOff} })
	res, err := x.in.DeleteMQTT(x.admin)
	if err != nil || res.UpdatedAt != nil || res.URL != "" || res.Password.Set {
		t.Fatalf("DeleteMQTT = %+v, %v", res, err)
	}
	if got := x.runner.last(t); got != (integrations.MQTTSettings{}) {
		t.Errorf("after delete, applied %+v", got)
	}
	log, _ := x.svc.AuditLog(x.admin, 1)
	if log[0].Action != "integration.delete" {
		t.Errorf("audit %+v", log[0])
	}
}

func TestIntegrations_AdminsOnly(t *testing.T) {
	x := newIntegrations(t, hubSecret)
	if _, err := x.acc.AddUser(x.admin, "guest", pw, false); err != nil {
		t.Fatal(err)
	}
	guest := x.as(x.login(t, "guest", pw).SessionInfo)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "script", Scope: service.ScopeControl})
	for name, ctx := range map[string]context.Context{"a user": guest, "an API key": key, "nobody": context.Background()} {
		if _, err := x.in.MQTT(ctx); err == nil {
			t.Errorf("%s reads the MQTT settings", name)
		}
		if _, err := x.in.SaveMQTT(ctx, integrations.MQTTUpdate{URL: str("mqtt://evil")}); err == nil {
			t.Errorf("%s saves the MQTT settings", name)
		}
		if _, err := x.in.DeleteMQTT(ctx); err == nil || service.ErrorCode(err) == service.ENOTFOUND {
			t.Errorf("%s deletes the MQTT settings: %v", name, err)
		}
	}
	if _, err := x.in.MQTT(x.sys); err != nil {
		t.Errorf("the command line cannot read: %v", err)
	}
}
