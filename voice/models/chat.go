package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/bifrost-hub/bifrost/wording"
)

// MaxChatAnswer bounds the body of a chat answer, in bytes: a longer one
// is refused as ErrChatAnswer rather than read on.
const MaxChatAnswer = 1 << 20

// The roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a chat: what the system, the user or a tool
// said, or what the assistant answered (text, tool calls, or both).
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the tools an assistant's message asks to run, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a tool's message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is one call of a tool the model asks for. Arguments is the
// JSON object of its arguments, as the model wrote it (perhaps not JSON
// at all).
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Tool is a tool the model may call: its name, what it does, and the JSON
// Schema of its arguments (an object).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// The ways a chat call fails; a *ChatError is one of them.
var (
	ErrChatTimeout      = errors.New("the language model did not answer in time")
	ErrChatUnreachable  = errors.New("the language model cannot be reached")
	ErrChatUnauthorized = errors.New("the language model refused the key")
	ErrChatServer       = errors.New("the language model's server failed")
	ErrChatRefused      = errors.New("the language model refused the request")
	ErrChatAnswer       = errors.New("the language model's answer cannot be read")
)

// ChatError is a chat call that failed: Kind is one of the ErrChat
// errors, Status the HTTP status (0 when none came), Said what the
// endpoint said of it (clipped), Err the cause.
type ChatError struct {
	Kind   error
	Status int
	Said   string
	Err    error
}

func (e *ChatError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Said != "" {
		b.WriteString(": " + e.Said)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *ChatError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Chat asks the endpoint's model for the next message of a chat (POST
// {base}/chat/completions, not streamed), offering it tools. The answer
// is the assistant's message: its text, its tool calls, or both. A call
// not bounded by ctx is bounded by DefaultTimeout.
func Chat(ctx context.Context, e Endpoint, messages []Message, tools []Tool) (Message, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	body, err := json.Marshal(chatRequest{Model: e.Model, Messages: wireMessages(messages), Tools: wireTools(tools)})
	if err != nil {
		return Message{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url("/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return Message{}, &ChatError{Kind: ErrChatUnreachable, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	e.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Message{}, transportError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxChatAnswer+1))
	if err != nil {
		return Message{}, transportError(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		return Message{}, statusError(resp.StatusCode, raw)
	}
	if len(raw) > MaxChatAnswer {
		return Message{}, &ChatError{Kind: ErrChatAnswer, Status: resp.StatusCode, Said: fmt.Sprintf("the answer is over %d bytes", MaxChatAnswer)}
	}
	return readAnswer(raw)
}

// transportError says why no answer came: the deadline, the caller
// giving up, or the network.
func transportError(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL, which the log has no need of
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &ChatError{Kind: ErrChatTimeout, Err: context.DeadlineExceeded}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &ChatError{Kind: ErrChatUnreachable, Err: err}
}

// statusError is the error of an answer with a status other than 2xx,
// with what the endpoint said of it.
func statusError(status int, body []byte) error {
	kind := ErrChatRefused
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind = ErrChatUnauthorized
	case status >= 500:
		kind = ErrChatServer
	}
	return &ChatError{Kind: kind, Status: status, Said: errorSaid(body)}
}

// errorSaid is the message of an error body: OpenAI's {"error":
// {"message"}}, Ollama's {"error": "…"}, or the text itself, clipped.
func errorSaid(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil:
			return wording.Clip(s)
		case json.Unmarshal(v.Error, &o) == nil && o.Message != "":
			return wording.Clip(o.Message)
		}
	}
	return wording.Clip(strings.TrimSpace(string(body)))
}

// readAnswer reads the first choice's message of a chat answer.
func readAnswer(raw []byte) (Message, error) {
	var a chatAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return Message{}, &ChatError{Kind: ErrChatAnswer, Status: http.StatusOK, Err: err}
	}
	if len(a.Choices) == 0 {
		return Message{}, &ChatError{Kind: ErrChatAnswer, Status: http.StatusOK, Said: "the answer has no choices"}
	}
	m := a.Choices[0].Message
	out := Message{Role: RoleAssistant, Content: m.Content}
	for i, c := range m.ToolCalls {
		if c.Function.Name == "" {
			return Message{}, &ChatError{Kind: ErrChatAnswer, Status: http.StatusOK, Said: "a tool call names no tool"}
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i+1) // some servers give none; the results still need one
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.arguments()})
	}
	return out, nil
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools,omitempty"`
	Stream   bool          `json:"stream"`
}

// wireMessage is a message as the chat API spells it.
type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

// wireFunction is a called function. OpenAI sends its arguments as a
// string of JSON; some servers send the object itself, which is taken
// too.
type wireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (f wireFunction) arguments() string {
	var s string
	if json.Unmarshal(f.Arguments, &s) == nil {
		return s
	}
	if string(f.Arguments) == "null" {
		return ""
	}
	return string(f.Arguments)
}

// wireTool is a tool in OpenAI's function-tool form.
type wireTool struct {
	Type     string         `json:"type"`
	Function wireToolSchema `json:"function"`
}

type wireToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type chatAnswer struct {
	Choices []struct {
		Message wireMessage `json:"message"`
	} `json:"choices"`
}

func wireMessages(ms []Message) []wireMessage {
	out := make([]wireMessage, len(ms))
	for i, m := range ms {
		out[i] = wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			args, _ := json.Marshal(c.Arguments)
			out[i].ToolCalls = append(out[i].ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: args}})
		}
	}
	return out
}

func wireTools(ts []Tool) []wireTool {
	out := make([]wireTool, len(ts))
	for i, t := range ts {
		out[i] = wireTool{Type: "function", Function: wireToolSchema{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
	}
	return out
}
