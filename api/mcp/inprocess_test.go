package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

// As a key's principal, in process.
var (
	asControl = service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "voice", Scope: service.ScopeControl})
	asReader  = service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k2", Name: "reader", Scope: service.ScopeRead})
)

// listed is what tools/list on /mcp answers key, by name: each tool's
// description and input schema, as sent.
func (h *hub) listed(t *testing.T, key string) map[string][2]string {
	t.Helper()
	res, b := h.post(t, "/mcp", bearer(key), rpc(1, "tools/list", map[string]any{}))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %d %s", res.StatusCode, b)
	}
	var m struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	decodeJSON(t, b, &m)
	out := map[string][2]string{}
	for _, tool := range m.Result.Tools {
		out[tool.Name] = [2]string{tool.Description, compact(t, tool.InputSchema)}
	}
	return out
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return b.String()
}

// The tools in process are those of /mcp, for each scope, but run_command.
func TestInProcessToolsAreThoseOfMCP(t *testing.T) {
	h := newHub(t)
	for _, c := range []struct {
		key string
		ctx context.Context
	}{{h.control, asControl}, {h.read, asReader}} {
		want := h.listed(t, c.key)
		got, err := h.tools.List(c.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want["run_command"]; !ok && c.key == h.control {
			t.Fatal("/mcp lists no run_command: the hub has no voice")
		}
		delete(want, "run_command")
		if len(got) != len(want) {
			t.Errorf("in process %d tools; /mcp lists %d", len(got), len(want))
		}
		for _, tool := range got {
			w, ok := want[tool.Name]
			switch {
			case !ok:
				t.Errorf("in process lists %s, /mcp does not", tool.Name)
			case tool.Description != w[0] || compact(t, tool.Parameters) != w[1]:
				t.Errorf("%s in process: %q %s\n/mcp: %q %s", tool.Name, tool.Description, tool.Parameters, w[0], w[1])
			}
		}
	}
	got, _ := h.tools.List(asReader)
	for _, tool := range got {
		if tool.Name == "set_light" || tool.Name == "undo" {
			t.Errorf("a read key is offered %s", tool.Name)
		}
	}
}

// A call in process answers what /mcp answers: the tool's text, its
// errors in the tool's words, the protocol's for a tool that is not there.
func TestInProcessCallAnswersAsMCP(t *testing.T) {
	h := newHub(t)
	text, isErr := h.tools.Call(asControl, "set_light", json.RawMessage(`{"light":"Key Light","brightness":40}`))
	if isErr || !strings.Contains(text, "Key Light") {
		t.Fatalf("set_light: %q %v", text, isErr)
	}
	if st := h.home.Light("sim:key-light").State(); !st.On || st.Brightness != 40 {
		t.Fatalf("the Key Light is %+v", st)
	}

	for _, c := range []struct {
		name, args string
	}{
		{"set_light", `{"light":"Key Light","brightness":"high"}`},
		{"set_light", `{"light":"Key Light","colour":"red"}`},
		{"set_light", `{"light":"chandelier","on":true}`},
		{"set_light", `{"light": "Key Light", "on":`}, // not JSON
		{"no_such_tool", `{}`},
		{"run_command", `{"text":"lights on"}`},
		{"list_lights", ``},
	} {
		text, isErr := h.tools.Call(asControl, c.name, json.RawMessage(c.args))
		params := map[string]any{"name": c.name}
		if json.Valid([]byte(c.args)) {
			params["arguments"] = json.RawMessage(c.args)
		} else if c.args != "" {
			params["arguments"] = c.args
		}
		_, b := h.post(t, "/mcp", bearer(h.control), rpc(1, "tools/call", params))
		var m struct {
			Result *struct {
				Content []struct{ Text string }
				IsError bool
			}
			Error *struct{ Message string }
		}
		decodeJSON(t, b, &m)
		want, wantErr := "", true
		switch {
		case m.Error != nil:
			want = m.Error.Message
		default:
			want, wantErr = m.Result.Content[0].Text, m.Result.IsError
		}
		if c.name == "run_command" {
			// /mcp has it; in process it is not there.
			if !isErr || !strings.Contains(text, "There is no tool") {
				t.Errorf("run_command in process: %q %v", text, isErr)
			}
			continue
		}
		if text != want || isErr != wantErr {
			t.Errorf("%s %s: in process %q (error %v); /mcp %q (error %v)", c.name, c.args, text, isErr, want, wantErr)
		}
		if c.name != "list_lights" && !isErr {
			t.Errorf("%s %s is no error: %q", c.name, c.args, text)
		}
	}

	// A read key's call is refused by the service and changes nothing.
	before := h.home.Light("sim:key-light").State()
	text, isErr = h.tools.Call(asReader, "set_light", json.RawMessage(`{"light":"Key Light","on":false}`))
	if !isErr || !strings.Contains(text, "read") || h.home.Light("sim:key-light").State() != before {
		t.Errorf("a read key's set_light: %q %v", text, isErr)
	}
}
