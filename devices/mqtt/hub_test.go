package mqtt_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// hub is the whole hub around the MQTT adapter: SQLite in a temp dir, the
// registry, the service, and the /api/v1 router with a control key.
type hub struct {
	t       testing.TB
	svc     *service.Service
	reg     *devices.Registry
	adapter *mqtt.Adapter
	handler http.Handler
	key     string
	sys     context.Context // the hub's own principal
}

func newHub(t testing.TB, cfg mqtt.Config) *hub {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatalf("opening store: %v", err)
	}
	reg := devices.NewRegistry(3 * time.Second)
	svc := service.New(service.Config{Store: db, Registry: reg})
	idc := identity.Config{Store: db, Audit: svc, Events: svc.Events()}
	keys := identity.NewKeys(idc)
	cfg.Logger = testLogger(t)
	a, err := mqtt.New(reg, cfg)
	if err != nil {
		t.Fatalf("mqtt.New: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = svc.Run(runCtx) })
	wg.Go(func() { _ = a.Run(runCtx) })
	t.Cleanup(func() {
		stop()
		_ = a.Close()
		wg.Wait()
		keys.Wait()
		reg.Close()
		_ = db.Close()
	})
	handler := api.New(api.Config{Service: svc, Keys: keys, Accounts: identity.NewAccounts(idc, keys)}).Handler()
	h := &hub{t: t, svc: svc, reg: reg, adapter: a, handler: handler}
	h.sys = service.WithPrincipal(ctx, service.System)
	k, err := keys.CreateKey(h.sys, "mqtt test", service.ScopeControl)
	if err != nil {
		t.Fatalf("creating a key: %v", err)
	}
	h.key = k.Key
	return h
}

// in is the hub as seen from test t (a subtest), so failures end t.
func (h *hub) in(t testing.TB) *hub {
	c := *h
	c.t = t
	return &c
}

// testLogger keeps the adapter's log and shows it when the test fails.
func testLogger(t testing.TB) *slog.Logger {
	buf := &apitest.LogBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("adapter log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// call sends one /api/v1 request with the control key and decodes a 2xx
// answer into out.
func (h *hub) call(method, path string, body, out any) int {
	h.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, "/api/v1"+path, r)
	req.Header.Set("Authorization", "Bearer "+h.key)
	req.Header.Set("Prefer", "return=representation") // writes answer with what they did, not 204
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	if rec.Code/100 == 2 && out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			h.t.Fatalf("%s %s: decoding %s: %v", method, path, rec.Body.String(), err)
		}
	}
	return rec.Code
}

func (h *hub) get(path string, out any) int { return h.call(http.MethodGet, path, nil, out) }

// The views of the API, as far as the tests read them.
type deviceView struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Online bool   `json:"online"`
	Room   string `json:"room"`
	Model  string `json:"model"`
}

type powerView struct {
	deviceView
	PowerKind string `json:"power_kind"`
	On        *bool  `json:"on"`
}

type lightView struct {
	deviceView
	Capabilities devices.LightCaps   `json:"capabilities"`
	State        *devices.LightState `json:"state"`
}

type lightResult struct {
	State devices.LightState `json:"state"`
}

type sensorView struct {
	deviceView
	Readings []devices.Reading `json:"readings"`
}

type roomView struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Occupied *bool  `json:"occupied"`
}

func esc(id string) string { return url.PathEscape(id) }

func (h *hub) power(id string) powerView {
	h.t.Helper()
	var v powerView
	if code := h.get("/power/devices/"+esc(id), &v); code != http.StatusOK {
		h.t.Fatalf("GET power device %s: %d", id, code)
	}
	return v
}

// devices lists the inventory by id.
func (h *hub) devices() map[string]deviceView {
	h.t.Helper()
	var list []deviceView
	if code := h.get("/devices", &list); code != http.StatusOK {
		h.t.Fatalf("GET /devices: %d", code)
	}
	out := map[string]deviceView{}
	for _, d := range list {
		out[d.ID] = d
	}
	return out
}

// waitOnline waits until every id is listed online.
func (h *hub) waitOnline(within time.Duration, ids ...string) {
	h.t.Helper()
	eventually(h.t, within, func() error {
		ds := h.devices()
		for _, id := range ids {
			if d, ok := ds[id]; !ok || !d.Online {
				return fmt.Errorf("%s is not listed online (listed: %v)", id, ok)
			}
		}
		return nil
	})
}

// eventually polls cond until it returns nil, failing with its last error
// after within.
func eventually(t testing.TB, within time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isOn(v powerView) string {
	if v.On == nil {
		return "unknown"
	}
	return onOff(*v.On)
}
