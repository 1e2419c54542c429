package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/lightimage"
	"github.com/bifrost-hub/bifrost/neewerlite"
	"github.com/bifrost-hub/bifrost/service"
)

// NeewerLitePath is where NeewerLite's tool set is served: the eleven
// tools NeewerLite's own MCP server offers, by its names, arguments and
// texts, so an assistant set up for NeewerLite runs the hub's lights. Its
// legacy SSE pair is NeewerLitePath+"/sse" and NeewerLitePath+"/message".
const NeewerLitePath = "/mcp/neewerlite"

// neewerLiteName is the server name NeewerLite reports.
const neewerLiteName = "NeewerLite"

// neewerLiteInstructions are NeewerLite's, and the units its
// temperatures take here.
const neewerLiteInstructions = "NeewerLite controls Neewer Bluetooth LED lights. Use list_lights to discover connected lights and their capabilities. " +
	"Use list_scenes to see available scenes for a specific light before calling set_scene. " +
	"Control lights with set_cct, set_hsi, set_scene, switch_light, or set_brightness. " +
	"Temperatures may be given in kelvin (5600) or in hundreds of kelvin (56)."

// unknownTool is the tool a call naming none of NeewerLite's goes to, so
// that it is answered as NeewerLite answers it (a tool error) rather than
// as a JSON-RPC error. tools/list never shows it.
const unknownTool = "neewerlite.unknown_tool"

// newNeewerLite builds the server of NeewerLite's tool set, beside main
// and behind the same guard (its keys, hosts and origins).
func newNeewerLite(main *Server, version string) *Server {
	s := &Server{svc: main.svc, keys: main.keys, log: main.log, hosts: main.hosts, origins: main.origins, streams: main.streams}
	hooks := s.hooks(hideUnknownTool)
	s.mcp = mcpserver.NewMCPServer(neewerLiteName, version,
		mcpserver.WithInstructions(neewerLiteInstructions),
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithCacheHints(0, mcplib.CacheScopePrivate),
		mcpserver.WithHooks(hooks),
	)
	t := &nlTools{svc: s.svc, log: s.log}
	s.mcp.AddTools(t.tools()...)
	s.transports(NeewerLitePath)
	return s
}

// hideUnknownTool keeps unknownTool out of tools/list.
func hideUnknownTool(_ context.Context, _ any, _ *mcplib.ListToolsRequest, res *mcplib.ListToolsResult) {
	if res != nil {
		res.Tools = slices.DeleteFunc(res.Tools, func(t mcplib.Tool) bool { return t.Name == unknownTool })
	}
}

// unknownTools sends a tools/call naming a tool this server does not have
// to unknownTool, with the name it gave, in a single message or a batch.
func (s *Server) unknownTools(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > MaxBody {
			return next(c) // refused as too large
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
		if err != nil {
			return echo.NewHTTPError(400, "reading the request body failed")
		}
		if len(body) > MaxBody {
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), req.Body))
			return next(c)
		}
		if out, ok := s.redirectUnknown(body); ok {
			body = out
			if req.Header.Get(mcplib.HeaderName) != "" {
				// The header names the tool the body calls (checked by
				// the transports of the protocol revisions that send it).
				req.Header.Set(mcplib.HeaderName, unknownTool)
			}
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		return next(c)
	}
}

// redirectUnknown is body with its calls of unknown tools sent to
// unknownTool, and whether there were any; anything it cannot read
// stays as it is.
func (s *Server) redirectUnknown(body []byte) ([]byte, bool) {
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '[' {
		return s.redirectCall(body)
	}
	var batch []json.RawMessage
	if json.Unmarshal(body, &batch) != nil {
		return body, false
	}
	changed := false
	for i, m := range batch {
		var ok bool
		batch[i], ok = s.redirectCall(m)
		changed = changed || ok
	}
	out, err := json.Marshal(batch)
	if err != nil || !changed {
		return body, false
	}
	return out, true
}

