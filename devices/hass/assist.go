package hass

import (
	"context"
	"encoding/json"
	"fmt"
)

// The response types of Assist's answer.
const (
	AssistActionDone  = "action_done"  // it did something
	AssistQueryAnswer = "query_answer" // it answered a question
	AssistError       = "error"        // it could not; Code says why
)

// AssistNoIntentMatch is the error code of a sentence Assist has no
// intent for.
const AssistNoIntentMatch = "no_intent_match"

// Conversation is Assist's answer to a sentence (conversation/process):
// its response type, what it says (plain speech), for an error its code
// (no_intent_match, no_valid_targets, failed_to_handle, unknown), and
// the names of the targets an action failed on.
type Conversation struct {
	Type           string
	Speech         string
	Code           string
	Failed         []string
	ConversationID string
}

// Matched reports whether Assist found an intent for the sentence: every
// answer but the no_intent_match error.
func (c Conversation) Matched() bool {
	return !(c.Type == AssistError && c.Code == AssistNoIntentMatch)
}

// OK reports whether Assist did all that was asked, or answered it.
func (c Conversation) OK() bool { return c.Type != AssistError && len(c.Failed) == 0 }

// Converse hands text to Assist, Home Assistant's conversation agent, as
// its voice pipeline does (conversation/process), in language ("" for
// HA's own). A sentence Assist has no intent for is an answer, not an
// error: see Matched.
func (c *Client) Converse(ctx context.Context, text, language string) (Conversation, error) {
	msg := map[string]any{"type": "conversation/process", "text": text}
	if language != "" {
		msg["language"] = language
	}
	raw, err := c.Command(ctx, msg)
	if err != nil {
		return Conversation{}, err
	}
	var v struct {
		Response struct {
			ResponseType string `json:"response_type"`
			Data         struct {
				Code   string `json:"code"`
				Failed []struct {
					Name string `json:"name"`
				} `json:"failed"`
			} `json:"data"`
			Speech struct {
				Plain struct {
					Speech string `json:"speech"`
				} `json:"plain"`
			} `json:"speech"`
		} `json:"response"`
		ConversationID string `json:"conversation_id"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Conversation{}, fmt.Errorf("conversation/process: decode result: %w", err)
	}
	if v.Response.ResponseType == "" {
		return Conversation{}, fmt.Errorf("conversation/process: the result has no response_type")
	}
	r := v.Response
	out := Conversation{Type: r.ResponseType, Speech: r.Speech.Plain.Speech, Code: r.Data.Code, ConversationID: v.ConversationID}
	for _, f := range r.Data.Failed {
		out.Failed = append(out.Failed, f.Name)
	}
	return out, nil
}

// Converse hands text to Assist over the bridge's connection; while the
// bridge is not connected it is ErrNotConnected.
func (a *Adapter) Converse(ctx context.Context, text, language string) (Conversation, error) {
	if !a.isConnected() {
		return Conversation{}, ErrNotConnected
	}
	return a.client.Converse(ctx, text, language)
}
