package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api/mcp"
)

// rpcAnswer is one JSON-RPC answer as sent.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpcFailed checks an answer is the JSON-RPC error code whose message
// starts with a capital and says every want.
func rpcFailed(t *testing.T, what string, b []byte, code int, want ...string) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	decodeJSON(t, b, &a)
	if a.JSONRPC != "2.0" || a.Error == nil || a.Error.Code != code {
		t.Fatalf("%s: want error %d, got %.500s", what, code, b)
	}
	msg := a.Error.Message
	if msg == "" || strings.ToUpper(msg[:1]) != msg[:1] {
		t.Errorf("%s: message %q does not start with a capital", what, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %q does not say %q", what, msg, w)
		}
	}
	return a
}

func versioned(key, version string) http.Header {
	hd := bearer(key)
	if version != "" {
		hd.Set("Mcp-Protocol-Version", version)
	}
	return hd
}

func TestANullIDIsAnInvalidRequest(t *testing.T) {
	h := newHub(t)
	for _, version := range []string{"", mcplib.ProtocolVersion20250618, mcplib.ProtocolVersion20260728} {
		res, b := h.post(t, "/mcp", versioned(h.read, version), `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`)
		a := rpcFailed(t, "id null on "+version, b, mcplib.INVALID_REQUEST, "null")
		if res.StatusCode != http.StatusBadRequest || string(a.ID) != "null" {
			t.Fatalf("id null on %q: %d, id %s", version, res.StatusCode, a.ID)
		}
	}
	// A notification leaves the id out, and gets no answer.
	if res, b := h.post(t, "/mcp", bearer(h.read), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode != http.StatusAccepted || len(b) != 0 {
		t.Fatalf("a notification: %d %s", res.StatusCode, b)
	}
}

func TestBatchesWhereTheProtocolVersionHasThem(t *testing.T) {
	h := newHub(t)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"set_light","arguments":{"light":"Desk Lamp","brightness":25}}},
		{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_lights","arguments":{}}},
		{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}},
		{"jsonrpc":"2.0","id":null,"method":"ping"},
		7]`
	// 2025-03-26 has batches; a request without the header (which came
	// with 2025-06-18) speaks it.
	for _, version := range []string{"", mcplib.ProtocolVersion20250326} {
		res, b := h.post(t, "/mcp", versioned(h.control, version), batch)
		var answers []rpcAnswer
		decodeJSON(t, b, &answers)
		if res.StatusCode != http.StatusOK || len(answers) != 6 {
			t.Fatalf("a batch on %q: %d, %d answers: %.1000s", version, res.StatusCode, len(answers), b)
		}
		byID := map[string]rpcAnswer{}
		for _, a := range answers {
			byID[string(a.ID)] = a
		}
		if a := byID["1"]; a.Error != nil || a.Result == nil {
			t.Errorf("ping: %+v", a)
		}
		if a := byID[`"two"`]; a.Error != nil || !strings.Contains(string(a.Result), "Desk Lamp: on 25%") {
			t.Errorf("set_light: %s", a.Result)
		}
		if a := byID["3"]; a.Error != nil || !strings.Contains(string(a.Result), "6 lights") {
			t.Errorf("list_lights: %s", a.Result)
		}
		if a := byID["4"]; a.Error == nil || a.Error.Code != mcplib.INVALID_REQUEST || !strings.Contains(a.Error.Message, "initialize") {
			t.Errorf("initialize in a batch: %+v", a)
		}
		if a := byID["null"]; a.Error == nil || a.Error.Code != mcplib.INVALID_REQUEST {
			t.Errorf("id null and 7: %+v", answers)
		}
		if st := h.home.Light("sim:desk-lamp").State(); st.Brightness != 25 {
			t.Fatalf("desk lamp %+v", st)
		}
	}
	if res, b := h.post(t, "/mcp", bearer(h.control), `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); res.StatusCode != http.StatusAccepted || len(b) != 0 {
		t.Fatalf("a batch of notifications: %d %s", res.StatusCode, b)
	}
	res, b := h.post(t, "/mcp", bearer(h.control), `[]`)
	if rpcFailed(t, "an empty batch", b, mcplib.INVALID_REQUEST, "empty"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an empty batch: %d", res.StatusCode)
	}
	// 2025-06-18 removed batches.
	for _, version := range []string{mcplib.ProtocolVersion20250618, mcplib.ProtocolVersion20251125, mcplib.ProtocolVersion20260728} {
		before := h.commands(t, "sim:desk-lamp")
		res, b := h.post(t, "/mcp", versioned(h.control, version), batch)
		rpcFailed(t, "a batch on "+version, b, mcplib.INVALID_REQUEST, "Batches are not supported", version, "one JSON-RPC message per request")
		if res.StatusCode != http.StatusBadRequest || h.commands(t, "sim:desk-lamp") != before {
			t.Fatalf("a batch on %s: %d, and the lamp was reached", version, res.StatusCode)
		}
	}
}

func TestUnservedMethodsAre405AndSayWhatIsAllowed(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPut, "/mcp", http.MethodPost},
		{http.MethodPatch, "/mcp", http.MethodPost},
		{http.MethodGet, "/mcp", http.MethodPost},
		{http.MethodDelete, "/mcp", http.MethodPost},
		{http.MethodOptions, "/mcp", http.MethodPost},
		{http.MethodPost, "/sse", http.MethodGet},
		{http.MethodPut, "/message", http.MethodPost},
	} {
		req, _ := http.NewRequest(tc.method, h.srv.URL+tc.path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+h.control)
		res, b := h.do(t, req)
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q, want 405 and %q: %s", tc.method, tc.path, res.StatusCode, res.Header.Get("Allow"), tc.allow, b)
		}
	}
}

