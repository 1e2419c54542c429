package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/llm"
	"github.com/bifrost-hub/bifrost/voice/llm/llmtest"
	"github.com/bifrost-hub/bifrost/voice/models"
)

// toolbox is a tool set that answers from a table and records the calls.
type toolbox struct {
	mu    sync.Mutex
	calls []string // "name args"
}

var offered = []models.Tool{
	{Name: "list_lights", Description: "List the lights.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	{Name: "set_light", Description: "Set a light.", Parameters: json.RawMessage(`{"type":"object","properties":{"light":{"type":"string"}},"required":["light"]}`)},
}

func (b *toolbox) List(context.Context) ([]models.Tool, error) { return offered, nil }

func (b *toolbox) Call(_ context.Context, name string, args json.RawMessage) (string, bool) {
	b.mu.Lock()
	b.calls = append(b.calls, name+" "+string(args))
	b.mu.Unlock()
	switch name {
	case "list_lights":
		return "Key Light: off", false
	case "set_light":
		return "Key Light: on", false
	}
	return "There is no tool '" + name + "'", true
}

func (b *toolbox) called() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

// fixture is a fallback to a fake model over the toolbox, logging into log.
type fixture struct {
	model *llmtest.Server
	tools *toolbox
	fb    *llm.Fallback
	log   *syncBuffer
}

func newFixture(t *testing.T, cfg llm.Config) *fixture {
	t.Helper()
	f := &fixture{model: llmtest.New(), tools: &toolbox{}, log: &syncBuffer{}}
	t.Cleanup(f.model.Close)
	if cfg.Endpoint == nil {
		cfg.Endpoint = f.model.Endpoint
	}
	cfg.Tools = f.tools
	cfg.Logger = slog.New(slog.NewTextHandler(f.log, nil))
	f.fb = llm.New(cfg)
	return f
}

func (f *fixture) understand(t *testing.T, text, room string) (voice.Answer, bool) {
	t.Helper()
	a, handled, err := f.fb.Understand(context.Background(), text, room)
	if err != nil {
		t.Fatalf("Understand returned an error: %v", err)
	}
	return a, handled
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestOffUntilAnEndpointIsSet(t *testing.T) {
	var endpoint models.Endpoint
	f := newFixture(t, llm.Config{Endpoint: func() models.Endpoint { return endpoint }})
	if _, handled := f.understand(t, "make it cosy", ""); handled || len(f.model.Requests()) != 0 {
		t.Fatalf("without an endpoint: handled %v, %d requests", handled, len(f.model.Requests()))
	}
	endpoint = f.model.Endpoint() // settings changed: the next command sees it
	f.model.Script(llmtest.Reply{Content: "Done."})
	if a, handled := f.understand(t, "make it cosy", ""); !handled || !a.OK || a.Said != "Done." {
		t.Fatalf("with an endpoint: %+v %v", a, handled)
	}
}

// The model calls two tools, gets their results, and answers.
func TestToolCallRounds(t *testing.T) {
	f := newFixture(t, llm.Config{})
	f.model.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "call_1", Name: "list_lights", Arguments: `{}`},
			{ID: "call_2", Name: "set_light", Arguments: `{"light": "Key Light", "on": true}`},
		}},
		llmtest.Reply{Content: "  The Key Light is on.\n"},
	)
	a, handled := f.understand(t, "I can't see a thing", "Office")
	if !handled || !a.OK || a.Said != "The Key Light is on." {
		t.Fatalf("answer %+v, handled %v", a, handled)
	}
	want := []voice.Clause{{Heard: "list lights", OK: true, Said: "Key Light: off"}, {Heard: `set light: light "Key Light", on true`, OK: true, Said: "Key Light: on"}}
	if !slices.Equal(a.Clauses, want) {
		t.Errorf("clauses %+v", a.Clauses)
	}
	if got := f.tools.called(); !slices.Equal(got, []string{"list_lights {}", `set_light {"light": "Key Light", "on": true}`}) {
		t.Errorf("calls %q", got)
	}

	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := reqs[0]
	if first.Model != llmtest.Model || first.Stream == nil || *first.Stream || first.Authorization != "Bearer "+llmtest.Key {
		t.Errorf("model %q, stream %v, Authorization %q", first.Model, first.Stream, first.Authorization)
	}
	if !slices.Equal(first.ToolNames(), []string{"list_lights", "set_light"}) || first.Tools[1].Type != "function" ||
		first.Tools[1].Description != "Set a light." || !strings.Contains(string(first.Tools[1].Parameters), `"required":["light"]`) {
		t.Errorf("tools %+v", first.Tools)
	}
	if len(first.Messages) != 2 || first.Messages[0].Role != "system" || !strings.Contains(first.Messages[0].Text(), `"Office"`) ||
		first.Messages[1].Role != "user" || first.Messages[1].Text() != "I can't see a thing" {
		t.Errorf("first messages %+v", first.Messages)
	}
	// The second request repeats the tool calls and gives each result.
	second := reqs[1].Messages
	if len(second) != 5 || second[2].Role != "assistant" || len(second[2].ToolCalls) != 2 || second[2].ToolCalls[1].Name != "set_light" {
		t.Fatalf("second messages %+v", second)
	}
	for i, id := range []string{"call_1", "call_2"} {
		m := second[3+i]
		if m.Role != "tool" || m.ToolCallID != id || m.Text() != want[i].Said {
			t.Errorf("tool result %d: %+v", i, m)
		}
	}
}

