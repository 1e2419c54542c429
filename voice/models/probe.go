package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// How a call to an endpoint goes: one request, bounded in time by
// DefaultTimeout (or the caller's context, when sooner) and its answer
// bounded in size; anything but a whole, well-formed answer is an
// *EndpointError, so a caller never acts on half of one.

// Failure is how a call to an endpoint failed.
type Failure int

// The failures.
const (
	// Timeout: no whole answer within the time allowed.
	Timeout Failure = iota + 1
	// Unreachable: no connection (refused, no route, no such host).
	Unreachable
	// Cancelled: the caller gave up (the client that asked went away).
	Cancelled
	// Refused: 401 or 403, the key is missing or wrong.
	Refused
	// NotFound: 404, the base URL (or the model) is wrong.
	NotFound
	// Failed: another status that is not a success.
	Failed
	// BadAnswer: a success whose body is not what the API promises
	// (garbage JSON, no text, no audio, too large).
	BadAnswer
)

// EndpointError is a call to a model endpoint that failed, said so a
// person can act on it: what was called, where, how it failed, and the
// endpoint's own words, if any.
type EndpointError struct {
	What    string // how the endpoint is named: "the speech-to-text endpoint"
	URL     string // the URL called, without credentials
	Failure Failure
	Status  int           // the HTTP status, when the endpoint answered
	Said    string        // the endpoint's own message, clipped
	Limit   time.Duration // for Timeout: the time the call was allowed
	Err     error         // the cause, when there is one
}

func (e *EndpointError) Error() string {
	at := e.What + " at " + e.URL
	status := statusText(e.Status) + colon(e.Said)
	switch e.Failure {
	case Timeout:
		return fmt.Sprintf("%s did not answer within %s", at, roundLimit(e.Limit))
	case Unreachable:
		return at + " cannot be reached" + colon(causeText(e.Err))
	case Cancelled:
		return "the call to " + at + " was cancelled"
	case Refused:
		return at + " refused the key (" + status + "); check the key"
	case NotFound:
		return at + " answered " + status + "; check the base URL (it usually ends in /v1) and the model"
	case BadAnswer:
		return at + " answered with " + e.Said
	}
	return at + " failed (" + status + ")"
}

// Unwrap is the cause.
func (e *EndpointError) Unwrap() error { return e.Err }

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprintf("status %d", code)
}

// roundLimit says a time limit as people read it: 30s, 1.5s, 200ms.
func roundLimit(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// causeText is a transport error without the method and URL that
// net/http puts before it (the message says the URL once).
func causeText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	if err == nil {
		return ""
	}
	return clip(err.Error())
}

// Bounds of what is read from an endpoint.
const (
	maxErrorBody  = 64 << 10 // an error's body, for its message
	maxSaid       = 200      // characters of an endpoint's message kept
	maxModelsBody = 8 << 20  // GET /models (a cloud service lists hundreds)
)

// userAgent names the hub to the endpoints it calls.
const userAgent = "bifrost"

// call is one request to an endpoint.
type call struct {
	what         string // how messages name the endpoint
	method, path string
	body         []byte
	contentType  string
	max          int64 // the largest answer read, in bytes
}

// answer is a success: its body, whole, and its content type.
type answer struct {
	body        []byte
	contentType string
}

// do makes the call and reads the whole answer: a success (2xx) no
// longer than c.max, or an *EndpointError.
func (e Endpoint) do(ctx context.Context, c call) (answer, error) {
	target := e.url(c.path)
	fail := &EndpointError{What: c.what, URL: redact(target)}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	fail.Limit = allowed(ctx)
	req, err := http.NewRequestWithContext(ctx, c.method, target, bytes.NewReader(c.body))
	if err != nil {
		fail.Failure, fail.Err = Unreachable, err
		return answer{}, fail
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	req.Header.Set("User-Agent", userAgent)
	e.authorize(req)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, transportFailure(ctx, fail, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return answer{}, statusFailure(fail, res)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, c.max+1))
	switch {
	case err != nil:
		return answer{}, transportFailure(ctx, fail, err)
	case int64(len(body)) > c.max:
		return answer{}, badAnswer(fail, fmt.Sprintf("more than %d bytes, more than the hub reads", c.max))
	}
	return answer{body: body, contentType: res.Header.Get("Content-Type")}, nil
}

// allowed is how long a call with ctx may take, from now.
func allowed(ctx context.Context) time.Duration {
	d, _ := ctx.Deadline() // do always sets one
	return time.Until(d)
}

// transportFailure says why no whole answer came.
func transportFailure(ctx context.Context, fail *EndpointError, err error) error {
	fail.Err = err
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		fail.Failure = Timeout
	case ctx.Err() != nil:
		fail.Failure = Cancelled
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			fail.Failure = Timeout
		} else {
			fail.Failure = Unreachable
		}
	}
	return fail
}

// statusFailure says what an answer that is not a success means, in the
// endpoint's own words when it gives some.
func statusFailure(fail *EndpointError, res *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	fail.Status, fail.Said = res.StatusCode, saidIn(body)
	switch res.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		fail.Failure = Refused
	case http.StatusNotFound:
		fail.Failure = NotFound
	default:
		fail.Failure = Failed
	}
	return fail
}

// badAnswer is a success that does not hold what the API promises;
// what says what it held instead.
func badAnswer(fail *EndpointError, what string) error {
	fail.Failure, fail.Said = BadAnswer, what
	return fail
}

// saidIn finds the message in an error's body, as the servers that speak
// this API put it: OpenAI's {"error": {"message"}}, {"error": "…"},
// FastAPI's {"detail": "…"} or {"detail": [{"msg"}]}, {"message": "…"};
// or the first line of a plain text.
func saidIn(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return plainText(body)
	}
	for _, raw := range []json.RawMessage{v.Error, v.Detail} {
		if s := messageIn(raw); s != "" {
			return clip(s)
		}
	}
	return clip(v.Message)
}

// messageIn reads a message given as a string, as {"message"}, or as a
// list of {"msg"}.
func messageIn(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return list[0].Msg
	}
	return ""
}

// plainText is the first line of body when it is text, "" when not.
func plainText(body []byte) string {
	if !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if strings.HasPrefix(line, "<") { // an HTML error page says nothing useful in its first line
		return ""
	}
	return clip(line)
}

// clip keeps the first maxSaid characters of s, without control
// characters.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if utf8.RuneCountInString(s) <= maxSaid {
		return s
	}
	return string([]rune(s)[:maxSaid]) + "…"
}

// redact drops any password from a URL before it is shown.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that cannot be parsed)"
	}
	return u.Redacted()
}

// Probe asks ep which models it serves (GET {base}/models), by id: the
// Test of an endpoint in Settings. It fails as the calls do: unreachable, a key
// refused, an answer that is not a list of models.
func Probe(ctx context.Context, ep Endpoint) ([]string, error) {
	a, err := ep.do(ctx, call{what: "the endpoint", method: http.MethodGet, path: "/models", max: maxModelsBody})
	if err != nil {
		return nil, err
	}
	var list struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil || list.Data == nil {
		return nil, badAnswer(&EndpointError{What: "the endpoint", URL: redact(ep.url("/models"))},
			"something other than a list of models ({\"data\": [{\"id\": …}]})")
	}
	ids := []string{}
	for _, d := range *list.Data {
		if d.ID != "" {
			ids = append(ids, d.ID)
		}
	}
	return ids, nil
}
