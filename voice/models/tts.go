package models

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
)

// ttsName is how messages name the text-to-speech endpoint.
const ttsName = "the text-to-speech endpoint"

// maxSpeechBody bounds the audio of one answer: a minute and more of
// speech, uncompressed.
const maxSpeechBody = 32 << 20

// DefaultSpeechFormat is the format asked for when the caller names
// none: WAV, which every server makes and every player plays.
const DefaultSpeechFormat = "wav"

// speechTypes are the formats of speech the API names (its
// response_format), with their content types.
var speechTypes = map[string]string{
	"mp3": "audio/mpeg", "opus": "audio/ogg", "aac": "audio/aac", "flac": "audio/flac", "wav": "audio/wav", "pcm": "audio/pcm",
}

// SpeechFormats are the formats Speak may ask for.
var SpeechFormats = []string{"mp3", "opus", "aac", "flac", "wav", "pcm"}

// IsSpeechFormat reports whether Speak may ask for format.
func IsSpeechFormat(format string) bool {
	_, ok := speechTypes[format]
	return ok
}

// speechRequest is the body of POST /audio/speech.
type speechRequest struct {
	Model          string `json:"model,omitempty"`
	Input          string `json:"input"`
	Voice          string `json:"voice,omitempty"`
	ResponseFormat string `json:"response_format"`
}

// Speak asks ep's text to speech (POST {base}/audio/speech) to say text
// in voice (ep's own when ""), as format (DefaultSpeechFormat when ""),
// and returns the audio, whole, with its content type. It fails with an
// *EndpointError, never with part of the audio.
func Speak(ctx context.Context, ep Endpoint, text, voice, format string) ([]byte, string, error) {
	if voice == "" {
		voice = ep.Voice
	}
	if format == "" {
		format = DefaultSpeechFormat
	}
	body, err := json.Marshal(speechRequest{Model: ep.Model, Input: text, Voice: voice, ResponseFormat: format})
	if err != nil {
		return nil, "", err
	}
	a, err := ep.do(ctx, call{what: ttsName, method: http.MethodPost, path: "/audio/speech",
		body: body, contentType: "application/json", max: maxSpeechBody})
	if err != nil {
		return nil, "", err
	}
	contentType, problem := audioAnswer(a, format)
	if problem != "" {
		return nil, "", badAnswer(&EndpointError{What: ttsName, URL: redact(ep.url("/audio/speech"))}, problem)
	}
	return a.body, contentType, nil
}

// audioAnswer returns the content type of the audio a holds: the one
// the endpoint gives, or format's when it gives none that says more than
// "bytes". Only audio passes: the hub answers it on its own origin, where
// a page or a script must never come from an endpoint. When a holds no
// audio, problem says what it holds instead.
func audioAnswer(a answer, format string) (contentType, problem string) {
	media, _, _ := mime.ParseMediaType(a.contentType)
	switch {
	case len(a.body) == 0:
		return "", "no audio"
	case strings.HasPrefix(media, "audio/") || media == "application/ogg":
		return a.contentType, ""
	case media != "" && media != "application/octet-stream":
		return "", "something other than audio (" + media + colon(saidIn(a.body)) + ")"
	}
	if t, ok := speechTypes[format]; ok {
		return t, ""
	}
	return "application/octet-stream", ""
}
