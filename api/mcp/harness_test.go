package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// hub is a real hub behind a real HTTP server: SQLite in a temp dir, the
// simulated home, the service, the automation engine and the whole API,
// with a control key and a read key.
type hub struct {
	svc     *service.Service
	keys    *identity.Keys
	acc     *identity.Accounts
	eng     *automation.Engine
	home    *sim.Home
	tools   *mcp.Tools // the tool set /mcp serves, called in process
	handler http.Handler
	srv     *httptest.Server
	control string
	read    string
}

// engineConfig places the test hub in Berlin, so rules may use the sun.
var engineConfig = automation.Config{Latitude: ptr(52.52), Longitude: ptr(13.405)}

func ptr[T any](v T) *T { return &v }

// system is the context of the hub itself (creating and revoking keys).
var system = service.WithPrincipal(context.Background(), service.System)

func newHub(tb testing.TB) *hub {
	tb.Helper()
	house, home := apitest.NewSimHouse(tb, apitest.WithAutomations(engineConfig))
	cfg := house.Config()
	cfg.AllowedHosts = []string{"example.com"} // the Host of the requests httptest.NewRequest makes
	cfg.Tools = mcp.NewTools(mcp.ToolsConfig{Service: house.Service, Automations: house.Automations, History: house.History})
	a := api.New(cfg)
	h := &hub{svc: house.Service, keys: house.Keys, acc: house.Accounts, eng: house.Automations, home: home, tools: cfg.Tools, handler: a.Handler()}
	h.srv = httptest.NewServer(h.handler)
	tb.Cleanup(func() { a.CloseStreams(); h.srv.Close() })
	h.control = newKey(tb, h.keys, "control", service.ScopeControl)
	h.read = newKey(tb, h.keys, "read", service.ScopeRead)
	return h
}

func newKey(tb testing.TB, keys *identity.Keys, name, scope string) string {
	tb.Helper()
	k, err := keys.CreateKey(system, name, scope)
	if err != nil {
		tb.Fatalf("creating %s key: %v", scope, err)
	}
	return k.Key
}

// client connects mcp-go's Streamable HTTP client with key, speaking
// protocol version ("" for the client's default, the newest).
func (h *hub) client(tb testing.TB, key, version string) *client.Client {
	tb.Helper()
	tr, err := transport.NewStreamableHTTP(h.srv.URL+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		tb.Fatal(err)
	}
	var opts []client.ClientOption
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	started(tb, c, "")
	return c
}

// started starts c and initializes it (at protocol version, "" for the
// client's own), closing it when the test ends; it answers initialize's
// result.
func started(tb testing.TB, c *client.Client, version string) *mcplib.InitializeResult {
	tb.Helper()
	// The legacy SSE client's stream lives in Start's context: it ends
	// with the test.
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(func() { _ = c.Close(); cancel() })
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	init := mcplib.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcplib.Implementation{Name: "bifrost-test", Version: "1"}
	ictx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	res, err := c.Initialize(ictx, init)
	if err != nil {
		tb.Fatalf("initialize (%q): %v", version, err)
	}
	return res
}

// call calls a tool and fails the test on a protocol error; text is a
// result's text content.
var (
	call = apitest.Tool
	text = apitest.ToolText
)

// ok checks a result is not a tool error and decodes its structured
// content into v (when v is not nil).
func ok(tb testing.TB, res *mcplib.CallToolResult, v any) {
	tb.Helper()
	if res.IsError {
		tb.Fatalf("tool error: %s", text(res))
	}
	if v == nil {
		return
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		tb.Fatalf("no structured content; text %q", text(res))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.Fatalf("decoding %s: %v", raw, err)
	}
}

// failed checks a result is a tool error whose text contains every want.
func failed(tb testing.TB, res *mcplib.CallToolResult, want ...string) {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("want a tool error, got %s", text(res))
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			tb.Fatalf("tool error %q does not say %q", text(res), w)
		}
	}
}

// commands is how many commands reached the simulated device id.
func (h *hub) commands(tb testing.TB, id devices.ID) int {
	tb.Helper()
	for _, d := range h.home.Devices() {
		if d.Info().ID == id {
			return d.(interface{ Commands() int }).Commands()
		}
	}
	tb.Fatalf("no simulated device %s", id)
	return 0
}

// post sends one raw request to the hub and returns the answer.
func (h *hub) post(tb testing.TB, path string, header http.Header, body string) (*http.Response, []byte) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	return h.do(tb, req)
}

func (h *hub) do(tb testing.TB, req *http.Request) (*http.Response, []byte) {
	tb.Helper()
	res, err := h.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, b
}

func bearer(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}}
}

// rpc is a JSON-RPC request body.
func rpc(id int, method string, params any) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// toolCall is the body of a tools/call request.
func toolCall(id int, name string, args any) string {
	return rpc(id, "tools/call", map[string]any{"name": name, "arguments": args})
}

// decodeJSON decodes b into v, failing the test with b on error.
func decodeJSON(tb testing.TB, b []byte, v any) {
	tb.Helper()
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		tb.Fatalf("decoding %s: %v", b, err)
	}
}

// kib formats a size for the log.
func kib(n int) string { return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/1024) }
