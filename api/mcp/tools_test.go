package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcplib "github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bifrost-hub/bifrost/devices"
)

// allTools are the tools, by name, and whether each only reads. The names
// are stable API.
var allTools = map[string]bool{
	"get_home_state": true, "list_lights": true, "list_light_effects": true, "list_color_presets": true,
	"set_light": false, "set_room": false, "activate_scene": false,
	"save_room_scene": false, "save_home_scene": false,
	"list_media_devices": true, "get_media_state": true, "set_media": false,
	"list_media_favorites": true, "play_media_favorite": false, "cast_media": false,
	"group_speakers": false, "ungroup_speaker": false, "bind_receiver": false,
	"list_power_devices": true, "set_power": false,
	"list_remotes": true, "press_remote_key": false, "launch_app": false, "type_text": false, "play_on": false,
	"list_sensors": true, "scan_devices": false, "undo": false, "run_command": false,
	"list_automations": true, "create_automation": false, "update_automation": false,
	"delete_automation": false, "run_automation": false, "explain_automation": true,
}

// destructive are the tools that remove something for good.
var destructive = map[string]bool{"delete_automation": true}

// Budgets for an assistant's context, in bytes of the whole JSON-RPC
// answer as sent (a kB of 1000 bytes, the stricter reading). A tool
// result's answer holds its text and its structured content, and the
// envelope around them.
const (
	toolsListBudget = 24_000
	demoHomeBudget  = 4_000 // get_home_state, the demo home
	largeHomeBudget = 8_000 // get_home_state, 400 devices, by default
)

// answers records the last answer the hub sent to each JSON-RPC method,
// byte for byte, as a client's HTTP transport.
type answers struct {
	mu   sync.Mutex
	last map[string][]byte
}

func (a *answers) RoundTrip(req *http.Request) (*http.Response, error) {
	var call struct {
		Method string `json:"method"`
	}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		_ = json.Unmarshal(body, &call)
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || call.Method == "" {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last[call.Method] = body
	return res, nil
}

// of is the last answer to method.
func (a *answers) of(t *testing.T, method string) []byte {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.last[method]
	if !ok {
		t.Fatalf("no answer to %s was recorded", method)
	}
	return b
}

// recordedClient is mcp-go's client with key, speaking protocol version
// as that version does (initialize, or server/discover for the
// sessionless revision), and the answers it received.
func (h *hub) recordedClient(t *testing.T, key, version string) (*client.Client, *answers) {
	t.Helper()
	a := &answers{last: map[string][]byte{}}
	tr, err := transport.NewStreamableHTTP(h.srv.URL+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}),
		transport.WithHTTPBasicClient(&http.Client{Transport: a, Timeout: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(version))
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcplib.InitializeRequest{}
	init.Params.ClientInfo = mcplib.Implementation{Name: "bifrost-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize (%s): %v", version, err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return c, a
}

// everyVersion runs fn once for each protocol version mcp-go serves.
func everyVersion(t *testing.T, fn func(t *testing.T, version string)) {
	for _, v := range mcplib.ValidProtocolVersions {
		t.Run(v, func(t *testing.T) { fn(t, v) })
	}
}

// listTools answers tools/list for key through the raw endpoint, with the
// size of the answer.
func (h *hub) listTools(t *testing.T, key string) ([]mcplib.Tool, int) {
	t.Helper()
	res, b := h.post(t, "/mcp", bearer(key), rpc(1, "tools/list", map[string]any{}))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %d %s", res.StatusCode, b)
	}
	var m struct {
		Result mcplib.ListToolsResult `json:"result"`
	}
	decodeJSON(t, b, &m)
	return m.Result.Tools, len(b)
}

func TestToolsListFitsTheBudgetOnEveryVersionAndTellsTheTruth(t *testing.T) {
	h := newHub(t)
	everyVersion(t, func(t *testing.T, version string) {
		c, answers := h.recordedClient(t, h.control, version)
		res, err := c.ListTools(context.Background(), mcplib.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		size := len(answers.of(t, "tools/list"))
		t.Logf("tools/list on %s: %s for %d tools", version, kib(size), len(res.Tools))
		if size > toolsListBudget {
			t.Errorf("tools/list on %s is %d bytes, over the %d budget", version, size, toolsListBudget)
		}
		checkTools(t, res.Tools)
	})
}

// checkTools checks the tools are the known ones, each described, with
// annotations that tell the truth and object schemas.
func checkTools(t *testing.T, tools []mcplib.Tool) {
	t.Helper()
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		readOnly, known := allTools[tool.Name]
		a := tool.Annotations
		switch {
		case !known:
			t.Errorf("unexpected tool %q", tool.Name)
		case tool.Description == "" || len(tool.Description) > 400:
			t.Errorf("%s: description of %d bytes", tool.Name, len(tool.Description))
		case a.ReadOnlyHint == nil || *a.ReadOnlyHint != readOnly:
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, readOnly)
		case a.OpenWorldHint == nil || *a.OpenWorldHint:
			t.Errorf("%s: openWorldHint must be false", tool.Name)
		case !readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != destructive[tool.Name]):
			t.Errorf("%s: destructiveHint %v, want %v (only a delete is destructive)", tool.Name, a.DestructiveHint, destructive[tool.Name])
		case tool.InputSchema.Type != "object" || tool.OutputSchema.Type != "object":
			t.Errorf("%s: input %q, output %q, want object schemas", tool.Name, tool.InputSchema.Type, tool.OutputSchema.Type)
		}
	}
	if want := slices.Sorted(maps.Keys(allTools)); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("tools %v,\nwant %v", names, want)
	}
	set := schemaOf(t, tools, "set_light").InputSchema.Properties
	if b := set["brightness"].(map[string]any); b["minimum"] != 0.0 || b["maximum"] != 100.0 {
		t.Errorf("set_light brightness has no range: %v", b)
	}
	if k := schemaOf(t, tools, "press_remote_key").InputSchema.Properties["key"].(map[string]any); len(k["enum"].([]any)) != len(devices.RemoteKeys) {
		t.Errorf("press_remote_key key enum: %v", k)
	}
}

