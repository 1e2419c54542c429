package models_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

const apiKey = "sk-test-Qv81xLm2"

// failure asserts err is an *EndpointError of want whose message says
// says.
func failure(t *testing.T, err error, want models.Failure, says string) *models.EndpointError {
	t.Helper()
	var e *models.EndpointError
	if !errors.As(err, &e) || e.Failure != want {
		t.Fatalf("err = %v; want an EndpointError of failure %d", err, want)
	}
	if !strings.Contains(e.Error(), says) {
		t.Errorf("err = %q; want it to say %q", e, says)
	}
	return e
}

func TestProbe(t *testing.T) {
	s := openaitest.New(t, apiKey)
	ids, err := models.Probe(t.Context(), s.Endpoint(apiKey, ""))
	if err != nil || !slices.Equal(ids, []string{"whisper-1", "tts-1"}) {
		t.Fatalf("Probe = %q, %v", ids, err)
	}
	s.Serve()
	if ids, err := models.Probe(t.Context(), s.Endpoint(apiKey, "")); err != nil || ids == nil || len(ids) != 0 {
		t.Errorf("a server of no models: %q, %v", ids, err)
	}

	_, err = models.Probe(t.Context(), s.Endpoint("sk-wrong", ""))
	e := failure(t, err, models.Refused, "the endpoint at "+s.Base+"/models refused the key (401 Unauthorized: Incorrect API key provided.")
	if e.Status != http.StatusUnauthorized {
		t.Errorf("status %d", e.Status)
	}
	failure(t, probe(t, s.Endpoint("", "")), models.Refused, "refused the key")

	// A base URL without /v1 finds nothing.
	failure(t, probe(t, models.Endpoint{Base: strings.TrimSuffix(s.Base, "/v1"), Key: apiKey}), models.NotFound,
		"answered 404 Not Found: 404 page not found; check the base URL (it usually ends in /v1)")
	s.Fail(openaitest.WrongAnswers)
	failure(t, probe(t, s.Endpoint(apiKey, "")), models.BadAnswer, "answered with something other than a list of models")
}

func probe(t *testing.T, ep models.Endpoint) error {
	_, err := models.Probe(t.Context(), ep)
	return err
}

// calls are the three calls of the package, each as one func.
var calls = map[string]func(context.Context, models.Endpoint) error{
	"transcribe": func(ctx context.Context, ep models.Endpoint) error {
		text, err := models.Transcribe(ctx, ep, openaitest.Tone(time.Second), "command.wav")
		if err != nil && text != "" {
			return errors.New("a failed transcription returned text: " + text)
		}
		return err
	},
	"speak": func(ctx context.Context, ep models.Endpoint) error {
		audio, contentType, err := models.Speak(ctx, ep, "The kitchen lights are off.", "", "")
		if err != nil && (audio != nil || contentType != "") {
			return errors.New("a failed speech returned audio")
		}
		return err
	},
	"probe": func(ctx context.Context, ep models.Endpoint) error {
		ids, err := models.Probe(ctx, ep)
		if err != nil && ids != nil {
			return errors.New("a failed probe returned models")
		}
		return err
	},
}

// TestFailures: each way an endpoint fails is an EndpointError that says
// what happened, and nothing of a failed answer is returned.
func TestFailures(t *testing.T) {
	s := openaitest.New(t, apiKey)
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				fail openaitest.Failure
				want models.Failure
				says string
			}{
				{openaitest.ServerError, models.Failed, "failed (500 Internal Server Error: The model crashed while loading: out of memory)"},
				{openaitest.Garbage, models.BadAnswer, "answered with"},
				{openaitest.CutShort, models.Unreachable, "cannot be reached: unexpected EOF"},
			} {
				s.Fail(tc.fail)
				e := failure(t, call(t.Context(), s.Endpoint(apiKey, "whisper-1")), tc.want, tc.says)
				if !strings.Contains(e.Error(), s.Base) {
					t.Errorf("%s: %q does not say where", tc.fail, e)
				}
			}
			s.Fail(openaitest.Hang)
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			e := failure(t, call(ctx, s.Endpoint(apiKey, "whisper-1")), models.Timeout, "did not answer within 200ms")
			if !errors.Is(e, context.DeadlineExceeded) {
				t.Errorf("a timeout does not wrap context.DeadlineExceeded: %v", e.Err)
			}
			s.Fail(openaitest.None)
		})
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			failure(t, call(t.Context(), models.Endpoint{Base: base}), models.Unreachable, "at "+base+"/")
		})
	}
	failure(t, probe(t, models.Endpoint{Base: base}), models.Unreachable, "cannot be reached: connect: connection refused")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = models.Probe(ctx, models.Endpoint{Base: base})
	failure(t, err, models.Cancelled, "was cancelled")
}

// TestAnswersAreBounded: an answer longer than the hub reads is refused,
// not read on.
func TestAnswersAreBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"`))
		chunk := []byte(strings.Repeat("la ", 1<<14))
		for range 100 { // 4.8 MB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
	}))
	defer srv.Close()
	_, err := models.Transcribe(t.Context(), models.Endpoint{Base: srv.URL + "/v1"}, openaitest.Tone(time.Second), "a.wav")
	failure(t, err, models.BadAnswer, "answered with more than 1048576 bytes")
}

// TestErrorMessagesInOtherShapes: servers other than OpenAI's say what
// went wrong in their own shapes; the message is found in each.
func TestErrorMessagesInOtherShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"model 'x' not found","type":"invalid_request_error"}}`: "model 'x' not found",
		`{"error":"model not loaded"}`:                                "model not loaded",
		`{"detail":"Model 'x' is not installed"}`:                     "Model 'x' is not installed",
		`{"detail":[{"loc":["body","file"],"msg":"field required"}]}`: "field required",
		`{"message":"rate limited"}`:                                  "rate limited",
		"upstream timed out\nretry later":                             "upstream timed out",
		"<html><head><title>502</title></head></html>":                "(502 Bad Gateway)",
		`{"error":"` + strings.Repeat("x", 500) + `"}`:                strings.Repeat("x", 200) + "…",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(body))
		}))
		failure(t, probe(t, models.Endpoint{Base: srv.URL}), models.Failed, want)
		srv.Close()
	}
}
