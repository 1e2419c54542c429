// Package models speaks to the three optional model endpoints of the
// voice seam, each an OpenAI-compatible HTTP API (a local Ollama,
// llama.cpp server, faster-whisper server, LocalAI, or a cloud service):
// speech to text (POST {base}/audio/transcriptions), text to speech
// (POST {base}/audio/speech) and chat with tools (POST
// {base}/chat/completions), the fallback for what the grammar cannot
// read. Nothing is downloaded or bundled; an endpoint not set is off.
package models

import (
	"net/http"
	"strings"
	"time"
)

// Endpoint is one role's endpoint: its base URL (ending in /v1), the
// model to ask for, an optional key (sent as Authorization: Bearer), and,
// for text to speech, the voice.
type Endpoint struct {
	Base  string
	Model string
	Key   string
	Voice string
}

// Set reports whether the endpoint is configured.
func (e Endpoint) Set() bool { return strings.TrimSpace(e.Base) != "" }

// url is the endpoint's URL for path ("/audio/speech").
func (e Endpoint) url(path string) string {
	return strings.TrimRight(e.Base, "/") + path
}

// authorize adds the endpoint's key to a request, when it has one.
func (e Endpoint) authorize(req *http.Request) {
	if e.Key != "" {
		req.Header.Set("Authorization", "Bearer "+e.Key)
	}
}

// DefaultTimeout bounds one call to a model when the caller's context
// does not bound it sooner.
const DefaultTimeout = 30 * time.Second