func (s *Server) redirectCall(msg []byte) ([]byte, bool) {
	var m, params map[string]json.RawMessage
	var method, name string
	if json.Unmarshal(msg, &m) != nil || json.Unmarshal(m["method"], &method) != nil || method != string(mcplib.MethodToolsCall) ||
		json.Unmarshal(m["params"], &params) != nil || json.Unmarshal(params["name"], &name) != nil || s.mcp.GetTool(name) != nil {
		return msg, false
	}
	params["name"], _ = json.Marshal(unknownTool)
	params["arguments"], _ = json.Marshal(map[string]string{"name": name})
	m["params"], _ = json.Marshal(params)
	out, err := json.Marshal(m)
	if err != nil {
		return msg, false
	}
	return out, true
}

// nlTools serves NeewerLite's tools from the service.
type nlTools struct {
	svc *service.Service
	log *slog.Logger
}

// The missing-argument texts, NeewerLite's.
const (
	missingSwitch     = "Missing required parameters: lights (array), state (boolean)."
	missingBrightness = "Missing required parameters: lights (array), brightness (number)."
	missingCCT        = "Missing required parameters: lights (array), brightness (number), temperature (number)."
	missingHSI        = "Missing required parameters: lights (array), hex_color (string), brightness (number)."
	missingScene      = "Missing required parameters: lights (array), scene_id (integer)."
	missingLight      = "Missing required parameter: light (string)."
)

// Argument schemas, NeewerLite's.
var (
	nlLights     = array("Light names or IDs. Use 'all' to target every connected light.", schema{"type": "string"})
	nlLight      = str("Light name or ID")
	nlBrightness = number("Brightness 0–100", 0, 100)
)

// tools are NeewerLite's eleven tools, and the hidden unknownTool.
func (t *nlTools) tools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		t.tool("list_lights", "List all Neewer lights with their state (on/off, brightness, mode) and capabilities.", reads, nlArgsOf(nil), t.listLights),
		t.tool("switch_light", "Turn lights on or off.", writes, nlArgsOf(map[string]schema{
			"lights": nlLights, "state": boolean("true to turn on, false to turn off"),
		}, "lights", "state"), t.switchLight),
		t.tool("set_brightness", "Set the brightness of lights. Does not change the current color mode.", writes, nlArgsOf(map[string]schema{
			"lights": nlLights, "brightness": nlBrightness,
		}, "lights", "brightness"), t.setBrightness),
		t.tool("set_cct", "Switch lights to CCT (white) mode with a brightness and a colour temperature.", writes, nlArgsOf(map[string]schema{
			"lights": nlLights, "brightness": nlBrightness,
			"temperature": described(schema{"type": "number"}, "Colour temperature in kelvin (e.g. 5600) or in hundreds of kelvin (56)"),
		}, "lights", "brightness", "temperature"), t.setCCT),
		t.tool("set_hsi", "Switch RGB lights to HSI (colour) mode: the hue of a hex colour, a brightness and a saturation. Lights without RGB are skipped.", writes, nlArgsOf(map[string]schema{
			"lights": nlLights, "hex_color": str("Colour as hex, e.g. FF0000"), "brightness": nlBrightness,
			"saturation": number("Saturation 0–100. Default 100", 0, 100),
		}, "lights", "hex_color", "brightness"), t.setHSI),
		t.tool("set_scene", "Run a scene (an effect) on lights: scene_id is its number in list_scenes. brightness, speed and color apply where the scene uses them.", writes, nlArgsOf(map[string]schema{
			"lights": nlLights, "scene_id": integer("Scene number, from 1", 1, -1), "brightness": integer("Brightness 0–100", 0, 100),
			"speed": integer("Speed 1–10", 1, 10), "color": integer("Colour choice, from 0", 0, -1),
		}, "lights", "scene_id"), t.setScene),
		t.tool("list_scenes", "List the scenes a light can run, numbered for set_scene.", reads, nlArgsOf(map[string]schema{"light": nlLight}, "light"), t.listScenes),
		t.tool("list_sources", "List the light-source presets (whites by colour temperature) a light can show.", reads, nlArgsOf(map[string]schema{"light": nlLight}, "light"), t.listSources),
		t.tool("list_gels", "List the gel presets (colour filters) an RGB light can show.", reads, nlArgsOf(map[string]schema{"light": nlLight}, "light"), t.listGels),
		t.tool("scan_lights", "Look for new lights. Call list_lights a few seconds later to see them.", acts, nlArgsOf(nil), t.scanLights),
		t.tool("get_light_image", "Get a picture of a connected light.", reads, nlArgsOf(map[string]schema{"light": nlLight}, "light"), t.getLightImage),
		t.tool(unknownTool, "", reads, nlArgsOf(nil), unknown),
	}
}

