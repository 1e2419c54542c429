package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
)

// tools serves the tool calls from the service, the automation engine and
// the sensor history: decode the arguments, call one method, shape the
// answer.
type tools struct {
	svc   *service.Service
	eng   *automation.Engine // nil: no automation tools
	hist  *history.Reader    // nil: the hub keeps no sensor history
	voice *voice.Commander   // nil: no run_command
	log   *slog.Logger
}

// all is every tool, in the order of the table, then the
// automations'.
func (t *tools) all() []mcpserver.ServerTool {
	return slices.Concat(t.homeTools(), t.lightTools(), t.sceneTools(), t.mediaTools(),
		t.powerTools(), t.remoteTools(), t.houseTools(), t.voiceTools(), t.automationTools())
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
	return mcplib.Tool{Name: name, Description: desc, RawInputSchema: in.raw(), RawOutputSchema: out.raw(), Annotations: k.annotations()}
}

// annotations are the hints a tool of kind k carries.
func (k kind) annotations() mcplib.ToolAnnotation {
	a := mcplib.ToolAnnotation{ReadOnlyHint: mcplib.ToBoolPtr(k == reads), OpenWorldHint: mcplib.ToBoolPtr(false)}
	if k != reads {
		a.DestructiveHint = mcplib.ToBoolPtr(k == deletes)
	}
	if k == writes || k == deletes {
		a.IdempotentHint = mcplib.ToBoolPtr(true) // false is the default: left out
	}
	return a
}

// handle adapts a typed tool function: it decodes the arguments into A
// (refusing unknown ones), runs fn, and turns the service's recoverable
// errors into tool errors said in the tool's own words (its argument
// names; see errors.go). Only an internal failure is a protocol error,
// logged here, once.
func handle[A any](t *tools, fn func(context.Context, A) (result, error)) mcpserver.ToolHandlerFunc {
	words := wordsOf[A]()
	return func(ctx context.Context, req mcplib.CallToolRequest) (res *mcplib.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.log.Error("MCP tool panicked", "tool", req.Params.Name, "panic", r)
				res, err = nil, errInternal
			}
		}()
		c := call{tool: req.Params.Name, words: words, raw: req.Params.RawArguments}
		var args A
		if err := decodeArgs(c.tool, c.raw, &args); err != nil {
			return c.toolError(err), nil
		}
		r, err := fn(ctx, args)
		if err != nil {
			return t.failure(c, err)
		}
		if r.failed {
			r.text = c.said(r.text)
		}
		return r.toolResult(), nil
	}
}

// errInternal is all a client learns of an internal failure.
var errInternal = errors.New("internal error")

// failure answers a service error: a tool error for anything the caller
// can act on, a protocol error for an internal failure.
func (t *tools) failure(c call, err error) (*mcplib.CallToolResult, error) {
	if service.ErrorCode(err) == service.EINTERNAL {
		t.log.Error("MCP tool failed", "tool", c.tool, "err", err)
		return nil, errInternal
	}
	return c.toolError(err), nil
}

func (r result) toolResult() *mcplib.CallToolResult {
	return &mcplib.CallToolResult{
		Content:           []mcplib.Content{mcplib.NewTextContent(r.text)},
		StructuredContent: r.data,
		IsError:           r.failed,
	}
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