func schemaOf(t *testing.T, tools []mcplib.Tool, name string) mcplib.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return mcplib.Tool{}
}

func TestAReadKeySeesAndRunsOnlyReadTools(t *testing.T) {
	h := newHub(t)
	tools, size := h.listTools(t, h.read)
	t.Logf("tools/list for a read key: %s", kib(size))
	for _, tool := range tools {
		if !allTools[tool.Name] {
			t.Errorf("a read key sees %s", tool.Name)
		}
	}
	if n := len(slices.DeleteFunc(slices.Collect(maps.Values(allTools)), func(r bool) bool { return !r })); len(tools) != n {
		t.Fatalf("a read key sees %d tools, want the %d read tools", len(tools), n)
	}

	c := h.client(t, h.read, mcplib.ProtocolVersion20250618)
	ok(t, call(t, c, "list_lights", nil), nil)
	const lamp = "sim:key-light"
	before, state := h.commands(t, lamp), h.home.Light(lamp).State()
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "brightness": 5}), "read")
	failed(t, call(t, c, "set_room", map[string]any{"room": "Office", "on": false}), "read")
	failed(t, call(t, c, "undo", nil), "read")
	if after := h.commands(t, lamp); after != before || h.home.Light(lamp).State() != state {
		t.Fatalf("a read key reached the lamp: %d commands", after-before)
	}
}