// A tool the model makes up is an error it reads as the tool's result;
// the command is not OK, though the model answers.
func TestAFailedToolCallIsSaidAndNotOK(t *testing.T) {
	f := newFixture(t, llm.Config{})
	f.model.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c9", Name: "open_pod_bay_doors", Arguments: `{"door":"all"}`}}},
		llmtest.Reply{Content: "I can't do that."},
	)
	a, handled := f.understand(t, "open the pod bay doors", "")
	if !handled || a.OK || a.Said != "I can't do that." || len(a.Clauses) != 1 || a.Clauses[0].OK ||
		a.Clauses[0].Said != "There is no tool 'open_pod_bay_doors'" {
		t.Fatalf("answer %+v, handled %v", a, handled)
	}
	reqs := f.model.Requests()
	if last := reqs[1].Last(); last.Role != "tool" || last.ToolCallID != "c9" || last.Text() != "There is no tool 'open_pod_bay_doors'" {
		t.Errorf("the error went back as %+v", last)
	}
	if !strings.Contains(reqs[0].Messages[0].Text(), "not known in which room") {
		t.Errorf("system prompt without a room: %q", reqs[0].Messages[0].Text())
	}
}

// A model that keeps calling tools is stopped after the rounds allowed;
// the calls of the last round are not run.
func TestTooManyRounds(t *testing.T) {
	f := newFixture(t, llm.Config{Rounds: 3})
	f.model.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "list_lights", Arguments: `{}`}}})
	a, handled := f.understand(t, "keep looking", "")
	if n := len(f.model.Requests()); n != 3 {
		t.Errorf("%d requests; want 3", n)
	}
	if n := len(f.tools.called()); n != 2 {
		t.Errorf("%d tool calls; want 2", n)
	}
	if !handled || a.OK || len(a.Clauses) != 2 || a.Said != "Key Light: off. Key Light: off. I stopped after 3 rounds of tool calls." {
		t.Fatalf("answer %+v, handled %v", a, handled)
	}
}

// A model that never answers is given up at the deadline, and the command
// passes on; the fake holds every request until the client goes away.
func TestDeadline(t *testing.T) {
	f := newFixture(t, llm.Config{Timeout: 100 * time.Millisecond})
	f.model.Script(llmtest.Reply{Hang: true})
	start := time.Now()
	if a, handled := f.understand(t, "make it cosy", ""); handled {
		t.Fatalf("a model that never answers handled it: %+v", a)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %s", d)
	}
	if !strings.Contains(f.log.String(), "did not answer in time") {
		t.Errorf("log:\n%s", f.log)
	}

	// After a tool ran, what it did is said.
	f.model.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "set_light", Arguments: `{"light":"Key Light","on":true}`}}}, llmtest.Reply{Hang: true})
	a, handled := f.understand(t, "make it cosy", "")
	if !handled || a.OK || a.Said != "Key Light: on. The language model stopped answering." || len(a.Clauses) != 1 {
		t.Fatalf("answer %+v, handled %v", a, handled)
	}
}

// A model that fails passes the command on, and the log says why.
func TestAFailingModelPassesOn(t *testing.T) {
	cases := []struct {
		name  string
		reply llmtest.Reply
		key   string
		log   string
	}{
		{"401", llmtest.Reply{Content: "unreachable"}, "sk-wrong", "refused the key"},
		{"500", llmtest.Reply{Status: 500}, "", "server failed"},
		{"garbage", llmtest.Reply{Body: `{"choices": [{"message": {"content": "half`}, "", "cannot be read"},
		{"silence", llmtest.Reply{Content: "   "}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f *fixture
			f = newFixture(t, llm.Config{Endpoint: func() models.Endpoint {
				e := f.model.Endpoint()
				if c.key != "" {
					e.Key = c.key
				}
				return e
			}})
			f.model.Script(c.reply)
			if a, handled := f.understand(t, "make it cosy", ""); handled {
				t.Fatalf("handled: %+v", a)
			}
			if !strings.Contains(f.log.String(), c.log) || strings.Contains(f.log.String(), "sk-") {
				t.Errorf("log:\n%s", f.log)
			}
		})
	}
}
