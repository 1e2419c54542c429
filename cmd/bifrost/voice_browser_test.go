package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

// TestBrowserVoiceSettings sets up Settings → Voice in headless chromium,
// against the hub run in-process and an endpoint that speaks the OpenAI
// API: the speech-to-text URL, model and key are typed in, Test saves
// them and says the endpoint serves the model, and the key shows nowhere,
// not in the page, not in the database files; a model the endpoint does
// not serve is a warning. The language model the environment gives shows
// read-only, with its variable.
func TestBrowserVoiceSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	ai := openaitest.New(t, voiceKey)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) {
		c.Secret = hubSecret
		c.Voice.LLM = ModelConfig{URL: "http://ollama.lan:11434/v1", Model: "llama3.2"}
	})
	b := browserAdmin(t, browserPath, h)

	b.click(`a[href="#/settings"]`)
	b.waitJS("the Voice card", `document.querySelector('#voice-stt-result')?.textContent.includes('No speech-to-text endpoint is set.')`)
	b.waitJS("the environment's language model, read-only", `((url, card) => url.readOnly && url.value === 'http://ollama.lan:11434/v1'
		&& card.textContent.includes('Set by BIFROST_LLM_URL') && card.textContent.includes('Set by BIFROST_LLM_MODEL'))(
		document.querySelector('#voice-llm-url'), document.querySelector('#voice-llm'))`)
	b.typeInto(`#voice-stt-url`, ai.Base)
	b.typeInto(`#voice-stt-model`, "whisper-1")
	b.typeInto(`#voice-stt-key`, voiceKey)
	b.click(`#voice-stt-test`)
	b.waitJS("the Test, after the save", `((r) => r.startsWith('Works') && r.includes('serves whisper-1 (2 models)'))(
		document.querySelector('#voice-stt-result').textContent)`)
	b.waitJS("the key written only", `((k) => k.value === '' && k.placeholder === 'unchanged')(document.querySelector('#voice-stt-key'))
		&& !!document.querySelector('#voice-stt-clear-key')`)
	if html := run(b, "read the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, voiceKey) {
		t.Error("the page shows the saved key")
	}
	if got := h.integrations.STTEndpoint(); got.Key != voiceKey || got.Model != "whisper-1" || got.Base != ai.Base {
		t.Errorf("the endpoint in force: %+v", got)
	}
	assertNoPlaintext(t, data, voiceKey)

	b.typeInto(`#voice-stt-model`, "whisper-large")
	b.click(`#voice-stt-test`)
	b.waitJS("the warning", `((r) => r.startsWith('Check the model') && r.includes('whisper-large is not among its 2 models'))(
		document.querySelector('#voice-stt-result').textContent)`)
	b.noUnlabelled("Settings with the Voice card")
	b.do("show the card", chromedp.Evaluate[chromedp.Void](`document.querySelector('#voice-settings').scrollIntoView()`))
	png := run(b, "screenshot the Voice card", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "settings-voice.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	b.checkConsole()
}