func TestGetHomeStateOfTheDemoFitsTheBudget(t *testing.T) {
	h := newHub(t)
	everyVersion(t, func(t *testing.T, version string) {
		c, answers := h.recordedClient(t, h.read, version)
		res := call(t, c, "get_home_state", nil)
		size := len(answers.of(t, "tools/call"))
		structured := res.RawStructuredContent
		t.Logf("get_home_state on %s: %s in all (structured content %s, text %s)", version, kib(size), kib(len(structured)), kib(len(text(res))))
		if res.IsError || size > demoHomeBudget {
			t.Fatalf("get_home_state: %d bytes, over the %d budget, or an error: %s", size, demoHomeBudget, text(res))
		}
		var home struct {
			Rooms, Lights, Scenes, Media, Power, Remotes, Sensors []map[string]any
		}
		decodeJSON(t, structured, &home)
		if len(home.Rooms) != 4 || len(home.Lights) != 6 || len(home.Media) != 4 || len(home.Power) != 3 ||
			len(home.Remotes) != 1 || len(home.Sensors) != 3 {
			t.Fatalf("snapshot: %s", structured)
		}
		if bytes.Contains(structured, []byte("Fireworks")) || bytes.Contains(structured, []byte(":null")) {
			t.Fatalf("the snapshot should count effects and omit nulls: %s", structured)
		}
		for _, want := range []string{"Office", "Key Light: on 80%, 4400 K", "Rope Light: on 50%, effect Aurora", "Radio Paradise"} {
			if !strings.Contains(text(res), want) {
				t.Fatalf("the text does not say %q:\n%s", want, text(res))
			}
		}
	})
}

// validator checks structured content against the tools' output schemas.
type validator map[string]*jsonschema.Schema

func newValidator(t *testing.T, tools []mcplib.Tool) validator {
	t.Helper()
	v := validator{}
	for _, tool := range tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		url := "bifrost:" + tool.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if v[tool.Name], err = c.Compile(url); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
	}
	return v
}

// check validates a result of tool against its output schema.
func (v validator) check(t *testing.T, tool string, res *mcplib.CallToolResult) {
	t.Helper()
	if text(res) == "" {
		t.Fatalf("%s: no text", tool)
	}
	if res.IsError && len(res.RawStructuredContent) == 0 {
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.RawStructuredContent))
	if err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, res.RawStructuredContent, err)
	}
	if err := v[tool].Validate(inst); err != nil {
		t.Fatalf("%s: structured content does not match the output schema: %v\n%s", tool, err, res.RawStructuredContent)
	}
}