// nlArgsOf is an input schema as NeewerLite writes them: properties and
// the required ones, always listed.
func nlArgsOf(props map[string]schema, required ...string) schema {
	if props == nil {
		props = map[string]schema{}
	}
	return schema{"type": "object", "properties": props, "required": append([]string{}, required...)}
}

// nlArgs are a call's arguments as JSON decodes them.
type nlArgs map[string]any

// nlHandler answers a call; every answer, a failure too, is a result.
type nlHandler func(context.Context, nlArgs) *mcplib.CallToolResult

func (t *nlTools) tool(name, desc string, k kind, in schema, fn nlHandler) mcpserver.ServerTool {
	tool := mcplib.Tool{Name: name, Description: desc, RawInputSchema: in.raw(), Annotations: k.annotations()}
	return mcpserver.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcplib.CallToolRequest) (res *mcplib.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.log.Error("MCP tool panicked", "tool", name, "panic", r)
				res, err = nlError("Internal error"), nil
			}
		}()
		var args nlArgs
		if raw := req.Params.RawArguments; len(raw) > 0 {
			_ = json.Unmarshal(raw, &args) // arguments that are not an object are missing ones
		} else {
			args = req.GetArguments()
		}
		return fn(ctx, args), nil
	}}
}

// lights is the lights argument: an array of strings.
func (a nlArgs) lights() ([]string, bool) {
	v, ok := a["lights"].([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(v))
	for i, e := range v {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// number is a numeric argument; a string is not one.
func (a nlArgs) number(name string) (float64, bool) {
	switch v := a[name].(type) {
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case int:
		return float64(v), true
	}
	return 0, false
}

func (a nlArgs) str(name string) (string, bool) {
	v, ok := a[name].(string)
	return v, ok
}

func (a nlArgs) boolean(name string) (bool, bool) {
	v, ok := a[name].(bool)
	return v, ok
}

func nlText(text string) *mcplib.CallToolResult {
	return &mcplib.CallToolResult{Content: []mcplib.Content{mcplib.NewTextContent(text)}}
}

func nlError(text string) *mcplib.CallToolResult {
	r := nlText(text)
	r.IsError = true
	return r
}

// failed answers a service error: its text, or for an internal failure
// (logged here) no more than that.
func (t *nlTools) failed(err error) *mcplib.CallToolResult {
	if service.ErrorCode(err) == service.EINTERNAL {
		t.log.Error("NeewerLite MCP tool failed", "err", err)
		return nlError("Internal error")
	}
	return nlError(err.Error())
}

func unknown(_ context.Context, a nlArgs) *mcplib.CallToolResult {
	name, _ := a.str("name")
	return nlError("Unknown tool: " + name)
}

// lightsOf is every light NeewerLite's tools see.
func (t *nlTools) lightsOf(ctx context.Context) ([]service.Light, error) {
	all, err := t.svc.ListLights(ctx)
	return neewerlite.Lights(all), err
}

// targets are the connected lights entries name, or the text saying none
// does.
func (t *nlTools) targets(ctx context.Context, entries []string) ([]service.Light, *mcplib.CallToolResult) {
	all, err := t.lightsOf(ctx)
	if err != nil {
		return nil, t.failed(err)
	}
	targets := neewerlite.Targets(all, entries)
	if len(targets) == 0 {
		return nil, nlError("No matching lights found for: " + strings.Join(entries, ", "))
	}
	return targets, nil
}

// written is what a write did to lights, through the service as one
// write: the lights it applied to (in the order given), and a line per
// light it failed on.
type written struct {
	applied []service.Light
	failed  []string
}

func (t *nlTools) write(ctx context.Context, lights []service.Light, p service.LightPatch) (written, error) {
	res, err := t.svc.SetLights(ctx, service.LightTarget{Refs: neewerlite.IDs(lights)}, p)
	if err != nil {
		return written{}, err
	}
	var w written
	for _, l := range lights {
		if slices.ContainsFunc(res.Applied, func(o service.Outcome) bool { return o.ID == l.ID }) {
			w.applied = append(w.applied, l)
		}
	}
	for _, o := range res.Failed {
		w.failed = append(w.failed, o.Said())
	}
	return w, nil
}

// answer is a write's text: head and the lights set, then any more lines
// and the failures; a tool error when no light was set.
func (w written) answer(head string, more ...string) *mcplib.CallToolResult {
	text := head
	if len(w.applied) > 0 {
		text += ": " + strings.Join(neewerlite.Names(w.applied), ", ")
	}
	for _, m := range more {
		if m != "" {
			text += "\n" + m
		}
	}
	if len(w.failed) > 0 {
		text += "\nFailed: " + strings.Join(w.failed, "; ")
	}
	if len(w.applied) == 0 {
		return nlError(text)
	}
	return nlText(text)
}

// setAll writes p to the lights entries name, and says head.
func (t *nlTools) setAll(ctx context.Context, entries []string, p service.LightPatch, head string) *mcplib.CallToolResult {
	targets, none := t.targets(ctx, entries)
	if none != nil {
		return none
	}
	w, err := t.write(ctx, targets, p)
	if err != nil {
		return t.failed(err)
	}
	return w.answer(head)
}

func (t *nlTools) switchLight(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	lights, ok := a.lights()
	on, ok2 := a.boolean("state")
	if !ok || !ok2 {
		return nlError(missingSwitch)
	}
	head := "Turned off"
	if on {
		head = "Turned on"
	}
	return t.setAll(ctx, lights, service.LightPatch{On: &on}, head)
}

func (t *nlTools) setBrightness(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	lights, ok := a.lights()
	v, ok2 := a.number("brightness")
	if !ok || !ok2 {
		return nlError(missingBrightness)
	}
	b := neewerlite.Level(v)
	return t.setAll(ctx, lights, service.LightPatch{Brightness: &b}, fmt.Sprintf("Set brightness to %d%%", b))
}

func (t *nlTools) setCCT(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	lights, ok := a.lights()
	bv, ok2 := a.number("brightness")
	tv, ok3 := a.number("temperature")
	if !ok || !ok2 || !ok3 {
		return nlError(missingCCT)
	}
	k, err := neewerlite.Kelvin(tv)
	if err != nil {
		return nlError(err.Error())
	}
	b := neewerlite.Level(bv)
	head := fmt.Sprintf("Set CCT mode — %d%% brightness, %dK", int(bv), int(tv))
	return t.setAll(ctx, lights, service.LightPatch{Brightness: &b, Kelvin: &k}, head)
}

func (t *nlTools) setHSI(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	lights, ok := a.lights()
	hex, ok2 := a.str("hex_color")
	bv, ok3 := a.number("brightness")
	if !ok || !ok2 || !ok3 {
		return nlError(missingHSI)
	}
	hue, err := neewerlite.HexHue(hex)
	if err != nil {
		return nlError(err.Error())
	}
	sv, given := a.number("saturation")
	if !given {
		sv = 100
	}
	b, sat := int(neewerlite.Percent(bv)), neewerlite.Percent(sv)
	head := fmt.Sprintf("Set HSI mode — color #%s, %d%% brightness, %d%% saturation", strings.TrimPrefix(hex, "#"), b, int(sat))
	targets, none := t.targets(ctx, lights)
	if none != nil {
		return none
	}
	rgb, skipped := split(targets, neewerlite.HasRGB)
	var skip string
	if len(skipped) > 0 {
		skip = "Skipped (no RGB support): " + strings.Join(neewerlite.Names(skipped), ", ")
	}
	var w written
	if len(rgb) > 0 {
		if w, err = t.write(ctx, rgb, service.LightPatch{Hue: &hue, Saturation: &sat, Brightness: &b}); err != nil {
			return t.failed(err)
		}
	}
	return w.answer(head, skip)
}

// split divides lights into those keep holds for and the others.
func split(lights []service.Light, keep func(service.Light) bool) (yes, no []service.Light) {
	for _, l := range lights {
		if keep(l) {
			yes = append(yes, l)
		} else {
			no = append(no, l)
		}
	}
	return yes, no
}

func (t *nlTools) setScene(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	lights, ok := a.lights()
	idv, ok2 := a.number("scene_id")
	if !ok || !ok2 {
		return nlError(missingScene)
	}
	id := int(idv)
	targets, none := t.targets(ctx, lights)
	if none != nil {
		return none
	}
	var errs []string
	runs, out := split(targets, func(l service.Light) bool { return id >= 1 && id <= len(neewerlite.Effects(l)) })
	for _, l := range out {
		errs = append(errs, outOfRange(l, id))
	}
	p := service.LightPatch{EffectNumber: &id}
	if v, ok := a.number("brightness"); ok {
		p.Brightness = ptrTo(neewerlite.Level(v))
	}
	if v, ok := a.number("speed"); ok {
		p.EffectSpeed = ptrTo(min(max(int(v), 1), 10))
	}
	if v, ok := a.number("color"); ok {
		p.EffectColor = ptrTo(max(int(v), 0))
	}
	var w written
	if len(runs) > 0 {
		var err error
		if w, err = t.write(ctx, runs, p); err != nil {
			return t.failed(err)
		}
	}
	return sceneAnswer(w, id, append(errs, w.failed...))
}

func ptrTo[T any](v T) *T { return &v }

// outOfRange says why l cannot run scene id.
func outOfRange(l service.Light, id int) string {
	n := len(neewerlite.Effects(l))
	if n == 0 {
		return l.Name + ": does not support scenes"
	}
	return fmt.Sprintf("%s: scene_id %d out of range (1–%d)", l.Name, id, n)
}

// sceneAnswer is set_scene's text: the lights that run scene id, then
// the errors.
func sceneAnswer(w written, id int, errs []string) *mcplib.CallToolResult {
	var parts []string
	if len(w.applied) > 0 {
		ran := make([]string, len(w.applied))
		for i, l := range w.applied {
			ran[i] = l.Name + " → " + neewerlite.Effects(l)[id-1]
		}
		parts = append(parts, "Activated scene: "+strings.Join(ran, ", "))
	}
	if len(errs) > 0 {
		parts = append(parts, "Errors: "+strings.Join(errs, "; "))
	}
	text := strings.Join(parts, "\n")
	if len(w.applied) == 0 {
		return nlError(text)
	}
	return nlText(text)
}

// light is the light a describing tool is about, connected or not, or the
// text saying none is.
func (t *nlTools) light(ctx context.Context, a nlArgs) (service.Light, *mcplib.CallToolResult) {
	name, ok := a.str("light")
	if !ok {
		return service.Light{}, nlError(missingLight)
	}
	all, err := t.lightsOf(ctx)
	if err != nil {
		return service.Light{}, t.failed(err)
	}
	l, found := neewerlite.Find(all, name)
	if !found {
		return l, nlError("No light found matching: " + name)
	}
	return l, nil
}

func (t *nlTools) listScenes(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	l, res := t.light(ctx, a)
	if res != nil {
		return res
	}
	effects := neewerlite.Effects(l)
	if len(effects) == 0 {
		return nlText(l.Name + " does not support scenes.")
	}
	return nlText(numbered(fmt.Sprintf("%s — %d scene(s):", l.Name, len(effects)), effects, func(e string) string { return e }))
}

// numbered is head, then one line per item numbered from 1.
func numbered[T any](head string, items []T, line func(T) string) string {
	var b strings.Builder
	b.WriteString(head)
	for i, it := range items {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, line(it))
	}
	return b.String()
}

func (t *nlTools) listSources(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	l, res := t.light(ctx, a)
	if res != nil {
		return res
	}
	sources := presetsOf(color.PresetSource)
	if !neewerlite.TakesSources(l) || len(sources) == 0 {
		return nlText(l.Name + " does not support source presets.")
	}
	params := "brightness, cct"
	if l.Capabilities.GM {
		params += ", gm"
	}
	return nlText(numbered(fmt.Sprintf("%s — %d source preset(s):", l.Name, len(sources)), sources, func(p color.Preset) string {
		white := fmt.Sprintf("%dK", p.Kelvin)
		if p.GM != 0 {
			white += fmt.Sprintf(", GM %d", p.GM)
		}
		return fmt.Sprintf("%s (params: %s) — %s", p.Name, params, white)
	}))
}

func (t *nlTools) listGels(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	l, res := t.light(ctx, a)
	if res != nil {
		return res
	}
	if !neewerlite.TakesGels(l) {
		return nlText(l.Name + " does not support gels (RGB required).")
	}
	gels := presetsOf(color.PresetGel)
	if len(gels) == 0 {
		return nlText("No gel presets available in database.")
	}
	return nlText(numbered(fmt.Sprintf("%s — %d gel preset(s):", l.Name, len(gels)), gels, gelLine))
}

// presetsOf are the hub's presets of one kind, in their order.
func presetsOf(kind string) []color.Preset {
	if kind == color.PresetSource {
		return color.Sources()
	}
	return color.Gels()
}

// gelLine is a gel as NeewerLite lists it: its name, maker and code
// ("Generic -" when it has none), the colour it gives and, where the
// maker says, how much light it lets through.
func gelLine(p color.Preset) string {
	maker, code := cmp.Or(p.Maker, "Generic"), cmp.Or(p.Code, "-")
	h, s := presetHueSat(p)
	line := fmt.Sprintf("%s [%s %s] — hue %d°, sat %d%%", p.Name, maker, code, h, s)
	if p.Transmission != nil {
		line += fmt.Sprintf(", transmission %d%%", int(math.Round(*p.Transmission)))
	}
	return line
}

// presetHueSat is the hue (°) and saturation (%) of a preset: the maker's
// own where it gives them, else those of its colour.
func presetHueSat(p color.Preset) (int, int) {
	if p.Hue != nil && p.Saturation != nil {
		return int(math.Round(*p.Hue)), int(math.Round(*p.Saturation))
	}
	rgb, err := color.ParseHex(p.Hex)
	if err != nil {
		return 0, 0
	}
	h, s, _ := rgb.HSV()
	return int(math.Round(h)), int(math.Round(s * 100))
}

func (t *nlTools) scanLights(ctx context.Context, _ nlArgs) *mcplib.CallToolResult {
	res, err := t.svc.Scan(ctx)
	if err != nil {
		return t.failed(err)
	}
	if len(res.Adapters) == 0 {
		return nlText("No scan started: " + res.Message)
	}
	text := fmt.Sprintf("Scan started (%s). Use list_lights in a few seconds to see newly discovered lights.", strings.Join(res.Adapters, ", "))
	if res.WaitSeconds > 0 {
		text = fmt.Sprintf("Scan started (%s). Use list_lights in %d seconds to see newly discovered lights.", strings.Join(res.Adapters, ", "), res.WaitSeconds)
	}
	for _, f := range res.Failed {
		text += "\n" + f.Said()
	}
	return nlText(text)
}

func (t *nlTools) getLightImage(ctx context.Context, a nlArgs) *mcplib.CallToolResult {
	name, ok := a.str("light")
	if !ok {
		return nlError(missingLight)
	}
	all, err := t.lightsOf(ctx)
	if err != nil {
		return t.failed(err)
	}
	found := neewerlite.Targets(all, []string{name})
	if len(found) == 0 || service.IsAllLights(name) {
		return nlError("Light not found or not connected: " + name)
	}
	l := found[0]
	png, err := lightimage.PNG(l)
	if err != nil {
		t.log.Warn("drawing a light", "light", l.ID, "err", err)
		return nlText("No product image available for this light.")
	}
	return &mcplib.CallToolResult{Content: []mcplib.Content{
		mcplib.NewTextContent(fmt.Sprintf("Product image for %s (%s):", l.Name, neewerlite.Model(l))),
		mcplib.NewImageContent(base64.StdEncoding.EncodeToString(png), "image/png"),
	}}
}

// listLights is NeewerLite's list: a head, then three lines per light.
func (t *nlTools) listLights(ctx context.Context, _ nlArgs) *mcplib.CallToolResult {
	lights, err := t.lightsOf(ctx)
	if err != nil {
		return t.failed(err)
	}
	if len(lights) == 0 {
		return nlText("No lights found. Try scan_lights to discover new lights.")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d light(s):", len(lights))
	for i, l := range lights {
		fmt.Fprintf(&b, "\n%d. %s (id: %s) — %s", i+1, l.Name, neewerlite.ID(l), lightStatus(l))
		fmt.Fprintf(&b, "\n   Model: %s, rawName: %s", neewerlite.Model(l), neewerlite.RawName(l))
		if mac := neewerlite.MAC(l); mac != "" {
			b.WriteString(", MAC: " + mac)
		}
		b.WriteString("\n   Capabilities: " + capabilities(l))
	}
	return nlText(b.String())
}

// lightStatus is a light's state as list_lights says it: ON, OFF or
// DISCONNECTED, its brightness and mode (when the hub knows them) and its
// colour-temperature range in hundreds of kelvin.
func lightStatus(l service.Light) string {
	parts := []string{map[string]string{"1": "ON", "0": "OFF", "-1": "DISCONNECTED"}[neewerlite.State(l)]}
	if l.State != nil {
		parts = append(parts, fmt.Sprintf("brightness %d%%", l.State.Brightness))
		if m := lightMode(l); m != "" {
			parts = append(parts, m)
		}
	}
	if lo, hi, ok := neewerlite.CCTRange(l); ok {
		parts = append(parts, fmt.Sprintf("CCT range %d-%dK", neewerlite.Hundreds(lo), neewerlite.Hundreds(hi)))
	}
	return strings.Join(parts, ", ")
}

// lightMode is what a light shows: "CCT 4400K[, GM g]", "HSI hue H° sat
// S%" or "Scene: <name> (id n)".
func lightMode(l service.Light) string {
	st := l.State
	switch {
	case st.Mode == devices.ModeColor && st.Color != nil:
		rgb, err := color.ParseHex(st.Color.Hex)
		if err != nil {
			return "HSI"
		}
		h, s, _ := rgb.HSV()
		return fmt.Sprintf("HSI hue %d° sat %d%%", int(math.Round(h)), int(math.Round(s*100)))
	case st.Mode == devices.ModeEffect:
		if i := slices.Index(neewerlite.Effects(l), st.Effect); i >= 0 {
			return fmt.Sprintf("Scene: %s (id %d)", st.Effect, i+1)
		}
		return "Scene: " + st.Effect
	case st.Kelvin > 0:
		m := fmt.Sprintf("CCT %dK", st.Kelvin)
		if l.Capabilities.GM {
			m += fmt.Sprintf(", GM %d", st.GM)
		}
		return m
	}
	return ""
}

// capabilities lists what a light can do beyond brightness.
func capabilities(l service.Light) string {
	var caps []string
	if neewerlite.HasRGB(l) {
		caps = append(caps, "RGB")
	}
	if l.Capabilities.GM {
		caps = append(caps, "GM")
	}
	if n := len(neewerlite.Effects(l)); n > 0 {
		caps = append(caps, fmt.Sprintf("%d scenes", n))
	}
	if neewerlite.TakesSources(l) {
		caps = append(caps, fmt.Sprintf("%d sources", len(presetsOf(color.PresetSource))))
	}
	if neewerlite.TakesGels(l) {
		caps = append(caps, fmt.Sprintf("%d gels", len(presetsOf(color.PresetGel))))
	}
	switch {
	case len(caps) > 0:
		return strings.Join(caps, ", ")
	case l.Capabilities.HasTemperature():
		return "CCT only"
	}
	return "brightness only"
}
