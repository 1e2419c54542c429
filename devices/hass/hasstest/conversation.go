package hasstest

import (
	"encoding/json"
	"strings"
)

// Assist is what the fake's Assist answers a sentence with: a
// response_type ("action_done", "query_answer" or "error"), the speech,
// for an error its data.code ("no_intent_match", "no_valid_targets",
// "failed_to_handle", "unknown"), and the names of the entities an action
// failed on.
type Assist struct {
	Type   string
	Speech string
	Code   string
	Failed []string
}

// NoIntentMatch is what Assist answers a sentence it has no intent for.
var NoIntentMatch = Assist{Type: "error", Code: "no_intent_match", Speech: "Sorry, I couldn't understand that"}

// HandleConversation makes fn answer every conversation/process from now
// on, given its text and language ("" when the message has none); fn
// may change states (SetState) as an intent would. Until it is called,
// every sentence is NoIntentMatch.
func (s *Server) HandleConversation(fn func(text, language string) Assist) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.assist = fn
}

// Conversations returns every conversation/process message received,
// verbatim.
func (s *Server) Conversations() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.conversations...)
}

// converse answers conversation/process as HA does: the intent
// response, the conversation's id, and whether it expects more.
func (s *Server) converse(p *peer, id int, m map[string]any, raw []byte) {
	text, ok := m["text"].(string)
	if !ok {
		p.fail(id, "invalid_format", "required key not provided @ data['text']. Got None")
		return
	}
	language, _ := m["language"].(string)
	s.mu.Lock()
	s.conversations = append(s.conversations, append(json.RawMessage(nil), raw...))
	fn := s.assist
	s.mu.Unlock()
	a := NoIntentMatch
	if fn != nil {
		a = fn(text, language)
	}
	if language == "" {
		language = "en"
	}
	failed := []any{}
	for _, name := range a.Failed {
		failed = append(failed, map[string]any{"type": "entity", "name": name, "id": ""})
	}
	data := map[string]any{"targets": []any{}, "success": []any{}, "failed": failed}
	if a.Type == "error" {
		data = map[string]any{"code": a.Code}
	}
	p.ok(id, map[string]any{
		"response": map[string]any{
			"response_type": a.Type,
			"language":      language,
			"data":          data,
			"speech":        map[string]any{"plain": map[string]any{"speech": a.Speech, "extra_data": nil}},
		},
		"conversation_id":       "01FAKE" + strings.Repeat("0", 20),
		"continue_conversation": false,
	})
}
