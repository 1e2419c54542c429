package mcp

import (
	"context"
	"fmt"
	"reflect"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func (t *tools) powerTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_power_devices", "Switches, plugs and fans, and whether each is on.",
			reads, noArgs, open(map[string]schema{"power": array("", powerSchema)})),
			Handler: handle(t, t.listPower)},
		{Tool: newTool("set_power", "Switch on or off (a button: on presses it), or set a fan's speed.",
			writes, object(map[string]schema{
				"device": str("the device's name or id"),
				"on":     boolean(""),
				"speed":  integer("fan speed 0–100 %", 0, 100),
			}, "device"), told("the device, as list_power_devices")),
			Handler: handle(t, t.setPower)},
	}
}

func (t *tools) listPower(ctx context.Context, _ struct{}) (result, error) {
	ps, err := t.svc.ListPower(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]power, 0, len(ps))
	for _, p := range ps {
		out = append(out, powerOf(p))
	}
	return result{text: lines(count(len(out), "power device")+":", out, withRoom(power.line)), data: map[string]any{"power": out}}, nil
}

type setPowerArgs struct {
	Device string `json:"device"`
	On     *bool  `json:"on"`
	Speed  *int   `json:"speed"`
}

func (t *tools) setPower(ctx context.Context, a setPowerArgs) (result, error) {
	var p service.PowerView
	var err error
	switch {
	case a.Speed != nil && a.On != nil && !*a.On && *a.Speed != 0:
		return result{}, service.Errorf(service.EINVALID, "Give on: false or a speed, not both: a speed turns the fan on")
	case a.Speed != nil:
		p, err = t.svc.SetFanSpeed(ctx, a.Device, *a.Speed)
	case a.On != nil:
		p, err = t.svc.SetPower(ctx, a.Device, *a.On)
	default:
		return result{}, service.Errorf(service.EINVALID, "Give on: true to switch it on, false to switch it off")
	}
	if err != nil {
		return result{}, err
	}
	v := powerOf(p)
	return result{text: v.line(false), data: v}, nil
}

var tvArg = map[string]schema{"tv": str("the TV's name or id")}

// tvOut is the answer of a tool that works a TV's remote, in the shape
// list_remotes declares.
var tvOut = told("the TV, as list_remotes")

func (t *tools) remoteTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_remotes", "TV remotes: the app in front and the apps each TV can open.",
			reads, noArgs, open(map[string]schema{"remotes": array("", remoteSchema)})),
			Handler: handle(t, t.listRemotes)},
		{Tool: newTool("press_remote_key", "Press a key on a TV's remote.",
			acts, object(with(tvArg, map[string]schema{"key": enum("", devices.RemoteKeys)}), "tv", "key"), tvOut),
			Handler: handle(t, t.pressKey)},
		{Tool: newTool("launch_app", "Open an app on a TV: its name, package id or a deep link.",
			writes, object(with(tvArg, map[string]schema{"app": str("")}), "tv", "app"), tvOut),
			Handler: handle(t, t.launchApp)},
		{Tool: newTool("type_text", "Type into the text field a TV shows (a search box).",
			acts, object(with(tvArg, map[string]schema{"text": str("")}), "tv", "text"),
			open(map[string]schema{"id": str(""), "name": str(""), "typed": str("")})),
			Handler: handle(t, t.typeText)},
		{Tool: newTool("play_on", `Do what was said on a TV: "Netflix" opens the app; "Bob's Burgers" searches its apps and plays the best match; failing both, reopens the last app. Says which.`,
			acts, object(with(tvArg, map[string]schema{"query": str("an app or a title, as said")}), "tv", "query"),
			open(map[string]schema{
				"device": str(""),
				"action": enum("", []string{"opened_app", "played", "searched", "opened_last_app"}),
				"app":    str("package id"), "title": str(""), "message": str(""),
			})),
			Handler: handle(t, t.playOn)},
	}
}

func (t *tools) listRemotes(ctx context.Context, _ struct{}) (result, error) {
	rs, err := t.svc.ListRemotes(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]remote, 0, len(rs))
	for _, r := range rs {
		out = append(out, remoteOf(r, true))
	}
	return result{text: lines(count(len(out), "remote")+":", out, withRoom(remote.line)), data: map[string]any{"remotes": out}}, nil
}

type keyArgs struct {
	TV  string `json:"tv"`
	Key string `json:"key"`
}

// serviceInput: the service's messages about a remote command name the
// fields of a RemoteCommand, as do those of appArgs and textArgs.
func (keyArgs) serviceInput() (svc, own reflect.Type) {
	return remoteCommand, reflect.TypeFor[keyArgs]()
}

var remoteCommand = reflect.TypeFor[service.RemoteCommand]()

func (t *tools) pressKey(ctx context.Context, a keyArgs) (result, error) {
	if a.Key == "" {
		return result{}, service.Errorf(service.EINVALID, "Give key: the remote key to press").With("options", devices.RemoteKeys)
	}
	r, err := t.svc.RemoteCommand(ctx, a.TV, service.RemoteCommand{Key: a.Key})
	if err != nil {
		return result{}, err
	}
	v := remoteOf(r, false)
	return result{text: fmt.Sprintf("Pressed %s on %s. %s", a.Key, v.Name, v.line(false)), data: v}, nil
}

type appArgs struct {
	TV  string `json:"tv"`
	App string `json:"app"`
}

func (appArgs) serviceInput() (svc, own reflect.Type) {
	return remoteCommand, reflect.TypeFor[appArgs]()
}

func (t *tools) launchApp(ctx context.Context, a appArgs) (result, error) {
	if a.App == "" {
		return result{}, service.Errorf(service.EINVALID, "Give app: an app's name, its package id, or a deep link")
	}
	r, err := t.svc.RemoteCommand(ctx, a.TV, service.RemoteCommand{App: a.App})
	if err != nil {
		return result{}, err
	}
	v := remoteOf(r, false)
	return result{text: fmt.Sprintf("Opened %s. %s", a.App, v.line(false)), data: v}, nil
}

type textArgs struct {
	TV   string `json:"tv"`
	Text string `json:"text"`
}

func (textArgs) serviceInput() (svc, own reflect.Type) {
	return remoteCommand, reflect.TypeFor[textArgs]()
}

func (t *tools) typeText(ctx context.Context, a textArgs) (result, error) {
	if a.Text == "" {
		return result{}, service.Errorf(service.EINVALID, "Give text: what to type on the TV")
	}
	r, err := t.svc.RemoteCommand(ctx, a.TV, service.RemoteCommand{Text: a.Text})
	if err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("Typed %q on %s.", a.Text, r.Name),
		data: map[string]any{"id": r.ID, "name": r.Name, "typed": a.Text}}, nil
}

type playOnArgs struct {
	TV    string `json:"tv"`
	Query string `json:"query"`
}

func (t *tools) playOn(ctx context.Context, a playOnArgs) (result, error) {
	res, err := t.svc.PlayOn(ctx, a.TV, a.Query)
	if err != nil {
		return result{}, err
	}
	return result{text: res.Message, data: res}, nil
}
