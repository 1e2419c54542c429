package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/service"
)

// modernCase is one request of the sessionless revision: its method, its
// params (without _meta), the _meta beside them and the headers it is
// sent with, each changed from a well-formed request by the case.
type modernCase struct {
	name    string
	method  string
	params  map[string]any
	meta    map[string]any    // nil: the revision's, with empty capabilities
	headers map[string]string // over the well-formed request's; "" removes one
	body    string            // the whole body, instead of method and params
}

func (tc modernCase) request(key string) *http.Request {
	body := tc.body
	if body == "" {
		params := maps.Clone(tc.params)
		if params == nil {
			params = map[string]any{}
		}
		meta := tc.meta
		if meta == nil {
			meta = map[string]any{
				mcplib.MetaKeyProtocolVersion:    mcplib.ProtocolVersion20260728,
				mcplib.MetaKeyClientCapabilities: map[string]any{},
				mcplib.MetaKeyClientInfo:         map[string]any{"name": "test", "version": "1"},
			}
		}
		params["_meta"] = meta
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": tc.method, "params": params})
		body = string(b)
	}
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcplib.HeaderProtocolVersion, mcplib.ProtocolVersion20260728)
	req.Header.Set(mcplib.HeaderMethod, tc.method)
	if name, ok := mcplib.ExtractHeaderName(mcplib.MCPMethod(tc.method), mustJSON(tc.params)); ok {
		req.Header.Set(mcplib.HeaderName, name)
	}
	for k, v := range tc.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return req
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

