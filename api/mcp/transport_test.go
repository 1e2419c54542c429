package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/service"
)

func TestEveryProtocolVersionNegotiates(t *testing.T) {
	h := newHub(t)
	for _, v := range []string{
		mcplib.ProtocolVersion20241105, mcplib.ProtocolVersion20250326, mcplib.ProtocolVersion20250618, mcplib.ProtocolVersion20251125,
		"", // the client's default: the sessionless 2026-07-28, through server/discover
	} {
		t.Run("version "+v, func(t *testing.T) {
			c := h.client(t, h.control, v)
			want := v
			if want == "" {
				want = mcplib.ProtocolVersion20260728
			}
			if got := c.ProtocolVersion(); got != want {
				t.Fatalf("negotiated %q, want %q", got, want)
			}
			tools, err := c.ListTools(context.Background(), mcplib.ListToolsRequest{})
			if err != nil || len(tools.Tools) != len(allTools) {
				t.Fatalf("tools/list: %d tools, %v", len(tools.Tools), err)
			}
			var out struct{ Lights []map[string]any }
			ok(t, call(t, c, "list_lights", nil), &out)
			if len(out.Lights) != 6 {
				t.Fatalf("%d lights", len(out.Lights))
			}
			if c.GetSessionId() != "" {
				t.Fatalf("the stateless endpoint handed out session %q", c.GetSessionId())
			}
		})
	}
}

func TestInitializeAnswersJSONWithInstructionsAndNoSession(t *testing.T) {
	h := newHub(t)
	res, body := h.post(t, "/mcp", bearer(h.read), rpc(1, "initialize", map[string]any{
		"protocolVersion": mcplib.ProtocolVersion20250618,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "curl", "version": "1"},
	}))
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if id := res.Header.Get("Mcp-Session-Id"); id != "" {
		t.Fatalf("Mcp-Session-Id %q on a stateless endpoint", id)
	}
	var m struct {
		Result mcplib.InitializeResult `json:"result"`
	}
	decodeJSON(t, body, &m)
	if m.Result.ProtocolVersion != mcplib.ProtocolVersion20250618 || m.Result.ServerInfo.Name != "bifrost" {
		t.Fatalf("initialize: %s", body)
	}
	for _, want := range []string{"get_home_state", "undo", "exact name"} {
		if !strings.Contains(m.Result.Instructions, want) {
			t.Fatalf("the instructions do not mention %q:\n%s", want, m.Result.Instructions)
		}
	}
	res, body = h.post(t, "/mcp", bearer(h.read), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if res.StatusCode != http.StatusAccepted || len(body) != 0 {
		t.Fatalf("notifications/initialized: %d %s", res.StatusCode, body)
	}
}

func TestGetAndDeleteAre405(t *testing.T) {
	h := newHub(t)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, h.srv.URL+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+h.control)
		req.Header.Set("Accept", "text/event-stream")
		res, body := h.do(t, req)
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != http.MethodPost {
			t.Fatalf("%s /mcp: %d (Allow %q) %s", method, res.StatusCode, res.Header.Get("Allow"), body)
		}
	}
}

func TestTheKeyIsCheckedBeforeAnyMCPProcessing(t *testing.T) {
	h := newHub(t)
	revoked, err := h.keys.CreateKey(system, "gone", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.keys.RevokeKey(system, revoked.ID); err != nil {
		t.Fatal(err)
	}
	auths := map[string]string{
		"missing":    "",
		"not bearer": "Basic " + h.control,
		"malformed":  "Bearer bfr_nope",
		"revoked":    "Bearer " + revoked.Key,
	}
	for name, auth := range auths {
		for _, body := range []string{rpc(1, "tools/list", nil), "{not json"} {
			hd := http.Header{}
			if auth != "" {
				hd.Set("Authorization", auth)
			}
			res, b := h.post(t, "/mcp", hd, body)
			var e struct{ Error, Message string }
			decodeJSON(t, b, &e)
			if res.StatusCode != http.StatusUnauthorized || e.Error != "unauthorized" || e.Message == "" {
				t.Fatalf("%s key: %d %s", name, res.StatusCode, b)
			}
			if got := res.Header.Get("WWW-Authenticate"); got != `Bearer realm="bifrost"` {
				t.Fatalf("%s key: WWW-Authenticate %q", name, got)
			}
		}
	}
	for _, path := range []string{"/sse", "/mcp"} {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+path, nil)
		if res, b := h.do(t, req); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("GET %s without a key: %d %s", path, res.StatusCode, b)
		}
	}
	if res, b := h.post(t, "/message?sessionId=x", nil, rpc(1, "tools/list", nil)); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST /message without a key: %d %s", res.StatusCode, b)
	}
}

