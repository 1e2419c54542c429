package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

const voiceKey = "sk-live-voice-Hq72Lp"

func TestVoiceOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tts-key")
	if err := os.WriteFile(file, []byte("sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseServe(t, []string{"--stt-model", "whisper-1", "--tts-voice", "nova"}, env{
		"BIFROST_STT_URL": "http://whisper.lan:8000/v1", "BIFROST_STT_MODEL": "ignored", "BIFROST_STT_KEY": "sk-stt",
		"BIFROST_LLM_URL": "http://ollama.lan:11434/v1", "BIFROST_LLM_MODEL": "llama3.2",
		"BIFROST_TTS_URL": "https://api.example/v1", "BIFROST_TTS_MODEL": "tts-1", "BIFROST_TTS_VOICE": "alloy", "BIFROST_TTS_KEY_FILE": file,
	})
	want := VoiceConfig{
		STT: ModelConfig{URL: "http://whisper.lan:8000/v1", Model: "whisper-1", Key: "sk-stt"},
		LLM: ModelConfig{URL: "http://ollama.lan:11434/v1", Model: "llama3.2"},
		TTS: ModelConfig{URL: "https://api.example/v1", Model: "tts-1", Key: "sk-from-file", Voice: "nova"},
	}
	if err != nil || cfg.Voice != want {
		t.Fatalf("options = %+v, %v; want %+v", cfg.Voice, err, want)
	}
	if _, err := parseServe(t, nil, env{"BIFROST_LLM_KEY_FILE": file, "BIFROST_LLM_KEY": "x"}); err == nil {
		t.Error("BIFROST_LLM_KEY and BIFROST_LLM_KEY_FILE both set: accepted")
	}
	for e, says := range map[string]string{
		"BIFROST_STT_URL": "must be an http:// or https:// URL",
		"BIFROST_TTS_KEY": "may not hold spaces",
	} {
		value := map[string]string{"BIFROST_STT_URL": "whisper.lan:8000", "BIFROST_TTS_KEY": "two words"}[e]
		if _, err := parseServe(t, nil, env{e: value}); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s=%q: %v; want it refused saying %q", e, value, err, says)
		}
	}
	_, out, _ := runCLI("help", "serve")
	for _, want := range []string{"-stt-url", "BIFROST_STT_URL", "-stt-key", "BIFROST_STT_KEY_FILE", "-llm-model", "BIFROST_LLM_MODEL",
		"-tts-voice", "BIFROST_TTS_VOICE", "BIFROST_TTS_KEY_FILE"} {
		if !strings.Contains(out, want) {
			t.Errorf("help does not mention %s", want)
		}
	}
}

// TestVoiceLive runs the hub with its speech-to-text endpoint from the
// environment and its text-to-speech endpoint saved in Settings → Voice:
// a kiosk's recording turns the Office off, the saved endpoint speaks at
// once and again after a restart, and no key is logged or stored in
// plaintext.
func TestVoiceLive(t *testing.T) {
	ai := openaitest.New(t, voiceKey)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) {
		c.Secret = hubSecret
		c.Voice.STT = ModelConfig{URL: ai.Base, Model: "whisper-1", Key: voiceKey}
	})
	k, err := h.keys.CreateKey(service.WithPrincipal(t.Context(), service.System), "kiosk", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	ai.Say("Turn off the lights.")
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	w.WriteField("room", "Office")
	part, _ := w.CreateFormFile("file", "command.wav")
	part.Write(openaitest.Tone(time.Second))
	w.Close()
	var heard struct {
		Transcript string
		OK         bool
	}
	if code, b := keyed(t, h, k.Key, "/api/voice/listen", w.FormDataContentType(), &form); code != http.StatusOK ||
		json.Unmarshal(b, &heard) != nil || !heard.OK || heard.Transcript != "Turn off the lights." {
		t.Fatalf("listen = %d %s", code, b)
	}
	l, err := h.service.GetLight(service.WithPrincipal(t.Context(), service.System), "Key Light")
	if err != nil || l.State.On {
		t.Errorf("the Office's Key Light after 'turn off the lights': %+v, %v", l.State, err)
	}

	speak := func() int {
		code, _ := keyed(t, h, k.Key, "/api/voice/speak", "application/json", strings.NewReader(`{"text":"Done."}`))
		return code
	}
	if code := speak(); code != http.StatusServiceUnavailable {
		t.Errorf("speak without TTS: %d", code)
	}
	s := signIn(t, h)
	s.must(http.StatusOK, "PUT", "/api/integrations/voice", map[string]any{"tts": map[string]string{"url": ai.Base, "model": "tts-1", "voice": "alloy", "key": voiceKey}}, nil)
	if code := speak(); code != http.StatusOK {
		t.Errorf("speak with the saved TTS: %d", code)
	}
	var v struct {
		STT struct {
			Fixed map[string]struct{ Env string }
			Set   bool
		}
	}
	s.must(http.StatusOK, "GET", "/api/integrations/voice", nil, &v)
	if !v.STT.Set || v.STT.Fixed["url"].Env != "BIFROST_STT_URL" || v.STT.Fixed["key"].Env != "BIFROST_STT_KEY" {
		t.Errorf("the environment's STT: %+v", v.STT)
	}
	h.stop()
	assertNoPlaintext(t, data, voiceKey)
	if strings.Contains(h.log.String(), voiceKey) {
		t.Errorf("the hub logged a key:\n%s", h.log)
	}

	h = runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	if code, _ := keyed(t, h, k.Key, "/api/voice/speak", "application/json", strings.NewReader(`{"text":"Again."}`)); code != http.StatusOK {
		t.Errorf("speak after a restart: %d", code)
	}
	if got := ai.Speeches(); len(got) != 2 || got[1].Voice != "alloy" {
		t.Errorf("the endpoint received %+v", got)
	}
	h.stop()
	if strings.Contains(h.log.String(), voiceKey) {
		t.Errorf("the hub logged a key:\n%s", h.log)
	}
}

// keyed posts body to the hub with an API key.
func keyed(t *testing.T, h *inProcessHub, key, path, contentType string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URL(path), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}
