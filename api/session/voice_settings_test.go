package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

const modelKey = "sk-voice-test-P3q8"

// newVoiceSettingsHub is the HTTP server over real SQLite with an admin,
// the voice seam, and Settings → Voice whose environment gives env; the
// voice routes read the endpoints the integrations put in force.
func newVoiceSettingsHub(t *testing.T, secret string, env integrations.VoiceSettings) *hub {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := newIdentity(t, svc, db, nil)
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Secret: secret, Voice: env, SettleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.StartVoice(ctx); err != nil {
		t.Fatal(err)
	}
	h := &hub{svc: svc, keys: keys, acc: acc, handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in,
		Voice: voice.New(svc), STT: in.STTEndpoint, TTS: in.TTSEndpoint}).Handler()}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", password); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestVoiceSettingsAPI saves the endpoints as Settings → Voice does: the
// keys go in and never come out, the routes use what was saved at once,
// and the Test asks each endpoint for its models.
func TestVoiceSettingsAPI(t *testing.T) {
	ai := openaitest.New(t, modelKey)
	h := newVoiceSettingsHub(t, "an-install-secret-of-32-chars-ok", integrations.VoiceSettings{})
	b := h.login(t, "admin", password)
	const path = "/api/integrations/voice"

	r := h.must(t, http.StatusOK, req{method: "GET", path: path, session: b})
	if !strings.Contains(string(r.body), `"stt":{"url":"","model":"","key":{"set":false}`) || !strings.Contains(string(r.body), `"can_save_secrets":true`) {
		t.Fatalf("GET before a save: %s", r.body)
	}
	key := mintKey(t, h, b)
	speak := req{method: "POST", path: "/api/voice/speak", body: `{"text":"Hi."}`, header: map[string]string{"Authorization": "Bearer " + key}}
	h.must(t, http.StatusServiceUnavailable, speak)

	r = h.must(t, http.StatusOK, req{method: "PUT", path: path, session: b,
		body: `{"tts":{"url":"` + ai.Base + `","model":"tts-1","voice":"alloy","key":"` + modelKey + `"},"stt":{"url":"` + ai.Base + `","model":"whisper-1","key":"` + modelKey + `"}}`})
	if strings.Contains(string(r.body), modelKey) || !strings.Contains(string(r.body), `"voice":"alloy","key":{"set":true}`) {
		t.Fatalf("PUT answered %s", r.body)
	}
	if r := h.must(t, http.StatusOK, req{method: "GET", path: path, session: b}); strings.Contains(string(r.body), modelKey) {
		t.Fatalf("GET shows the key: %s", r.body)
	}
	// In force at once, with the key.
	if r := h.must(t, http.StatusOK, speak); r.header.Get("Content-Type") != "audio/wav" || len(ai.Speeches()) != 1 || ai.Speeches()[0].Voice != "alloy" {
		t.Errorf("speak after the save: %v, %+v", r.header, ai.Speeches())
	}

	var test integrations.VoiceTest
	h.must(t, http.StatusOK, req{method: "POST", path: path + "/stt/test", session: b}).decode(t, &test)
	if !test.OK || test.Message != "The endpoint answers and serves whisper-1 (2 models)." {
		t.Errorf("test stt: %+v", test)
	}
	h.must(t, http.StatusOK, req{method: "POST", path: path + "/llm/test", session: b}).decode(t, &test)
	if test.OK || test.Message != "No language model endpoint is set." {
		t.Errorf("test llm: %+v", test)
	}
	h.must(t, http.StatusNotFound, req{method: "POST", path: path + "/vision/test", session: b})

	for body, field := range map[string]string{
		`{"tts":{"url":"ftp://kokoro.lan"}}`: "tts.url",
		`{"stt":{"voice":"alloy"}}`:          "voice",
		`{"stt":{"host":"x"}}`:               "host",
	} {
		if r := h.do(req{method: "PUT", path: path, body: body, session: b}); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"field":"`+field+`"`) {
			t.Errorf("PUT %s = %d %s; want 422 on %s", body, r.status, r.body, field)
		}
	}
	r = h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit", session: b})
	if strings.Contains(string(r.body), modelKey) || !strings.Contains(string(r.body), "Saved the text-to-speech settings (changed url, model, voice, key)") {
		t.Errorf("audit log: %s", r.body)
	}
	h.must(t, http.StatusOK, req{method: "DELETE", path: path, session: b})
	h.must(t, http.StatusServiceUnavailable, speak)
	h.must(t, http.StatusNotFound, req{method: "DELETE", path: path, session: b})
}

// TestVoiceSettingsAPI_Guarded: only an admin's session manages the
// endpoints; an API key, a user who is no admin, a request without its
// CSRF token are refused, and nothing is saved.
func TestVoiceSettingsAPI_Guarded(t *testing.T) {
	h := newVoiceSettingsHub(t, "an-install-secret-of-32-chars-ok", integrations.VoiceSettings{})
	admin := h.login(t, "admin", password)
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"guest","password":"` + password + `"}`, session: admin})
	guest := h.login(t, "guest", password)
	key := mintKey(t, h, admin)
	const path = "/api/integrations/voice"
	put := `{"llm":{"url":"http://evil.example/v1","key":"stolen"}}`
	for name, r := range map[string]req{
		"a user who is no admin": {session: guest},
		"no CSRF token":          {session: &browser{cookie: admin.cookie}},
		"another origin":         {session: admin, header: map[string]string{"Origin": "http://evil.example"}},
		"an API key":             {header: map[string]string{"Authorization": "Bearer " + key}},
		"nobody":                 {},
	} {
		for _, call := range []struct{ method, path, body string }{{"PUT", path, put}, {"DELETE", path, ""}, {"POST", path + "/llm/test", ""}} {
			r.method, r.path, r.body = call.method, call.path, call.body
			if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
				t.Errorf("%s: %s %s = %d %s; want it refused", name, call.method, call.path, got.status, got.body)
			}
		}
	}
	for name, r := range map[string]req{"a user who is no admin": {session: guest}, "an API key": {header: map[string]string{"Authorization": "Bearer " + key}}} {
		r.method, r.path = "GET", path
		if got := h.do(r); got.status != http.StatusForbidden && got.status != http.StatusUnauthorized {
			t.Errorf("%s: GET = %d %s", name, got.status, got.body)
		}
	}
	r := h.must(t, http.StatusOK, req{method: "GET", path: path, session: admin})
	if strings.Contains(string(r.body), "evil.example") {
		t.Errorf("a refused request saved settings: %s", r.body)
	}
}

