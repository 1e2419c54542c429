package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/voice/llm"
	"github.com/bifrost-hub/bifrost/voice/llm/llmtest"
)

// The language model fallback runs the house with the hub's own tools.
func TestTheLanguageModelRunsTheHouseWithTheHubsTools(t *testing.T) {
	h := newHub(t)
	model := llmtest.New()
	defer model.Close()
	fb := llm.New(llm.Config{Endpoint: model.Endpoint, Tools: h.tools})

	// It calls set_light with a made-up tool and a bad argument first:
	// each error goes back as that call's result, in the tool's words.
	model.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "a", Name: "switch_on_everything", Arguments: `{}`},
			{ID: "b", Name: "set_light", Arguments: `{"light":"Key Light","brightness":"high"}`},
		}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "set_light", Arguments: `{"light":"Key Light","brightness":70}`}}},
		llmtest.Reply{Content: "The Key Light is at 70 %."},
	)
	a, handled, err := fb.Understand(asControl, "I need more light on my face", "Office")
	if err != nil || !handled {
		t.Fatalf("handled %v, err %v", handled, err)
	}
	if st := h.home.Light("sim:key-light").State(); !st.On || st.Brightness != 70 {
		t.Fatalf("the Key Light is %+v", st)
	}
	if a.OK || a.Said != "The Key Light is at 70 %." || len(a.Clauses) != 3 || a.Clauses[0].OK || a.Clauses[1].OK || !a.Clauses[2].OK {
		t.Fatalf("answer %+v", a)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	names := reqs[0].ToolNames()
	for _, want := range []string{"get_home_state", "set_light", "set_room", "activate_scene", "undo"} {
		if !slices.Contains(names, want) {
			t.Errorf("the model is not offered %s: %v", want, names)
		}
	}
	if slices.Contains(names, "run_command") {
		t.Error("the model is offered run_command, which would come back to the grammar")
	}
	results := reqs[1].Messages[len(reqs[1].Messages)-2:]
	if results[0].ToolCallID != "a" || !strings.Contains(results[0].Text(), "There is no tool") ||
		results[1].ToolCallID != "b" || !strings.Contains(results[1].Text(), "Give brightness as a number") {
		t.Errorf("tool results %+v", results)
	}
}

// A read key's model is offered only the tools that read, and a write it
// asks for anyway changes nothing.
func TestAReadKeysLanguageModelCannotChangeTheHouse(t *testing.T) {
	h := newHub(t)
	model := llmtest.New()
	defer model.Close()
	fb := llm.New(llm.Config{Endpoint: model.Endpoint, Tools: h.tools})
	model.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{Name: "set_light", Arguments: `{"light":"Key Light","on":false}`},
			{Name: "set_room", Arguments: `{"room":"Office","on":false}`},
		}},
		llmtest.Reply{Content: "Done."},
	)
	before := h.home.Light("sim:key-light").State()
	cmds := h.commands(t, "sim:key-light")
	a, handled, err := fb.Understand(asReader, "it is too bright in here", "Office")
	if err != nil || !handled || a.OK || len(a.Clauses) != 2 || a.Clauses[0].OK || !strings.Contains(a.Clauses[0].Said, "read") {
		t.Fatalf("answer %+v, handled %v, err %v", a, handled, err)
	}
	if h.home.Light("sim:key-light").State() != before || h.commands(t, "sim:key-light") != cmds {
		t.Fatal("a read key's model reached the Key Light")
	}
	for _, name := range model.Requests()[0].ToolNames() {
		if name == "set_light" || name == "set_room" || name == "undo" {
			t.Errorf("a read key's model is offered %s", name)
		}
	}
}
