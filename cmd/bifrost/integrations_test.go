package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

const (
	hubSecret      = "cmd-test-secret-0123456789abcdef"
	brokerPassword = "embedded-broker-pw-Xy7"
	adminPassword  = "correct horse battery"
)

// inProcessHub is the hub run in-process (Run, then Close) with the demo
// home, logging at debug level into log.
type inProcessHub struct {
	*Main
	log  *lineLog
	once sync.Once
}

func runHub(t testing.TB, data string, adjust func(*Config)) *inProcessHub {
	t.Helper()
	h := &inProcessHub{log: newLineLog()}
	h.Main = NewMain(CLI{Stdout: io.Discard, Stderr: h.log, Getenv: env{}.lookup})
	c := &h.Config
	c.Addr, c.DataDir, c.Demo = "127.0.0.1:0", data, true
	c.Media.SonosEventAddr = "127.0.0.1:0"
	c.Neewer.BLE = "off"
	adjust(c)
	h.Logger = slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if err := h.Run(t.Context()); err != nil {
		h.Close()
		t.Fatalf("start: %v\n%s", err, h.log)
	}
	t.Cleanup(h.stop)
	return h
}

func (h *inProcessHub) stop() { h.once.Do(func() { _ = h.Close() }) }

func (h *inProcessHub) URL(path string) string { return "http://" + h.Addr().String() + path }

// brokerAddr is where the embedded broker listens ("" without one).
func (h *inProcessHub) brokerAddr() string {
	ad, ok := h.mqtt.Running().(mqttAdapter)
	if !ok {
		return ""
	}
	return ad.BrokerAddr()
}

// uiSession is a signed-in browser without the browser: the session
// cookie, the CSRF token and the hub's own Origin on every write.
type uiSession struct {
	t    *testing.T
	hub  *inProcessHub
	c    *http.Client
	csrf string
}

// signIn sets up the admin if there is none yet, and signs in.
func signIn(t *testing.T, h *inProcessHub) *uiSession {
	t.Helper()
	ctx := t.Context()
	if code, err := h.accounts.SetupCode(ctx); err != nil {
		t.Fatal(err)
	} else if code != "" {
		if _, err := h.accounts.Setup(ctx, "127.0.0.1", code, "admin", adminPassword); err != nil {
			t.Fatal(err)
		}
	}
	jar, _ := cookiejar.New(nil)
	s := &uiSession{t: t, hub: h, c: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
	var res struct {
		CSRFToken string `json:"csrf_token"`
	}
	s.must(http.StatusOK, "POST", "/api/login", map[string]string{"username": "admin", "password": adminPassword}, &res)
	s.csrf = res.CSRFToken
	return s
}

func (s *uiSession) send(method, path string, body any) (int, []byte) {
	s.t.Helper()
	status, b, err := s.try(method, path, body)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, b
}

// try sends a request and returns its status and body, or why it could
// not; unlike send it may be called from any goroutine.
func (s *uiSession) try(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.hub.URL(path), r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", s.csrf)
		req.Header.Set("Origin", "http://"+s.hub.Addr().String())
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// must sends a request that must answer want, and decodes the answer into
// out when out is not nil.
func (s *uiSession) must(want int, method, path string, body, out any) []byte {
	s.t.Helper()
	status, b := s.send(method, path, body)
	if status != want {
		s.t.Fatalf("%s %s = %d, want %d: %s", method, path, status, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("decoding %s: %v", b, err)
		}
	}
	return b
}

// mqttView is the answer of /api/integrations/mqtt.
type mqttView struct {
	URL, Username, Embedded string
	ClientID                string `json:"client_id"`
	ZigbeeBaseTopic         string `json:"zigbee_base_topic"`
	Password                struct{ Set bool }
	Fixed                   map[string]struct{ Value, Env string }
	CanSaveSecrets          bool `json:"can_save_secrets"`
	Problem, Warning        string
	Status                  struct{ State, Message string }
}

// mqtt sends a request to /api/integrations/mqtt that must succeed.
func (s *uiSession) mqtt(method string, body any) mqttView {
	s.t.Helper()
	var v mqttView
	s.must(http.StatusOK, method, "/api/integrations/mqtt", body, &v)
	return v
}

// mqttLogin connects to the broker at addr as an MQTT device would.
func mqttLogin(addr, user, password string) error {
	o := paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("test-device").
		SetUsername(user).SetPassword(password).SetConnectTimeout(5 * time.Second).SetAutoReconnect(false)
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(5 * time.Second) {
		return io.ErrNoProgress
	}
	if err := tok.Error(); err != nil {
		return err
	}
	c.Disconnect(0)
	return nil
}

// assertNoPlaintext fails when a file of the database holds s.
func assertNoPlaintext(t *testing.T, data, s string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(data, "bifrost.db*")) // the database, its WAL, its shared memory
	if len(files) == 0 {
		t.Fatal("no database file")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds a secret in plaintext", filepath.Base(f))
		}
	}
}

