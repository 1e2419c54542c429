package integrations_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
)

const haToken = "eyJhbGciOiJIUzI1NiJ9.ha-token-Qm72xk"

// hassFake stands for the Home Assistant bridge: it records what it is
// asked to run and reports what it is told to.
type hassFake struct {
	mu      sync.Mutex
	fixed   integrations.HASSSettings
	applied []integrations.HASSSettings
	fail    error
	status  integrations.Status
}

func (f *hassFake) Apply(s integrations.HASSSettings) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, s)
	return f.fail
}

func (f *hassFake) Fixed() integrations.HASSSettings {
	return locked(&f.mu, func() integrations.HASSSettings { return f.fixed })
}
func (f *hassFake) Status() integrations.Status {
	return locked(&f.mu, func() integrations.Status { return f.status })
}

// tell changes what the fake reports from now on.
func (f *hassFake) tell(change func(*hassFake)) {
	locked(&f.mu, func() bool { change(f); return true })
}

// last is what was applied last.
func (f *hassFake) last(t *testing.T) integrations.HASSSettings {
	t.Helper()
	applied := locked(&f.mu, func() []integrations.HASSSettings { return f.applied })
	if len(applied) == 0 {
		t.Fatal("nothing was applied to the bridge")
	}
	return applied[len(applied)-1]
}

func locked[T any](mu *sync.Mutex, read func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return read()
}

// hassHub is the integrations, over real SQLite with an admin, with a
// fake bridge beside the fake MQTT adapter.
type hassHub struct {
	*integrationsHub
	bridge *hassFake
}

func newHASSHub(t *testing.T, secret string) *hassHub {
	t.Helper()
	x := &hassHub{integrationsHub: newIntegrations(t, secret),
		bridge: &hassFake{status: integrations.Status{State: integrations.StateConnected}}}
	x.in = x.open(t, secret, x.bridge)
	return x
}

// open makes the integrations again over the same database, as a
// restarted hub would, with bridge running Home Assistant.
func (x *hassHub) open(t *testing.T, secret string, bridge integrations.AdapterRunner[integrations.HASSSettings]) *integrations.Manager {
	t.Helper()
	in, err := integrations.New(integrations.Config{Store: x.db, Admins: x.acc, Audit: x.svc, Secret: secret,
		MQTT: x.runner, HASS: bridge, SettleTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func (x *hassHub) saveHASS(t *testing.T, u integrations.HASSUpdate) integrations.HASSSaved {
	t.Helper()
	res, err := x.in.SaveHASS(x.admin, u)
	if err != nil {
		t.Fatalf("SaveHASS(%+v): %v", u, err)
	}
	return res
}

func TestHASS_SaveAndRead(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	v, err := x.in.HASS(x.admin)
	if err != nil || v.UpdatedAt != nil || v.Token.Set || !v.CanSaveSecrets || v.Status.State != integrations.StateConnected || len(v.Fixed) != 0 {
		t.Fatalf("before any save: %+v, %v", v, err)
	}
	// A token pasted with a line break around it is taken without.
	res := x.saveHASS(t, integrations.HASSUpdate{URL: str(" http://homeassistant.local:8123 "), Token: " " + haToken + "\n"})
	if res.Warning != "" || res.URL != "http://homeassistant.local:8123" || !res.Token.Set || res.UpdatedAt == nil {
		t.Fatalf("saved = %+v", res)
	}
	if got := x.bridge.last(t); got != (integrations.HASSSettings{URL: "http://homeassistant.local:8123", Token: haToken}) {
		t.Errorf("applied %+v", got)
	}
	// A field left out keeps its value; an empty token keeps the saved one.
	x.saveHASS(t, integrations.HASSUpdate{CAFile: str("/etc/ssl/ha-ca.pem")})
	if got := x.bridge.last(t); got != (integrations.HASSSettings{URL: "http://homeassistant.local:8123", CAFile: "/etc/ssl/ha-ca.pem", Token: haToken}) {
		t.Errorf("after a save without a token, applied %+v", got)
	}
	// A restarted hub opens the token.
	again := &hassFake{}
	if saved, err := x.open(t, hubSecret, again).StartHASS(context.Background()); err != nil || !saved {
		t.Fatalf("StartHASS = %v, %v", saved, err)
	}
	if got := again.last(t); got.Token != haToken || got.CAFile != "/etc/ssl/ha-ca.pem" {
		t.Errorf("at start, applied %+v", got)
	}
	if _, err := x.in.SaveHASS(x.admin, integrations.HASSUpdate{Token: "x", ClearToken: true}); service.ErrorCode(err) != service.EINVALID ||
		service.ErrorDetails(err)["field"] != "token" {
		t.Errorf("a token and clear_token = %v", err)
	}
	res = x.saveHASS(t, integrations.HASSUpdate{ClearToken: true})
	if res.Token.Set || x.bridge.last(t).Token != "" || res.URL == "" {
		t.Errorf("after clearing the token: %+v, applied %+v", res, x.bridge.last(t))
	}
	// MQTT is another record: nothing of it changed.
	if v, err := x.in.MQTT(x.admin); err != nil || v.UpdatedAt != nil {
		t.Errorf("saving Home Assistant saved MQTT settings: %+v, %v", v, err)
	}
	if saved, err := x.open(t, hubSecret, nil).StartHASS(context.Background()); saved || err != nil {
		t.Errorf("StartHASS with nothing running the bridge = %v, %v", saved, err)
	}
}

func TestHASS_TokenNeverShown(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	x.saveHASS(t, integrations.HASSUpdate{URL: str("https://ha.example"), Token: haToken})
	v, err := x.in.HASS(x.admin)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), haToken) || !strings.Contains(string(b), `"token":{"set":true}`) {
		t.Fatalf("the view shows %s", b)
	}
	log, err := x.svc.AuditLog(x.admin, 10)
	if err != nil {
		t.Fatal(err)
	}
	if e := log[0]; e.Action != "integration.save" || e.Target != "hass" || e.Detail != "changed url, token" || e.Result != "ok" {
		t.Errorf("audit entry %+v", e)
	}
	for _, e := range log {
		if b, _ := json.Marshal(e); strings.Contains(string(b), haToken) {
			t.Errorf("the audit log holds the token: %s", b)
		}
	}
	rec, err := x.db.GetIntegration(context.Background(), "hass")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec.Config), haToken) || strings.Contains(string(rec.Secret), haToken) || len(rec.Secret) == 0 {
		t.Errorf("stored config %s, secret %x", rec.Config, rec.Secret)
	}
}

