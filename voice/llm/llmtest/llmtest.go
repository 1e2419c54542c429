// Package llmtest is a fake language model for tests: an httptest server
// speaking the OpenAI chat API (POST /v1/chat/completions, not streamed,
// function tools) that checks the key, records every request, and answers
// what the test scripts: text, tool calls, an HTTP failure, a body that
// is not JSON, or nothing at all until the client gives up.
//
// It deliberately shares no wire types with package models: it speaks
// JSON.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/bifrost-hub/bifrost/voice/models"
)

// Model and Key are what the fake expects; Endpoint gives them.
const (
	Model = "fake-model"
	Key   = "sk-fake-llm"
)

// Request is a chat request as the fake received it.
type Request struct {
	Authorization string
	Model         string
	Stream        *bool // nil when the request did not say
	Messages      []Message
	Tools         []Tool
}

// Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	ToolCallID string     `json:"tool_call_id"`
}

// Text is the message's content ("" when null).
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is a tool call, as a request repeats it or a Reply makes it.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // the JSON of the arguments, as the model writes it
}

// Tool is a tool a request offers.
type Tool struct {
	Type        string
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Last is the request's last message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolNames are the names of the tools offered.
func (r Request) ToolNames() []string {
	out := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		out[i] = t.Name
	}
	return out
}

// Reply is what the fake answers a request.
type Reply struct {
	Content   string     // the assistant's text
	ToolCalls []ToolCall // the tools it calls
	// Status, when not 0 or 200, answers with that status and Body (an
	// OpenAI error object when Body is empty).
	Status int
	// Body, when set, is sent as it is instead of an answer built from
	// Content and ToolCalls (garbage).
	Body string
	// Hang answers nothing: the request is held until the client goes
	// away (or the fake closes).
	Hang bool
}

// Server is the fake.
type Server struct {
	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu       sync.Mutex
	requests []Request
	handle   func(Request) Reply
}

// New starts a fake that answers "OK." until it is given a script.
func New() *Server {
	s := &Server{closing: make(chan struct{}), handle: func(Request) Reply { return Reply{Content: "OK."} }}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serve)
	s.srv = httptest.NewServer(mux)
	return s
}

// Endpoint is the fake's endpoint, with its model and key.
func (s *Server) Endpoint() models.Endpoint {
	return models.Endpoint{Base: s.srv.URL + "/v1", Model: Model, Key: Key}
}

// Close releases held requests and stops the server.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closing) })
	s.srv.Close()
}

// Handle makes fn answer every request from now on.
func (s *Server) Handle(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = fn
}

// Script answers the requests from now on with replies, in order, and
// every one after them with the last.
func (s *Server) Script(replies ...Reply) {
	n := 0
	var mu sync.Mutex
	s.Handle(func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		r := replies[min(n, len(replies)-1)]
		n++
		return r
	})
}

// Requests are the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Key {
		writeJSON(w, http.StatusUnauthorized, openAIError("Incorrect API key provided."))
		return
	}
	req, err := decode(body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, openAIError("We could not parse the JSON body of your request: "+err.Error()))
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	handle := s.handle
	s.mu.Unlock()
	reply := handle(req)
	switch {
	case reply.Hang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	case reply.Status != 0 && reply.Status != http.StatusOK && reply.Body == "":
		writeJSON(w, reply.Status, openAIError(http.StatusText(reply.Status)))
	case reply.Body != "":
		w.WriteHeader(max(reply.Status, http.StatusOK))
		_, _ = io.WriteString(w, reply.Body)
	default:
		writeJSON(w, http.StatusOK, completion(reply))
	}
}

// decode reads a request body as the chat API defines it.
func decode(body []byte) (Request, error) {
	var raw struct {
		Model    string    `json:"model"`
		Stream   *bool     `json:"stream"`
		Messages []Message `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, err
	}
	req := Request{Model: raw.Model, Stream: raw.Stream, Messages: raw.Messages}
	for _, t := range raw.Tools {
		req.Tools = append(req.Tools, Tool{Type: t.Type, Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return req, nil
}

// UnmarshalJSON reads a tool call in the chat API's form.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var v struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = ToolCall{ID: v.ID, Name: v.Function.Name, Arguments: v.Function.Arguments}
	return nil
}

// completion is a chat completion answering with reply.
func completion(reply Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": reply.Content}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		calls := make([]map[string]any, len(reply.ToolCalls))
		for i, c := range reply.ToolCalls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i+1)
			}
			calls[i] = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["tool_calls"], finish = calls, "tool_calls"
		if reply.Content == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
	}
}

func openAIError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