// TestVoiceSettingsAPI_Environment: what the environment gives shows as
// fixed, with its variable, never its key.
func TestVoiceSettingsAPI_Environment(t *testing.T) {
	h := newVoiceSettingsHub(t, "", integrations.VoiceSettings{LLM: integrations.ModelSettings{URL: "http://ollama.lan:11434/v1", Model: "llama3.2", Key: "sk-env-llm"}})
	b := h.login(t, "admin", password)
	r := h.must(t, http.StatusOK, req{method: "GET", path: "/api/integrations/voice", session: b})
	for _, want := range []string{`"url":{"value":"http://ollama.lan:11434/v1","env":"BIFROST_LLM_URL"}`, `"key":{"value":"","env":"BIFROST_LLM_KEY"}`,
		`"model":{"value":"llama3.2","env":"BIFROST_LLM_MODEL"}`, `"can_save_secrets":false`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("GET %s; want %s", r.body, want)
		}
	}
	if strings.Contains(string(r.body), "sk-env-llm") {
		t.Errorf("GET shows the environment's key: %s", r.body)
	}
	if r := h.do(req{method: "PUT", path: "/api/integrations/voice", body: `{"llm":{"model":"qwen"}}`, session: b}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.body), "BIFROST_LLM_MODEL") {
		t.Errorf("PUT of a fixed model = %d %s", r.status, r.body)
	}
}
