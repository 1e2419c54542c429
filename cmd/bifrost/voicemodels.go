package main

import (
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/integrations"
)

// VoiceConfig configures the model endpoints of the voice seam, each an
// OpenAI-compatible API and each optional: speech to text (for
// /api/voice/listen), the language model (the fallback for what the
// grammar cannot read) and text to speech (/api/voice/speak). What it
// gives wins, field by field, over Settings → Voice.
type VoiceConfig struct {
	STT, LLM, TTS ModelConfig
}

// ModelConfig is one endpoint: its base URL (…/v1), the model, the key,
// and for text to speech the voice.
type ModelConfig struct {
	URL, Model, Key, Voice string
}

func (c *VoiceConfig) options() []option {
	return append(append(
		c.STT.options("stt", "speech-to-text", "whisper-1"),
		c.LLM.options("llm", "language model", "llama3.2")...),
		append(c.TTS.options("tts", "text-to-speech", "tts-1"),
			option{Name: "tts-voice", Env: "BIFROST_TTS_VOICE", Value: (*stringValue)(&c.TTS.Voice),
				Usage: "the text-to-speech `voice` (e.g. alloy)"})...)
}

// options are the flags of one endpoint: prefix-url, prefix-model and
// prefix-key.
func (c *ModelConfig) options(prefix, what, model string) []option {
	env := "BIFROST_" + strings.ToUpper(prefix)
	return []option{
		{Name: prefix + "-url", Env: env + "_URL", Value: (*stringValue)(&c.URL),
			Usage: "base `URL` of an OpenAI-compatible " + what + " endpoint, e.g. http://localhost:8000/v1"},
		{Name: prefix + "-model", Env: env + "_MODEL", Value: (*stringValue)(&c.Model),
			Usage: "the `model` the " + what + " endpoint is asked for (e.g. " + model + ")"},
		{Name: prefix + "-key", Env: env + "_KEY", Secret: true, Value: (*stringValue)(&c.Key),
			Usage: "the " + what + " endpoint's API `key`, sent as Authorization: Bearer"},
	}
}

// validate checks each endpoint as Settings → Voice checks it.
func (c VoiceConfig) validate() error {
	for _, e := range []struct {
		prefix string
		m      ModelConfig
	}{{"stt", c.STT}, {"llm", c.LLM}, {"tts", c.TTS}} {
		if err := integrations.CheckModelSettings(e.m.settings()); err != nil {
			return fmt.Errorf("%s: %w", e.prefix, err)
		}
	}
	return nil
}

func (m ModelConfig) settings() integrations.ModelSettings {
	return integrations.ModelSettings{URL: m.URL, Model: m.Model, Key: m.Key, Voice: m.Voice}
}

// settings are the endpoints the environment gives.
func (c VoiceConfig) settings() integrations.VoiceSettings {
	return integrations.VoiceSettings{STT: c.STT.settings(), LLM: c.LLM.settings(), TTS: c.TTS.settings()}
}
