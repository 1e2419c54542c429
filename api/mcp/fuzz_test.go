package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// FuzzToolCalls calls every tool with any arguments, as a confused
// assistant might: the hub answers a tool result (an error result for bad
// arguments) or a JSON-RPC error for a malformed request, never an
// internal error and never a 5xx. `go test` runs the seeds below; `go test
// -fuzz FuzzToolCalls ./api/mcp` searches further.
func FuzzToolCalls(f *testing.F) {
	h := newHub(f)
	call := func(body string) (int, []byte) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+h.control)
		rec := httptest.NewRecorder()
		h.handler.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	_, b := call(rpc(1, "tools/list", map[string]any{}))
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal(b, &list); err != nil || len(list.Result.Tools) == 0 {
		f.Fatalf("tools/list: %s", b)
	}
	var names []string
	for _, t := range list.Result.Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)

	args := []string{
		`{}`, `null`, `[]`, `"x"`, `7`, `{"name":"Key Light"}`, `{"name":["Key Light"]}`, `{"names":"Key Light"}`,
		`{"name":"Key Light","brightness":-1}`, `{"name":"Key Light","brightness":"50%"}`, `{"name":"Key Light","kelvin":1e308}`,
		`{"name":"Key Light","color":"#GG0000"}`, `{"name":"Key Light","preset":"HMI","gm":500}`, `{"room":"Living Room","on":"off"}`,
		`{"device":"Living Room Sonos","volume":150}`, `{"device":"TV","command":"format_disk"}`, `{"device":"TV","app":""}`,
		`{"scene":"nothing"}`, `{"name":"` + strings.Repeat("z", 2000) + `"}`, `{"device":"\u0000"}`, `{"query":""}`,
		`{"name":"Key Light","on":true,"extra":{"deep":[1,2,3]}}`,
	}
	for i := range names {
		for _, a := range args {
			f.Add(i, a)
		}
	}

	f.Fuzz(func(t *testing.T, tool int, arguments string) {
		if tool < 0 {
			tool = -tool
		}
		name, _ := json.Marshal(names[tool%len(names)])
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":` + arguments + `}}`
		status, b := call(body)
		if status >= http.StatusInternalServerError {
			t.Fatalf("%s: HTTP %d %s", body, status, b)
		}
		var res struct {
			Result *struct {
				IsError bool `json:"isError"`
			}
			Error *struct {
				Code    int
				Message string
			}
		}
		if status != http.StatusOK || json.Unmarshal(b, &res) != nil {
			return // refused before JSON-RPC (a body that is not JSON): a 4xx
		}
		switch {
		case res.Error != nil && res.Error.Code == -32603:
			t.Fatalf("%s: internal error %s", body, b)
		case res.Error == nil && res.Result == nil:
			t.Fatalf("%s: neither a result nor an error: %s", body, b)
		}
	})
}
