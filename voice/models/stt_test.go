package models_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

// TestTranscribe sends a kiosk's recording as the API takes it: a
// multipart form with the file, the model and response_format json,
// with the key.
func TestTranscribe(t *testing.T) {
	s := openaitest.New(t, apiKey)
	s.Say("  Turn off the kitchen lights.\n")
	audio := openaitest.Tone(1500 * time.Millisecond)
	text, err := models.Transcribe(t.Context(), s.Endpoint(apiKey, "whisper-1"), audio, "command.wav")
	if err != nil || text != "Turn off the kitchen lights." {
		t.Fatalf("Transcribe = %q, %v", text, err)
	}
	up := s.Uploads()
	if len(up) != 1 {
		t.Fatalf("the server received %d uploads", len(up))
	}
	if u := up[0]; u.Model != "whisper-1" || u.ResponseFormat != "json" || u.Filename != "command.wav" ||
		u.ContentType != "audio/wav" || !bytes.Equal(u.Audio, audio) {
		t.Errorf("the server received %+v (%d bytes of audio)", u, len(u.Audio))
	}

	// Silence is no text, and no error.
	s.Say("")
	if text, err := models.Transcribe(t.Context(), s.Endpoint(apiKey, "whisper-1"), audio, ""); err != nil || text != "" {
		t.Errorf("silence: %q, %v", text, err)
	}
	if u := s.Uploads()[1]; u.Filename != "audio.wav" {
		t.Errorf("a recording without a name is sent as %q", u.Filename)
	}

	// A server that needs a model says so, in its own words.
	_, err = models.Transcribe(t.Context(), s.Endpoint(apiKey, ""), audio, "command.wav")
	failure(t, err, models.Failed, "the speech-to-text endpoint at "+s.Base+"/audio/transcriptions failed (400 Bad Request: you must provide a model parameter)")

	s.Fail(openaitest.WrongAnswers)
	_, err = models.Transcribe(t.Context(), s.Endpoint(apiKey, "whisper-1"), audio, "command.wav")
	failure(t, err, models.BadAnswer, `answered with something other than a transcription ({"text": …})`)
}

func TestUploadName(t *testing.T) {
	s := openaitest.New(t, "")
	for given, want := range map[string]string{
		`C:\Users\kiosk\command.wav`: "command.wav",
		"../../etc/passwd.wav":       "passwd.wav",
		"say \"hi\"\n.wav":           "say _hi__.wav",
	} {
		if _, err := models.Transcribe(t.Context(), s.Endpoint("", "whisper-1"), openaitest.Tone(time.Second), given); err != nil {
			t.Fatal(err)
		}
		up := s.Uploads()
		if got := up[len(up)-1].Filename; got != want {
			t.Errorf("%q is sent as %q; want %q", given, got, want)
		}
	}
}