// TestIntegrationsLive saves MQTT settings through the session API of the
// running hub: the adapter restarts with them at once (the embedded broker
// takes the saved login), the password is nowhere in plaintext, a hub
// restarted with another BIFROST_SECRET says so, and the environment's
// settings win.
func TestIntegrationsLive(t *testing.T) {
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	s := signIn(t, h)

	v := s.mqtt("GET", nil)
	if v.Status.State != "off" || !v.CanSaveSecrets || v.Password.Set {
		t.Fatalf("before a save: %+v", v)
	}
	scansWithMQTT := func() (listed, scanned bool) {
		var scan struct{ Adapters []string }
		adapters := s.must(http.StatusOK, "GET", "/api/adapters", nil, nil)
		s.must(http.StatusOK, "POST", "/api/devices/scan", nil, &scan)
		return strings.Contains(string(adapters), `"mqtt"`), slices.Contains(scan.Adapters, "mqtt")
	}
	if listed, scanned := scansWithMQTT(); listed || scanned {
		t.Errorf("MQTT is off, yet listed among the adapters (%v) or scanning (%v)", listed, scanned)
	}
	v = s.mqtt("PUT", map[string]string{"embedded": "127.0.0.1:0", "username": "devices", "password": brokerPassword})
	if v.Status.State != "connected" || v.Warning != "" || !strings.Contains(v.Status.Message, "embedded broker listens on 127.0.0.1:") {
		t.Fatalf("after saving an embedded broker: %+v", v)
	}
	// Turned on in the web UI, MQTT scans at once, with no restart.
	if listed, scanned := scansWithMQTT(); !listed || !scanned {
		t.Errorf("MQTT turned on in the web UI: listed among the adapters %v, scanning %v", listed, scanned)
	}
	addr := h.brokerAddr()
	// A zigbee2mqtt with another base_topic: its devices appear once the
	// base topic is saved.
	v = s.mqtt("PUT", map[string]string{"zigbee_base_topic": "house/zigbee"})
	if v.ZigbeeBaseTopic != "house/zigbee" || v.Status.State != "connected" {
		t.Fatalf("after saving a base topic: %+v", v)
	}
	s.must(http.StatusUnprocessableEntity, "PUT", "/api/integrations/mqtt", map[string]string{"zigbee_base_topic": "zigbee/#"}, nil)
	s.must(http.StatusUnprocessableEntity, "PUT", "/api/integrations/mqtt", map[string]string{"tasmota_full_topic": "tele/%topic%"}, nil)
	addr = h.brokerAddr()
	z := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("zigbee2mqtt").
		SetUsername("devices").SetPassword(brokerPassword).SetConnectTimeout(5 * time.Second))
	if tok := z.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("zigbee2mqtt cannot connect: %v", tok.Error())
	}
	plug := `[{"ieee_address":"0x00124b0022aabbcc","friendly_name":"Porch plug","type":"Router","supported":true,
		"definition":{"model":"E1603","vendor":"IKEA","description":"TRADFRI control outlet",
		"exposes":[{"type":"switch","features":[{"type":"binary","name":"state","property":"state","value_on":"ON","value_off":"OFF","access":7}]}]}}]`
	z.Publish("house/zigbee/bridge/devices", 1, true, plug).WaitTimeout(5 * time.Second)
	z.Publish("house/zigbee/Porch plug", 1, false, `{"state":"OFF"}`).WaitTimeout(5 * time.Second)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if d, ok := h.registry.Get("mqtt:z2m.0x00124b0022aabbcc"); ok && d.Online() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the zigbee2mqtt plug under house/zigbee did not appear; devices %v", h.registry.List())
		}
	}
	z.Disconnect(0)
	if err := mqttLogin(addr, "devices", brokerPassword); err != nil {
		t.Errorf("a device cannot log in to the embedded broker with the saved password: %v", err)
	}
	if err := mqttLogin(addr, "devices", "wrong"); err == nil {
		t.Error("the embedded broker lets a wrong password in")
	}

	// A broker that is not there is a warning, not a failure.
	v = s.mqtt("PUT", map[string]string{"url": "mqtt://127.0.0.1:1", "embedded": ""})
	if v.Status.State != "error" || !strings.Contains(v.Warning, "cannot connect to the broker") || !v.Password.Set {
		t.Fatalf("after saving an unreachable broker: %+v", v)
	}
	s.mqtt("PUT", map[string]string{"url": "", "embedded": "127.0.0.1:0"})
	assertNoPlaintext(t, data, brokerPassword)
	h.stop()
	assertNoPlaintext(t, data, brokerPassword)
	for _, secret := range []string{brokerPassword, hubSecret} {
		if strings.Contains(h.log.String(), secret) {
			t.Errorf("the hub logged a secret:\n%s", h.log)
		}
	}

	// Another BIFROST_SECRET: the hub starts, MQTT runs without the
	// password, and the UI is told why.
	h = runHub(t, data, func(c *Config) { c.Secret = "a-different-secret-0123456789abc" })
	s = signIn(t, h)
	v = s.mqtt("GET", nil)
	if v.Problem != "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again" || v.Embedded != "127.0.0.1:0" {
		t.Fatalf("with another secret: %+v", v)
	}
	if !strings.Contains(h.log.String(), "another BIFROST_SECRET") {
		t.Errorf("the hub does not log the problem:\n%s", h.log)
	}
	h.stop()

	// The environment wins, and the saved settings turn MQTT on at start:
	// it is one of the adapters that scan.
	h = runHub(t, data, func(c *Config) { c.Secret = hubSecret; c.MQTT.ClientID = "from-env" })
	s = signIn(t, h)
	v = s.mqtt("GET", nil)
	if f := v.Fixed["client_id"]; f.Value != "from-env" || f.Env != "BIFROST_MQTT_CLIENT_ID" || v.Problem != "" {
		t.Fatalf("with a client id in the environment: %+v", v)
	}
	h.stop()
	// A FullTopic in the environment that the Tasmota family cannot follow
	// stops the start, as any unworkable environment setting does.
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr, m.Config.DataDir, m.Config.Neewer.BLE = "127.0.0.1:0", t.TempDir(), "off"
	m.Config.MQTT.Embedded, m.Config.MQTT.TasmotaFullTopic = "127.0.0.1:0", "tele/%topic%/"
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "FullTopic") {
		t.Errorf("a FullTopic without %%prefix%% in the environment: %v", err)
	}
	m.Close()
	h = runHub(t, data, func(c *Config) { c.Secret = hubSecret; c.MQTT.ClientID = "from-env" })
	s = signIn(t, h)
	s.must(http.StatusUnprocessableEntity, "PUT", "/api/integrations/mqtt", map[string]string{"client_id": "mine"}, nil)
	if b := s.must(http.StatusOK, "GET", "/api/adapters", nil, nil); !strings.Contains(string(b), `"mqtt"`) {
		t.Errorf("adapters %s; want mqtt among them", b)
	}
}

