package hass

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

func TestConverse(t *testing.T) {
	srv := hasstest.New(token)
	defer srv.Close()
	srv.HandleConversation(func(text, language string) hasstest.Assist {
		switch text {
		case "turn on the porch light":
			return hasstest.Assist{Type: "action_done", Speech: "Turned on the light"}
		case "turn on the garden":
			return hasstest.Assist{Type: "action_done", Speech: "Turned on the lights", Failed: []string{"Garden Spot"}}
		case "what is the temperature in the attic":
			return hasstest.Assist{Type: "query_answer", Speech: "It is 31 degrees"}
		case "turn on the spaceship":
			return hasstest.Assist{Type: "error", Code: "no_valid_targets", Speech: "Sorry, I am not aware of any device called spaceship"}
		}
		return hasstest.NoIntentMatch
	})
	h := start(t, srv, token, nil)
	<-h.connected
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	for _, c := range []struct {
		text, language    string
		typ, speech, code string
		matched, ok       bool
		failed            []string
	}{
		{"turn on the porch light", "en", AssistActionDone, "Turned on the light", "", true, true, nil},
		{"turn on the garden", "", AssistActionDone, "Turned on the lights", "", true, false, []string{"Garden Spot"}},
		{"what is the temperature in the attic", "", AssistQueryAnswer, "It is 31 degrees", "", true, true, nil},
		{"turn on the spaceship", "", AssistError, "Sorry, I am not aware of any device called spaceship", "no_valid_targets", true, false, nil},
		{"make me a sandwich", "", AssistError, "Sorry, I couldn't understand that", AssistNoIntentMatch, false, false, nil},
	} {
		got, err := h.c.Converse(ctx, c.text, c.language)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got.Type != c.typ || got.Speech != c.speech || got.Code != c.code || got.Matched() != c.matched || got.OK() != c.ok ||
			!slices.Equal(got.Failed, c.failed) || got.ConversationID == "" {
			t.Errorf("%q: %+v (matched %v, ok %v)", c.text, got, got.Matched(), got.OK())
		}
	}
	sent := srv.Conversations()
	var first, second map[string]any
	if len(sent) != 5 || json.Unmarshal(sent[0], &first) != nil || json.Unmarshal(sent[1], &second) != nil {
		t.Fatalf("sent %s", sent)
	}
	if first["type"] != "conversation/process" || first["text"] != "turn on the porch light" || first["language"] != "en" {
		t.Errorf("first message %v", first)
	}
	if _, ok := second["language"]; ok {
		t.Errorf("a message without a language says one: %v", second)
	}
}

func TestConverseNotConnected(t *testing.T) {
	srv := hasstest.New(token)
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Converse(context.Background(), "hello", ""); !errors.Is(err, ErrNotConnected) {
		t.Errorf("not connected: %v", err)
	}
}
