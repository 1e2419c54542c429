package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/llm"
	"github.com/bifrost-hub/bifrost/voice/llm/llmtest"
)

// A sentence the grammar cannot read goes to the language model, whose
// tool calls change the house; a model that fails is "I didn't
// understand", never a failure of the hub.
func TestVoiceCommandFallsBackToTheLanguageModel(t *testing.T) {
	house, home := apitest.NewSimHouse(t)
	model := llmtest.New()
	defer model.Close()
	cfg := house.Config()
	cfg.Tools = mcp.NewTools(mcp.ToolsConfig{Service: house.Service, History: house.History})
	cfg.Voice = voice.New(house.Service, llm.New(llm.Config{Endpoint: model.Endpoint, Tools: cfg.Tools}))
	a := api.New(cfg)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() { a.CloseStreams(); srv.Close() })
	ctx := service.WithPrincipal(context.Background(), service.System)
	k, err := house.Keys.CreateKey(ctx, "satellite", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	h := &apitest.Hub{URL: srv.URL, Key: k.Key, House: house}

	model.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.Last().Role == "tool" {
			return llmtest.Reply{Content: "Brighter now."}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "set_light", Arguments: `{"light":"Key Light","brightness":85}`}}}
	})
	code, b := voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"my face is too dark on camera","context":{"room":"Office"}}`)
	var ans voice.Answer
	if code != http.StatusOK || json.Unmarshal(b, &ans) != nil || !ans.OK || ans.Said != "Brighter now." ||
		len(ans.Clauses) != 1 || ans.Clauses[0].Heard != `set light: light "Key Light", brightness 85` {
		t.Fatalf("command: %d %s", code, b)
	}
	if st := home.Light("sim:key-light").State(); !st.On || st.Brightness != 85 {
		t.Fatalf("the Key Light is %+v", st)
	}
	if sys := model.Requests()[0].Messages[0].Text(); !strings.Contains(sys, `"Office"`) {
		t.Errorf("the model was not told the room: %q", sys)
	}

	// What the grammar reads never reaches the model.
	n := len(model.Requests())
	if code, b := voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"turn off the key light"}`); code != http.StatusOK || !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("a command the grammar reads: %d %s", code, b)
	}
	if len(model.Requests()) != n {
		t.Error("a command the grammar reads went to the model")
	}

	// A model that fails: not understood, 200.
	model.Script(llmtest.Reply{Status: http.StatusInternalServerError})
	code, b = voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"my face is too dark on camera"}`)
	if code != http.StatusOK || !strings.Contains(string(b), `"ok":false`) || !strings.Contains(string(b), "I didn't understand") {
		t.Fatalf("a failing model: %d %s", code, b)
	}
}