func TestHASS_ChangedSecretIsTold(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	x.saveHASS(t, integrations.HASSUpdate{URL: str("http://ha.lan:8123"), Token: haToken})
	bridge := &hassFake{}
	other := x.open(t, otherHubSk, bridge)
	const want = "the stored Home Assistant access token was encrypted with another BIFROST_SECRET; enter it again"
	if v, err := other.HASS(x.admin); err != nil || v.Problem != want || !v.Token.Set {
		t.Fatalf("view with another secret = %+v, %v; want the problem %q", v, err, want)
	}
	if _, err := other.StartHASS(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := bridge.last(t); got != (integrations.HASSSettings{URL: "http://ha.lan:8123"}) {
		t.Errorf("started with %+v; want the settings without the token", got)
	}
	res, err := other.SaveHASS(x.admin, integrations.HASSUpdate{Token: haToken})
	if err != nil || res.Problem != "" || bridge.last(t).Token != haToken {
		t.Fatalf("save with the token again: %+v, %v", res, err)
	}
	none := x.open(t, "", &hassFake{})
	if v, _ := none.HASS(x.admin); !strings.Contains(v.Problem, "not set now") || !strings.Contains(v.Problem, "remove the access token") {
		t.Errorf("view without a secret: %+v", v)
	}
}

func TestHASS_NoSecretRefusesToken(t *testing.T) {
	x := newHASSHub(t, "")
	_, err := x.in.SaveHASS(x.admin, integrations.HASSUpdate{URL: str("http://ha.lan:8123"), Token: haToken})
	if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "save an access token only encrypted") ||
		!strings.Contains(err.Error(), "BIFROST_SECRET") || !strings.Contains(err.Error(), "openssl rand") ||
		service.ErrorDetails(err)["field"] != "token" || strings.Contains(err.Error(), haToken) {
		t.Fatalf("a token without BIFROST_SECRET = %v (details %v)", err, service.ErrorDetails(err))
	}
	if _, err := x.db.GetIntegration(context.Background(), "hass"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("the refused save stored something: %v", err)
	}
	if res := x.saveHASS(t, integrations.HASSUpdate{URL: str("http://ha.lan:8123")}); res.URL != "http://ha.lan:8123" || res.Token.Set || res.CanSaveSecrets {
		t.Fatalf("a save without a token: %+v", res)
	}
}