func TestSecretOption(t *testing.T) {
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte(hubSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseServe(t, nil, env{"BIFROST_SECRET_FILE": file})
	if err != nil || cfg.Secret != hubSecret {
		t.Fatalf("BIFROST_SECRET_FILE: %q, %v", cfg.Secret, err)
	}
	if _, err := parseServe(t, nil, env{"BIFROST_SECRET_FILE": file, "BIFROST_SECRET": "x"}); err == nil {
		t.Error("BIFROST_SECRET and BIFROST_SECRET_FILE both set: accepted")
	}
	_, out, _ := runCLI("help")
	if !strings.Contains(out, "BIFROST_SECRET_FILE") {
		t.Errorf("help does not mention BIFROST_SECRET_FILE:\n%s", out)
	}
	code, _, errOut := runCLI("serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--secret", "short")
	if code != 1 || !strings.Contains(errOut, "BIFROST_SECRET is 5 characters long") || strings.Contains(errOut, "short\n") {
		t.Errorf("a short secret: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestEmbeddedBrokerKeepsRetainedMessages publishes retained messages to
// the hub's own broker, restarts the hub on the same data directory, and
// reads them back from the new broker: a cleared topic stays cleared, and
// the device whose discovery config was retained is listed again before
// it says anything.
func TestEmbeddedBrokerKeepsRetainedMessages(t *testing.T) {
	data := t.TempDir()
	embedded := func(c *Config) { c.MQTT.Embedded = "127.0.0.1:0" }
	h := runHub(t, data, embedded)
	c := brokerClient(t, h.brokerAddr(), "device")
	config := `{"name":"Porch","uniq_id":"porch-relay","cmd_t":"porch/relay/set","stat_t":"porch/relay/state","dev":{"ids":["porch"],"name":"Porch node"}}`
	for topic, payload := range map[string]string{
		"homeassistant/switch/porch/relay/config": config,
		"porch/relay/state":                       "ON",
		"porch/old":                               "gone soon",
	} {
		if tok := c.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publish %s: %v", topic, tok.Error())
		}
	}
	if tok := c.Publish("porch/old", 1, true, ""); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("clearing porch/old: %v", tok.Error())
	}
	c.Disconnect(0)
	h.stop()

	h = runHub(t, data, embedded)
	defer h.stop()
	got := map[string]string{}
	var mu sync.Mutex
	c = brokerClient(t, h.brokerAddr(), "reader")
	defer c.Disconnect(0)
	c.Subscribe("#", 0, func(_ paho.Client, m paho.Message) {
		mu.Lock()
		defer mu.Unlock()
		if m.Retained() {
			got[m.Topic()] = string(m.Payload())
		}
	}).WaitTimeout(5 * time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		done := got["homeassistant/switch/porch/relay/config"] == config && got["porch/relay/state"] == "ON"
		_, old := got["porch/old"]
		seen := maps.Clone(got)
		mu.Unlock()
		if old {
			t.Fatal("a cleared retained message came back after the restart")
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart the broker retains %v", seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if d, ok := h.registry.Get("mqtt:ha.porch-relay"); ok && d.Online() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the retained discovery config did not bring its device back; devices %v", h.registry.List())
		}
	}
}

// brokerClient connects to the embedded broker as a device would.
func brokerClient(t *testing.T, addr, id string) paho.Client {
	t.Helper()
	c := paho.NewClient(paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID(id).
		SetConnectTimeout(5 * time.Second).SetAutoReconnect(false))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting to the embedded broker at %s: %v", addr, tok.Error())
	}
	return c
}

