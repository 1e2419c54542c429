package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
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
	keys, acc := sessiontest.NewIdentity(t, svc, db, nil)
	in, err := integrations.New(integrations.Config{Store: db, Admins: acc, Audit: svc, Secret: secret, Voice: env, SettleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.StartVoice(ctx); err != nil {
		t.Fatal(err)
	}
	h := &hub{&sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Integrations: in,
		Voice: voice.New(svc), STT: in.STTEndpoint, TTS: in.TTSEndpoint}).Handler()}}
	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", sessiontest.Password); err != nil {
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
	b := h.Login(t, "admin", sessiontest.Password)
	const path = "/api/integrations/voice"

	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: path, Session: b})
	if !strings.Contains(string(r.Body), `"stt":{"url":"","model":"","key":{"set":false}`) || !strings.Contains(string(r.Body), `"can_save_secrets":true`) {
		t.Fatalf("GET before a save: %s", r.Body)
	}
	key := mintKey(t, h, b)
	speak := sessiontest.Req{Method: "POST", Path: "/api/voice/speak", Body: `{"text":"Hi."}`, Header: map[string]string{"Authorization": "Bearer " + key}}
	h.Must(t, http.StatusServiceUnavailable, speak)

	r = h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: path, Session: b,
		Body: `{"tts":{"url":"` + ai.Base + `","model":"tts-1","voice":"alloy","key":"` + modelKey + `"},"stt":{"url":"` + ai.Base + `","model":"whisper-1","key":"` + modelKey + `"}}`})
	if strings.Contains(string(r.Body), modelKey) || !strings.Contains(string(r.Body), `"voice":"alloy","key":{"set":true}`) {
		t.Fatalf("PUT answered %s", r.Body)
	}
	if r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: path, Session: b}); strings.Contains(string(r.Body), modelKey) {
		t.Fatalf("GET shows the key: %s", r.Body)
	}
	// In force at once, with the key.
	if r := h.Must(t, http.StatusOK, speak); r.Header.Get("Content-Type") != "audio/wav" || len(ai.Speeches()) != 1 || ai.Speeches()[0].Voice != "alloy" {
		t.Errorf("speak after the save: %v, %+v", r.Header, ai.Speeches())
	}

	var test integrations.VoiceTest
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: path + "/stt/test", Session: b}).Decode(t, &test)
	if !test.OK || test.Message != "The endpoint answers and serves whisper-1 (2 models)." {
		t.Errorf("test stt: %+v", test)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: path + "/llm/test", Session: b}).Decode(t, &test)
	if test.OK || test.Message != "No language model endpoint is set." {
		t.Errorf("test llm: %+v", test)
	}
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "POST", Path: path + "/vision/test", Session: b})

	for body, field := range map[string]string{
		`{"tts":{"url":"ftp://kokoro.lan"}}`: "tts.url",
		`{"stt":{"voice":"alloy"}}`:          "voice",
		`{"stt":{"host":"x"}}`:               "host",
	} {
		if r := h.Do(sessiontest.Req{Method: "PUT", Path: path, Body: body, Session: b}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
			t.Errorf("PUT %s = %d %s; want 422 on %s", body, r.Status, r.Body, field)
		}
	}
	r = h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit", Session: b})
	if strings.Contains(string(r.Body), modelKey) || !strings.Contains(string(r.Body), "Saved the text-to-speech settings (changed url, model, voice, key)") {
		t.Errorf("audit log: %s", r.Body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: path, Session: b})
	h.Must(t, http.StatusServiceUnavailable, speak)
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "DELETE", Path: path, Session: b})
}

// TestVoiceSettingsAPI_Guarded: only an admin's session manages the
// endpoints; an API key, a user who is no admin, a request without its
// CSRF token are refused, and nothing is saved.
func TestVoiceSettingsAPI_Guarded(t *testing.T) {
	h := newVoiceSettingsHub(t, "an-install-secret-of-32-chars-ok", integrations.VoiceSettings{})
	admin := h.Login(t, "admin", sessiontest.Password)
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"guest","password":"` + sessiontest.Password + `"}`, Session: admin})
	guest := h.Login(t, "guest", sessiontest.Password)
	key := mintKey(t, h, admin)
	const path = "/api/integrations/voice"
	put := `{"llm":{"url":"http://evil.example/v1","key":"stolen"}}`
	for name, r := range map[string]sessiontest.Req{
		"a user who is no admin": {Session: guest},
		"no CSRF token":          {Session: &sessiontest.Browser{Cookie: admin.Cookie}},
		"another origin":         {Session: admin, Header: map[string]string{"Origin": "http://evil.example"}},
		"an API key":             {Header: map[string]string{"Authorization": "Bearer " + key}},
		"nobody":                 {},
	} {
		for _, call := range []struct{ method, path, body string }{{"PUT", path, put}, {"DELETE", path, ""}, {"POST", path + "/llm/test", ""}} {
			r.Method, r.Path, r.Body = call.method, call.path, call.body
			if got := h.Do(r); got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
				t.Errorf("%s: %s %s = %d %s; want it refused", name, call.method, call.path, got.Status, got.Body)
			}
		}
	}
	for name, r := range map[string]sessiontest.Req{"a user who is no admin": {Session: guest}, "an API key": {Header: map[string]string{"Authorization": "Bearer " + key}}} {
		r.Method, r.Path = "GET", path
		if got := h.Do(r); got.Status != http.StatusForbidden && got.Status != http.StatusUnauthorized {
			t.Errorf("%s: GET = %d %s", name, got.Status, got.Body)
		}
	}
	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: path, Session: admin})
	if strings.Contains(string(r.Body), "evil.example") {
		t.Errorf("a refused request saved settings: %s", r.Body)
	}
}

// TestVoiceSettingsAPI_Environment: what the environment gives shows as
// fixed, with its variable, never its key.
func TestVoiceSettingsAPI_Environment(t *testing.T) {
	h := newVoiceSettingsHub(t, "", integrations.VoiceSettings{LLM: integrations.ModelSettings{URL: "http://ollama.lan:11434/v1", Model: "llama3.2", Key: "sk-env-llm"}})
	b := h.Login(t, "admin", sessiontest.Password)
	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/integrations/voice", Session: b})
	for _, want := range []string{`"url":{"value":"http://ollama.lan:11434/v1","env":"BIFROST_LLM_URL"}`, `"key":{"value":"","env":"BIFROST_LLM_KEY"}`,
		`"model":{"value":"llama3.2","env":"BIFROST_LLM_MODEL"}`, `"can_save_secrets":false`} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("GET %s; want %s", r.Body, want)
		}
	}
	if strings.Contains(string(r.Body), "sk-env-llm") {
		t.Errorf("GET shows the environment's key: %s", r.Body)
	}
	if r := h.Do(sessiontest.Req{Method: "PUT", Path: "/api/integrations/voice", Body: `{"llm":{"model":"qwen"}}`, Session: b}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), "BIFROST_LLM_MODEL") {
		t.Errorf("PUT of a fixed model = %d %s", r.Status, r.Body)
	}
}