func TestEveryToolAnswersTextAndMatchingStructuredContent(t *testing.T) {
	h := newHub(t)
	tools, _ := h.listTools(t, h.control)
	v := newValidator(t, tools)
	c := h.client(t, h.control, "")
	calls := []struct {
		tool string
		args map[string]any
		want string // in the text
	}{
		{"get_home_state", nil, "Living Room"},
		{"list_lights", nil, "6 lights"},
		{"list_light_effects", map[string]any{"light": "rope"}, "Aurora"},
		{"set_light", map[string]any{"light": "Desk Lamp", "hex": "00FF88"}, "Desk Lamp: on"},
		{"set_light", map[string]any{"lights": []string{"Key Light", "Fill Light"}, "kelvin": 4000}, "2 of 2 applied"},
		{"set_light", map[string]any{"light": "Fill Light", "kelvin": 9000}, "outside"},
		{"list_color_presets", nil, "CTO Full"},
		{"set_light", map[string]any{"light": "Key Light", "preset": "tungsten"}, "3200"},
		{"set_room", map[string]any{"room": "Office", "brightness": 40}, "applied"},
		{"save_room_scene", map[string]any{"name": "Office work", "room": "office"}, "Office work"},
		{"save_home_scene", map[string]any{"name": "Evening"}, "Evening"},
		{"activate_scene", map[string]any{"scene": "office work"}, "applied"},
		{"list_media_devices", nil, "Kitchen Sonos"},
		{"get_media_state", map[string]any{"device": "Onkyo"}, "Sources:"},
		{"set_media", map[string]any{"device": "Kitchen Sonos", "volume": 20, "transport": "play"}, "volume 20"},
		{"list_media_favorites", map[string]any{"device": "Kitchen Sonos"}, "Radio Paradise"},
		{"play_media_favorite", map[string]any{"device": "Kitchen Sonos", "favorite": "jazz"}, "Dinner Jazz"},
		{"cast_media", map[string]any{"device": "Living Room TV", "content_id": "https://youtube.com/watch?v=x", "content_type": "video"}, "Living Room TV"},
		{"group_speakers", map[string]any{"speaker": "Living Room Sonos", "members": []string{"Kitchen Sonos"}}, "1 of 1 applied"},
		{"ungroup_speaker", map[string]any{"speaker": "Kitchen Sonos"}, "Kitchen Sonos"},
		{"bind_receiver", map[string]any{"device": "Living Room TV", "receiver": "Onkyo Receiver"}, "Living Room TV"},
		{"list_power_devices", nil, "Coffee Plug (outlet)"},
		{"set_power", map[string]any{"device": "Desk Fan", "on": true}, "Desk Fan (fan): on"},
		{"list_remotes", nil, "Netflix"},
		{"launch_app", map[string]any{"tv": "Living Room TV", "app": "YouTube"}, "YouTube in front"},
		{"press_remote_key", map[string]any{"tv": "Living Room TV", "key": "select"}, "Pressed select"},
		{"type_text", map[string]any{"tv": "Living Room TV", "text": "the office"}, `Typed "the office"`},
		{"play_on", map[string]any{"tv": "Living Room TV", "query": "open Netflix"}, "Netflix"},
		{"list_sensors", nil, "Occupancy: "},
		{"scan_devices", nil, ""},
		{"undo", nil, "Undid"},
		{"run_command", map[string]any{"text": "turn off the desk fan", "room": "Office"}, "Turned off Desk Fan"},
		{"create_automation", officeAtNight, "When Office Motion"},
		{"list_automations", nil, "1 automation"},
		{"update_automation", map[string]any{"automation": "office at night", "enabled": false}, "off"},
		{"run_automation", map[string]any{"automation": "Office at night"}, "Desk Lamp"},
		{"explain_automation", map[string]any{"automation": "Office at night"}, "Desk Lamp"},
		{"delete_automation", map[string]any{"automation": "Office at night"}, `Deleted automation "Office at night"`},
	}
	seen := map[string]bool{}
	for _, tc := range calls {
		res := call(t, c, tc.tool, tc.args)
		ok(t, res, nil)
		v.check(t, tc.tool, res)
		if !strings.Contains(text(res), tc.want) {
			t.Fatalf("%s %v: text %q does not say %q", tc.tool, tc.args, text(res), tc.want)
		}
		seen[tc.tool] = true
	}
	for name := range allTools {
		if !seen[name] {
			t.Errorf("%s is not exercised", name)
		}
	}
}

func TestSetLightByNameAndItsErrors(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, mcplib.ProtocolVersion20251125)
	var w struct {
		Applied []string
		Light   struct {
			On         bool
			Brightness int
		}
	}
	ok(t, call(t, c, "set_light", map[string]any{"light": "desk", "brightness": 40}), &w)
	if st := h.home.Light("sim:desk-lamp").State(); !st.On || st.Brightness != 40 || !w.Light.On || w.Light.Brightness != 40 {
		t.Fatalf("desk lamp %+v, answer %+v", st, w)
	}

	failed(t, call(t, c, "set_light", map[string]any{"light": "light", "on": true}), "more than one", "Key Light", "Fill Light")
	failed(t, call(t, c, "set_light", map[string]any{"light": "chandelier", "on": true}), "No light matches", "Bedside Lamp")
	failed(t, call(t, c, "set_light", map[string]any{"on": true}), "Name a light", "Desk Lamp")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "brightness": 150}), "0–100")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "brightness": "high"}), "Give brightness as a number, not \"high\"")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "colour": "red"}), `Unknown argument "colour": set_light takes`, "hex")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Fill Light", "hex": "FF0000"}), "no colour")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "effect": "Disco"}), "Cop Car")
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "lights": []string{"Desk Lamp"}, "on": true}), "not both")

	h.home.Light("sim:key-light").SetUnreachable(true)
	failed(t, call(t, c, "set_light", map[string]any{"light": "Key Light", "on": false}), "Key Light")
	var f struct {
		Applied []string
		Failed  []struct{ Name, Error, Code string }
	}
	res := call(t, c, "set_light", map[string]any{"light": "all", "on": false})
	ok(t, res, &f)
	if len(f.Applied) != 5 || len(f.Failed) != 1 || f.Failed[0].Name != "Key Light" || !strings.Contains(text(res), "Key Light is offline") {
		t.Fatalf("all off with one lamp unreachable: %+v %q", f, text(res))
	}
	for _, l := range []devices.ID{"sim:desk-lamp", "sim:rope-light", "sim:ceiling-light"} {
		if h.home.Light(l).State().On {
			t.Fatalf("%s is still on", l)
		}
	}
}

