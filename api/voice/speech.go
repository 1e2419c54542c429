package voice

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/service"
	hubvoice "github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/wav"
)

// The voice seam in sound: a recording heard through the speech-to-text
// endpoint and run as a command (/voice/listen), and a sentence said
// through the text-to-speech endpoint (/voice/speak). Both endpoints are
// optional (Settings → Voice): without one its route answers 503, and
// one that fails answers 502 with what went wrong, for people.

// Bounds of a recording sent to /voice/listen: a command of a few
// seconds, as the kiosk records it (16 kHz, 16-bit, mono: 32 kB a
// second), with room to spare.
const (
	MaxListenBytes    = 4 << 20
	MaxListenDuration = 30 * time.Second
	// ListenBodyLimit bounds the whole body of POST /api/voice/listen:
	// the recording and the form around it. The server's body limit
	// makes room for it on that route alone.
	ListenBodyLimit = MaxListenBytes + 64<<10
)

// MaxSpeakText bounds the text /voice/speak says, in characters.
const MaxSpeakText = 1000

// Bounds of the short fields of the voice routes.
const (
	maxRoomField  = 1024
	maxVoiceField = 256
)

// heard answers /voice/listen: what was heard, and what came of it.
type heard struct {
	Transcript string `json:"transcript"`
	hubvoice.Answer
}

// listen hears a recording (a multipart form: the WAV in file or audio,
// the room in room or context) and runs what was said as a command:
// {transcript, ok, said, clauses}.
func (h *handlers) listen(c echo.Context) error {
	ep := inForce(h.stt)
	if !ep.Set() {
		return notSet("speech-to-text", "BIFROST_STT_URL")
	}
	form, err := readListenForm(c.Request())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	text, err := models.Transcribe(ctx, ep, form.recording.Bytes, form.filename)
	if err != nil {
		return modelError(err)
	}
	a, err := h.voice.Command(ctx, text, h.defaultRoom(ctx, form.room))
	return httpjson.Reply(c, http.StatusOK, heard{Transcript: text, Answer: a}, err)
}

// speakBody is what /voice/speak says, and how.
type speakBody struct {
	Text   string `json:"text"`
	Voice  string `json:"voice"`
	Format string `json:"format"`
}

// speak answers the audio of text, as the text-to-speech endpoint makes
// it, with its content type.
func (h *handlers) speak(c echo.Context) error {
	ep := inForce(h.tts)
	if !ep.Set() {
		return notSet("text-to-speech", "BIFROST_TTS_URL")
	}
	var b speakBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	if err := b.check(); err != nil {
		return err
	}
	audio, contentType, err := models.Speak(c.Request().Context(), ep, strings.TrimSpace(b.Text), b.Voice, b.Format)
	if err != nil {
		return modelError(err)
	}
	return c.Blob(http.StatusOK, contentType, audio)
}