var modernCases = []modernCase{
	{name: "list_lights", method: "tools/call", params: map[string]any{"name": "list_lights", "arguments": map[string]any{}}},
	{name: "list_lights again (kept)", method: "tools/call", params: map[string]any{"name": "list_lights", "arguments": map[string]any{}}},
	{name: "list_lights without arguments", method: "tools/call", params: map[string]any{"name": "list_lights"}},
	{name: "get_home_state", method: "tools/call", params: map[string]any{"name": "get_home_state", "arguments": map[string]any{}}},
	{name: "get_light of a name with HTML characters", method: "tools/call", params: map[string]any{"name": "get_light", "arguments": map[string]any{"light": "<b>Desk & Lamp</b>"}}},
	{name: "set_light with a read key", method: "tools/call", params: map[string]any{"name": "set_light", "arguments": map[string]any{"light": "Desk Lamp", "on": true}}},
	{name: "an unknown tool", method: "tools/call", params: map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}},
	{name: "tools/list", method: "tools/list"},
	{name: "resources/list", method: "resources/list"},
	{name: "resources/templates/list", method: "resources/templates/list"},
	{name: "resources/read", method: "resources/read", params: map[string]any{"uri": "bifrost://home"}},
	{name: "prompts/list", method: "prompts/list"},
	{name: "prompts/get", method: "prompts/get", params: map[string]any{"name": "good_night"}},
	{name: "server/discover", method: "server/discover"},
	{name: "initialize (removed)", method: "initialize", params: map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}},
	{name: "ping (removed)", method: "ping"},
	{name: "Mcp-Method disagreeing", method: "tools/call", params: map[string]any{"name": "list_lights"}, headers: map[string]string{mcplib.HeaderMethod: "tools/list"}},
	{name: "Mcp-Method missing", method: "tools/list", headers: map[string]string{mcplib.HeaderMethod: ""}},
	{name: "Mcp-Name missing", method: "tools/call", params: map[string]any{"name": "list_lights"}, headers: map[string]string{mcplib.HeaderName: ""}},
	{name: "Mcp-Name disagreeing", method: "tools/call", params: map[string]any{"name": "list_lights"}, headers: map[string]string{mcplib.HeaderName: "get_home_state"}},
	{name: "Mcp-Name in Base64", method: "tools/call", params: map[string]any{"name": "list_lights"}, headers: map[string]string{mcplib.HeaderName: "=?base64?bGlzdF9saWdodHM=?="}},
	{name: "Mcp-Name in bad Base64", method: "tools/call", params: map[string]any{"name": "list_lights"}, headers: map[string]string{mcplib.HeaderName: "=?base64?!!?="}},
	{name: "Mcp-Name missing for prompts/get", method: "prompts/get", params: map[string]any{"name": "good_night"}, headers: map[string]string{mcplib.HeaderName: ""}},
	{name: "Mcp-Name disagreeing for resources/read", method: "resources/read", params: map[string]any{"uri": "bifrost://home"}, headers: map[string]string{mcplib.HeaderName: "bifrost://elsewhere"}},
	{name: "no Mcp-Protocol-Version", method: "tools/list", headers: map[string]string{mcplib.HeaderProtocolVersion: ""}},
	{name: "Mcp-Protocol-Version disagreeing with _meta", method: "tools/list", headers: map[string]string{mcplib.HeaderProtocolVersion: "2099-01-01"}},
	{name: "a version the server does not serve", method: "tools/list", headers: map[string]string{mcplib.HeaderProtocolVersion: "2099-01-01"},
		meta: map[string]any{mcplib.MetaKeyProtocolVersion: "2099-01-01", mcplib.MetaKeyClientCapabilities: map[string]any{}}},
	{name: "no version in _meta", method: "tools/list", meta: map[string]any{mcplib.MetaKeyClientCapabilities: map[string]any{}}},
	{name: "_meta not an object", method: "tools/list", meta: map[string]any{}, body: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":"2026-07-28"}}`},
	{name: "no client capabilities", method: "tools/call", params: map[string]any{"name": "list_lights"},
		meta: map[string]any{mcplib.MetaKeyProtocolVersion: mcplib.ProtocolVersion20260728}},
	{name: "client capabilities not an object", method: "tools/call", params: map[string]any{"name": "list_lights"},
		meta: map[string]any{mcplib.MetaKeyProtocolVersion: mcplib.ProtocolVersion20260728, mcplib.MetaKeyClientCapabilities: "all"}},
	{name: "client capabilities declared", method: "tools/call", params: map[string]any{"name": "list_lights", "arguments": map[string]any{}},
		meta: map[string]any{mcplib.MetaKeyProtocolVersion: mcplib.ProtocolVersion20260728, mcplib.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{"listChanged": true}, "elicitation": map[string]any{}}}},
	{name: "client capabilities of the wrong shape", method: "tools/call", params: map[string]any{"name": "list_lights", "arguments": map[string]any{}},
		meta: map[string]any{mcplib.MetaKeyProtocolVersion: mcplib.ProtocolVersion20260728, mcplib.MetaKeyClientCapabilities: map[string]any{"roots": "yes"}}},
	{name: "a tool's name not a string", method: "tools/call", headers: map[string]string{mcplib.HeaderName: "7"},
		body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":7,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	{name: "a tool call whose uri is not a string", method: "tools/call", params: map[string]any{"name": "list_lights", "uri": 7}},
	{name: "a tool call without params", method: "tools/call", headers: map[string]string{mcplib.HeaderName: "list_lights"},
		body: `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`},
	{name: "a resource's URI not a string", method: "resources/read", headers: map[string]string{mcplib.HeaderName: "bifrost://home"},
		body: `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":["bifrost://home"],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	{name: "list_lights with arguments of null", method: "tools/call", params: map[string]any{"name": "list_lights", "arguments": nil}},
	{name: "Mcp-Name disagreeing for prompts/get", method: "prompts/get", params: map[string]any{"name": "good_night"}, headers: map[string]string{mcplib.HeaderName: "good_morning"}},
	{name: "params twice, _meta in the first", method: "tools/call", headers: map[string]string{mcplib.HeaderName: "list_lights"},
		body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_home_state","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"params":{"name":"list_lights"}}`},
	{name: "params twice, a bad _meta in the first", method: "tools/call", headers: map[string]string{mcplib.HeaderName: "list_lights"},
		body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","PARAMS":{"_meta":"2026-07-28"},"params":{"name":"list_lights","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	{name: "a Last-Event-ID", method: "tools/list", headers: map[string]string{mcplib.HeaderLastEventID: "3"}},
	{name: "JSON-RPC 1.0", method: "tools/call", body: `{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"list_lights","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		params: map[string]any{"name": "list_lights"}},
	{name: "a string id", method: "tools/call", body: `{"jsonrpc":"2.0","id":"seven","method":"tools/call","params":{"name":"list_lights","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		params: map[string]any{"name": "list_lights"}},
}

// listLightsBody is a kept call's body with id, more members of params
// and more of _meta (each "" for none) as sent.
func listLightsBody(id, params, meta string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"list_lights","arguments":{}` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}` + meta + `}}}`
}

// The shapes quickRead reads, and those just outside it, each on a kept
// call (twice: made, then given again). Bodies that are not JSON-RPC (an
// id out of float64's range, malformed JSON) the lean path answers in its
// own words on every revision; TestQuickReadReadsAsEncodingJSON has them.
func init() {
	listLights := map[string]any{"name": "list_lights"}
	for _, c := range []struct{ name, body string }{
		{"id 0", listLightsBody("0", "", "")},
		{"a negative id", listLightsBody("-3", "", "")},
		{"id -0", listLightsBody("-0", "", "")},
		{"a fractional id", listLightsBody("1.5", "", "")},
		{"an id in exponent form", listLightsBody("7e2", "", "")},
		{"an id of 16 digits", listLightsBody("1234567890123456", "", "")},
		{"an id past float64's integers", listLightsBody("123456789012345678901234567890", "", "")},
		{"a string id of -_.:", listLightsBody(`"a-b_c.d:e"`, "", "")},
		{"a string id with a space", listLightsBody(`"a b"`, "", "")},
		{"a string id with an escape", listLightsBody(`"seven"`, "", "")},
		{"a string id with a quote", listLightsBody(`"a\"b"`, "", "")},
		{"a string id with HTML characters", listLightsBody(`"<b>&"`, "", "")},
		{"a string id in UTF-8", listLightsBody(`"Łódź"`, "", "")},
		{"a string id of bad UTF-8", listLightsBody("\"\xff\"", "", "")},
		{"id twice", `{"jsonrpc":"2.0","id":1,` + listLightsBody("2", "", "")[len(`{"jsonrpc":"2.0",`):]},
		{"method twice", `{"method":"tools/list",` + listLightsBody("7", "", "")[1:]},
		{"name twice", listLightsBody("7", `,"name":"get_home_state"`, "")},
		{"ID in capitals", strings.Replace(listLightsBody("7", "", ""), `"id"`, `"ID"`, 1)},
		{"a method with an escape", strings.Replace(listLightsBody("7", "", ""), `"tools/call"`, `"tools\/call"`, 1)},
		{"white space everywhere", " {\n\t\"jsonrpc\" : \"2.0\" , \"id\" : 7 , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"list_lights\" , \"arguments\" : { } , " +
			"\"_meta\" : { \"io.modelcontextprotocol/protocolVersion\" : \"2026-07-28\" , \"io.modelcontextprotocol/clientCapabilities\" : { } } } } \r\n"},
		{"_meta with nested objects", listLightsBody("7", "", `,"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1","icons":[{"src":"a","sizes":["1x1"]}]},"x":{"y":{"z":[1,2.5,true,false,null,{}]}}`)},
		{"_meta with a progress token", listLightsBody("7", "", `,"progressToken":"p-1"`)},
		{"_meta with a number out of range", listLightsBody("7", "", `,"x":1e999`)},
		{"_meta with a nested number out of range", listLightsBody("7", "", `,"x":{"y":[-1e999]}`)},
		{"_meta with a large number in range", listLightsBody("7", "", `,"x":123456789012345678901234567890`)},
		{"_meta with the version twice, the last good", listLightsBody("7", "", `,"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)},
		{"_meta with the version twice, the last bad", listLightsBody("7", "", `,"io.modelcontextprotocol/protocolVersion":"2099-01-01"`)},
		{"_meta with the capabilities twice, the last not an object", listLightsBody("7", "", `,"io.modelcontextprotocol/clientCapabilities":"all"`)},
		{"_meta with a key of an escape", listLightsBody("7", "", `,"a\u002fb":1`)},
		{"_meta with a key twice in a nested object", listLightsBody("7", "", `,"x":{"y":1,"y":{}}`)},
		{"_meta twice", listLightsBody("7", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, "")},
		{"arguments with a number out of range", strings.Replace(listLightsBody("7", "", ""), `"arguments":{}`, `"arguments":{"n":1e999}`, 1)},
		{"arguments of white space", strings.Replace(listLightsBody("7", "", ""), `"arguments":{}`, `"arguments": { } `, 1)},
		{"arguments of null", strings.Replace(listLightsBody("7", "", ""), `"arguments":{}`, `"arguments":null`, 1)},
		{"arguments twice", listLightsBody("7", `,"arguments":{"light":"Desk Lamp"}`, "")},
		{"a params member the lean path does not read", listLightsBody("7", `,"task":{"ttl":1}`, "")},
		{"a member after the message", listLightsBody("7", "", "")[:len(listLightsBody("7", "", ""))-1] + `,"extra":[1]}`},
	} {
		for _, again := range []string{"", " again"} {
			modernCases = append(modernCases, modernCase{name: c.name + again, method: "tools/call", params: listLights, body: c.body})
		}
	}
}

// TestSessionlessLeanPathAnswersAsTheLibrary sends each request of the
// sessionless revision to the lean path and to mcp-go's own transport
// behind the same guard, and wants the same status, content type and
// message. The lean path's server has a decoy for a library transport,
// one that serves no revision past 2025-11-25: an answer it gave would
// differ (but for the refusals of a version missing or disagreeing, which
// come first).
func TestSessionlessLeanPathAnswersAsTheLibrary(t *testing.T) {
	svc, keys := NewHouse(t)
	sys := service.WithPrincipal(context.Background(), service.System)
	k, err := keys.CreateKey(sys, "test", service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	// The lean path and the library answer one after the other: a player
	// that plays would show a second more in one of them. Paused, its
	// position holds.
	pause := "pause"
	if _, err := svc.SetMedia(sys, "Living Room Sonos", service.MediaPatch{Transport: &pause}); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Service: svc, Keys: keys, AllowedHosts: []string{"example.com"}})
	library := echo.New()
	library.POST("/mcp", echo.WrapHandler(s.stream), s.guard)
	lean := echo.New()
	lean.POST("/mcp", s.post, s.guard)
	real := s.stream
	s.stream = mcpserver.NewStreamableHTTPServer(mcpserver.NewMCPServer("decoy", "0"),
		mcpserver.WithStateLess(true), mcpserver.WithStreamableHTTPProtocolVersions(mcplib.ProtocolVersion20251125))
	defer func() { s.stream = real }()

	for _, tc := range modernCases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			library.ServeHTTP(want, tc.request(k.Key))
			lean.ServeHTTP(got, tc.request(k.Key))
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("lean %d %q, library %d %q:\n%s\n%s", got.Code, got.Header().Get("Content-Type"),
					want.Code, want.Header().Get("Content-Type"), got.Body, want.Body)
			}
			var g, w any
			if err := json.Unmarshal(got.Body.Bytes(), &g); err != nil {
				t.Fatalf("lean: %v: %s", err, got.Body)
			}
			if err := json.Unmarshal(want.Body.Bytes(), &w); err != nil {
				t.Fatalf("library: %v: %s", err, want.Body)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("lean:\n%s\nlibrary:\n%s", got.Body, want.Body)
			}
			if got.Body.String() != want.Body.String() {
				t.Logf("the same message in other bytes:\n%s\n%s", got.Body, want.Body)
			}
		})
	}
}
