package voice_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	apivoice "github.com/bifrost-hub/bifrost/api/voice"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
	"github.com/bifrost-hub/bifrost/voice/wav"
)

const modelKey = "sk-voice-test-P3q8"

// speechHub is the hub with the voice seam, its speech endpoints those
// of a server that speaks the OpenAI API, and a control key.
type speechHub struct {
	*sessiontest.Hub
	ai  *openaitest.Server
	key string
}

// newSpeechHub serves the voice seam with the endpoints stt and tts
// give (nil: none).
func newSpeechHub(t *testing.T, stt, tts func(*openaitest.Server) func() models.Endpoint) *speechHub {
	t.Helper()
	ai := openaitest.New(t, modelKey)
	h := sessiontest.NewHub(t, func(c *api.Config) {
		c.Voice = voice.New(c.Service)
		if stt != nil {
			c.STT = stt(ai)
		}
		if tts != nil {
			c.TTS = tts(ai)
		}
	})
	k, err := h.Keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "kiosk", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	return &speechHub{Hub: h, ai: ai, key: k.Key}
}

// endpoint is the server's endpoint with model, as the hub has it.
func endpoint(model string) func(*openaitest.Server) func() models.Endpoint {
	return func(ai *openaitest.Server) func() models.Endpoint {
		return func() models.Endpoint { return ai.Endpoint(modelKey, model) }
	}
}

