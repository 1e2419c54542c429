// Package llm is the voice grammar's fallback to a language model: a
// command the grammar cannot read goes to an OpenAI-compatible chat
// model with the hub's own tools (those of MCP, called in process), the
// tools it calls run in order and their results go back to it, and its
// last message is what is said. It is a voice.Fallback.
//
// A model that fails (no answer in time, a refused key, a server error,
// an answer that is not JSON) is logged and passed over: the next
// fallback is tried, or the command is said not to be understood. The
// caller never sees the model's failure as its own.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/wording"
)

// Defaults of Config.
const (
	DefaultRounds  = 4                // requests to the model for one command
	DefaultTimeout = 20 * time.Second // for the whole command
)

// Tools is the hub's tool set as the model may use it: those the caller
// (the principal in ctx) may see, each called with its arguments as
// JSON. A tool's problem is its text with isError, never a Go error: the
// model reads it and may do better.
type Tools interface {
	List(ctx context.Context) ([]models.Tool, error)
	Call(ctx context.Context, name string, args json.RawMessage) (text string, isError bool)
}

// Config configures a Fallback.
type Config struct {
	// Endpoint is the chat model to ask, read at every command so that a
	// change of settings applies at once; one not Set turns the fallback
	// off.
	Endpoint func() models.Endpoint
	Tools    Tools
	Logger   *slog.Logger
	// Rounds bounds the requests to the model for one command
	// (DefaultRounds when 0); Timeout bounds the whole command
	// (DefaultTimeout when 0).
	Rounds  int
	Timeout time.Duration
}

// Fallback understands with a language model what the grammar could not.
type Fallback struct {
	cfg Config
	log *slog.Logger
}

var _ voice.Fallback = (*Fallback)(nil)

// New is a fallback to the model cfg.Endpoint gives.
func New(cfg Config) *Fallback {
	if cfg.Rounds <= 0 {
		cfg.Rounds = DefaultRounds
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Fallback{cfg: cfg, log: log}
}

// Understand has the model carry out text, said in room. handled is
// false when no model is set, when the model fails before any tool ran,
// and when it has nothing to say; err is always nil, so the next
// fallback is tried.
func (f *Fallback) Understand(ctx context.Context, text, room string) (voice.Answer, bool, error) {
	var e models.Endpoint
	if f.cfg.Endpoint != nil {
		e = f.cfg.Endpoint()
	}
	if !e.Set() || f.cfg.Tools == nil {
		return voice.Answer{}, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	tools, err := f.cfg.Tools.List(ctx)
	if err != nil {
		f.log.Error("the hub's tools cannot be listed for the language model", "err", err)
		return voice.Answer{}, false, nil
	}
	c := &conversation{f: f, endpoint: e, tools: tools, messages: []models.Message{
		{Role: models.RoleSystem, Content: systemPrompt(room)},
		{Role: models.RoleUser, Content: text},
	}}
	return c.run(ctx)
}

// systemPrompt tells the model what it is for, and where it was asked.
func systemPrompt(room string) string {
	where := "It is not known in which room the command was said."
	if r := strings.Join(strings.Fields(room), " "); r != "" {
		where = fmt.Sprintf("The command was said in the room %q.", wording.Clip(r))
	}
	return "You run a home with the tools given: its lights, rooms, scenes, players, switches and sensors. " +
		"Carry out the command, or answer the question, by calling the tools; a tool's error says what to do instead. " +
		where + " Then answer in one short plain sentence."
}

// conversation is one command's exchange with the model.
type conversation struct {
	f        *Fallback
	endpoint models.Endpoint
	tools    []models.Tool
	messages []models.Message
	clauses  []voice.Clause // one per tool call, in order
	failed   bool           // a tool call failed
}

// run asks the model until it answers without calling a tool, for at
// most the rounds allowed. The tool calls of the last round allowed are
// not run: their results could not go back.
func (c *conversation) run(ctx context.Context) (voice.Answer, bool, error) {
	rounds := c.f.cfg.Rounds
	for round := 1; round <= rounds; round++ {
		m, err := models.Chat(ctx, c.endpoint, c.messages, c.tools)
		if err != nil {
			c.f.log.Warn("the language model failed", "round", round, "err", err)
			return c.unfinished("The language model stopped answering.")
		}
		if len(m.ToolCalls) == 0 {
			return c.finish(m.Content)
		}
		if round == rounds {
			break
		}
		c.messages = append(c.messages, m)
		for _, call := range m.ToolCalls {
			c.call(ctx, call)
		}
	}
	c.f.log.Warn("the language model was still calling tools after the last round", "rounds", rounds)
	return c.unfinished(fmt.Sprintf("I stopped after %d rounds of tool calls.", rounds))
}

// call runs one tool call and gives its result back to the model.
func (c *conversation) call(ctx context.Context, call models.ToolCall) {
	text, isError := c.f.cfg.Tools.Call(ctx, call.Name, json.RawMessage(call.Arguments))
	c.clauses = append(c.clauses, voice.Clause{Heard: heard(call), OK: !isError, Said: text})
	c.failed = c.failed || isError
	c.messages = append(c.messages, models.Message{Role: models.RoleTool, ToolCallID: call.ID, Content: text})
}

// finish is the answer when the model has answered: its message, OK when
// there is one and no tool call failed. A model that says nothing and
// did nothing did not understand.
func (c *conversation) finish(content string) (voice.Answer, bool, error) {
	said := strings.TrimSpace(content)
	if said == "" && len(c.clauses) == 0 {
		return voice.Answer{}, false, nil
	}
	a := voice.Answer{OK: said != "" && !c.failed, Said: said, Clauses: c.clauses}
	if said == "" {
		a.Said = c.toolsSaid()
	}
	if a.Clauses == nil {
		a.Clauses = []voice.Clause{}
	}
	return a, true, nil
}

// unfinished is the answer when the model stopped before its last word:
// when no tool ran, nothing happened and the command passes on; else the
// tools' texts are what happened, and why it stopped.
func (c *conversation) unfinished(why string) (voice.Answer, bool, error) {
	if len(c.clauses) == 0 {
		return voice.Answer{}, false, nil
	}
	said := strings.TrimSpace(c.toolsSaid() + " " + why)
	return voice.Answer{OK: false, Said: said, Clauses: c.clauses}, true, nil
}

// toolsSaid is what the tools said, one after the other.
func (c *conversation) toolsSaid() string {
	parts := make([]string, 0, len(c.clauses))
	for _, cl := range c.clauses {
		if s := strings.TrimSpace(cl.Said); s != "" {
			parts = append(parts, endSentence(wording.Sentence(s)))
		}
	}
	return strings.Join(parts, " ")
}

// endSentence is s ending as a sentence does.
func endSentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// heard says a tool call in words: "set light: light "Key Light",
// brightness 40", its arguments in the order the model gave them.
func heard(call models.ToolCall) string {
	name := strings.ReplaceAll(call.Name, "_", " ")
	args := strings.TrimSpace(call.Arguments)
	if args == "" || args == "{}" || args == "null" {
		return wording.Clip(name)
	}
	said, ok := argsInWords(args)
	if !ok {
		said = args
	}
	return wording.Clip(name + ": " + said)
}

// argsInWords says a JSON object's members as "key value, …" in their
// order; ok is false when args is not one.
func argsInWords(args string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	var parts []string
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		parts = append(parts, key+" "+valueInWords(v))
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	return strings.Join(parts, ", "), true
}

// valueInWords is a string quoted, anything else as compact JSON.
func valueInWords(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return fmt.Sprintf("%q", s)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