const haToken = "ha-long-lived-token.eyJhbGciOiJIUzI1NiJ9.Vq7x"

// hassView is the answer of /api/integrations/hass.
type hassView struct {
	URL              string
	Token            struct{ Set bool }
	Fixed            map[string]struct{ Value, Env string }
	Problem, Warning string
	Status           struct{ State, Message string }
}

// hass sends a request to /api/integrations/hass that must succeed, and
// keeps its answer in seen.
func (s *uiSession) hass(method string, body any, seen *[]string) hassView {
	s.t.Helper()
	var v hassView
	*seen = append(*seen, string(s.must(http.StatusOK, method, "/api/integrations/hass", body, &v)))
	return v
}

// waitFor polls cond until it holds, or fails the test at the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// kitchen is the light the fake Home Assistant has.
var kitchen = hasstest.State{EntityID: "light.kitchen", State: "on", Attributes: map[string]any{
	"friendly_name": "Kitchen", "brightness": 128, "color_mode": "brightness", "supported_color_modes": []string{"brightness"},
}}

// TestHASSLive sets up Home Assistant in Settings → Integrations of the
// running hub, against a fake Home Assistant: saving the URL and the token
// connects at once and HA's light becomes a device; a refused token is a
// clear error the hub lives with; the token shows in no answer, no log and
// no database file; a restarted hub connects again from the saved
// settings; the environment wins.
func TestHASSLive(t *testing.T) {
	ha := hasstest.New(haToken)
	defer ha.Close()
	ha.SetStates(kitchen)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	s := signIn(t, h)
	var seen []string // every answer about Home Assistant

	v := s.hass("GET", nil, &seen)
	if v.Status.State != "off" || v.Status.Message != "no Home Assistant URL is set" || v.Token.Set {
		t.Fatalf("before a save: %+v", v)
	}
	v = s.hass("PUT", map[string]string{"url": ha.URL(), "token": haToken}, &seen)
	if v.Status.State != "connected" || v.Warning != "" || !v.Token.Set || v.URL != ha.URL() {
		t.Fatalf("after saving the URL and the token: %+v", v)
	}
	hasKitchen := func() bool {
		return strings.Contains(string(s.must(http.StatusOK, "GET", "/api/devices", nil, nil)), `"hass:light.kitchen"`)
	}
	waitFor(t, "the Home Assistant light among the devices", hasKitchen)

	// A refused token: the status says so, and what to do; the hub runs on.
	v = s.hass("PUT", map[string]string{"token": "not-the-token"}, &seen)
	if v.Status.State != "error" || !strings.Contains(v.Status.Message, "Home Assistant refused the access token") ||
		!strings.Contains(v.Status.Message, "make a new long-lived access token on your Home Assistant profile page") ||
		!strings.Contains(v.Warning, "cannot connect to Home Assistant") {
		t.Fatalf("after saving a wrong token: %+v", v)
	}
	if _, refused := ha.AuthAttempts(); refused == 0 {
		t.Error("the fake Home Assistant refused no token")
	}
	if !hasKitchen() {
		t.Error("with a refused token the hub forgot the device")
	}
	s.must(http.StatusUnprocessableEntity, "PUT", "/api/integrations/hass", map[string]string{"url": "homeassistant.local:8123"}, nil)
	v = s.hass("PUT", map[string]string{"token": haToken}, &seen)
	if v.Status.State != "connected" {
		t.Fatalf("after saving the right token again: %+v", v)
	}
	assertNoPlaintext(t, data, haToken)
	h.stop()
	assertNoPlaintext(t, data, haToken)

	// A restarted hub connects from the saved settings.
	log := h.log
	h = runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	s = signIn(t, h)
	waitFor(t, "the restarted hub to connect", func() bool { return s.hass("GET", nil, &seen).Status.State == "connected" })
	waitFor(t, "the Home Assistant light after the restart", hasKitchen)
	h.stop()
	logs := []string{log.String(), h.log.String()}

	// Another BIFROST_SECRET: the token does not open, so the bridge
	// cannot start; the hub starts all the same and says why.
	h = runHub(t, data, func(c *Config) { c.Secret = "a-different-secret-0123456789abc" })
	s = signIn(t, h)
	v = s.hass("GET", nil, &seen)
	if v.Problem != "the stored Home Assistant access token was encrypted with another BIFROST_SECRET; enter it again" ||
		v.Status.State != "error" || !strings.HasPrefix(v.Status.Message, "no access token is set") {
		t.Fatalf("with another secret: %+v", v)
	}
	if !strings.Contains(h.log.String(), "The Home Assistant bridge cannot start with the settings saved in the web UI") {
		t.Errorf("the hub does not log why the bridge cannot start:\n%s", h.log)
	}
	h.stop()
	for _, text := range append(append(seen, logs...), h.log.String()) {
		if strings.Contains(text, haToken) || strings.Contains(text, "not-the-token") {
			t.Fatalf("an answer or the log holds the token:\n%s", text)
		}
	}

	// The environment wins: its token cannot be changed here.
	h = runHub(t, data, func(c *Config) { c.Secret = hubSecret; c.HASS.Token = haToken })
	s = signIn(t, h)
	v = s.hass("GET", nil, &seen)
	if f := v.Fixed["token"]; f.Env != "BIFROST_HASS_TOKEN" || f.Value != "" || v.Fixed["url"].Env != "" {
		t.Fatalf("with a token in the environment: %+v", v)
	}
	if b := s.must(http.StatusUnprocessableEntity, "PUT", "/api/integrations/hass", map[string]string{"token": "mine"}, nil); !strings.Contains(string(b), "BIFROST_HASS_TOKEN") {
		t.Errorf("saving a token the environment fixes: %s", b)
	}
	h.stop()
	if strings.Contains(h.log.String(), haToken) {
		t.Errorf("the hub logged the environment's token:\n%s", h.log)
	}
}

