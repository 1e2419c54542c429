package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/llm/llmtest"
)

// sayTo posts a command to the hub's voice seam with key.
func sayTo(t *testing.T, h *inProcessHub, key, text string) voice.Answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"text": text, "context": map[string]string{"room": "Office"}})
	req, err := http.NewRequest(http.MethodPost, h.URL("/api/voice/command"), strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var a voice.Answer
	if res.StatusCode != http.StatusOK || json.Unmarshal(b, &a) != nil {
		t.Fatalf("%q: %d %s", text, res.StatusCode, b)
	}
	return a
}

// The hub's voice seam hands what its grammar cannot read to the language
// model set by its options, then to Home Assistant's Assist.
func TestVoiceFallbacks(t *testing.T) {
	model := llmtest.New()
	defer model.Close()
	ha := hasstest.New(haToken)
	defer ha.Close()
	ha.SetStates(kitchen)
	ha.HandleConversation(func(text, _ string) hasstest.Assist {
		if text == "lock the front door" {
			return hasstest.Assist{Type: "action_done", Speech: "Locked the front door"}
		}
		return hasstest.NoIntentMatch
	})
	model.Handle(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.Last().Role == "tool":
			return llmtest.Reply{Content: "Brighter now."}
		case r.Last().Text() == "it is far too dark":
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "set_light", Arguments: `{"light":"Key Light","brightness":90}`}}}
		case r.Last().Text() == "what does the fox say":
			return llmtest.Reply{Status: http.StatusInternalServerError}
		}
		return llmtest.Reply{Content: ""} // nothing to say: not its to handle
	})

	e := model.Endpoint()
	h := &inProcessHub{log: newLineLog()}
	h.Main = NewMain(CLI{Stdout: io.Discard, Stderr: h.log})
	c := &h.Config
	c.Voice.LLM = ModelConfig{URL: e.Base, Model: e.Model, Key: e.Key} // as BIFROST_LLM_URL, _MODEL and _KEY give it
	c.Addr, c.DataDir, c.Demo = "127.0.0.1:0", t.TempDir(), true
	c.Media.SonosEventAddr, c.Neewer.BLE = "127.0.0.1:0", "off"
	c.HASS.URL, c.HASS.Token = ha.URL(), haToken
	h.Logger = slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if err := h.Run(t.Context()); err != nil {
		h.Close()
		t.Fatalf("start: %v\n%s", err, h.log)
	}
	t.Cleanup(h.stop)
	waitFor(t, "the Home Assistant bridge to connect", func() bool {
		ad := h.hassAdapter()
		if ad == nil {
			return false
		}
		up, _ := ad.Status()
		return up
	})
	sys := service.WithPrincipal(context.Background(), service.System)
	control, err := h.keys.CreateKey(sys, "satellite", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	read, err := h.keys.CreateKey(sys, "tablet", service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}

	// The model, first: its tool call changes the demo home.
	if a := sayTo(t, h, control.Key, "it is far too dark"); !a.OK || a.Said != "Brighter now." || len(a.Clauses) != 1 {
		t.Fatalf("the model's answer: %+v", a)
	}
	if l, err := h.service.GetLight(sys, "Key Light"); err != nil || !l.State.On || l.State.Brightness != 90 {
		t.Fatalf("the Key Light: %+v %v", l.State, err)
	}
	if len(ha.Conversations()) != 0 {
		t.Error("a command the model took went to Assist as well")
	}

	// What the model passes on (nothing to say, or a failure) goes to Assist.
	for _, text := range []string{"lock the front door", "what does the fox say"} {
		a := sayTo(t, h, control.Key, text)
		want := voice.Answer{OK: true, Said: "Locked the front door"}
		if text != "lock the front door" {
			want = voice.Answer{Said: `I didn't understand "what does the fox say".`}
		}
		if a.OK != want.OK || a.Said != want.Said {
			t.Errorf("%q: %+v; want %+v", text, a, want)
		}
	}
	if n := len(ha.Conversations()); n != 2 {
		t.Errorf("Assist heard %d sentences; want 2", n)
	}

	// A read key's command never reaches Assist, which acts with the
	// bridge's token.
	if a := sayTo(t, h, read.Key, "lock the front door"); a.OK || !strings.Contains(a.Said, "didn't understand") {
		t.Errorf("a read key's command: %+v", a)
	}
	if n := len(ha.Conversations()); n != 2 {
		t.Errorf("a read key's command went to Assist")
	}
	if strings.Contains(h.log.String(), e.Key) {
		t.Error("the log holds the model's key")
	}
}
