package mcp

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/service"
)

// patchProps are the fields of a light write, shared by set_light and
// set_room.
var patchProps = map[string]schema{
	"on":         boolean(""),
	"brightness": number("0–100 %; 0 turns it off", 0, 100),
	"hex":        str("colour as RRGGBB, e.g. FF8800"),
	"kelvin":     number("1000–20000 K; 2700 warm, 6500 cool; kept in range", minKelvin, maxKelvin),
	"effect":     str("see list_light_effects"),
	"preset":     str("a gel or light source: list_color_presets"),
}

// The colour temperatures a light write takes (the service's range).
const (
	minKelvin = 1000
	maxKelvin = 20000
)

// patchArgs are the light-write arguments. Brightness and kelvin take
// fractions (rounded), as a model may send 80.0 or 62.5.
type patchArgs struct {
	On         *bool    `json:"on"`
	Brightness *rounded `json:"brightness"`
	Hex        *string  `json:"hex"`
	Kelvin     *rounded `json:"kelvin"`
	Effect     *string  `json:"effect"`
	Preset     *string  `json:"preset"`
}

func (a patchArgs) patch() service.LightPatch {
	return service.LightPatch{On: a.On, Brightness: ints(a.Brightness), Hex: a.Hex, Kelvin: ints(a.Kelvin), Effect: a.Effect, Preset: a.Preset}
}

// serviceInput: the service's messages about a light write name the
// fields of a LightPatch.
func (patchArgs) serviceInput() (svc, own reflect.Type) { return lightPatch, patchArgsType }

var (
	lightPatch    = reflect.TypeFor[service.LightPatch]()
	patchArgsType = reflect.TypeFor[patchArgs]()
)

func (t *tools) lightTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_lights", "Every light: its state and what it can do.",
			reads, noArgs, open(map[string]schema{"lights": array("", lightSchema)})),
			Handler: handle(t, t.listLights)},
		{Tool: newTool("list_light_effects", "One light's effects, for set_light's effect.",
			reads, object(map[string]schema{"light": str("the light's name or id")}, "light"),
			open(map[string]schema{"light": str(""), "effects": array("", str(""))})),
			Handler: handle(t, t.listLightEffects)},
		{Tool: newTool("list_color_presets", "Gels and light sources for set_light's preset.",
			reads, noArgs, open(map[string]schema{"presets": array("", presetSchema)})),
			Handler: handle(t, t.listPresets)},
		{Tool: newTool("set_light", "Change one light, several, or all: only what is given; at most one of hex, kelvin, effect, preset; each turns it on.",
			writes, object(with(patchProps, map[string]schema{
				"light":  str(`one light's name or id, or "all"`),
				"lights": array("several lights' names or ids", str("")),
			})), lightWriteSchema),
			Handler: handle(t, t.setLight)},
	}
}

func (t *tools) listLights(ctx context.Context, _ struct{}) (result, error) {
	ls, err := t.svc.ListLights(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]light, 0, len(ls))
	for _, l := range ls {
		out = append(out, lightOf(l))
	}
	return result{text: lines(count(len(out), "light")+":", out, withRoom(light.line)), data: map[string]any{"lights": out}}, nil
}

type oneLight struct {
	Light string `json:"light"`
}

func (t *tools) listLightEffects(ctx context.Context, a oneLight) (result, error) {
	l, err := t.svc.GetLight(ctx, a.Light)
	if err != nil {
		return result{}, err
	}
	fx := l.Capabilities.Effects
	if fx == nil {
		fx = []string{}
	}
	text := fmt.Sprintf("%s has no effects.", l.Name)
	if len(fx) > 0 {
		text = fmt.Sprintf("%s has %s: %s.", l.Name, count(len(fx), "effect"), strings.Join(fx, ", "))
	}
	return result{text: text, data: map[string]any{"light": l.Name, "effects": fx}}, nil
}

type setLightArgs struct {
	Light  string   `json:"light"`
	Lights []string `json:"lights"`
	patchArgs
}

// lightWrite answers set_light: which lights took the change and, for one
// light, the state that resulted and any adjustment made to fit the lamp.
type lightWrite struct {
	fanout
	Light *light   `json:"light,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

var lightWriteSchema = open(with(fanoutSchema.props(), map[string]schema{
	"light": told("one light's state, as list_lights"),
	"notes": array("", str("")),
}))

func (t *tools) setLight(ctx context.Context, a setLightArgs) (result, error) {
	p := a.patch()
	if a.Light != "" && len(a.Lights) > 0 {
		return result{}, service.Errorf(service.EINVALID, `Give light (one, or "all") or lights (several), not both`)
	}
	refs := a.Lights
	if len(refs) == 0 {
		refs = []string{a.Light}
	}
	if target := service.ParseLightTarget(refs...); len(a.Lights) > 0 || target.All {
		res, err := t.svc.SetLights(ctx, target, p)
		if err != nil {
			return result{}, err
		}
		f := fanoutOf(res)
		return result{text: f.text("Lights"), data: lightWrite{fanout: f}, failed: f.allFailed()}, nil
	}
	res, err := t.svc.SetLight(ctx, a.Light, p)
	if err != nil {
		return result{}, err
	}
	l := light{ID: string(res.ID), Name: res.Name, On: &res.State.On, Brightness: &res.State.Brightness}
	setMode(&l, res.State)
	w := lightWrite{fanout: fanout{Applied: []string{res.Name}}, Light: &l, Notes: res.Notes}
	text := l.line(false)
	if len(res.Notes) > 0 {
		text += " (" + strings.Join(res.Notes, "; ") + ")"
	}
	return result{text: text, data: w}, nil
}

// preset is one preset as the assistant sees it.
type preset struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Kelvin int    `json:"kelvin,omitempty"`
	GM     int    `json:"gm,omitempty"`
	Hex    string `json:"hex"`
}

var presetSchema = open(map[string]schema{
	"name": str(""), "kind": str(""), "kelvin": integer("", 1, 0), "gm": integer("", 1, 0), "hex": str(""),
})

func (t *tools) listPresets(ctx context.Context, _ struct{}) (result, error) {
	ps, err := t.svc.ListPresets(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]preset, 0, len(ps))
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, preset{Name: p.Name, Kind: p.Kind, Kelvin: p.Kelvin, GM: p.GM, Hex: p.Hex})
		names = append(names, p.Name)
	}
	return result{text: count(len(out), "preset") + ": " + strings.Join(names, ", ") + ".", data: map[string]any{"presets": out}}, nil
}
