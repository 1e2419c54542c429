package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

// tools serves the tool calls from the service and the automation
// engine: decode the arguments, call one method, shape the answer.
type tools struct {
	svc *service.Service
	eng *automation.Engine // nil: no automation tools
	log *slog.Logger
}

// all is every tool, in the order of the table, then the
// automations'.
func (t *tools) all() []mcpserver.ServerTool {
	return slices.Concat(t.homeTools(), t.lightTools(), t.sceneTools(), t.mediaTools(),
		t.powerTools(), t.remoteTools(), t.houseTools(), t.automationTools())
}

// result is what a tool answers: a short text for people and the
// structured content its output schema declares. A failed result (every
// device of a write failed) is a tool error that still says which.
type result struct {
	text   string
	data   any
	failed bool
}

// kind says what a tool does to the house, which sets its annotations.
type kind int

const (
	reads   kind = iota // changes nothing
	writes              // changes state; asking twice does what asking once did
	acts                // changes state; asking twice does it twice (a key press, a new scene)
	deletes             // removes something for good; asking twice does what asking once did
)

// newTool declares a tool. Annotations are true: only reads are read-only,
// only deletes are destructive, and no tool reaches beyond the house.
func newTool(name, desc string, k kind, in, out schema) mcplib.Tool {
	a := mcplib.ToolAnnotation{ReadOnlyHint: mcplib.ToBoolPtr(k == reads), OpenWorldHint: mcplib.ToBoolPtr(false)}
	if k != reads {
		a.DestructiveHint = mcplib.ToBoolPtr(k == deletes)
	}
	if k == writes || k == deletes {
		a.IdempotentHint = mcplib.ToBoolPtr(true) // false is the default: left out
	}
	return mcplib.Tool{Name: name, Description: desc, RawInputSchema: in.raw(), RawOutputSchema: out.raw(), Annotations: a}
}

// handle adapts a typed tool function: it decodes the arguments into A
// (refusing unknown ones), runs fn, and turns the service's recoverable
// errors into tool errors whose message lists the valid options. Only an
// internal failure is a protocol error, logged here, once.
func handle[A any](t *tools, fn func(context.Context, A) (result, error)) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcplib.CallToolRequest) (res *mcplib.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.log.Error("MCP tool panicked", "tool", req.Params.Name, "panic", r)
				res, err = nil, errInternal
			}
		}()
		var args A
		if err := decodeArgs(req.Params.RawArguments, &args); err != nil {
			return toolError(err), nil
		}
		r, err := fn(ctx, args)
		if err != nil {
			return t.failure(req.Params.Name, err)
		}
		return r.toolResult(), nil
	}
}

// errInternal is all a client learns of an internal failure.
var errInternal = errors.New("internal error")

// failure answers a service error: a tool error for anything the caller
// can act on, a protocol error for an internal failure.
func (t *tools) failure(tool string, err error) (*mcplib.CallToolResult, error) {
	if service.ErrorCode(err) == service.EINTERNAL {
		t.log.Error("MCP tool failed", "tool", tool, "err", err)
		return nil, errInternal
	}
	return toolError(err), nil
}

// toolError is a tool error saying what went wrong; the valid options the
// service offers are named when its message does not list them already.
func toolError(err error) *mcplib.CallToolResult {
	msg := service.ErrorMessage(err)
	if opts, ok := service.ErrorDetails(err)["options"].([]string); ok && len(opts) > 0 {
		if list := strings.Join(opts, ", "); !strings.Contains(msg, list) {
			msg += "; valid: " + list
		}
	}
	return &mcplib.CallToolResult{
		Content: []mcplib.Content{mcplib.NewTextContent(msg)},
		IsError: true,
	}
}

func (r result) toolResult() *mcplib.CallToolResult {
	return &mcplib.CallToolResult{
		Content:           []mcplib.Content{mcplib.NewTextContent(r.text)},
		StructuredContent: r.data,
		IsError:           r.failed,
	}
}

// decodeArgs decodes a tool's arguments into v. Unknown arguments and
// values of the wrong type are refused, naming the argument.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var mismatch *json.UnmarshalTypeError
	switch {
	case err == nil || errors.Is(err, io.EOF):
		return nil
	case errors.As(err, &mismatch):
		if mismatch.Field == "" {
			return service.Errorf(service.EINVALID, "arguments must be an object")
		}
		return service.Errorf(service.EINVALID, "%s must be %s, not %s", mismatch.Field, jsonKind(mismatch.Type), mismatch.Value)
	}
	var syntax *json.SyntaxError
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if !topLevel(raw, name) {
			// A field of an object inside the arguments (a rule's trigger).
			return service.Errorf(service.EINVALID, "unknown field %s; the input schema lists the fields", name)
		}
		return service.Errorf(service.EINVALID, "unknown argument %s; arguments: %s", name, strings.Join(argNames(reflect.TypeOf(v).Elem()), ", "))
	}
	if errors.As(err, &syntax) {
		return service.Errorf(service.EINVALID, "the arguments are not valid JSON: %v", err)
	}
	// A value's own decoder refused it (a duration such as "2 mins").
	return service.Errorf(service.EINVALID, "%v", err)
}

// topLevel reports whether quoted (a field name as encoding/json quotes
// it) is one of the arguments themselves rather than a field of an object
// among them.
func topLevel(raw json.RawMessage, quoted string) bool {
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return true
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return true
	}
	_, ok := args[name]
	return ok
}

// argNames lists the JSON names of an arguments struct's fields,
// including those of embedded structs.
func argNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			out = append(out, argNames(f.Type)...)
		case name != "" && name != "-":
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// jsonKind describes the JSON a Go type takes.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// lines joins one line per item.
func lines[T any](head string, items []T, line func(T) string) string {
	var b strings.Builder
	b.WriteString(head)
	for _, it := range items {
		b.WriteString("\n")
		b.WriteString(line(it))
	}
	return b.String()
}

// withRoom adapts a view's line for a list, where rooms are named.
func withRoom[T any](line func(T, bool) string) func(T) string {
	return func(v T) string { return line(v, true) }
}

// count is "1 light", "3 lights".
func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