func TestUndoRestoresTheLastChangeOfThisKey(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, "")
	before := h.home.Light("sim:ceiling-light").State()
	ok(t, call(t, c, "set_room", map[string]any{"room": "Living Room", "on": true, "hex": "FF0000"}), nil)
	if h.home.Light("sim:ceiling-light").State() == before {
		t.Fatal("the room did not change")
	}
	other := h.client(t, newKey(t, h.keys, "other", "control"), "")
	failed(t, call(t, other, "undo", nil), "Nothing to undo")
	var u struct {
		Action string
		Result struct{ Applied []string }
	}
	ok(t, call(t, c, "undo", nil), &u)
	if got := h.home.Light("sim:ceiling-light").State(); got.On != before.On || got.Brightness != before.Brightness || got.Kelvin != before.Kelvin {
		t.Fatalf("after undo %+v, want %+v (%+v)", got, before, u)
	}
}

func TestResourceAndPrompts(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.read, mcplib.ProtocolVersion20250618)
	ctx := context.Background()
	rs, err := c.ListResources(ctx, mcplib.ListResourcesRequest{})
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "bifrost://home" {
		t.Fatalf("resources: %+v %v", rs, err)
	}
	req := mcplib.ReadResourceRequest{}
	req.Params.URI = "bifrost://home"
	read, err := c.ReadResource(ctx, req)
	if err != nil || len(read.Contents) != 1 {
		t.Fatalf("read: %v", err)
	}
	body := read.Contents[0].(mcplib.TextResourceContents)
	var fromResource, fromTool map[string]any
	decodeJSON(t, []byte(body.Text), &fromResource)
	ok(t, call(t, c, "get_home_state", nil), &fromTool)
	if len(fromResource) != 7 || len(fromResource["lights"].([]any)) != len(fromTool["lights"].([]any)) {
		t.Fatalf("bifrost://home %v differs from get_home_state", fromResource)
	}

	ps, err := c.ListPrompts(ctx, mcplib.ListPromptsRequest{})
	if err != nil || len(ps.Prompts) != 3 {
		t.Fatalf("prompts: %+v %v", ps, err)
	}
	get := mcplib.GetPromptRequest{}
	get.Params.Name, get.Params.Arguments = "movie_night", map[string]string{"room": "Living Room"}
	p, err := c.GetPrompt(ctx, get)
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("movie_night: %+v %v", p, err)
	}
	msg := p.Messages[0].Content.(mcplib.TextContent).Text
	if !strings.Contains(msg, "set_room Living Room") || !strings.Contains(msg, "get_home_state") {
		t.Fatalf("movie_night: %s", msg)
	}
}

// TestNowPlayingSaysThePosition: the media tools say how far into what
// plays a player is (the simulated kitchen is paused at 1:23).
func TestNowPlayingSaysThePosition(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, mcplib.ProtocolVersion20250618)
	for tool, args := range map[string]map[string]any{"get_media_state": {"device": "Kitchen Sonos"}, "list_media_devices": nil} {
		res := call(t, c, tool, args)
		if got := text(res); !strings.Contains(got, "paused Morning Coffee, 1:23 of ") {
			t.Errorf("%s: %q; want the position", tool, got)
		}
	}
}