func TestHASS_Validation(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	for _, tc := range []struct {
		field string
		u     integrations.HASSUpdate
	}{
		{"url", integrations.HASSUpdate{URL: str("homeassistant.local:8123")}},
		{"url", integrations.HASSUpdate{URL: str("ws://homeassistant.local:8123")}},
		{"url", integrations.HASSUpdate{URL: str("mqtt://homeassistant.local")}},
		{"url", integrations.HASSUpdate{URL: str("http://")}},
		{"url", integrations.HASSUpdate{URL: str("http://:8123")}},
		{"url", integrations.HASSUpdate{URL: str("http://owner:pw@ha.lan:8123")}},
		{"url", integrations.HASSUpdate{URL: str("http://ha.lan:0")}},
		{"url", integrations.HASSUpdate{URL: str("http://ha.lan:99999")}},
		{"url", integrations.HASSUpdate{URL: str("http://ha.lan:8123/?auth=1")}},
		{"url", integrations.HASSUpdate{URL: str("http://ha.lan:8123/#lovelace")}},
		{"url", integrations.HASSUpdate{URL: str("http://ha.lan/" + strings.Repeat("a", 2048))}},
		{"ca_file", integrations.HASSUpdate{CAFile: str("certs/ha.pem")}},
		{"ca_file", integrations.HASSUpdate{CAFile: str("/etc/ssl/ha\x00.pem")}},
		{"token", integrations.HASSUpdate{Token: "two words"}},
		{"token", integrations.HASSUpdate{Token: "line\nbreak"}},
		{"token", integrations.HASSUpdate{Token: "tab\tinside"}},
		{"token", integrations.HASSUpdate{Token: "bell\x07"}},
		{"token", integrations.HASSUpdate{Token: strings.Repeat("t", 4097)}},
	} {
		_, err := x.in.SaveHASS(x.admin, tc.u)
		if service.ErrorCode(err) != service.EINVALID || service.ErrorDetails(err)["field"] != tc.field {
			t.Errorf("%+v: %v (details %v); want invalid %s", tc.u, err, service.ErrorDetails(err), tc.field)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "pw@") || !strings.Contains(msg, map[string]string{
			"url": "Home Assistant URL", "ca_file": "CA file", "token": "access token"}[tc.field]) {
			t.Errorf("%+v: the message %q does not name the field, or repeats a secret", tc.u, msg)
		}
	}
	if _, err := x.db.GetIntegration(context.Background(), "hass"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("a refused save stored something: %v", err)
	}
	for _, ok := range []integrations.HASSUpdate{
		{URL: str("https://ha.example/home-assistant"), CAFile: str("/etc/ssl/ha-ca.pem"), Token: strings.Repeat("t", 4096)},
		{URL: str("http://192.168.1.5:8123")},
		{URL: str("http://[fd00::5]:8123/")},
		{URL: str(""), CAFile: str("")}, // off
	} {
		if _, err := x.in.SaveHASS(x.admin, ok); err != nil {
			t.Errorf("valid settings %+v refused: %v", ok, err)
		}
	}
}

func TestHASS_EnvironmentWins(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	x.bridge.tell(func(f *hassFake) {
		f.fixed = integrations.HASSSettings{URL: "http://owner:secretpw@ha.env:8123", Token: "env-token-Zx9"}
	})
	v, err := x.in.HASS(x.admin)
	if err != nil {
		t.Fatal(err)
	}
	if v.Fixed["url"] != (integrations.FixedSetting{Value: "http://owner@ha.env:8123", Env: "BIFROST_HASS_URL"}) ||
		v.Fixed["token"] != (integrations.FixedSetting{Env: "BIFROST_HASS_TOKEN"}) || len(v.Fixed) != 2 {
		t.Fatalf("fixed = %+v", v.Fixed)
	}
	if b, _ := json.Marshal(v); strings.Contains(string(b), "env-token-Zx9") || strings.Contains(string(b), "secretpw") {
		t.Fatalf("the view shows the environment's secrets: %s", b)
	}
	for _, u := range []integrations.HASSUpdate{{URL: str("http://mine:8123")}, {Token: "mine"}, {ClearToken: true}} {
		_, err := x.in.SaveHASS(x.admin, u)
		if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "BIFROST_HASS_") || !strings.Contains(err.Error(), "wins over the web UI") {
			t.Errorf("changing a fixed field %+v = %v", u, err)
		}
	}
	x.bridge.tell(func(f *hassFake) { f.fixed.CAFile = "/etc/env-ca.pem" })
	if _, err := x.in.SaveHASS(x.admin, integrations.HASSUpdate{CAFile: str("/etc/mine.pem")}); err == nil || !strings.Contains(err.Error(), "BIFROST_HASS_CA_FILE") {
		t.Errorf("changing the CA file the environment fixes = %v", err)
	}
	x.bridge.tell(func(f *hassFake) { f.fixed = integrations.HASSSettings{URL: "http://ha.env:8123"} })
	if res := x.saveHASS(t, integrations.HASSUpdate{Token: haToken}); !res.Token.Set {
		t.Errorf("a token with the URL from the environment: %+v", res)
	}
}