// kioskForm is the form the Rust hub's kiosk posts: the recording in
// file, as command.wav, and the room.
func kioskForm(t *testing.T, field string, audio []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="command.wav"`)
	h.Set("Content-Type", "audio/wav")
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(audio)
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// post sends body to path with the key, answering status, content type
// and body.
func (h *speechHub) post(t *testing.T, ctx context.Context, path, contentType string, body io.Reader) (int, string, []byte) {
	t.Helper()
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, path, body)
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Authorization", "Bearer "+h.key)
	rec := httptest.NewRecorder()
	h.Handler.ServeHTTP(rec, r)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()
}

// listen posts a kiosk's form to /api/voice/listen.
func (h *speechHub) listen(t *testing.T, field string, audio []byte, fields map[string]string) (int, []byte) {
	t.Helper()
	ct, body := kioskForm(t, field, audio, fields)
	code, _, b := h.post(t, t.Context(), "/api/voice/listen", ct, bytes.NewReader(body))
	return code, b
}

// keyLightOn reports whether the simulated Key Light is on.
func (h *speechHub) keyLightOn(t *testing.T) bool {
	t.Helper()
	l, err := h.Service.GetLight(service.WithPrincipal(context.Background(), service.System), "Key Light")
	if err != nil {
		t.Fatal(err)
	}
	return l.State.On
}

// TestListen hears a kiosk's recording through the speech-to-text
// endpoint and runs it in the room given.
func TestListen(t *testing.T) {
	h := newSpeechHub(t, endpoint("whisper-1"), nil)
	h.ai.Say(" Turn off the lights.")
	audio := openaitest.Tone(2 * time.Second)
	code, b := h.listen(t, "file", audio, map[string]string{"room": "Office"})
	var got struct {
		Transcript string
		voice.Answer
	}
	if code != http.StatusOK || json.Unmarshal(b, &got) != nil || got.Transcript != "Turn off the lights." || !got.OK || len(got.Clauses) != 1 {
		t.Fatalf("listen = %d %s", code, b)
	}
	if h.keyLightOn(t) {
		t.Error("the Office's Key Light is still on")
	}
	up := h.ai.Uploads()
	if len(up) != 1 || !bytes.Equal(up[0].Audio, audio) || up[0].Filename != "command.wav" || up[0].Model != "whisper-1" {
		t.Fatalf("the endpoint received %d uploads: %+v", len(up), up)
	}

	// The field may be audio, the room given as context, as
	// /voice/command takes it.
	h.ai.Say("turn on the key light")
	if code, b := h.listen(t, "audio", audio, map[string]string{"context": `{"room":"Office"}`}); code != http.StatusOK || !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("audio and context: %d %s", code, b)
	}
	if !h.keyLightOn(t) {
		t.Error("the Key Light is still off")
	}
	// Nothing heard is said so, as the grammar says it.
	h.ai.Say("")
	if code, b := h.listen(t, "file", audio, nil); code != http.StatusOK || !strings.Contains(string(b), `"transcript":""`) ||
		!strings.Contains(string(b), "didn't catch that") {
		t.Errorf("silence: %d %s", code, b)
	}
}

// TestListenRefusesWhatIsNotAKioskRecording: a 4xx that says why, before
// the endpoint is called.
func TestListenRefusesWhatIsNotAKioskRecording(t *testing.T) {
	h := newSpeechHub(t, endpoint("whisper-1"), nil)
	compressed := openaitest.Tone(time.Second)
	compressed[20] = 0x55
	for _, tc := range []struct {
		name        string
		contentType string
		body        []byte
		want        int
		says        string
	}{
		{"binary garbage", "", nil, http.StatusUnsupportedMediaType, "not a WAV file"},
		{"a compressed WAV", "", compressed, http.StatusUnsupportedMediaType, "send PCM audio"},
		{"no audio", "", wav.Header(wav.Format{Encoding: wav.PCM, Channels: 1, SampleRate: 16000, BitsPerSample: 16}, 0), http.StatusUnprocessableEntity, "no audio"},
		{"JSON", "application/json", []byte(`{"audio":"UklGRg=="}`), http.StatusUnsupportedMediaType, "multipart/form-data"},
		{"a broken form", "multipart/form-data; boundary=x", []byte("--y\r\n"), http.StatusBadRequest, "cannot be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var b []byte
			switch {
			case tc.contentType != "":
				code, _, b = h.post(t, t.Context(), "/api/voice/listen", tc.contentType, bytes.NewReader(tc.body))
			case tc.body == nil:
				garbage := make([]byte, 4096)
				for i := range garbage {
					garbage[i] = byte(i*7 + i/13)
				}
				code, b = h.listen(t, "file", garbage, map[string]string{"room": "Office"})
			default:
				code, b = h.listen(t, "file", tc.body, nil)
			}
			if code != tc.want || !strings.Contains(string(b), tc.says) {
				t.Errorf("= %d %s; want %d saying %q", code, b, tc.want, tc.says)
			}
		})
	}
	ct, body := kioskForm(t, "recording", openaitest.Tone(time.Second), nil)
	if code, _, b := h.post(t, t.Context(), "/api/voice/listen", ct, bytes.NewReader(body)); code != http.StatusUnprocessableEntity || !strings.Contains(string(b), `"field":"file"`) {
		t.Errorf("no file field: %d %s", code, b)
	}
	if code, b := h.listen(t, "file", openaitest.Tone(time.Second), map[string]string{"room": strings.Repeat("x", 2000)}); code != http.StatusUnprocessableEntity {
		t.Errorf("a room of 2000 bytes: %d %s", code, b)
	}
	if n := len(h.ai.Uploads()); n != 0 {
		t.Errorf("the endpoint was called %d times with refused recordings", n)
	}
	if !h.keyLightOn(t) {
		t.Error("a refused recording changed the house")
	}
}

// tenMinutes is the header of a ten-minute kiosk recording.
func tenMinutes() []byte {
	return wav.Header(wav.Format{Encoding: wav.PCM, Channels: 1, SampleRate: 16000, BitsPerSample: 16}, 10*60*32000)
}

// TestListenBoundsTheRecording: a ten-minute recording is refused by its
// header, without reading it; one whose size is given up front, at once.
func TestListenBoundsTheRecording(t *testing.T) {
	h := newSpeechHub(t, endpoint("whisper-1"), nil)

	// Streamed: the recording is refused after its header.
	pr, pw := io.Pipe()
	sent := &countingWriter{w: pw}
	mw := multipart.NewWriter(sent)
	written := make(chan int64, 1)
	go func() {
		defer pw.Close()
		part, _ := mw.CreateFormFile("file", "command.wav")
		part.Write(tenMinutes())
		chunk := make([]byte, 32<<10)
		for range 600 { // ten minutes of silence, 19 MB
			if _, err := part.Write(chunk); err != nil {
				break
			}
		}
		written <- sent.n
	}()
	code, _, b := h.post(t, t.Context(), "/api/voice/listen", mw.FormDataContentType(), pr)
	pr.CloseWithError(io.ErrClosedPipe) // the writer, blocked on what the hub no longer reads, stops
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(b), "10m0s long; the hub takes at most 30s") {
		t.Errorf("a streamed ten-minute recording: %d %s", code, b)
	}
	if n := <-written; n > 1<<20 {
		t.Errorf("the hub read %d bytes of a recording refused by its header", n)
	}

	// With its Content-Length: refused before a byte is read.
	head, tail := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"command.wav\"\r\nContent-Type: audio/wav\r\n\r\n", "\r\n--b--\r\n"
	size := int64(len(head)+len(tail)+len(tenMinutes())) + 10*60*32000
	body := &countingReader{r: io.MultiReader(strings.NewReader(head), bytes.NewReader(tenMinutes()), io.LimitReader(zeros{}, 10*60*32000), strings.NewReader(tail))}
	r := httptest.NewRequest(http.MethodPost, "/api/voice/listen", body)
	r.ContentLength = size
	r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	r.Header.Set("Authorization", "Bearer "+h.key)
	rec := httptest.NewRecorder()
	h.Handler.ServeHTTP(rec, r)
	if rec.Code != http.StatusRequestEntityTooLarge || body.n != 0 {
		t.Errorf("a ten-minute recording of %d bytes: %d %s, %d bytes read", size, rec.Code, rec.Body, body.n)
	}

	// The route's bound is its own: a recording of 2 MB (a minute at
	// 16 kHz) passes the server's 1 MiB limit and meets the route's
	// 30 s.
	minute := append(wav.Header(wav.Format{Encoding: wav.PCM, Channels: 1, SampleRate: 16000, BitsPerSample: 16}, 60*32000), make([]byte, 60*32000)...)
	if code, b := h.listen(t, "file", minute, nil); code != http.StatusUnprocessableEntity || !strings.Contains(string(b), "1m0s long") {
		t.Errorf("a minute: %d %s", code, b)
	}
	// And a body past the route's bound is refused as too large.
	big := append(wav.Header(wav.Format{Encoding: wav.PCM, Channels: 2, SampleRate: 48000, BitsPerSample: 32}, 25*384000), make([]byte, 25*384000)...)
	if code, b := h.listen(t, "file", big, nil); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 9.6 MB recording of 25 s: %d %s", code, b)
	}
	if n := len(h.ai.Uploads()); n != 0 {
		t.Errorf("the endpoint was called %d times", n)
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestListenWithoutOrFailingSTT: 503 without an endpoint, 502 that says
// why when it fails; nothing is run.
func TestListenWithoutOrFailingSTT(t *testing.T) {
	none := newSpeechHub(t, nil, nil)
	code, b := none.listen(t, "file", openaitest.Tone(time.Second), nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(b), "No speech-to-text endpoint is set: set BIFROST_STT_URL") {
		t.Errorf("without STT: %d %s", code, b)
	}
	unset := newSpeechHub(t, func(*openaitest.Server) func() models.Endpoint {
		return func() models.Endpoint { return models.Endpoint{} }
	}, nil)
	if code, _ := unset.listen(t, "file", openaitest.Tone(time.Second), nil); code != http.StatusServiceUnavailable {
		t.Errorf("with an STT endpoint not set: %d", code)
	}

	h := newSpeechHub(t, endpoint("whisper-1"), nil)
	h.ai.Say("turn off the lights")
	for _, tc := range []struct {
		fail openaitest.Failure
		says string
	}{
		{openaitest.ServerError, "failed (500 Internal Server Error: The model crashed while loading: out of memory)"},
		{openaitest.Garbage, "answered with something other than a transcription"},
		{openaitest.CutShort, "cannot be reached"},
	} {
		h.ai.Fail(tc.fail)
		code, b := h.listen(t, "file", openaitest.Tone(time.Second), map[string]string{"room": "Office"})
		if code != http.StatusBadGateway || !strings.Contains(string(b), "The speech-to-text endpoint at "+h.ai.Base+"/audio/transcriptions") ||
			!strings.Contains(string(b), tc.says) {
			t.Errorf("%s: %d %s", tc.fail, code, b)
		}
	}
	h.ai.Fail(openaitest.Hang)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	ct, body := kioskForm(t, "file", openaitest.Tone(time.Second), map[string]string{"room": "Office"})
	code, _, b = h.post(t, ctx, "/api/voice/listen", ct, bytes.NewReader(body))
	if code != http.StatusBadGateway || !strings.Contains(string(b), "did not answer within 300ms") || !strings.Contains(string(b), `"error":"unreachable"`) {
		t.Errorf("a hanging endpoint: %d %s", code, b)
	}
	h.ai.Fail(openaitest.None)
	wrongKey := newSpeechHub(t, func(ai *openaitest.Server) func() models.Endpoint {
		return func() models.Endpoint { return ai.Endpoint("sk-wrong", "whisper-1") }
	}, nil)
	if code, b := wrongKey.listen(t, "file", openaitest.Tone(time.Second), nil); code != http.StatusBadGateway || !strings.Contains(string(b), "refused the key (401 Unauthorized") {
		t.Errorf("a wrong key: %d %s", code, b)
	}
	if !h.keyLightOn(t) {
		t.Error("a failed transcription ran a command")
	}
}

func TestSpeak(t *testing.T) {
	h := newSpeechHub(t, nil, func(ai *openaitest.Server) func() models.Endpoint {
		return func() models.Endpoint { ep := ai.Endpoint(modelKey, "tts-1"); ep.Voice = "alloy"; return ep }
	})
	speak := func(body string) (int, string, []byte) {
		return h.post(t, t.Context(), "/api/voice/speak", "application/json", strings.NewReader(body))
	}
	code, ct, b := speak(`{"text":"The kitchen lights are off."}`)
	if code != http.StatusOK || ct != "audio/wav" || !bytes.Equal(b, openaitest.Tone(time.Second)) {
		t.Fatalf("speak = %d %q, %d bytes", code, ct, len(b))
	}
	if code, _, _ := speak(`{"text":"Good night.","voice":"nova","format":"wav"}`); code != http.StatusOK {
		t.Errorf("with a voice and a format: %d", code)
	}
	want := []openaitest.Speech{{Model: "tts-1", Input: "The kitchen lights are off.", Voice: "alloy", ResponseFormat: "wav"},
		{Model: "tts-1", Input: "Good night.", Voice: "nova", ResponseFormat: "wav"}}
	if got := h.ai.Speeches(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the endpoint received %+v", got)
	}

	for body, says := range map[string]string{
		`{"text":"  "}`: `"field":"text"`,
		`{"text":"` + strings.Repeat("é", apivoice.MaxSpeakText+1) + `"}`: "1001 characters long; the hub says at most 1000",
		`{"text":"Hi.","format":"ogg"}`:                                   "not one of mp3, opus, aac, flac, wav, pcm",
		`{"text":"Hi.","voice":"a\nb"}`:                                   `"field":"voice"`,
		`{"text":"Hi.","speed":2}`:                                        "speed",
	} {
		if code, _, b := speak(body); code != http.StatusUnprocessableEntity || !strings.Contains(string(b), says) {
			t.Errorf("%.60s: %d %s; want 422 saying %s", body, code, b, says)
		}
	}
	// The endpoint's refusal is a 502 in its words.
	if code, _, b := speak(`{"text":"Hi.","format":"mp3"}`); code != http.StatusBadGateway || !strings.Contains(string(b), "this server makes wav only") {
		t.Errorf("a format the endpoint does not make: %d %s", code, b)
	}
	h.ai.Fail(openaitest.CutShort)
	if code, ct, b := speak(`{"text":"Hi."}`); code != http.StatusBadGateway || !strings.HasPrefix(ct, "application/json") {
		t.Errorf("audio cut short: %d %q %.100s", code, ct, b)
	}
	if n := len(h.ai.Speeches()); n != 2 {
		t.Errorf("the endpoint made %d speeches; want 2", n)
	}

	none := newSpeechHub(t, nil, nil)
	if code, _, b := none.post(t, t.Context(), "/api/voice/speak", "application/json", strings.NewReader(`{"text":"Hi."}`)); code != http.StatusServiceUnavailable ||
		!strings.Contains(string(b), "No text-to-speech endpoint is set: set BIFROST_TTS_URL") {
		t.Errorf("without TTS: %d %s", code, b)
	}
}

// TestSpeechRoutesTakeKeys: a key or a session opens them, nothing else.
func TestSpeechRoutesTakeKeys(t *testing.T) {
	h := newSpeechHub(t, endpoint("whisper-1"), endpoint("tts-1"))
	ct, body := kioskForm(t, "file", openaitest.Tone(time.Second), nil)
	for path, r := range map[string]struct {
		ct   string
		body []byte
	}{"/api/voice/listen": {ct, body}, "/api/voice/speak": {"application/json", []byte(`{"text":"Hi."}`)}} {
		for name, key := range map[string]string{"no key": "", "a wrong key": "bfr_notakey"} {
			hr := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(r.body))
			hr.Header.Set("Content-Type", r.ct)
			if key != "" {
				hr.Header.Set("Authorization", "Bearer "+key)
			}
			rec := httptest.NewRecorder()
			h.Handler.ServeHTTP(rec, hr)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("%s with %s: %d", path, name, rec.Code)
			}
		}
	}
	b := h.Login(t, "admin", sessiontest.Password)
	hr := httptest.NewRequest(http.MethodPost, "/api/voice/speak", strings.NewReader(`{"text":"Hi."}`))
	hr.Header.Set("Content-Type", "application/json")
	hr.AddCookie(&http.Cookie{Name: session.CookieName, Value: b.Cookie})
	hr.Header.Set(session.CSRFHeader, b.CSRF)
	rec := httptest.NewRecorder()
	h.Handler.ServeHTTP(rec, hr)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "audio/wav" {
		t.Errorf("speak with a session: %d %s", rec.Code, fmt.Sprint(rec.Header()))
	}
}
