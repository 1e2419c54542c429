// Package openaitest is a server that speaks the OpenAI API's audio and
// model routes as the hub calls them, for tests: GET /v1/models, POST
// /v1/audio/transcriptions (a multipart form: file, model,
// response_format) and POST /v1/audio/speech (JSON: model, input, voice,
// response_format). It checks the key and the shape of each request as
// the API does, answers in the API's shapes, and records what it was
// sent; Fail makes it fail as real servers do.
package openaitest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/wav"
)

// Failure is how the server fails every request, until told otherwise.
type Failure string

// The failures.
const (
	None         Failure = ""
	Hang         Failure = "hang"         // no answer until the client gives up
	ServerError  Failure = "server error" // 500, with an error in the API's shape
	Garbage      Failure = "garbage"      // 200 with a body that is not JSON
	CutShort     Failure = "cut short"    // 200 whose body ends before its Content-Length
	WrongAnswers Failure = "wrong"        // 200 with JSON of another shape
)

// Upload is a transcription as the server received it.
type Upload struct {
	Model, ResponseFormat string
	Filename, ContentType string
	Audio                 []byte
}

// Speech is a request for speech as the server received it.
type Speech struct {
	Model          string `json:"model"`
	Input          string `json:"input"`
	Voice          string `json:"voice"`
	ResponseFormat string `json:"response_format"`
}

// Server is the fake endpoint; Base is its base URL (…/v1).
type Server struct {
	Base string
	srv  *httptest.Server
	key  string
	stop chan struct{}

	mu         sync.Mutex
	transcript string
	models     []string
	fail       Failure
	uploads    []Upload
	speeches   []Speech
}

// New starts a server that takes key (any request when ""), until the
// test ends. It transcribes every recording as "turn off the kitchen
// lights", and serves whisper-1 and tts-1.
func New(t testing.TB, key string) *Server {
	s := &Server{key: key, stop: make(chan struct{}), transcript: "turn off the kitchen lights", models: []string{"whisper-1", "tts-1"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.guard(s.listModels))
	mux.HandleFunc("POST /v1/audio/transcriptions", s.guard(s.transcribe))
	mux.HandleFunc("POST /v1/audio/speech", s.guard(s.speak))
	s.srv = httptest.NewServer(mux)
	s.Base = s.srv.URL + "/v1"
	t.Cleanup(func() { close(s.stop); s.srv.Close() })
	return s
}

// Endpoint is the server as an endpoint of the hub, with key and model.
func (s *Server) Endpoint(key, model string) models.Endpoint {
	return models.Endpoint{Base: s.Base, Model: model, Key: key}
}

// Say makes the server hear text in every recording from now on.
func (s *Server) Say(text string) { s.locked(func() { s.transcript = text }) }

// Serve makes the server list ids as its models.
func (s *Server) Serve(ids ...string) { s.locked(func() { s.models = ids }) }

// Fail makes the server fail every request as f says (None: answer).
func (s *Server) Fail(f Failure) { s.locked(func() { s.fail = f }) }

// Uploads are the transcriptions received, in order.
func (s *Server) Uploads() []Upload {
	var out []Upload
	s.locked(func() { out = append(out, s.uploads...) })
	return out
}

// Speeches are the requests for speech received, in order.
func (s *Server) Speeches() []Speech {
	var out []Speech
	s.locked(func() { out = append(out, s.speeches...) })
	return out
}

func (s *Server) locked(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

// guard checks the key, then fails as told or serves.
func (s *Server) guard(serve func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
			apiError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided. You can find your API key in your account settings.")
			return
		}
		var f Failure
		s.locked(func() { f = s.fail })
		switch f {
		case Hang:
			select {
			case <-r.Context().Done():
			case <-s.stop:
			}
		case ServerError:
			apiError(w, http.StatusInternalServerError, "server_error", "The model crashed while loading: out of memory")
		case Garbage:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "<html><body>Bad Gateway</body></html>\x00\x01")
		case CutShort:
			w.Header().Set("Content-Type", "audio/wav")
			w.Header().Set("Content-Length", "100000")
			w.Write([]byte("RIFF")) // and then the connection ends
		case WrongAnswers:
			writeJSON(w, map[string]any{"object": "list", "result": "ok"})
		default:
			serve(w, r)
		}
	}
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	var ids []string
	s.locked(func() { ids = s.models })
	data := []map[string]any{}
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "openaitest"})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

// maxUpload is the largest upload taken, as OpenAI's 25 MB.
const maxUpload = 25 << 20

// transcribe reads the form as the API does: file and model are
// required, response_format must be one the server makes.
func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	if err := r.ParseMultipartForm(maxUpload); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "Could not parse multipart form: "+err.Error())
		return
	}
	file, header, err := r.FormFile("file")
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "you must provide a file")
		return
	}
	defer file.Close()
	audio, _ := io.ReadAll(file)
	u := Upload{Model: r.FormValue("model"), ResponseFormat: r.FormValue("response_format"),
		Filename: header.Filename, ContentType: header.Header.Get("Content-Type"), Audio: audio}
	switch {
	case u.Model == "":
		apiError(w, http.StatusBadRequest, "invalid_request_error", "you must provide a model parameter")
		return
	case u.ResponseFormat != "" && u.ResponseFormat != "json":
		apiError(w, http.StatusBadRequest, "invalid_request_error", "this server answers response_format json only")
		return
	case !bytes.HasPrefix(audio, []byte("RIFF")):
		apiError(w, http.StatusBadRequest, "invalid_request_error", "Invalid file format. Supported formats: ['wav']")
		return
	}
	var text string
	s.locked(func() { s.uploads = append(s.uploads, u); text = s.transcript })
	writeJSON(w, map[string]any{"text": text})
}

// speak reads the JSON body as the API does, strictly, and answers a
// second of a tone as WAV.
func (s *Server) speak(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		apiError(w, http.StatusUnsupportedMediaType, "invalid_request_error", "send JSON")
		return
	}
	var sp Speech
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	switch {
	case sp.Model == "" || sp.Input == "":
		apiError(w, http.StatusBadRequest, "invalid_request_error", "model and input are required")
		return
	case sp.ResponseFormat != "wav":
		apiError(w, http.StatusBadRequest, "invalid_request_error", "this server makes wav only")
		return
	}
	s.locked(func() { s.speeches = append(s.speeches, sp) })
	w.Header().Set("Content-Type", "audio/wav")
	w.Write(Tone(time.Second))
}

// Tone is a WAV of a 440 Hz tone, d long, as the kiosk records (16 kHz,
// mono, 16-bit PCM).
func Tone(d time.Duration) []byte {
	f := wav.Format{Encoding: wav.PCM, Channels: 1, SampleRate: 16000, BitsPerSample: 16}
	frames := int(int64(f.SampleRate) * int64(d) / int64(time.Second))
	data := make([]byte, 2*frames)
	for i := range frames {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(f.SampleRate)))
		binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
	}
	return append(wav.Header(f, uint32(len(data))), data...)
}

// apiError answers an error in OpenAI's shape.
func apiError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	kind := "invalid_request_error"
	if status >= 500 {
		kind = "server_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": kind, "param": nil, "code": code}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