func TestAGarbageCursorIsAReadableInvalidParams(t *testing.T) {
	h := newHub(t)
	for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		for _, cursor := range []any{"garbage!!", "Zm9v", 42, strings.Repeat("c", 100_000)} {
			res, b := h.post(t, "/mcp", versioned(h.read, mcplib.ProtocolVersion20250618), rpc(1, method, map[string]any{"cursor": cursor}))
			a := rpcFailed(t, method, b, mcplib.INVALID_PARAMS, "cursor", "without a cursor")
			if res.StatusCode != http.StatusOK || string(a.ID) != "1" || len(a.Error.Message) > 300 || strings.Contains(a.Error.Message, "base64") {
				t.Errorf("%s, cursor %.20v: %d %.400s", method, cursor, res.StatusCode, b)
			}
		}
		res, b := h.post(t, "/mcp", versioned(h.read, mcplib.ProtocolVersion20250618), rpc(1, method, map[string]any{"cursor": ""}))
		if res.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
			t.Errorf("%s without a cursor: %d %.300s", method, res.StatusCode, b)
		}
	}
}

func TestJSONRPCErrorsQuoteLittleOfTheInput(t *testing.T) {
	h := newHub(t)
	long := strings.Repeat("x", 500_000)
	for _, body := range []string{
		rpc(1, "tools/call", map[string]any{"name": long}),
		rpc(1, long, nil),
		rpc(1, "prompts/get", map[string]any{"name": long}),
		rpc(1, "resources/read", map[string]any{"uri": "bifrost://" + long}),
		rpc(1, "tools/call", map[string]any{"name": strings.Repeat("no such tool ", 40_000)}),
	} {
		_, b := h.post(t, "/mcp", versioned(h.control, mcplib.ProtocolVersion20250618), body)
		if len(b) > 1000 {
			t.Errorf("%.60s…: an answer of %d bytes: %.300s", body, len(b), b)
		}
		var a rpcAnswer
		decodeJSON(t, b, &a)
		if a.Error == nil || strings.ToUpper(a.Error.Message[:1]) != a.Error.Message[:1] {
			t.Errorf("%.60s…: %.300s", body, b)
		}
	}
	hd := versioned(h.control, mcplib.ProtocolVersion20250618)
	hd.Set("Origin", "https://"+strings.Repeat("o", 100_000)+".example")
	if res, b := h.post(t, "/mcp", hd, rpc(1, "ping", nil)); res.StatusCode != http.StatusForbidden || len(b) > 1000 {
		t.Errorf("a long Origin: %d, %d bytes: %.300s", res.StatusCode, len(b), b)
	}
	hd = versioned(h.control, strings.Repeat("2025-", 20_000))
	if _, b := h.post(t, "/mcp", hd, rpc(1, "ping", nil)); len(b) > 1000 {
		t.Errorf("a long protocol version: %d bytes: %.300s", len(b), b)
	}
}

// TestBatchesAreBounded: a batch of more than MaxBatch messages is refused
// whole, before any is answered (one POST of 10,000 tools/list calls used
// to be answered with 238 MB built in one buffer), and the process has not
// grown by its size.
func TestBatchesAreBounded(t *testing.T) {
	h := newHub(t)
	var b strings.Builder
	b.WriteByte('[')
	for i := range 10000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
	}
	b.WriteByte(']')
	before := h.commands(t, "sim:desk-lamp")
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	res, body := h.post(t, "/mcp", bearer(h.read), b.String())
	runtime.ReadMemStats(&m1)
	if grew := (m1.TotalAlloc - m0.TotalAlloc) >> 20; grew > 60 {
		t.Errorf("answering the batch allocated %d MB; want it refused before it costs anything like its answers", grew)
	}
	rpcFailed(t, "a batch of 10,000", body, mcplib.INVALID_REQUEST, "10000 messages", fmt.Sprintf("at most %d", mcp.MaxBatch))
	if res.StatusCode != http.StatusBadRequest || len(body) > 1024 {
		t.Fatalf("a batch of 10,000: %d, %d bytes", res.StatusCode, len(body))
	}
	if got := h.commands(t, "sim:desk-lamp"); got != before {
		t.Errorf("the refused batch reached the lamp (%d commands)", got-before)
	}
	// A batch of the most messages allowed is answered in full (the lamp
	// may fold writes that wait behind one another into one).
	var full strings.Builder
	full.WriteByte('[')
	for i := range mcp.MaxBatch {
		if i > 0 {
			full.WriteByte(',')
		}
		fmt.Fprintf(&full, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"set_light","arguments":{"light":"Desk Lamp","brightness":%d}}}`, i, 10+i)
	}
	full.WriteByte(']')
	res, body = h.post(t, "/mcp", bearer(h.control), full.String())
	var answers []rpcAnswer
	decodeJSON(t, body, &answers)
	if res.StatusCode != http.StatusOK || len(answers) != mcp.MaxBatch {
		t.Fatalf("a batch of %d: %d, %d answers", mcp.MaxBatch, res.StatusCode, len(answers))
	}
	for _, a := range answers {
		if a.Error != nil || !strings.Contains(string(a.Result), "Desk Lamp") {
			t.Errorf("a call of a full batch: %+v %s", a.Error, a.Result)
		}
	}
}
