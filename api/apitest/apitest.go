// Package apitest starts a hub's HTTP side for tests of adapters and
// surfaces: the real service over SQLite with a given device registry,
// the identity (keys, accounts) and the sensor history beside it, and
// optionally the automation engine over the same store, behind the real
// HTTP server, with a control key, plain /api/v1 requests and mcp-go's own
// MCP client.
package apitest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

// Hub is a running hub's HTTP side and a control key for it.
type Hub struct {
	URL string
	Key string
	*House
}

// House is what a hub serves: a running service, the keys and accounts
// and the sensor history beside it over the same store, and, with
// WithAutomations, a running engine.
type House struct {
	Service  *service.Service
	Keys     *identity.Keys
	Accounts *identity.Accounts
	// History reads what the running history.Recorder keeps of the
	// service's sensors.
	History *history.Reader
	// Automations is the engine the hub runs (nil without
	// WithAutomations).
	Automations *automation.Engine
	// Kiosks are the hub's wall tablets.
	Kiosks *kiosk.Kiosks
}

// Option changes what a hub runs.
type Option func(*options)

type options struct {
	automations *automation.Config
}

// WithAutomations runs an automation engine made with cfg beside the
// service until the test ends, over the hub's own store (cfg's Service and
// Store are filled in), and serves it on every surface. A test with a fake
// clock (cfg.Now) drives the engine's Tick itself.
func WithAutomations(cfg automation.Config) Option {
	return func(o *options) { o.automations = &cfg }
}

// Start records reg's devices, runs the service (so adapters' changes are
// followed) and serves the API until the test ends. Reads are bounded by
// readTimeout, so a device that stops answering is reported within the
// device timeout whether a read or a command meets it first.
func Start(t testing.TB, reg *devices.Registry, readTimeout time.Duration, opts ...Option) *Hub {
	t.Helper()
	h := NewHouse(t, reg, readTimeout, opts...)
	a := api.New(h.Config())
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() { a.CloseStreams(); srv.Close() })
	k, err := h.Keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "test", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	return &Hub{URL: srv.URL, Key: k.Key, House: h}
}

// NewHouse is what Start serves, for tests that build the server
// themselves: a running service over reg, its identity, its sensor
// history (a Recorder running as the hub runs it) and, with
// WithAutomations, a running engine over the same store.
func NewHouse(tb testing.TB, reg *devices.Registry, readTimeout time.Duration, opts ...Option) *House {
	tb.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	db := servicetest.Open(tb)
	rec := history.NewRecorder(history.Config{Store: db})
	servicetest.Go(tb, rec.Run)
	svc := servicetest.Start(tb, service.Config{Store: db, Registry: reg, ReadTimeout: readTimeout, History: rec})
	h := &House{Service: svc, History: history.NewReader(history.Config{Store: db}, svc)}
	h.Keys, h.Accounts = servicetest.Identity(tb, svc, db)
	h.Kiosks = kiosk.New(kiosk.Config{Store: db, Home: svc, Admins: h.Accounts, Audit: svc, Events: svc.Events()})
	if o.automations != nil {
		h.Automations = runEngine(tb, svc, db, *o.automations)
	}
	return h
}

// NewSimHouse is NewHouse over the simulated home.
func NewSimHouse(tb testing.TB, opts ...Option) (*House, *sim.Home) {
	tb.Helper()
	reg := devices.NewRegistry(0)
	tb.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	return NewHouse(tb, reg, 0, opts...), home
}

// Config is the server's configuration for h: its service, identity,
// history and engine, logs discarded.
func (h *House) Config() api.Config {
	return api.Config{Service: h.Service, Keys: h.Keys, Accounts: h.Accounts, Automations: h.Automations,
		History: h.History, Voice: voice.New(h.Service), Kiosks: h.Kiosks, Logger: slog.New(slog.DiscardHandler)}
}

// runEngine runs an engine over svc and db until the test ends, and waits
// for it to stop before the service and the store do.
func runEngine(tb testing.TB, svc *service.Service, db *store.DB, cfg automation.Config) *automation.Engine {
	tb.Helper()
	cfg.Service, cfg.Store = svc, db
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	eng := automation.New(cfg)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- eng.Run(ctx) }()
	tb.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			tb.Errorf("the automation engine stopped: %v", err)
		}
	})
	return eng
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// V1 sends one request to /api/v1 with the key, checks the status and
// decodes the JSON answer into out (when not nil). Writes ask for the
// written resource back (Prefer: return=representation), as Bifrost's own
// clients do.
func (h *Hub) V1(t testing.TB, method, path, body string, want int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, h.URL+"/api/v1"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set("Prefer", "return=representation")
	}
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s; want %d", method, path, res.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, path, b, err)
		}
	}
}

// Error is an error answer of the API.
type Error struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// MCP connects mcp-go's Streamable HTTP client to /mcp with the key.
func (h *Hub) MCP(t testing.TB) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(h.URL+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + h.Key}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcplib.InitializeRequest{}
	init.Params.ClientInfo = mcplib.Implementation{Name: "bifrost-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// Tool calls a tool; a protocol error fails the test, a tool error is
// returned as the result it is.
func Tool(t testing.TB, c *client.Client, name string, args map[string]any) *mcplib.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcplib.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ToolOK calls a tool, checks it did not fail and decodes its structured
// content into out.
func ToolOK(t testing.TB, c *client.Client, name string, args map[string]any, out any) {
	t.Helper()
	res := Tool(t, c, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error %q", name, ToolText(res))
	}
	if err := json.Unmarshal(res.RawStructuredContent, out); err != nil {
		t.Fatalf("%s: decoding %s: %v", name, res.RawStructuredContent, err)
	}
}

// ToolText is a tool result's text.
func ToolText(res *mcplib.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcplib.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
