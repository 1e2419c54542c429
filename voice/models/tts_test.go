package models_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

// TestSpeak asks for speech as the API takes it, JSON with the model,
// the input, the voice and the format, and returns the audio whole.
func TestSpeak(t *testing.T) {
	s := openaitest.New(t, apiKey)
	ep := s.Endpoint(apiKey, "tts-1")
	ep.Voice = "alloy"
	audio, contentType, err := models.Speak(t.Context(), ep, "The kitchen lights are off.", "", "")
	if err != nil || contentType != "audio/wav" || !bytes.Equal(audio, openaitest.Tone(time.Second)) {
		t.Fatalf("Speak = %d bytes, %q, %v", len(audio), contentType, err)
	}
	audio, _, err = models.Speak(t.Context(), ep, "Good night.", "nova", "wav")
	if err != nil || len(audio) == 0 {
		t.Fatalf("Speak in nova = %d bytes, %v", len(audio), err)
	}
	want := []openaitest.Speech{
		{Model: "tts-1", Input: "The kitchen lights are off.", Voice: "alloy", ResponseFormat: "wav"},
		{Model: "tts-1", Input: "Good night.", Voice: "nova", ResponseFormat: "wav"},
	}
	if got := s.Speeches(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the server received %+v", got)
	}

	// A format the server does not make is its refusal, in its words.
	_, _, err = models.Speak(t.Context(), ep, "Hello.", "", "opus")
	failure(t, err, models.Failed, "the text-to-speech endpoint at "+s.Base+"/audio/speech failed (400 Bad Request: this server makes wav only)")
}

// TestSpeakAnswers: audio without a content type takes the format's; an
// answer that is not audio is refused.
func TestSpeakAnswers(t *testing.T) {
	var contentType string
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = []string{contentType}
		w.Write(body)
	}))
	defer srv.Close()
	ep := models.Endpoint{Base: srv.URL + "/v1", Model: "kokoro", Voice: "af_heart"}
	for _, tc := range []struct {
		contentType, format string
		body                []byte
		want                string
		fails               string
	}{
		{"", "mp3", []byte("ID3\x04"), "audio/mpeg", ""},
		{"application/octet-stream", "", []byte("RIFF"), "audio/wav", ""},
		{"audio/mpeg", "mp3", []byte("\xff\xfb"), "audio/mpeg", ""},
		{"application/json", "wav", []byte(`{"error":{"message":"voice not found"}}`), "", "something other than audio (application/json: voice not found)"},
		{"text/html; charset=utf-8", "wav", []byte("<html>"), "", "something other than audio (text/html)"},
		{"audio/wav", "wav", nil, "", "answered with no audio"},
		{"image/svg+xml", "wav", []byte("<svg onload=alert(1)>"), "", "something other than audio (image/svg+xml)"},
	} {
		contentType, body = tc.contentType, tc.body
		audio, got, err := models.Speak(t.Context(), ep, "Hi.", "", tc.format)
		if tc.fails != "" {
			failure(t, err, models.BadAnswer, tc.fails)
			continue
		}
		if err != nil || got != tc.want || !bytes.Equal(audio, tc.body) {
			t.Errorf("%q as %s: %q, %q, %v", tc.contentType, tc.format, audio, got, err)
		}
	}
}
