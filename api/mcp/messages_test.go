package mcp_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	mcplib "github.com/mark3labs/mcp-go/mcp"
)

// rawTool calls tool with arguments exactly as written (80.0 stays 80.0,
// which encoding/json would write as 80) and returns its result.
func (h *hub) rawTool(t *testing.T, tool, arguments string) *mcplib.CallToolResult {
	t.Helper()
	hd := bearer(h.control)
	hd.Set("Mcp-Protocol-Version", mcplib.ProtocolVersion20250618)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `}}`
	res, b := h.post(t, "/mcp", hd, body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %.200s: %d %.500s", tool, arguments, res.StatusCode, b)
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	decodeJSON(t, b, &m)
	if m.Result == nil || len(m.Result.Content) == 0 {
		t.Fatalf("%s %.200s: no tool result: %.500s", tool, arguments, b)
	}
	return &mcplib.CallToolResult{IsError: m.Result.IsError, Content: []mcplib.Content{mcplib.NewTextContent(m.Result.Content[0].Text)}}
}

// said checks a tool error is a sentence that says every want and none
// of the words a Go type or another surface would put there.
func said(t *testing.T, res *mcplib.CallToolResult, want ...string) string {
	t.Helper()
	failed(t, res, want...)
	msg := text(res)
	if r, _ := utf8.DecodeRuneInString(msg); !unicode.IsUpper(r) {
		t.Errorf("tool error %q does not start with a capital", msg)
	}
	for _, leak := range []string{"Args", "Patch.", "Go struct", "Go value", "unmarshal", "json:", "/api/", "color_temp_mirek", " gm"} {
		if strings.Contains(msg, leak) {
			t.Errorf("tool error %q says %q", msg, leak)
		}
	}
	return msg
}

func TestToolErrorsNameTheToolsOwnArguments(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, mcplib.ProtocolVersion20250618)

	said(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "brightness": "high"}), `Give brightness as a number, not "high"`)
	said(t, call(t, c, "set_room", map[string]any{"room": "Office", "on": "yes"}), "Give on as true or false, not a string")
	if msg := said(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "hex": "FF0000", "kelvin": 3000})); msg != "Give only one of hex, kelvin, effect or preset" {
		t.Errorf("hex and kelvin: %q", msg)
	}
	said(t, call(t, c, "set_room", map[string]any{"room": "Office", "effect": "Aurora", "preset": "Full CTO"}), "Give only one of hex, kelvin, effect or preset")
	if msg := said(t, call(t, c, "set_light", map[string]any{"light": "Key Light"})); msg != "Nothing to change: give on, brightness, hex, kelvin, effect or preset" {
		t.Errorf("an empty write: %q", msg)
	}
	said(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "preset": "Moonlight blue"}), `"Moonlight blue"`, "list_color_presets")
	said(t, call(t, c, "set_media", map[string]any{"device": "Kitchen Sonos", "volume": "loud"}), `Give volume as a whole number, not "loud"`)
	said(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "colour": "red"}),
		`Unknown argument "colour": set_light takes light, lights, on, brightness, hex, kelvin, effect and preset`)
	said(t, call(t, c, "list_lights", map[string]any{"room": "Office"}), `Unknown argument "room": list_lights takes no arguments`)
	said(t, call(t, c, "update_automation", map[string]any{"automation": "x", "enabled": "yes"}), "Give enabled as true or false")
	said(t, call(t, c, "create_automation", map[string]any{"name": "x", "trigger": map[string]any{"type": "power", "device": "Desk Fan", "to": 1},
		"actions": []any{}}), "Give trigger.to as a string, not a number")
	said(t, call(t, c, "create_automation", map[string]any{"name": "x", "trigger": map[string]any{"type": "power", "device": "Desk Fan", "to": "on"},
		"actions": []any{map[string]any{"type": "light", "lights": []string{"Desk Lamp"}, "state": map[string]any{"brightness": "dim"}}}}),
		"In actions[0].state: Give brightness as a whole number, not a string")
}

func TestNumbersWithADecimalPoint(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct {
		args string
		want int
	}{
		{`{"light":"Key Light","brightness":80.0}`, 80},
		{`{"light":"Key Light","brightness":42.5}`, 43},
		{`{"light":"Key Light","brightness":3.2e1}`, 32},
	} {
		ok(t, h.rawTool(t, "set_light", tc.args), nil)
		if st := h.home.Light("sim:key-light").State(); st.Brightness != tc.want || !st.On {
			t.Fatalf("%s: %+v, want brightness %d", tc.args, st, tc.want)
		}
	}
	ok(t, h.rawTool(t, "set_light", `{"light":"Key Light","kelvin":4000.0}`), nil)
	if st := h.home.Light("sim:key-light").State(); st.Kelvin != 4000 {
		t.Fatalf("kelvin 4000.0: %+v", st)
	}
	ok(t, h.rawTool(t, "set_room", `{"room":"Office","on":true,"brightness":55.0}`), nil)

	ok(t, h.rawTool(t, "set_media", `{"device":"Kitchen Sonos","volume":40.0}`), nil)
	said(t, h.rawTool(t, "set_media", `{"device":"Kitchen Sonos","volume":40.5}`), "Give volume as a whole number, not 40.5")
	said(t, h.rawTool(t, "set_light", `{"light":"Key Light","brightness":1e300}`), "Give brightness as a number, not 1e300")
	said(t, h.rawTool(t, "set_light", `{"light":"Key Light","brightness":150.0}`), "0–100")
}

