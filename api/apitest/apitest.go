// Package apitest starts a hub's HTTP side for tests of adapters and
// surfaces: the real service over SQLite with a given device registry,
// behind the real HTTP server, with a control key, plain /api/v1 requests
// and mcp-go's own MCP client.
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
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// Hub is a running hub's HTTP side and a control key for it.
type Hub struct {
	URL     string
	Key     string
	Service *service.Service
}

// Start records reg's devices, runs the service (so adapters' changes are
// followed) and serves the API until the test ends. Reads are bounded by
// readTimeout, so a device that stops answering is reported within the
// device timeout whether a read or a command meets it first.
func Start(t testing.TB, reg *devices.Registry, readTimeout time.Duration) *Hub {
	t.Helper()
	svc := servicetest.New(t, reg, readTimeout)
	a := api.New(api.Config{Service: svc, Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() { a.CloseStreams(); srv.Close() })
	k, err := svc.CreateKey(service.WithPrincipal(context.Background(), service.System), "test", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	return &Hub{URL: srv.URL, Key: k.Key, Service: svc}
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// V1 sends one request to /api/v1 with the key, checks the status and
// decodes the JSON answer into out (when not nil).
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
