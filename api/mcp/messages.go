package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// A tool error is rendered here, in one place, in the tool's own words:
// a service error carries its parts (the fields it lists, a next step as
// a kind), and a tool says them with its own arguments and its own tools.
// Each message starts with a capital; it names a device once and quotes at
// most wording.MaxQuoted characters of anything the caller sent because
// the service writes it so (a failure's Said, Errorf's %q), not because
// this file finds names or quotes in its text.

// words are what a tool's messages may name: its arguments (and the
// fields of a part of them), and the fields of the service input it fills
// that it does not take.
type words struct {
	args     []string // as the input schema spells them
	restOnly []string // the service input's fields the tool does not take
}

// serviceInput is implemented by the arguments of a tool that fill a
// service input (a light patch), whose fields the service's messages
// name: it returns that input's type and the tool's own type for it (the
// arguments, or the part of them that is the input: a rule action's
// state, which takes what set_light takes).
type serviceInput interface {
	serviceInput() (service, own reflect.Type)
}

// wordsOf are the words of the tool whose arguments are A.
func wordsOf[A any]() words {
	w := words{args: argNames(reflect.TypeFor[A]())}
	var zero A
	in, ok := any(zero).(serviceInput)
	if !ok {
		return w
	}
	svc, own := in.serviceInput()
	for _, name := range argNames(own) {
		if !slices.Contains(w.args, name) {
			w.args = append(w.args, name)
		}
	}
	for _, name := range argNames(svc) {
		if !slices.Contains(w.args, name) {
			w.restOnly = append(w.restOnly, name)
		}
	}
	return w
}

// call is one tool call, whose errors are rendered for it.
type call struct {
	tool  string
	words words
	raw   json.RawMessage // the arguments as sent
}

// toolError is a tool error saying what went wrong in the tool's words;
// the valid options the service offers are named when its message does
// not list them already.
func (c call) toolError(err error) *mcplib.CallToolResult {
	msg := service.ErrorSaid(err, c.words.say())
	details := service.ErrorDetails(err)
	if opts, ok := details["options"].([]string); ok && len(opts) > 0 {
		if list := strings.Join(opts, ", "); !strings.Contains(msg, list) {
			msg += "; valid: " + list
		}
	}
	if field, ok := details["field"].(string); ok {
		msg = inField(msg, field)
	}
	return &mcplib.CallToolResult{
		Content: []mcplib.Content{mcplib.NewTextContent(c.said(msg))},
		IsError: true,
	}
}

// said is a message as a tool error says it: starting with a capital.
func (c call) said(msg string) string {
	return wording.UpperFirst(msg)
}

// say are the words a tool says a service error in: a list of fields
// keeps the ones the tool takes, and a next step is one of the tools.
func (w words) say() service.Words {
	return service.Words{
		Field: func(name string) (string, bool) { return name, !slices.Contains(w.restOnly, name) },
		Hint:  toolHint,
	}
}

// toolHint says a next step as a tool: "" where no tool takes it (the
// web UI's words are said then).
func toolHint(e *service.Error) string {
	if e.Hint == service.HintListPresets {
		return "list them with the list_color_presets tool"
	}
	return ""
}

// inField puts a message that starts with the field it is about
// ("actions[0].state: …") as a sentence that says where.
func inField(msg, field string) string {
	if len(msg) > len(field)+2 && strings.EqualFold(msg[:len(field)], field) && msg[len(field):len(field)+2] == ": " {
		return "In " + field + msg[len(field):]
	}
	return msg
}