func (b speakBody) check() error {
	text := strings.TrimSpace(b.Text)
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return httpjson.Missing("text", "the text to say")
	case n > MaxSpeakText:
		return service.Errorf(service.EINVALID, "the text is %d characters long; the hub says at most %d at once", n, MaxSpeakText).
			With("field", "text")
	case b.Format != "" && !models.IsSpeechFormat(b.Format):
		return service.Errorf(service.EINVALID, "format %q is not one of %s", b.Format, strings.Join(models.SpeechFormats, ", ")).
			With("field", "format").With("options", models.SpeechFormats)
	case len(b.Voice) > maxVoiceField || strings.ContainsFunc(b.Voice, isControl):
		return service.Errorf(service.EINVALID, "the voice must be a name of at most %d characters", maxVoiceField).With("field", "voice")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// inForce is the endpoint a role has now; none when the hub has no such
// role.
func inForce(of func() models.Endpoint) models.Endpoint {
	if of == nil {
		return models.Endpoint{}
	}
	return of()
}

// notSet is the answer of a route whose endpoint is not set.
func notSet(what, env string) error {
	return service.Errorf(service.EUNAVAILABLE, "no %s endpoint is set: set %s, or save one under Settings → Voice", what, env)
}

// modelError is how a model call that failed is answered: 502, with
// what went wrong said for people.
func modelError(err error) error {
	var e *models.EndpointError
	if !errors.As(err, &e) {
		return err
	}
	code := service.EDEVICE // the endpoint answered, but not as asked
	switch e.Failure {
	case models.Timeout, models.Unreachable, models.Cancelled:
		code = service.EUNREACHABLE
	}
	out := service.Errorf(code, "%s", e.Error())
	if e.Status != 0 {
		out = out.With("status", e.Status)
	}
	return out
}

// listenForm is the form of /voice/listen, read.
type listenForm struct {
	recording wav.Recording
	filename  string
	room      string
}

// readListenForm reads the multipart form of /voice/listen part by
// part, as it comes: the recording is checked by its header (a WAV of
// PCM audio, no longer than MaxListenDuration) before the rest of it is
// read, and refused with a 4xx that says why.
func readListenForm(req *http.Request) (listenForm, error) {
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return listenForm{}, echo.NewHTTPError(http.StatusUnsupportedMediaType,
			"send the recording as multipart/form-data: a WAV file in the field file, and the room in room")
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return listenForm{}, brokenForm(err)
	}
	var f listenForm
	var have bool
	for {
		part, err := mr.NextPart()
		if err == io.EOF { // the final boundary (a body cut short is an EOF wrapped)
			break
		}
		if err != nil {
			return listenForm{}, brokenForm(err)
		}
		if err := f.read(part, &have); err != nil {
			return listenForm{}, err
		}
	}
	if !have {
		return listenForm{}, httpjson.Missing("file", "the recording: a WAV file (16 kHz, 16-bit, mono PCM)")
	}
	return f, nil
}

// read reads one part of the form into f; other parts are skipped. A
// part refused is left unread (closing it would read it to its end).
func (f *listenForm) read(part *multipart.Part, have *bool) error {
	switch name := part.FormName(); name {
	case "file", "audio":
		if *have {
			return service.Errorf(service.EINVALID, "send one recording, in file").With("field", name)
		}
		rec, err := wav.Read(part, wav.Limits{MaxBytes: MaxListenBytes, MaxDuration: MaxListenDuration})
		if err != nil {
			return recordingError(name, err)
		}
		*have, f.recording, f.filename = true, rec, part.FileName()
	case "room", "context":
		room, err := roomField(part, name)
		if err != nil {
			return err
		}
		if room != "" {
			f.room = room
		}
	default:
		if _, err := io.Copy(io.Discard, part); err != nil {
			return brokenForm(err)
		}
	}
	return nil
}

// roomField reads the room: its name, or (in context) {"room": …} as
// /voice/command takes it.
func roomField(part *multipart.Part, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(part, maxRoomField+1))
	if err != nil {
		return "", brokenForm(err)
	}
	if len(b) > maxRoomField || !utf8.Valid(b) {
		return "", service.Errorf(service.EINVALID, "%s must be a room's name, of at most %d bytes", name, maxRoomField).With("field", name)
	}
	v := strings.TrimSpace(string(b))
	if !strings.HasPrefix(v, "{") {
		return v, nil
	}
	var ctx struct {
		Room string `json:"room"`
	}
	if err := json.Unmarshal([]byte(v), &ctx); err != nil {
		return "", service.Errorf(service.EINVALID, `%s must be a room's name, or {"room": "…"}`, name).With("field", name)
	}
	return strings.TrimSpace(ctx.Room), nil
}

// recordingError answers a recording refused: 415 for what is not a WAV
// of PCM audio, 413 for one too large, 422 for one too long or empty.
// An error of the body itself (over the server's limit) goes as it is.
func recordingError(field string, err error) error {
	var e *wav.Error
	if !errors.As(err, &e) {
		return brokenForm(err)
	}
	switch e.Problem {
	case wav.NotWAV, wav.Unsupported:
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, e.Error())
	case wav.TooLarge:
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, e.Error())
	}
	return service.Errorf(service.EINVALID, "%s", e.Error()).With("field", field)
}

// brokenForm answers a form that cannot be read: the body over the
// server's limit as it is (413), anything else as a 400.
func brokenForm(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	return echo.NewHTTPError(http.StatusBadRequest, "the multipart form cannot be read: "+err.Error())
}