func TestHASS_BridgesTroubleIsAWarning(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	const refused = "Home Assistant refused the access token: Invalid access token or password; make a new long-lived access token on your Home Assistant profile page"
	x.bridge.tell(func(f *hassFake) {
		f.status = integrations.Status{State: integrations.StateError, Message: refused}
	})
	res := x.saveHASS(t, integrations.HASSUpdate{URL: str("http://ha.lan:8123"), Token: haToken})
	if res.Warning != "the settings are saved, but the hub cannot connect to Home Assistant: "+refused+" (it keeps trying)" ||
		res.Status.State != integrations.StateError || !res.Token.Set {
		t.Errorf("a refused token: %+v", res)
	}
	x.bridge.tell(func(f *hassFake) { f.status = integrations.Status{State: integrations.StateConnecting} })
	if res = x.saveHASS(t, integrations.HASSUpdate{URL: str("http://10.255.255.1:8123")}); !strings.Contains(res.Warning, "still connecting to Home Assistant") {
		t.Errorf("a Home Assistant slow to answer: %+v", res)
	}
	x.bridge.tell(func(f *hassFake) {
		f.fail = errors.New("the Home Assistant CA file: open /etc/ha.pem: no such file or directory")
	})
	res = x.saveHASS(t, integrations.HASSUpdate{CAFile: str("/etc/ha.pem")})
	if !strings.Contains(res.Warning, "the Home Assistant bridge cannot start: the Home Assistant CA file: open /etc/ha.pem") {
		t.Errorf("a CA file that cannot be read: %+v", res)
	}
	if v, _ := x.in.HASS(x.admin); v.CAFile != "/etc/ha.pem" {
		t.Errorf("the settings were not saved despite the warning: %+v", v)
	}
}

func TestHASS_Delete(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	if _, err := x.in.DeleteHASS(x.admin); service.ErrorCode(err) != service.ENOTFOUND || !strings.Contains(err.Error(), "no Home Assistant settings are saved") {
		t.Fatalf("deleting nothing = %v", err)
	}
	x.saveHASS(t, integrations.HASSUpdate{URL: str("http://ha.lan:8123"), Token: haToken})
	x.save(t, integrations.MQTTUpdate{URL: str("mqtt://broker.lan")})
	x.bridge.tell(func(f *hassFake) { f.status = integrations.Status{State: integrations.StateOff} })
	res, err := x.in.DeleteHASS(x.admin)
	if err != nil || res.UpdatedAt != nil || res.URL != "" || res.Token.Set || res.Status.State != integrations.StateOff {
		t.Fatalf("DeleteHASS = %+v, %v", res, err)
	}
	if got := x.bridge.last(t); got != (integrations.HASSSettings{}) {
		t.Errorf("after delete, applied %+v", got)
	}
	if log, _ := x.svc.AuditLog(x.admin, 1); log[0].Action != "integration.delete" || log[0].Target != "hass" {
		t.Errorf("audit %+v", log[0])
	}
	if v, _ := x.in.MQTT(x.admin); v.URL != "mqtt://broker.lan" {
		t.Errorf("deleting Home Assistant took MQTT's settings: %+v", v)
	}
}

func TestHASS_AdminsOnly(t *testing.T) {
	x := newHASSHub(t, hubSecret)
	if _, err := x.acc.AddUser(x.admin, "guest", pw, false); err != nil {
		t.Fatal(err)
	}
	guest := x.as(x.login(t, "guest", pw).SessionInfo)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "script", Scope: service.ScopeControl})
	for name, ctx := range map[string]context.Context{"a user": guest, "an API key": key, "nobody": context.Background()} {
		if _, err := x.in.HASS(ctx); err == nil {
			t.Errorf("%s reads the Home Assistant settings", name)
		}
		if _, err := x.in.SaveHASS(ctx, integrations.HASSUpdate{URL: str("http://evil:8123")}); err == nil {
			t.Errorf("%s saves the Home Assistant settings", name)
		}
		if _, err := x.in.DeleteHASS(ctx); err == nil || service.ErrorCode(err) == service.ENOTFOUND {
			t.Errorf("%s deletes the Home Assistant settings: %v", name, err)
		}
	}
	if len(locked(&x.bridge.mu, func() []integrations.HASSSettings { return x.bridge.applied })) != 0 {
		t.Error("a refused request applied settings")
	}
	if _, err := x.in.HASS(x.sys); err != nil {
		t.Errorf("the command line cannot read: %v", err)
	}
}
