package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
)

// voiceCall posts to /api/voice with a key and answers the status and body.
func voiceCall(t *testing.T, h *apitest.Hub, key, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.URL+"/api/voice"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func TestVoiceCommandOverHTTP(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	h := apitest.Start(t, reg, 0)
	ctx := service.WithPrincipal(context.Background(), service.System)

	code, b := voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"turn off the key light and dim the fill light to 20","context":{"room":"Office"}}`)
	var a voice.Answer
	if code != http.StatusOK || json.Unmarshal(b, &a) != nil || !a.OK || len(a.Clauses) != 2 {
		t.Fatalf("command: %d %s", code, b)
	}
	if l, _ := h.Service.GetLight(ctx, "Key Light"); l.State.On {
		t.Error("the Key Light is still on")
	}
	if l, _ := h.Service.GetLight(ctx, "Fill Light"); l.State.Brightness != 20 {
		t.Errorf("the Fill Light is at %d; want 20", l.State.Brightness)
	}

	// "lights on", said in the Office, is the Office's lights.
	if code, b := voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"lights on","context":{"room":"Office"}}`); code != http.StatusOK || !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("lights on: %d %s", code, b)
	}
	if l, _ := h.Service.GetLight(ctx, "Key Light"); !l.State.On {
		t.Error("the Key Light is still off")
	}

	code, b = voiceCall(t, h, h.Key, http.MethodPost, "/command", `{"text":"flibber the jabberwock"}`)
	if code != http.StatusOK || !strings.Contains(string(b), `"ok":false`) || !strings.Contains(string(b), `I didn't understand`) {
		t.Errorf("not understood: %d %s", code, b)
	}

	// A read key asks but does not change.
	rk, err := h.Keys.CreateKey(ctx, "reader", service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	if code, b := voiceCall(t, h, rk.Key, http.MethodPost, "/command", `{"text":"is the key light on?"}`); code != http.StatusOK || !strings.Contains(string(b), "Yes") {
		t.Errorf("read key, question: %d %s", code, b)
	}
	if code, b := voiceCall(t, h, rk.Key, http.MethodPost, "/command", `{"text":"turn off the key light"}`); code != http.StatusOK || !strings.Contains(string(b), "read-only") {
		t.Errorf("read key, write: %d %s", code, b)
	}
	if l, _ := h.Service.GetLight(ctx, "Key Light"); !l.State.On {
		t.Error("a read key turned the Key Light off")
	}

	// Bad input: a clear 4xx, nothing changed.
	for _, tc := range []struct {
		key, body string
		want      int
	}{
		{"", `{"text":"turn off the key light"}`, http.StatusUnauthorized},
		{"bfr_notakey", `{"text":"turn off the key light"}`, http.StatusUnauthorized},
		{h.Key, `{"text":`, http.StatusBadRequest},
		{h.Key, `{"text":5}`, http.StatusUnprocessableEntity},
		{h.Key, `{"text":"` + strings.Repeat("turn off the key light and ", 40) + `"}`, http.StatusUnprocessableEntity},
		{h.Key, `{"text":"` + strings.Repeat("x", 1<<20) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		code, b := voiceCall(t, h, tc.key, http.MethodPost, "/command", tc.body)
		if code != tc.want || !strings.Contains(string(b), "message") && !strings.Contains(string(b), "error") {
			t.Errorf("%.60s: %d %.200s; want %d", tc.body, code, b, tc.want)
		}
	}
	if l, _ := h.Service.GetLight(ctx, "Key Light"); !l.State.On {
		t.Error("a refused command turned the Key Light off")
	}

	code, b = voiceCall(t, h, h.Key, http.MethodGet, "/vocabulary", "")
	var v struct{ Words []string }
	if code != http.StatusOK || json.Unmarshal(b, &v) != nil || len(v.Words) < 100 || !strings.Contains(string(b), `"kitchen"`) {
		t.Errorf("vocabulary: %d %.300s", code, b)
	}
}

func TestRunCommandTool(t *testing.T) {
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	h := apitest.Start(t, reg, 0)
	c := h.MCP(t)
	var a voice.Answer
	apitest.ToolOK(t, c, "run_command", map[string]any{"text": "turn off the office", "room": "Office"}, &a)
	if !a.OK || !strings.Contains(a.Said, "Office") {
		t.Fatalf("run_command: %+v", a)
	}
	ctx := service.WithPrincipal(context.Background(), service.System)
	if l, _ := h.Service.GetLight(ctx, "Key Light"); l.State.On {
		t.Error("the Key Light is still on")
	}
	if res := apitest.Tool(t, c, "run_command", map[string]any{"text": "make me a sandwich"}); !res.IsError || !strings.Contains(apitest.ToolText(res), "didn't understand") {
		t.Errorf("not understood: %+v", res)
	}
}