func TestOAuthProbesGetAQuickJSON404(t *testing.T) {
	h := newHub(t)
	probes := []struct{ method, path string }{
		{http.MethodGet, "/.well-known/oauth-protected-resource"},
		{http.MethodGet, "/.well-known/oauth-protected-resource/mcp"},
		{http.MethodGet, "/.well-known/oauth-authorization-server"},
		{http.MethodGet, "/.well-known/openid-configuration"},
		{http.MethodPost, "/register"},
		{http.MethodGet, "/authorize"},
		{http.MethodPost, "/token"},
	}
	for _, p := range probes {
		req, _ := http.NewRequest(p.method, h.srv.URL+p.path, strings.NewReader("{}"))
		start := time.Now()
		res, b := h.do(t, req)
		var e struct{ Error, Message string }
		decodeJSON(t, b, &e)
		if res.StatusCode != http.StatusNotFound || e.Error != "not_found" || !strings.Contains(e.Message, "API key") {
			t.Fatalf("%s %s: %d %s", p.method, p.path, res.StatusCode, b)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%s %s took %v", p.method, p.path, d)
		}
	}
}

func TestOriginsAreChecked(t *testing.T) {
	h := newHub(t)
	host := strings.TrimPrefix(h.srv.URL, "http://")
	cases := map[string]int{
		"http://evil.example":       http.StatusForbidden,
		"null":                      http.StatusForbidden,
		"http://" + host:            http.StatusOK,
		"http://localhost:5173":     http.StatusOK,
		"http://127.0.0.1:6274":     http.StatusOK,
		"http://[::1]:8080":         http.StatusOK,
		"https://hub.example:3000":  http.StatusForbidden,
		"http://localhost.evil.com": http.StatusForbidden,
	}
	for origin, want := range cases {
		hd := bearer(h.control)
		hd.Set("Origin", origin)
		res, b := h.post(t, "/mcp", hd, rpc(1, "tools/list", nil))
		if res.StatusCode != want {
			t.Errorf("Origin %s: %d, want %d: %.200s", origin, res.StatusCode, want, b)
		}
	}

	// A configured list replaces the default.
	a := api.New(api.Config{Service: h.svc, Keys: h.keys, Accounts: h.acc, AllowedOrigins: []string{"https://hub.example:3000"}})
	for origin, want := range map[string]int{
		"https://hub.example:3000": http.StatusOK,
		"https://HUB.example:3000": http.StatusOK,
		"http://localhost:5173":    http.StatusForbidden,
	} {
		req, _ := http.NewRequest(http.MethodPost, "/mcp", strings.NewReader(rpc(1, "tools/list", nil)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+h.control)
		req.Header.Set("Origin", origin)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("configured, Origin %s: %d, want %d", origin, rec.Code, want)
		}
	}
}

func TestBodiesOverOneMiBAre413(t *testing.T) {
	h := newHub(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_lights","arguments":{"pad":"` +
		strings.Repeat("x", 1<<20) + `"}}}`
	res, b := h.post(t, "/mcp", bearer(h.control), big)
	var e struct{ Error string }
	decodeJSON(t, b, &e)
	if res.StatusCode != http.StatusRequestEntityTooLarge || e.Error != "too_large" {
		t.Fatalf("%d %s", res.StatusCode, b)
	}
}

func TestMalformedJSONRPCIsAJSONRPCError(t *testing.T) {
	h := newHub(t)
	bodies := []string{
		"", "{", "null", `"tools/list"`, "42", "[]",
		`{"jsonrpc":"2.0"}`,
		`{"id":1}`,
		`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"list_lights"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool"}}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"bifrost://nope"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}`,
		"\x00\xff garbage",
	}
	for _, body := range bodies {
		res, b := h.post(t, "/mcp", bearer(h.control), body)
		if res.StatusCode >= 500 {
			t.Fatalf("%q: %d %s", body, res.StatusCode, b)
		}
		var m struct {
			JSONRPC string `json:"jsonrpc"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		decodeJSON(t, b, &m)
		if m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
			t.Fatalf("%q: %d %.300s is not a JSON-RPC error", body, res.StatusCode, b)
		}
	}

	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp", strings.NewReader(rpc(1, "tools/list", nil)))
	req.Header.Set("Authorization", "Bearer "+h.control)
	req.Header.Set("Content-Type", "text/plain")
	if res, b := h.do(t, req); res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d %s", res.StatusCode, b)
	}
}

func TestSessionlessRevisionKeepsItsTransportRules(t *testing.T) {
	h := newHub(t)
	meta := map[string]any{
		mcplib.MetaKeyProtocolVersion:    mcplib.ProtocolVersion20260728,
		mcplib.MetaKeyClientCapabilities: map[string]any{},
	}
	body := rpc(1, "tools/call", map[string]any{"name": "list_lights", "_meta": meta})
	hd := bearer(h.read)
	hd.Set("Mcp-Protocol-Version", mcplib.ProtocolVersion20260728)
	hd.Set("Mcp-Method", "tools/call")
	hd.Set("Mcp-Name", "list_lights")
	if res, b := h.post(t, "/mcp", hd, body); res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"structuredContent"`) {
		t.Fatalf("a well-formed 2026-07-28 call: %d %s", res.StatusCode, b)
	}
	hd.Set("Mcp-Name", "get_home_state")
	if res, b := h.post(t, "/mcp", hd, body); res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Mcp-Name") {
		t.Fatalf("Mcp-Name disagreeing with the body: %d %s", res.StatusCode, b)
	}
}

// sessionless is a request of the 2026-07-28 revision as its clients
// send it: the version in the header and in _meta, the method and name in
// Mcp-Method and Mcp-Name.
func sessionless(key string, id int, method string, params map[string]any) (http.Header, string) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		mcplib.MetaKeyProtocolVersion:    mcplib.ProtocolVersion20260728,
		mcplib.MetaKeyClientCapabilities: map[string]any{},
	}
	hd := bearer(key)
	hd.Set("Mcp-Protocol-Version", mcplib.ProtocolVersion20260728)
	hd.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		hd.Set("Mcp-Name", name)
	}
	return hd, rpc(id, method, params)
}

