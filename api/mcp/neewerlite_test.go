package mcp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// neewerLiteTools are NeewerLite's tool names, as its tests list them.
var neewerLiteTools = []string{"get_light_image", "list_gels", "list_lights", "list_scenes", "list_sources",
	"scan_lights", "set_brightness", "set_cct", "set_hsi", "set_scene", "switch_light"}

// nlAnswer is a tools/call's answer on /mcp/neewerlite.
type nlAnswer struct {
	Result struct {
		Content []struct{ Type, Text, Data, MimeType string }
		IsError bool
	}
	Error *struct {
		Code    int
		Message string
	}
}

// nl calls a NeewerLite tool with key and returns its result, failing the
// test on a JSON-RPC error or a result that is not one text block (two
// for get_light_image).
func (h *hub) nl(tb testing.TB, key, tool string, args any) (text string, isError bool) {
	tb.Helper()
	res, body := h.post(tb, mcp.NeewerLitePath, bearer(key), toolCall(1, tool, args))
	if res.StatusCode != 200 {
		tb.Fatalf("%s: HTTP %d %s", tool, res.StatusCode, body)
	}
	var a nlAnswer
	decodeJSON(tb, body, &a)
	if a.Error != nil {
		tb.Fatalf("%s: a JSON-RPC error, not a result: %s", tool, body)
	}
	blocks := 1
	if tool == "get_light_image" && !a.Result.IsError {
		blocks = 2
	}
	if len(a.Result.Content) != blocks || a.Result.Content[0].Type != "text" {
		tb.Fatalf("%s: want %d block(s), a text first: %s", tool, blocks, body)
	}
	return a.Result.Content[0].Text, a.Result.IsError
}

// nlOK calls a tool that must succeed and returns its text.
func (h *hub) nlOK(tb testing.TB, tool string, args any) string {
	tb.Helper()
	text, isError := h.nl(tb, h.control, tool, args)
	if isError {
		tb.Fatalf("%s(%v): tool error %q", tool, args, text)
	}
	return text
}

// nlFails calls a tool that must fail with exactly want.
func (h *hub) nlFails(tb testing.TB, tool string, args any, want string) {
	tb.Helper()
	text, isError := h.nl(tb, h.control, tool, args)
	if !isError || text != want {
		tb.Fatalf("%s(%v) = %q (isError %v); want the tool error %q", tool, args, text, isError, want)
	}
}

// light reads a light back through the service.
func (h *hub) light(tb testing.TB, name string) service.Light {
	tb.Helper()
	l, err := h.svc.GetLight(system, name)
	if err != nil {
		tb.Fatal(err)
	}
	if l.State == nil {
		tb.Fatalf("%s has no state", name)
	}
	return l
}

// hueOf is the hue of a light's colour.
func hueOf(tb testing.TB, l service.Light) float64 {
	tb.Helper()
	if l.State.Mode != devices.ModeColor || l.State.Color == nil {
		tb.Fatalf("%s shows no colour: %+v", l.Name, l.State)
	}
	rgb, err := color.ParseHex(l.State.Color.Hex)
	if err != nil {
		tb.Fatal(err)
	}
	h, _, _ := rgb.HSV()
	return h
}

