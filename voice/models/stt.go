package models

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strings"
)

// sttName is how messages name the speech-to-text endpoint.
const sttName = "the speech-to-text endpoint"

// maxTranscriptBody bounds the answer of a transcription: text, of a
// recording of seconds.
const maxTranscriptBody = 1 << 20

// Transcribe sends a recording to ep's speech to text (POST
// {base}/audio/transcriptions, a multipart form with the file, the model
// and response_format json) and returns the text it heard, trimmed. A
// recording with nothing said in it is "". It fails with an
// *EndpointError.
func Transcribe(ctx context.Context, ep Endpoint, audio []byte, filename string) (string, error) {
	body, contentType, err := transcriptionForm(ep.Model, audio, filename)
	if err != nil {
		return "", err
	}
	a, err := ep.do(ctx, call{what: sttName, method: http.MethodPost, path: "/audio/transcriptions",
		body: body, contentType: contentType, max: maxTranscriptBody})
	if err != nil {
		return "", err
	}
	var v struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(a.body, &v) != nil || v.Text == nil {
		return "", badAnswer(&EndpointError{What: sttName, URL: redact(ep.url("/audio/transcriptions"))},
			`something other than a transcription ({"text": …})`)
	}
	return strings.TrimSpace(*v.Text), nil
}

// transcriptionForm is the multipart form of a transcription: the model
// (when one is set: some servers serve one, whatever is asked), the
// answer's format, and the file.
func transcriptionForm(model string, audio []byte, filename string) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if model != "" {
		if err := w.WriteField("model", model); err != nil {
			return nil, "", err
		}
	}
	if err := w.WriteField("response_format", "json"); err != nil {
		return nil, "", err
	}
	name := uploadName(filename)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", audioType(name))
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(audio); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// uploadName is the file's name as the endpoint is told it: its base
// name, of plain characters (servers guess the format by its extension),
// "audio.wav" when none is given.
func uploadName(filename string) string {
	name := path.Base(strings.ReplaceAll(filename, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' {
			return '_'
		}
		return r
	}, name)
	if name == "" || name == "." || name == "/" {
		return "audio.wav"
	}
	return name
}

// audioTypes are the content types of the recordings a speech-to-text
// server takes, by extension.
var audioTypes = map[string]string{
	".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg",
	".webm": "audio/webm", ".flac": "audio/flac", ".m4a": "audio/mp4", ".mp4": "audio/mp4",
}

func audioType(name string) string {
	if t, ok := audioTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}