func TestSessionlessRevisionChecksItsHeaders(t *testing.T) {
	h := newHub(t)
	call := map[string]any{"name": "list_lights", "arguments": map[string]any{}}

	hd, body := sessionless(h.read, 1, "tools/call", call)
	hd.Set("Mcp-Method", "tools/list")
	res, b := h.post(t, "/mcp", hd, body)
	if a := rpcAnswerOf(t, b); res.StatusCode != http.StatusBadRequest || a.Error == nil || a.Error.Code != mcplib.HEADER_MISMATCH ||
		a.Error.Message != `header mismatch: Mcp-Method: header value "tools/list" does not match body value "tools/call"` {
		t.Fatalf("Mcp-Method disagreeing with the body: %d %s", res.StatusCode, b)
	}

	hd, body = sessionless(h.read, 2, "tools/call", call)
	hd.Del("Mcp-Name")
	res, b = h.post(t, "/mcp", hd, body)
	if a := rpcAnswerOf(t, b); res.StatusCode != http.StatusBadRequest || a.Error == nil || a.Error.Code != mcplib.HEADER_MISMATCH ||
		a.Error.Message != `header mismatch: Mcp-Name: missing required header for method "tools/call"` || string(a.ID) != "2" {
		t.Fatalf("tools/call without Mcp-Name: %d %s", res.StatusCode, b)
	}

	// Refused even when the answer is kept: a well-formed call first.
	hd, body = sessionless(h.read, 3, "tools/call", call)
	if res, b := h.post(t, "/mcp", hd, body); res.StatusCode != http.StatusOK {
		t.Fatalf("a well-formed call: %d %s", res.StatusCode, b)
	}
	hd.Set("Mcp-Name", "get_home_state")
	if res, b := h.post(t, "/mcp", hd, body); res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Mcp-Name") {
		t.Fatalf("a kept call with Mcp-Name disagreeing: %d %s", res.StatusCode, b)
	}
	hd, body = sessionless(h.read, 4, "tools/call", call)
	body = strings.Replace(body, `"io.modelcontextprotocol/clientCapabilities":{},`, "", 1)
	if res, b := h.post(t, "/mcp", hd, body); res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "clientCapabilities") {
		t.Fatalf("a kept call without the client's capabilities: %d %s (%s)", res.StatusCode, b, body)
	}
}