// TestEveryArgumentIsDecodedByItsSchemaName calls every tool with each
// argument its input schema lists, given a value of the wrong type: the
// error names that argument (so the tool decodes it, under that name) in
// the tool's words. An unknown argument's error lists what the tool
// decodes: exactly what its schema lists.
func TestEveryArgumentIsDecodedByItsSchemaName(t *testing.T) {
	h := newHub(t)
	tools, _ := h.listTools(t, h.control)
	c := h.client(t, h.control, mcplib.ProtocolVersion20250618)
	for _, tool := range tools {
		props := tool.InputSchema.Properties
		names := make([]string, 0, len(props))
		for name, p := range props {
			names = append(names, name)
			wrong := any("x")
			if p.(map[string]any)["type"] == "string" {
				wrong = true // a duration takes a number of seconds too
			}
			msg := said(t, call(t, c, tool.Name, map[string]any{name: wrong}), "Give "+name+" as ")
			if strings.HasPrefix(msg, "Unknown") {
				t.Errorf("%s does not take %s, which its schema lists: %q", tool.Name, name, msg)
			}
		}
		msg := said(t, call(t, c, tool.Name, map[string]any{"zz_none": 1}), `Unknown argument "zz_none": `+tool.Name+" takes ")
		_, list, _ := strings.Cut(msg, " takes ")
		decoded := strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' })
		if list == "no arguments" {
			decoded = nil
		}
		slices.Sort(decoded)
		slices.Sort(names)
		if !slices.Equal(decoded, names) {
			t.Errorf("%s decodes %v, its schema lists %v", tool.Name, decoded, names)
		}
	}
}

func TestToolErrorsSayADeviceOnceAndQuoteLittle(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, mcplib.ProtocolVersion20250618)
	h.home.Light("sim:key-light").SetUnreachable(true)
	for _, res := range []*mcplib.CallToolResult{
		call(t, c, "set_light", map[string]any{"light": "all", "on": false}),
		call(t, c, "set_room", map[string]any{"room": "Office", "on": true}),
	} {
		if !strings.Contains(text(res), "Key Light is") || strings.Count(text(res), "Key Light") != 1 {
			t.Errorf("the lamp is named other than once: %q", text(res))
		}
	}
	said(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "brightness": 10}), "Key Light is")

	long := strings.Repeat("Lamp ", 100_000) // half a megabyte
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"set_light", map[string]any{"light": long, "on": true}},
		{"get_home_state", map[string]any{"room": long}},
		{"get_home_state", map[string]any{"kind": strings.ToUpper(long)}},
		{"set_light", map[string]any{"light": "Key Light", long: true}},
		{"set_light", map[string]any{"light": "Key Light", "brightness": long}},
		{"set_media", map[string]any{"device": "Kitchen Sonos", "transport": long}},
		{"play_media_favorite", map[string]any{"device": "Kitchen Sonos", "favorite": long}},
		{"create_automation", map[string]any{"name": "x", "trigger": map[string]any{"type": "power", "device": long, "to": "on"}, "actions": []any{}}},
		{"create_automation", map[string]any{"name": "x", "trigger": map[string]any{"type": "power", long: 1}, "actions": []any{}}},
	} {
		msg := said(t, call(t, c, tc.tool, tc.args))
		if len(msg) > 1000 || !strings.Contains(msg, "…") {
			t.Errorf("%s: a tool error of %d bytes: %.300s", tc.tool, len(msg), msg)
		}
	}
}

func TestNumericArgumentsSayTheirRange(t *testing.T) {
	h := newHub(t)
	tools, _ := h.listTools(t, h.control)
	seen := 0
	for _, tool := range tools {
		for name, p := range tool.InputSchema.Properties {
			p := p.(map[string]any)
			lo, hasLo := p["minimum"]
			hi, hasHi := p["maximum"]
			if typ := p["type"]; typ != "number" && typ != "integer" {
				continue
			}
			seen++
			desc, _ := p["description"].(string)
			if !hasLo || !hasHi || !strings.Contains(desc, fmt.Sprintf("%v–%v", lo, hi)) {
				t.Errorf("%s %s: range %v–%v, description %q", tool.Name, name, lo, hi, desc)
			}
		}
	}
	if seen < 5 {
		t.Fatalf("only %d numeric arguments", seen)
	}
}