// TestHASSFromEnvironment runs the bridge from the environment alone: it
// connects; a URL without a token stops the start, saying what is missing.
func TestHASSFromEnvironment(t *testing.T) {
	ha := hasstest.New(haToken)
	defer ha.Close()
	ha.SetStates(kitchen)
	h := runHub(t, t.TempDir(), func(c *Config) { c.HASS.URL, c.HASS.Token = ha.URL(), haToken })
	s := signIn(t, h)
	var seen []string
	waitFor(t, "the bridge to connect", func() bool { return s.hass("GET", nil, &seen).Status.State == "connected" })
	if v := s.hass("GET", nil, &seen); v.Fixed["url"].Value != ha.URL() || v.Fixed["url"].Env != "BIFROST_HASS_URL" {
		t.Errorf("fixed settings %+v", v.Fixed)
	}
	h.stop()

	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr, m.Config.DataDir, m.Config.Neewer.BLE = "127.0.0.1:0", t.TempDir(), "off"
	m.Config.HASS.URL = ha.URL()
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "no access token is set") {
		t.Errorf("a Home Assistant URL without a token in the environment: %v", err)
	}
	m.Close()
}

func TestHASSOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ha-token")
	if err := os.WriteFile(file, []byte(haToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseServe(t, []string{"--hass-ca-file", "/etc/ha-ca.pem"},
		env{"BIFROST_HASS_URL": "http://homeassistant.local:8123", "BIFROST_HASS_TOKEN_FILE": file})
	if err != nil || cfg.HASS != (HASSConfig{URL: "http://homeassistant.local:8123", Token: haToken, CAFile: "/etc/ha-ca.pem"}) {
		t.Fatalf("options = %+v, %v", cfg.HASS, err)
	}
	if _, err := parseServe(t, nil, env{"BIFROST_HASS_TOKEN_FILE": file, "BIFROST_HASS_TOKEN": "x"}); err == nil {
		t.Error("BIFROST_HASS_TOKEN and BIFROST_HASS_TOKEN_FILE both set: accepted")
	}
	_, out, _ := runCLI("help", "serve")
	for _, want := range []string{"-hass-url", "BIFROST_HASS_URL", "-hass-token", "BIFROST_HASS_TOKEN_FILE", "-hass-ca-file", "BIFROST_HASS_CA_FILE"} {
		if !strings.Contains(out, want) {
			t.Errorf("help does not mention %s:\n%s", want, out)
		}
	}
}