func TestServerDiscoverAnswers(t *testing.T) {
	h := newHub(t)
	hd, body := sessionless(h.read, 1, "server/discover", nil)
	res, b := h.post(t, "/mcp", hd, body)
	var a struct {
		Result struct {
			mcplib.DiscoverResult
			ResultType string `json:"resultType"`
			Meta       struct {
				ServerInfo mcplib.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		} `json:"result"`
	}
	decodeJSON(t, b, &a)
	r := a.Result
	if res.StatusCode != http.StatusOK || r.ResultType != "complete" || r.Meta.ServerInfo.Name != "bifrost" {
		t.Fatalf("server/discover: %d %s", res.StatusCode, b)
	}
	if !slices.Equal(r.SupportedVersions, mcplib.ValidProtocolVersions) || r.SupportedVersions[0] != mcplib.ProtocolVersion20260728 {
		t.Fatalf("server/discover names versions %v, want %v", r.SupportedVersions, mcplib.ValidProtocolVersions)
	}
	if r.Capabilities.Tools == nil || r.Capabilities.Resources == nil || r.Capabilities.Prompts == nil || !strings.Contains(r.Instructions, "get_home_state") {
		t.Fatalf("server/discover: %s", b)
	}
	// Before 2026-07-28 there is no server/discover.
	res, b = h.post(t, "/mcp", versioned(h.read, mcplib.ProtocolVersion20251125), rpc(2, "server/discover", nil))
	if a := rpcAnswerOf(t, b); a.Error == nil || a.Error.Code != mcplib.METHOD_NOT_FOUND {
		t.Fatalf("server/discover on 2025-11-25: %d %s", res.StatusCode, b)
	}
}

// TestKeptAnswersAreKeptPerRevision: a read tool's answer kept for one
// protocol revision is not given on another, whose answers differ (the
// 2026-07-28 revision adds resultType and the server's name to a result).
func TestKeptAnswersAreKeptPerRevision(t *testing.T) {
	h := newHub(t)
	modern := func(id int) rpcAnswer {
		hd, body := sessionless(h.read, id, "tools/call", map[string]any{"name": "list_lights", "arguments": map[string]any{}})
		res, b := h.post(t, "/mcp", hd, body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("2026-07-28: %d %s", res.StatusCode, b)
		}
		return rpcAnswerOf(t, b)
	}
	older := func(id int) rpcAnswer {
		res, b := h.post(t, "/mcp", versioned(h.read, mcplib.ProtocolVersion20251125), toolCall(id, "list_lights", map[string]any{}))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("2025-11-25: %d %s", res.StatusCode, b)
		}
		return rpcAnswerOf(t, b)
	}
	isModern := func(a rpcAnswer) bool {
		return strings.Contains(string(a.Result), `"resultType":"complete"`) && strings.Contains(string(a.Result), `"io.modelcontextprotocol/serverInfo"`)
	}
	for i, a := range []rpcAnswer{older(1), modern(2), older(3), modern(4), older(5)} {
		if want := i%2 == 1; isModern(a) != want || string(a.ID) != strconv.Itoa(i+1) {
			t.Fatalf("answer %d (2026-07-28: %v): %s %s", i+1, want, a.ID, a.Result)
		}
	}
}

func rpcAnswerOf(t *testing.T, b []byte) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	decodeJSON(t, b, &a)
	return a
}

func TestLegacySSETransport(t *testing.T) {
	h := newHub(t)
	c, err := client.NewSSEMCPClient(h.srv.URL+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + h.control}))
	if err != nil {
		t.Fatal(err)
	}
	started(t, c, mcplib.ProtocolVersion20241105)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcplib.ListToolsRequest{})
	if err != nil || len(tools.Tools) != len(allTools) {
		t.Fatalf("tools/list over SSE: %d, %v", len(tools.Tools), err)
	}
	before := h.home.Light("sim:desk-lamp").State()
	ok(t, call(t, c, "set_light", map[string]any{"light": "Desk Lamp", "brightness": 33}), nil)
	if st := h.home.Light("sim:desk-lamp").State(); st.Brightness != 33 || !st.On || before.Brightness == 33 {
		t.Fatalf("desk lamp %+v", st)
	}

	// Another key may not post into this key's session.
	endpoint := client.GetEndpoint(c)
	res, b := h.post(t, endpoint.RequestURI(), bearer(h.read), rpc(9, "tools/list", nil))
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("another key posting to the session: %d %s", res.StatusCode, b)
	}
}

// TestSSEStreamsAreCappedPerKey: the legacy /sse streams count against
// their key's cap with /api/v1/events (8 by default): the ninth is a 429
// that says so, another key is not affected, and closing one frees its
// place.
func TestSSEStreamsAreCappedPerKey(t *testing.T) {
	h := newHub(t)
	open := func(key string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+"/sse", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		return res, func() { cancel(); res.Body.Close() }
	}
	var closers []context.CancelFunc
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for i := range 8 {
		res, closeIt := open(h.read)
		closers = append(closers, closeIt)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of the key: %d", i+1, res.StatusCode)
		}
	}
	res, closeIt := open(h.read)
	b, _ := io.ReadAll(res.Body)
	closeIt()
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "BIFROST_MAX_STREAMS_PER_KEY") {
		t.Fatalf("the ninth stream of a key: %d %s; want 429 naming the setting", res.StatusCode, b)
	}
	other, closeOther := open(h.control)
	closeOther()
	if other.StatusCode != http.StatusOK {
		t.Fatalf("another key's stream: %d", other.StatusCode)
	}
	closers[0]()
	closers = closers[1:]
	eventually(t, "a closed stream to free its place", func() bool {
		res, closeIt := open(h.read)
		defer closeIt()
		return res.StatusCode == http.StatusOK
	})
}
