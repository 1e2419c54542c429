package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/models"
)

// chatServer answers POST /v1/chat/completions with handle; it hands the
// request it got (decoded) to seen.
func chatServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) models.Endpoint {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return models.Endpoint{Base: srv.URL + "/v1/", Model: "tiny-model", Key: "sk-chat-test"}
}

var lightTool = models.Tool{Name: "set_light", Description: "Set a light.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}

func TestChatRequestAndToolCalls(t *testing.T) {
	var got map[string]any
	var auth, contentType string
	e := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		auth, contentType = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Errorf("the request is not JSON: %v", err)
		}
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
			"message":{"role":"assistant","content":null,"tool_calls":[
				{"id":"call_a","type":"function","function":{"name":"set_light","arguments":"{\"name\":\"Key Light\",\"on\":true}"}},
				{"type":"function","function":{"name":"get_home_state","arguments":{"room":"Office"}}}]}}]}`)
	})
	msgs := []models.Message{
		{Role: models.RoleSystem, Content: "You run a home."},
		{Role: models.RoleUser, Content: "key light on"},
		{Role: models.RoleAssistant, ToolCalls: []models.ToolCall{{ID: "call_0", Name: "list_lights", Arguments: "{}"}}},
		{Role: models.RoleTool, ToolCallID: "call_0", Content: "Key Light: off"},
	}
	m, err := models.Chat(context.Background(), e, msgs, []models.Tool{lightTool})
	if err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer sk-chat-test" || contentType != "application/json" {
		t.Errorf("Authorization %q, Content-Type %q", auth, contentType)
	}
	if got["model"] != "tiny-model" || got["stream"] != false {
		t.Errorf("model %v, stream %v", got["model"], got["stream"])
	}
	sent, _ := json.Marshal(got["messages"])
	want := `[{"content":"You run a home.","role":"system"},{"content":"key light on","role":"user"},` +
		`{"content":"","role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"list_lights"},"id":"call_0","type":"function"}]},` +
		`{"content":"Key Light: off","role":"tool","tool_call_id":"call_0"}]`
	if string(sent) != want {
		t.Errorf("messages\n got %s\nwant %s", sent, want)
	}
	tools, _ := json.Marshal(got["tools"])
	if string(tools) != `[{"function":{"description":"Set a light.","name":"set_light","parameters":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}},"type":"function"}]` {
		t.Errorf("tools %s", tools)
	}
	if m.Role != models.RoleAssistant || m.Content != "" || len(m.ToolCalls) != 2 {
		t.Fatalf("answer %+v", m)
	}
	if c := m.ToolCalls[0]; c.ID != "call_a" || c.Name != "set_light" || c.Arguments != `{"name":"Key Light","on":true}` {
		t.Errorf("first call %+v", c)
	}
	// A call without an id gets one; arguments sent as an object are taken.
	if c := m.ToolCalls[1]; c.ID == "" || c.Name != "get_home_state" || c.Arguments != `{"room":"Office"}` {
		t.Errorf("second call %+v", c)
	}
}

func TestChatText(t *testing.T) {
	e := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("an endpoint without a key got Authorization %q", r.Header.Get("Authorization"))
		}
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		if _, ok := req["tools"]; ok {
			t.Error("tools sent when there are none")
		}
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"It is 21 degrees."}}]}`)
	})
	e.Key = ""
	m, err := models.Chat(context.Background(), e, []models.Message{{Role: models.RoleUser, Content: "how warm is it"}}, nil)
	if err != nil || m.Content != "It is 21 degrees." || len(m.ToolCalls) != 0 {
		t.Fatalf("%+v %v", m, err)
	}
}

func TestChatErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		kind   error
		said   string
	}{
		{"401", http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, models.ErrChatUnauthorized, "Incorrect API key provided"},
		{"500", http.StatusInternalServerError, `{"error":"model runner crashed"}`, models.ErrChatServer, "model runner crashed"},
		{"503 in HTML", http.StatusServiceUnavailable, `<html>Service Unavailable</html>`, models.ErrChatServer, "<html>Service Unavailable</html>"},
		{"404 model", http.StatusNotFound, `{"error":{"message":"model \"tiny-model\" not found"}}`, models.ErrChatRefused, `model "tiny-model" not found`},
		{"garbage", http.StatusOK, `{"choices":[{"message":`, models.ErrChatAnswer, ""},
		{"not JSON", http.StatusOK, `Hello!`, models.ErrChatAnswer, ""},
		{"no choices", http.StatusOK, `{"choices":[]}`, models.ErrChatAnswer, "the answer has no choices"},
		{"too long", http.StatusOK, `{"choices":[{"message":{"content":"` + strings.Repeat("a", models.MaxChatAnswer) + `"}}]}`, models.ErrChatAnswer, "over"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			_, err := models.Chat(context.Background(), e, []models.Message{{Role: models.RoleUser, Content: "hi"}}, nil)
			var ce *models.ChatError
			if !errors.Is(err, c.kind) || !errors.As(err, &ce) {
				t.Fatalf("err %v; want %v", err, c.kind)
			}
			if !strings.Contains(ce.Said, c.said) || strings.Contains(err.Error(), "sk-chat-test") {
				t.Errorf("said %q in %q; want %q", ce.Said, err, c.said)
			}
			if c.status != http.StatusOK && ce.Status != c.status {
				t.Errorf("status %d", ce.Status)
			}
		})
	}
}

// A model that never answers is given up at the caller's deadline: the
// fake holds the request until the client goes away.
func TestChatTimeout(t *testing.T) {
	e := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server sees the client go only once the body is read
		<-r.Context().Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := models.Chat(ctx, e, []models.Message{{Role: models.RoleUser, Content: "hi"}}, nil)
	if !errors.Is(err, models.ErrChatTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v; want a timeout", err)
	}

	// A caller that gives up is not a timeout.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := models.Chat(ctx, e, nil, nil); !errors.Is(err, context.Canceled) || errors.Is(err, models.ErrChatTimeout) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestChatUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	_, err := models.Chat(context.Background(), models.Endpoint{Base: base + "/v1"}, nil, nil)
	if !errors.Is(err, models.ErrChatUnreachable) {
		t.Fatalf("err %v", err)
	}
}
