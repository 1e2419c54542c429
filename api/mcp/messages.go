package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/service"
)

// A tool error is rendered here, in one place, in the tool's own words:
// a service error carries its parts (the fields it lists, a next step as
// a kind), and a tool says them with its own arguments and its own tools.
// Each message starts with a capital, names a device once, and quotes at
// most service.MaxQuoted characters of anything the caller sent.

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

// said is a message as a tool error says it: the caller's long strings
// cut, each device named once, starting with a capital.
func (c call) said(msg string) string {
	return service.UpperFirst(nameOnce(clipArgs(msg, c.raw)))
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

// nameOnce drops a device's name that a message repeats: "Key Light: Key
// Light is unreachable", or "Key Light failed: Key Light is unreachable",
// is "Key Light is unreachable"; each "; "-separated part is looked at.
func nameOnce(msg string) string {
	parts := strings.Split(msg, "; ")
	for i, p := range parts {
		head, rest, ok := strings.Cut(p, ": ")
		if ok && startsWithName(rest, strings.TrimSuffix(head, " failed")) {
			parts[i] = rest
		}
	}
	return strings.Join(parts, "; ")
}

// startsWithName reports whether s starts with name, as a whole word.
func startsWithName(s, name string) bool {
	if name == "" || len(s) < len(name) || !strings.EqualFold(s[:len(name)], name) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[len(name):])
	return len(s) == len(name) || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// failedText says that a device did not take a write, and why, naming it
// once.
func failedText(name, err string) string {
	if startsWithName(err, name) {
		return err
	}
	return name + " failed: " + err
}

// clipArgs cuts, in msg, every long string of the caller's arguments
// (a value or a key, as sent, trimmed or in lower case, quoted or not),
// then every long quoted string left.
func clipArgs(msg string, raw json.RawMessage) string {
	for _, s := range longStrings(raw) {
		for _, v := range []string{s, strings.TrimSpace(s), strings.ToLower(strings.TrimSpace(s))} {
			if utf8.RuneCountInString(v) > service.MaxQuoted && strings.Contains(msg, v[:len(v)/2]) {
				msg = strings.ReplaceAll(msg, strconv.Quote(v), strconv.Quote(service.Clip(v)))
				msg = strings.ReplaceAll(msg, v, service.Clip(v))
			}
		}
	}
	return clipQuoted(msg)
}

// longStrings are the strings in raw (values and keys, at any depth)
// longer than service.MaxQuoted characters.
func longStrings(raw json.RawMessage) []string {
	if len(raw) <= service.MaxQuoted {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	add := func(s string) {
		if utf8.RuneCountInString(s) > service.MaxQuoted {
			out = append(out, s)
		}
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			add(v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				add(k)
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// clipQuoted cuts every quoted string in msg ("…" as Go quotes, or '…')
// longer than service.MaxQuoted characters.
func clipQuoted(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		switch msg[i] {
		case '"':
			if q, err := strconv.QuotedPrefix(msg[i:]); err == nil {
				s, _ := strconv.Unquote(q)
				if utf8.RuneCountInString(s) > service.MaxQuoted {
					b.WriteString(strconv.Quote(service.Clip(s)))
				} else {
					b.WriteString(q)
				}
				i += len(q)
				continue
			}
		case '\'':
			// An opening quote (not an apostrophe) of a long string.
			if end := strings.IndexByte(msg[i+1:], '\''); end > service.MaxQuoted && (i == 0 || msg[i-1] == ' ') {
				b.WriteString("'" + service.Clip(msg[i+1:i+1+end]) + "'")
				i += end + 2
				continue
			}
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}