func TestNeewerLiteServer(t *testing.T) {
	h := newHub(t)
	res, body := h.post(t, mcp.NeewerLitePath, bearer(h.control), rpc(1, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}))
	var init struct {
		Result struct {
			ServerInfo   struct{ Name string }
			Capabilities struct{ Tools *struct{} }
			Instructions string
		}
	}
	decodeJSON(t, body, &init)
	if res.StatusCode != 200 || init.Result.ServerInfo.Name != "NeewerLite" || init.Result.Capabilities.Tools == nil ||
		!strings.Contains(init.Result.Instructions, "list_scenes") || !strings.Contains(init.Result.Instructions, "hundreds of kelvin") {
		t.Fatalf("initialize: %d %s", res.StatusCode, body)
	}

	if got := h.nlToolNames(t, h.control); !slices.Equal(got, neewerLiteTools) {
		t.Errorf("a control key lists %q; want %q", got, neewerLiteTools)
	}
	readers := []string{"get_light_image", "list_gels", "list_lights", "list_scenes", "list_sources"}
	if got := h.nlToolNames(t, h.read); !slices.Equal(got, readers) {
		t.Errorf("a read key lists %q; want the readers %q", got, readers)
	}
	if text, isError := h.nl(t, h.read, "switch_light", map[string]any{"lights": []string{"all"}, "state": false}); !isError {
		t.Errorf("a read key switched the lights: %q", text)
	}
	if h.light(t, "Key Light").State.On != true {
		t.Error("a read key's write changed a light")
	}

	for _, c := range []struct{ method, path string }{{"GET", mcp.NeewerLitePath}, {"POST", mcp.NeewerLitePath + "/message?sessionId=x"}} {
		req, err := http.NewRequest(c.method, h.srv.URL+c.path, strings.NewReader(rpc(1, "tools/list", nil)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if res, _ := h.do(t, req); res.StatusCode != 401 {
			t.Errorf("%s %s without a key: %d; want 401", c.method, c.path, res.StatusCode)
		}
	}
	if res, _ := h.post(t, mcp.NeewerLitePath, http.Header{"Authorization": {"Bearer " + h.control}, "Origin": {"https://evil.example"}}, rpc(1, "tools/list", nil)); res.StatusCode != 403 {
		t.Errorf("a foreign origin: %d; want 403", res.StatusCode)
	}
}

// nlToolNames are the tools key sees on /mcp/neewerlite, sorted.
func (h *hub) nlToolNames(tb testing.TB, key string) []string {
	tb.Helper()
	_, body := h.post(tb, mcp.NeewerLitePath, bearer(key), rpc(2, "tools/list", nil))
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Type     string
					Required []string
				}
			}
		}
	}
	decodeJSON(tb, body, &list)
	var names []string
	for _, tool := range list.Result.Tools {
		if tool.InputSchema.Type != "object" || tool.InputSchema.Required == nil {
			tb.Errorf("%s: schema %+v; want an object that lists what it requires", tool.Name, tool.InputSchema)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestNeewerLiteWrites(t *testing.T) {
	h := newHub(t)
	all := "Bedside Lamp, Ceiling Light, Desk Lamp, Fill Light, Key Light, Rope Light"

	if got := h.nlOK(t, "switch_light", map[string]any{"lights": []string{"ALL"}, "state": false}); got != "Turned off: "+all {
		t.Errorf("switch_light all: %q", got)
	}
	for _, n := range []string{"Key Light", "Bedside Lamp", "Rope Light"} {
		if h.light(t, n).State.On {
			t.Errorf("%s is still on", n)
		}
	}
	if got := h.nlOK(t, "switch_light", map[string]any{"lights": []string{"key light", "sim:nothing", "Hue Go"}, "state": true}); got != "Turned on: Desk Lamp, Key Light" {
		t.Errorf("switch_light by name and model: %q", got)
	}
	if !h.light(t, "Key Light").State.On || !h.light(t, "Desk Lamp").State.On || h.light(t, "Fill Light").State.On {
		t.Error("switch_light turned on the wrong lights")
	}

	desk := h.light(t, "Desk Lamp")
	if got := h.nlOK(t, "set_brightness", map[string]any{"lights": []string{"Desk Lamp"}, "brightness": 35.7}); got != "Set brightness to 35%: Desk Lamp" {
		t.Errorf("set_brightness: %q", got)
	}
	if l := h.light(t, "Desk Lamp"); l.State.Brightness != 35 || l.State.Mode != desk.State.Mode || l.State.Color.Hex != desk.State.Color.Hex {
		t.Errorf("set_brightness left %+v; want 35 %% in the colour it showed (%+v)", l.State, desk.State)
	}

	for _, temp := range []float64{56, 5600} {
		h.nlOK(t, "set_cct", map[string]any{"lights": []string{"Ceiling Light"}, "brightness": 50, "temperature": 30})
		got := h.nlOK(t, "set_cct", map[string]any{"lights": []string{"Key Light", "Ceiling Light"}, "brightness": 60, "temperature": temp})
		if want := "Set CCT mode — 60% brightness, " + map[float64]string{56: "56K", 5600: "5600K"}[temp] + ": Ceiling Light, Key Light"; got != want {
			t.Errorf("set_cct %v: %q; want %q", temp, got, want)
		}
		for _, n := range []string{"Key Light", "Ceiling Light"} {
			if l := h.light(t, n); l.State.Kelvin != 5600 || l.State.Mode != devices.ModeTemperature || l.State.Brightness != 60 {
				t.Errorf("set_cct %v left %s at %+v; want 5600 K at 60 %%", temp, n, l.State)
			}
		}
	}
	if text, isError := h.nl(t, h.control, "set_cct", map[string]any{"lights": []string{"Key Light"}, "brightness": 60, "temperature": 560}); !isError || !strings.Contains(text, "560") {
		t.Errorf("set_cct 560: %q, %v; want a tool error naming the value", text, isError)
	}

	got := h.nlOK(t, "set_hsi", map[string]any{"lights": []string{"Key Light", "Fill Light"}, "hex_color": "#00FF00", "brightness": 70, "saturation": 0.5})
	if got != "Set HSI mode — color #00FF00, 70% brightness, 50% saturation: Key Light\nSkipped (no RGB support): Fill Light" {
		t.Errorf("set_hsi: %q", got)
	}
	if l := h.light(t, "Key Light"); l.State.Brightness != 70 || hueOf(t, l) < 118 || hueOf(t, l) > 122 {
		t.Errorf("set_hsi left Key Light at %+v; want green at 70 %%", l.State)
	}
	if fill := h.light(t, "Fill Light"); fill.State.Mode != devices.ModeTemperature || fill.State.On {
		t.Errorf("set_hsi changed the skipped Fill Light: %+v", fill.State)
	}
	h.nlOK(t, "switch_light", map[string]any{"lights": []string{"Fill Light"}, "state": true})
	h.nlFails(t, "set_hsi", map[string]any{"lights": []string{"Fill Light"}, "hex_color": "F00", "brightness": 70},
		"Set HSI mode — color #F00, 70% brightness, 100% saturation\nSkipped (no RGB support): Fill Light")
	if text, isError := h.nl(t, h.control, "set_hsi", map[string]any{"lights": []string{"Key Light"}, "hex_color": "purple", "brightness": 70}); !isError || !strings.Contains(text, `"purple"`) {
		t.Errorf("set_hsi with a bad colour: %q, %v", text, isError)
	}

	got = h.nlOK(t, "set_scene", map[string]any{"lights": []string{"Key Light", "Rope Light", "Fill Light"}, "scene_id": 20.9, "brightness": 40})
	if got != "Activated scene: Rope Light → Party\nErrors: Fill Light: does not support scenes; Key Light: scene_id 20 out of range (1–17)" {
		t.Errorf("set_scene 20: %q", got)
	}
	if l := h.light(t, "Rope Light"); l.State.Mode != devices.ModeEffect || l.State.Effect != "Party" || l.State.Brightness != 40 || !l.State.On {
		t.Errorf("set_scene left Rope Light at %+v", l.State)
	}
	if got := h.nlOK(t, "set_scene", map[string]any{"lights": []string{"Key Light"}, "scene_id": 2, "speed": 9, "color": 1}); got != "Activated scene: Key Light → Ambulance" {
		t.Errorf("set_scene 2: %q", got)
	}
	if l := h.light(t, "Key Light"); l.State.Effect != "Ambulance" {
		t.Errorf("Key Light runs %q", l.State.Effect)
	}
	h.nlFails(t, "set_scene", map[string]any{"lights": []string{"Key Light"}, "scene_id": 18}, "Errors: Key Light: scene_id 18 out of range (1–17)")

	text, _ := h.nl(t, h.control, "scan_lights", nil)
	if !strings.Contains(strings.ToLower(text), "scan") {
		t.Errorf("scan_lights: %q", text)
	}
}

func TestNeewerLiteReads(t *testing.T) {
	h := newHub(t)
	list := h.nlOK(t, "list_lights", map[string]any{})
	for _, want := range []string{
		"Found 6 light(s):\n1. Bedside Lamp (id: sim:bedside-lamp) — OFF, brightness 40%, CCT 2700K, CCT range 22-40K\n",
		"\n5. Key Light (id: sim:key-light) — ON, brightness 80%, CCT 4400K, GM 0, CCT range 32-56K\n   Model: Neewer RGB660 PRO, rawName: Neewer RGB660 PRO\n   Capabilities: RGB, GM, 17 scenes, ",
		"\n   Capabilities: 22 sources\n", // Fill Light: bi-colour
		"Rope Light (id: sim:rope-light) — ON, brightness 50%, Scene: Aurora (id 3), CCT range 20-65K",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("list_lights does not say %q:\n%s", want, list)
		}
	}

	scenes := h.nlOK(t, "list_scenes", map[string]any{"light": "KEY LIGHT"})
	if !strings.HasPrefix(scenes, "Key Light — 17 scene(s):\n  1. Cop Car\n  2. Ambulance\n") {
		t.Errorf("list_scenes: %q", scenes)
	}
	if got := h.nlOK(t, "list_scenes", map[string]any{"light": "Fill Light"}); got != "Fill Light does not support scenes." {
		t.Errorf("list_scenes Fill Light: %q", got)
	}
	sources := h.nlOK(t, "list_sources", map[string]any{"light": "Fill Light"})
	if !strings.HasPrefix(sources, "Fill Light — ") || !strings.Contains(sources, " — 22 source preset(s):\n  1. Tungsten (params: brightness, cct) — 3200K\n") ||
		!strings.Contains(sources, "\n  8. HMI6000 (params: brightness, cct) — 6000K\n") {
		t.Errorf("list_sources: %q", sources)
	}
	gels := h.nlOK(t, "list_gels", map[string]any{"light": "Rope Light"})
	if !strings.HasPrefix(gels, "Rope Light — ") || !strings.Contains(gels, " — 54 gel preset(s):\n  1. CTO ¼ [Lee 440] — hue 30°, sat 20%, transmission 92%\n") ||
		!strings.Contains(gels, "\n  39. Violet [Lee 142] — hue 275°, sat 85%, transmission 18%\n") || !strings.Contains(gels, "Urban Sodium [Generic -]") {
		t.Errorf("list_gels: %q", gels)
	}
	if got := h.nlOK(t, "list_gels", map[string]any{"light": "Fill Light"}); got != "Fill Light does not support gels (RGB required)." {
		t.Errorf("list_gels on a light without RGB: %q", got)
	}

	// The picture of a light on, the same light off, and one coloured:
	// each a PNG of at most 64 KB, each different.
	picture := func(light string) image.Image {
		t.Helper()
		res, body := h.post(t, mcp.NeewerLitePath, bearer(h.control), toolCall(1, "get_light_image", map[string]any{"light": light}))
		var img nlAnswer
		decodeJSON(t, body, &img)
		if res.StatusCode != 200 || img.Result.IsError || len(img.Result.Content) != 2 || !strings.HasPrefix(img.Result.Content[0].Text, "Product image for "+light+" (") ||
			img.Result.Content[1].Type != "image" || img.Result.Content[1].MimeType != "image/png" {
			t.Fatalf("get_light_image %s: %.300s", light, body)
		}
		raw, err := base64.StdEncoding.DecodeString(img.Result.Content[1].Data)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) > 64<<10 {
			t.Errorf("the picture of %s is %d bytes; want at most 64 KB", light, len(raw))
		}
		p, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("get_light_image's image of %s is not a PNG: %v", light, err)
		}
		return p
	}
	if got := h.nlOK(t, "switch_light", map[string]any{"lights": []string{"Key Light"}, "state": true}); got != "Turned on: Key Light" {
		t.Fatalf("switch_light: %q", got)
	}
	on := picture("Key Light")
	h.nlOK(t, "switch_light", map[string]any{"lights": []string{"Key Light"}, "state": false})
	off := picture("Key Light")
	h.nlOK(t, "set_hsi", map[string]any{"lights": []string{"Desk Lamp"}, "hex_color": "FF0000", "brightness": 100})
	red := picture("Desk Lamp")
	if samePixels(on, off) || samePixels(on, red) || samePixels(off, red) {
		t.Error("the pictures of a light on, off and coloured are not all different")
	}

	// A light the hub cannot reach is described, but not a target.
	disabled := false
	if _, err := h.svc.UpdateDevice(system, "Bedside Lamp", service.DevicePatch{Enabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	if got := h.nlOK(t, "list_scenes", map[string]any{"light": "Bedside Lamp"}); got != "Bedside Lamp does not support scenes." {
		t.Errorf("list_scenes on a light not connected: %q", got)
	}
	h.nlFails(t, "switch_light", map[string]any{"lights": []string{"Bedside Lamp"}, "state": true}, "No matching lights found for: Bedside Lamp")
	h.nlFails(t, "get_light_image", map[string]any{"light": "Bedside Lamp"}, "Light not found or not connected: Bedside Lamp")
	if list := h.nlOK(t, "list_lights", nil); !strings.Contains(list, "Bedside Lamp (id: sim:bedside-lamp) — DISCONNECTED, ") {
		t.Errorf("list_lights does not show Bedside Lamp disconnected:\n%s", list)
	}
}

func TestNeewerLiteRefusals(t *testing.T) {
	h := newHub(t)
	lights := []string{"Key Light"}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"switch_light", map[string]any{"lights": lights}, "Missing required parameters: lights (array), state (boolean)."},
		{"switch_light", map[string]any{"lights": "Key Light", "state": true}, "Missing required parameters: lights (array), state (boolean)."},
		{"set_brightness", map[string]any{"lights": lights, "brightness": "80"}, "Missing required parameters: lights (array), brightness (number)."},
		{"set_cct", map[string]any{"lights": lights, "brightness": 80}, "Missing required parameters: lights (array), brightness (number), temperature (number)."},
		{"set_hsi", map[string]any{"lights": lights, "brightness": 80}, "Missing required parameters: lights (array), hex_color (string), brightness (number)."},
		{"set_scene", map[string]any{"lights": lights, "scene_id": "2"}, "Missing required parameters: lights (array), scene_id (integer)."},
		{"list_scenes", nil, "Missing required parameter: light (string)."},
		{"list_sources", map[string]any{"light": 3}, "Missing required parameter: light (string)."},
		{"list_gels", map[string]any{}, "Missing required parameter: light (string)."},
		{"get_light_image", map[string]any{}, "Missing required parameter: light (string)."},

		{"switch_light", map[string]any{"lights": []string{"nobody", "Hue"}, "state": true}, "No matching lights found for: nobody, Hue"},
		{"set_brightness", map[string]any{"lights": []string{"nobody"}, "brightness": 80}, "No matching lights found for: nobody"},
		{"set_cct", map[string]any{"lights": []string{"nobody"}, "brightness": 80, "temperature": 56}, "No matching lights found for: nobody"},
		{"set_hsi", map[string]any{"lights": []string{"nobody"}, "hex_color": "FF0000", "brightness": 80}, "No matching lights found for: nobody"},
		{"set_scene", map[string]any{"lights": []string{"nobody"}, "scene_id": 1}, "No matching lights found for: nobody"},
		{"list_scenes", map[string]any{"light": "nobody"}, "No light found matching: nobody"},
		{"list_sources", map[string]any{"light": "nobody"}, "No light found matching: nobody"},
		{"list_gels", map[string]any{"light": "nobody"}, "No light found matching: nobody"},
		{"get_light_image", map[string]any{"light": "nobody"}, "Light not found or not connected: nobody"},
		{"turn_on", map[string]any{"lights": lights}, "Unknown tool: turn_on"},
	} {
		h.nlFails(t, c.tool, c.args, c.want)
	}
	if l := h.light(t, "Key Light"); l.State.Brightness != 80 || l.State.Kelvin != 4400 {
		t.Errorf("a refused call changed Key Light: %+v", l.State)
	}

	// An unknown tool in a batch, and beside a known one.
	_, body := h.post(t, mcp.NeewerLitePath, bearer(h.control), "["+toolCall(1, "get_logs", nil)+","+toolCall(2, "list_scenes", map[string]any{"light": "Rope Light"})+"]")
	if !strings.Contains(string(body), "Unknown tool: get_logs") || !strings.Contains(string(body), "Rope Light — 34 scene(s)") {
		t.Errorf("a batch: %s", body)
	}
}

// TestNeewerLiteOverSSE drives the legacy pair, /mcp/neewerlite/sse and
// its message endpoint, with mcp-go's SSE client.
func TestNeewerLiteOverSSE(t *testing.T) {
	h := newHub(t)
	c, err := client.NewSSEMCPClient(h.srv.URL+mcp.NeewerLitePath+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + h.control}))
	if err != nil {
		t.Fatal(err)
	}
	if got := started(t, c, ""); got.ServerInfo.Name != "NeewerLite" {
		t.Fatalf("initialize: %+v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcplib.ListToolsRequest{})
	if err != nil || len(tools.Tools) != len(neewerLiteTools) {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	if res := call(t, c, "switch_light", map[string]any{"lights": []string{"Rope Light"}, "state": false}); res.IsError || text(res) != "Turned off: Rope Light" {
		t.Fatalf("switch_light: %q", text(res))
	}
	if h.light(t, "Rope Light").State.On {
		t.Error("Rope Light is still on")
	}
	if res := call(t, c, "get_logs", nil); !res.IsError || text(res) != "Unknown tool: get_logs" {
		t.Fatalf("an unknown tool over SSE: %q", text(res))
	}
}

// samePixels reports whether two pictures are the same, pixel for pixel.
func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}
