package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/models"
)

// Tools is the hub's tool set, called in process: the same tools, with
// the same names, descriptions and input schemas, that /mcp lists, and
// the same answers it gives, without the HTTP hop. The hub's language
// model fallback runs the house through it. It holds every tool but
// run_command, which hands a sentence back to the voice grammar: the MCP
// server adds that one itself.
//
// The caller's principal rides ctx, as on /mcp: List shows a read-only
// key only the tools that read, and the service refuses a write it asks
// for anyway.
type Tools struct {
	house []mcpserver.ServerTool
	srv   *mcpserver.MCPServer // answers in-process messages as /mcp does
}

// ToolsConfig is what the tools call: the service, and optionally the
// automation engine (without it no automation tool is listed) and the
// sensor history.
type ToolsConfig struct {
	Service     *service.Service
	Automations *automation.Engine
	History     *history.Reader
	Logger      *slog.Logger
}

// NewTools builds the hub's tool set.
func NewTools(cfg ToolsConfig) *Tools {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &tools{svc: cfg.Service, eng: cfg.Automations, hist: cfg.History, log: log}
	ts := &Tools{house: t.all()}
	hooks := &mcpserver.Hooks{}
	hooks.AddAfterListTools(filterByScope)
	ts.srv = mcpserver.NewMCPServer(serverName, "in-process", mcpserver.WithToolCapabilities(false), mcpserver.WithHooks(hooks))
	ts.srv.AddTools(ts.house...)
	return ts
}

// List is the tools the principal in ctx may use, as tools/list lists
// them for it (by name).
func (ts *Tools) List(ctx context.Context) ([]models.Tool, error) {
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := ts.exchange(ctx, mcplib.MethodToolsList, nil, &res); err != nil {
		return nil, err
	}
	out := make([]models.Tool, len(res.Tools))
	for i, t := range res.Tools {
		out[i] = models.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}
	}
	return out, nil
}

// Call calls the tool name with args (a JSON object, as a client sends
// it) and answers its text and whether it is an error, as /mcp answers
// tools/call: a recoverable problem (an unknown device, a bad argument,
// a device that does not answer) is a tool error in the tool's words; a
// tool that does not exist, or any failure the protocol answers, is an
// error with the protocol's message. Arguments that are not JSON at all
// are sent as the string they are, which the tool refuses.
func (ts *Tools) Call(ctx context.Context, name string, args json.RawMessage) (text string, isError bool) {
	params := map[string]any{"name": name}
	switch trimmed := strings.TrimSpace(string(args)); {
	case trimmed == "":
	case json.Valid([]byte(trimmed)):
		params["arguments"] = json.RawMessage(trimmed)
	default:
		params["arguments"] = trimmed
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := ts.exchange(ctx, mcplib.MethodToolsCall, params, &res); err != nil {
		return err.Error(), true
	}
	texts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// exchange sends one request to the in-process server and decodes its
// result into out; an error answer is an *rpcFailure.
func (ts *Tools) exchange(ctx context.Context, method mcplib.MCPMethod, params any, out any) error {
	msg := map[string]any{"jsonrpc": mcplib.JSONRPC_VERSION, "id": 1, "method": method}
	if params != nil {
		msg["params"] = params
	}
	req, err := json.Marshal(msg)
	if err != nil {
		return &rpcFailure{Message: err.Error()}
	}
	resp, err := json.Marshal(ts.srv.HandleMessage(ctx, req))
	if err != nil {
		return &rpcFailure{Message: err.Error()}
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcFailure     `json:"error"`
	}
	if err := json.Unmarshal(resp, &answer); err != nil {
		return &rpcFailure{Message: err.Error()}
	}
	if answer.Error != nil {
		answer.Error.Message = rpcMessage(answer.Error.Message) // as /mcp says it
		return answer.Error
	}
	if err := json.Unmarshal(answer.Result, out); err != nil {
		return &rpcFailure{Message: err.Error()}
	}
	return nil
}

// rpcFailure is a JSON-RPC error answer: its message is what a client of
// /mcp reads.
type rpcFailure struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcFailure) Error() string { return e.Message }
