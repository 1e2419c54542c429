package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
)

// BenchmarkTransport serves the same messages (from a client on a revision
// with initialize) behind the same key check in two ways: the lean path
// this package takes, and mcp-go's stateless StreamableHTTPServer, which
// builds a session, a notification forwarder and an SSE-capable writer for
// every request. A ping shows the transport alone; list_lights adds the
// service's work.
func BenchmarkTransport(b *testing.B) {
	svc, keys := NewHouse(b)
	k, err := keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "bench", service.ScopeRead)
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{Service: svc, Keys: keys, AllowedHosts: []string{"example.com"}}) // httptest.NewRequest's Host
	messages := map[string]string{
		"ping":        `{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		"list_lights": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_lights","arguments":{}}}`,
	}
	for _, tc := range []struct {
		name, msg string
		h         echo.HandlerFunc
	}{
		{"ping/lean", "ping", s.post},
		{"ping/library", "ping", echo.WrapHandler(s.stream)},
		{"list_lights/lean", "list_lights", s.post},
		{"list_lights/library", "list_lights", echo.WrapHandler(s.stream)},
	} {
		e := echo.New()
		e.POST("/mcp", tc.h, s.guard)
		body := messages[tc.msg]
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+k.Key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"result"`) {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
