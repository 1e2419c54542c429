package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// Register mounts the MCP routes on e: /mcp (Streamable HTTP), /sse and
// /message (legacy HTTP+SSE); NeewerLite's tool set at /mcp/neewerlite,
// /mcp/neewerlite/sse and /mcp/neewerlite/message; and quick JSON 404s for
// the OAuth probes.
// Every other method on those paths is a 405 whose Allow header names the
// one each serves: this stateless endpoint opens no GET stream and has no
// session to DELETE.
func (s *Server) Register(e *echo.Echo) {
	s.mount(e, "/mcp", "/sse", "/message")
	nl := s.neewerLite
	nl.mount(e, NeewerLitePath, NeewerLitePath+"/sse", NeewerLitePath+"/message", nl.unknownTools)
	for _, path := range []string{"/.well-known/*", "/register", "/authorize", "/token"} {
		e.Any(path, noOAuth)
	}
}

// mount routes the server's transports: Streamable HTTP at post, the
// legacy SSE stream at sse and its messages at message, each behind the
// guard and then mw.
func (s *Server) mount(e *echo.Echo, post, sse, message string, mw ...echo.MiddlewareFunc) {
	s.only(e, post, http.MethodPost, s.post, mw...)
	s.only(e, sse, http.MethodGet, echo.WrapHandler(s.sse.SSEHandler()), s.countStream)
	s.only(e, message, http.MethodPost, echo.WrapHandler(s.sse.MessageHandler()), append([]echo.MiddlewareFunc{s.ownSession}, mw...)...)
}

// only routes method on path to h, behind the guard and mw, and every
// other method, behind the guard, to a 405 that allows method alone.
// (Echo's own 405 would list every method routed, the refusals among
// them.) The handlers are wrapped once, here: Echo would wrap a route's
// middleware anew on every request.
func (s *Server) only(e *echo.Echo, path, method string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	e.Any(path, s.guard(methodNotAllowed(method)))
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	e.Add(method, path, s.guard(h))
}

// methodNotAllowed answers the methods a path does not serve.
func methodNotAllowed(allow string) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderAllow, allow)
		return echo.ErrMethodNotAllowed
	}
}

// post serves the Streamable HTTP transport: one JSON-RPC message, or a
// batch of them where the protocol revision has batches.
//
// Messages take the lean path: the body is read once and handed to
// MCPServer.HandleMessage, and the answer is written as JSON. Being
// stateless, the endpoint needs none of the per-request session,
// notification forwarder and SSE upgrade machinery of the library's HTTP
// transport. Requests of the sessionless 2026-07-28 revision get that
// revision's checks first, as the library's transport applies them
// (modern.go); what they ask of a session (subscriptions/listen and the
// like), and a client's answers, still go through that transport.
func (s *Server) post(c echo.Context) error {
	req := c.Request()
	if !isJSON(req.Header.Get(echo.HeaderContentType)) {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the JSON-RPC message as Content-Type: application/json")
	}
	buf := bodies.Get().(*bytes.Buffer)
	defer putBody(buf)
	if err := readBody(req, buf); err != nil {
		return err
	}
	body := buf.Bytes()
	if isBatch(body) {
		return s.serveBatch(c, buf)
	}
	var env envelope
	if err := env.read(body); err != nil {
		return s.writeMessage(c, buf, http.StatusBadRequest, unreadable(body, err))
	}
	if refused := refusal(env); refused != nil {
		return s.writeMessage(c, buf, statusOf(*refused), *refused)
	}
	if env.notification() {
		// A notification: this stateless server keeps nothing one could
		// change. (A notifications/cancelled could only name a request by
		// an id other clients use too; a request ends when its own
		// connection closes.)
		return c.NoContent(http.StatusAccepted)
	}
	if modern(req.Header, body) {
		if m, ok := readModern(req.Header, body, env); ok {
			return s.serveModern(c, buf, m)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		s.stream.ServeHTTP(c.Response(), req)
		return nil
	}
	answer, status := s.answer(req, body, env)
	if answer == nil {
		return c.NoContent(http.StatusAccepted)
	}
	return s.writeMessage(c, buf, status, answer)
}

// answer answers one message on the lean path, read as env and not
// refused (refusal): nil for a message that needs none (a notification,
// a client's response), else the answer to encode and its HTTP status.
func (s *Server) answer(req *http.Request, msg []byte, env envelope) (any, int) {
	if v := req.Header.Get(mcplib.HeaderProtocolVersion); v != "" && !mcplib.IsValidProtocolVersion(v) {
		return rpcError(env.id, mcplib.INVALID_REQUEST, fmt.Sprintf("Unsupported protocol version %q: use one of %s",
			wording.Clip(v), strings.Join(mcplib.LegacyProtocolVersions(), ", "))), http.StatusBadRequest
	}
	switch {
	case env.Method == "" && env.Result == nil && env.Error == nil:
		return rpcError(env.id, mcplib.INVALID_REQUEST, "A JSON-RPC message needs a method"), http.StatusBadRequest
	case env.Method == "" || env.notification():
		return nil, http.StatusAccepted // a notification, or an answer to a server request, of which there are none
	}
	key := ""
	if env.version2() {
		key = s.cacheKey(req, env)
	}
	gen := s.svc.Generation() // before the call: a change during it is seen next time
	if key != "" {
		if k, ok := s.kept(key, gen, env.id, env.RawID); ok {
			return k, http.StatusOK
		}
	}
	resp := s.mcp.HandleMessage(req.Context(), msg)
	if resp == nil {
		return nil, http.StatusAccepted
	}
	if key != "" {
		s.keep(key, gen, resp, false)
	}
	return resp, statusOf(resp)
}

// refusal is the error answer to a message this server refuses before the
// library sees it, or nil: a request whose id is null (only a
// notification goes without an id, and it leaves the id out), an id that
// is neither a string nor a number, or a pagination cursor this server
// never gave.
func refusal(env envelope) *mcplib.JSONRPCError {
	var e mcplib.JSONRPCError
	switch {
	case env.Method != "" && env.nullID:
		e = rpcError(nil, mcplib.INVALID_REQUEST, `A request's id must be a string or a number, not null; leave "id" out only for a notification, which gets no answer`)
	case !validID(env.id):
		e = rpcError(nil, mcplib.INVALID_REQUEST, "A JSON-RPC id is a string or a number")
	case listMethods[env.Method] && env.cursor() != "":
		e = rpcError(env.id, mcplib.INVALID_PARAMS, fmt.Sprintf("The cursor %q is not one this server gave: it answers %s in one page, so call it without a cursor",
			wording.Clip(env.cursor()), env.Method))
	default:
		return nil
	}
	return refused(e)
}

// refused is e on the heap, made only for a refusal.
func refused(e mcplib.JSONRPCError) *mcplib.JSONRPCError { return &e }

// listMethods are the methods that take a pagination cursor. This server
// lists everything in one page, so it never gives one out.
var listMethods = map[string]bool{
	string(mcplib.MethodToolsList): true, string(mcplib.MethodResourcesList): true,
	string(mcplib.MethodResourcesTemplatesList): true, string(mcplib.MethodPromptsList): true,
	"tasks/list": true,
}

// unreadable answers a body that is not one JSON-RPC message.
func unreadable(body []byte, err error) mcplib.JSONRPCError {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return rpcError(nil, mcplib.PARSE_ERROR, httpjson.Malformed(syntax))
	case errors.Is(err, io.ErrUnexpectedEOF) || len(bytes.TrimSpace(body)) == 0:
		return rpcError(nil, mcplib.PARSE_ERROR, "Malformed JSON: the body ends before the message does")
	}
	return rpcError(nil, mcplib.INVALID_REQUEST, "The body is not a JSON-RPC message: send one object with jsonrpc, id, method and params")
}

// envelope is what the lean path reads of a message before handing it on.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	RawID   json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  params          `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`

	hasID  bool // the message has an id, null or not
	nullID bool // its id is null
	id     any  // its id, decoded

	// call is the params as the lean path reads them, when quickRead read
	// them with the envelope (callRead); else each reader reads Params.
	call     modernParams
	callRead bool
}

// params is a message's params as sent, and how many of its members
// encoding/json took for params (in any case of its letters): with more
// than one the raw is the last, while a decoder into a struct merges them
// all, as the library's reading of _meta does.
type params struct {
	raw json.RawMessage
	n   int
}

func (p *params) UnmarshalJSON(b []byte) error {
	p.raw = append(p.raw[:0], b...)
	p.n++
	return nil
}

// read reads msg into env: in one pass when it has the shape quickRead
// reads, else with encoding/json.
func (env *envelope) read(msg []byte) error {
	if env.quickRead(msg) {
		return nil
	}
	if err := json.Unmarshal(msg, env); err != nil {
		return err
	}
	env.hasID = len(env.RawID) > 0
	env.nullID = bytes.Equal(env.RawID, []byte("null"))
	if env.hasID && !env.nullID {
		if err := json.Unmarshal(env.RawID, &env.id); err != nil {
			return err
		}
	}
	return nil
}

// version2 reports whether the message says it is JSON-RPC 2.0, which
// HandleMessage checks before anything else (so a kept answer is given
// only then).
func (env envelope) version2() bool {
	if bytes.Equal(env.JSONRPC, []byte(`"`+mcplib.JSONRPC_VERSION+`"`)) {
		return true
	}
	var v string
	return json.Unmarshal(env.JSONRPC, &v) == nil && v == mcplib.JSONRPC_VERSION
}

// notification reports whether the message is a notification: a method
// and no id.
func (env envelope) notification() bool { return env.Method != "" && !env.hasID }

// cursor is the pagination cursor the message's params carry, or "".
func (env envelope) cursor() string {
	var p struct {
		Cursor any `json:"cursor"`
	}
	if len(env.Params.raw) == 0 || json.Unmarshal(env.Params.raw, &p) != nil || p.Cursor == nil {
		return ""
	}
	if c, ok := p.Cursor.(string); ok {
		return c
	}
	b, _ := json.Marshal(p.Cursor)
	return string(b)
}

// validID reports whether id is a JSON-RPC id (or absent).
func validID(id any) bool {
	switch id.(type) {
	case nil, string, float64:
		return true
	}
	return false
}

// metaVersionKey marks a message of the sessionless revision in its body.
var metaVersionKey = []byte(`"` + mcplib.MetaKeyProtocolVersion + `"`)

// modern reports whether a message belongs to the 2026-07-28 revision (or
// a later one), by its header or by the version in its _meta. A false
// positive only costs the slower path.
func modern(h http.Header, body []byte) bool {
	return mcplib.IsModernProtocol(h.Get(mcplib.HeaderProtocolVersion)) || bytes.Contains(body, metaVersionKey)
}

func isJSON(contentType string) bool {
	if contentType == echo.MIMEApplicationJSON {
		return true // what clients send; parsing it makes a map
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == echo.MIMEApplicationJSON
}

// bodies recycles request buffers: HandleMessage copies what it keeps.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBody(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		b.Reset()
		bodies.Put(b)
	}
}

// readBody reads the request body into buf, refusing one over MaxBody
// (rendered as 413).
func readBody(req *http.Request, buf *bytes.Buffer) error {
	if req.ContentLength > MaxBody {
		return &http.MaxBytesError{Limit: MaxBody}
	}
	if req.ContentLength > 0 {
		buf.Grow(int(req.ContentLength))
	}
	if _, err := buf.ReadFrom(io.LimitReader(req.Body, MaxBody+1)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return echo.NewHTTPError(http.StatusBadRequest, "reading the request body failed")
	}
	if buf.Len() > MaxBody {
		return &http.MaxBytesError{Limit: MaxBody}
	}
	return nil
}

// statusOf is the HTTP status of an answer: a message that could not be
// read as a request is a 400, anything the server answered a 200.
func statusOf(m mcplib.JSONRPCMessage) int {
	if e, ok := m.(mcplib.JSONRPCError); ok && (e.Error.Code == mcplib.PARSE_ERROR || e.Error.Code == mcplib.INVALID_REQUEST) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func rpcError(id any, code int, msg string) mcplib.JSONRPCError {
	return mcplib.JSONRPCError{
		JSONRPC: mcplib.JSONRPC_VERSION,
		ID:      mcplib.NewRequestId(id),
		Error:   mcplib.NewJSONRPCErrorDetails(code, msg, nil),
	}
}

// writeMessage answers one JSON-RPC message as JSON, encoded into buf
// (whose content it replaces). A client that went away before the answer
// was written needs nothing more.
func (s *Server) writeMessage(c echo.Context, buf *bytes.Buffer, status int, m any) error {
	buf.Reset()
	if !s.appendMessage(buf, m) {
		status = http.StatusOK
	}
	return writeJSON(c, status, buf.Bytes())
}

// writeJSON answers body, JSON, with status. A client that went away
// before it was written needs nothing more.
func writeJSON(c echo.Context, status int, body []byte) error {
	w := c.Response()
	w.Header()[echo.HeaderContentType] = httpjson.JSONType
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}

// appendMessage encodes m, a JSON-RPC message or a kept answer, onto buf,
// with a newline. An error's message is said as a sentence and quotes
// little of what the caller sent. It reports false when m could not be
// encoded, and an internal error was written in its place.
func (s *Server) appendMessage(buf *bytes.Buffer, m any) bool {
	switch v := m.(type) {
	case keptAnswer:
		v.appendTo(buf)
		return true
	case mcplib.JSONRPCError:
		v.Error.Message = rpcMessage(v.Error.Message)
		m = v
	}
	start := buf.Len()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		s.log.Error("encoding an MCP answer", "err", err)
		buf.Truncate(start)
		_ = enc.Encode(rpcError(nil, mcplib.INTERNAL_ERROR, "Internal error"))
		return false
	}
	return true
}

// maxRPCMessage bounds a JSON-RPC error's message, in characters: the
// library's messages quote what the caller sent (a tool's name, a method)
// and are never long otherwise.
const maxRPCMessage = 300

// rpcMessage is a JSON-RPC error's message as this server says it: the
// library's "not found"s say where to look, and no word of it (an unknown
// method's name) or the whole runs long.
func rpcMessage(msg string) string {
	msg = sayNotFound(msg)
	words := strings.Split(clipQuoted(msg), " ")
	for i, w := range words {
		if utf8.RuneCountInString(w) > wording.MaxQuoted+8 { // room for a cut quote's marks
			words[i] = wording.Clip(w)
		}
	}
	msg = strings.Join(words, " ")
	if r := []rune(msg); len(r) > maxRPCMessage {
		msg = string(r[:maxRPCMessage]) + "…"
	}
	return wording.UpperFirst(msg)
}

// notFound are the library's answers to a name it does not know (its
// words around the name, as mcp-go writes them) and what this server
// says instead, around the same name.
var notFound = []struct{ pre, post, say, sayPost string }{
	{"tool ", " not found: tool not found", "There is no tool ", ": tools/list names them"},
	{"prompt ", " not found: prompt not found", "There is no prompt ", ": prompts/list names them"},
	{"handler not found for resource URI ", ": resource not found", "There is no resource ", ": resources/list names them"},
	{"Method ", " not found", "There is no method ", " in MCP"},
}

// sayNotFound says one of the library's not-found answers in this
// server's words; any other message as it is.
func sayNotFound(msg string) string {
	for _, nf := range notFound {
		rest, ok := strings.CutPrefix(msg, nf.pre)
		if !ok {
			continue
		}
		if name, ok := strings.CutSuffix(rest, nf.post); ok {
			return nf.say + name + nf.sayPost
		}
	}
	return msg
}

// newSSESession names a legacy SSE session and remembers which key opened
// it.
func (s *Server) newSSESession(_ context.Context, r *http.Request) (string, error) {
	p, ok := service.PrincipalFrom(r.Context())
	if !ok {
		return "", errors.New("no principal")
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	id := hex.EncodeToString(b)
	s.sseOwners.Store(id, p.ID)
	return id, nil
}

// countStream counts a legacy SSE stream against its key's cap, the one
// /api/v1/events counts against: past it the stream is refused with 429.
func (s *Server) countStream(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, _ := service.PrincipalFrom(c.Request().Context())
		release, err := s.streams.Hold(stream.Holder{Kind: stream.OfKey, ID: p.ID})
		if err != nil {
			return err
		}
		defer release()
		return next(c)
	}
}

// ownSession admits a legacy /message post only from the key that opened
// the session it names.
func (s *Server) ownSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.QueryParam("sessionId")
		p, _ := service.PrincipalFrom(c.Request().Context())
		if owner, ok := s.sseOwners.Load(id); !ok || owner != p.ID {
			return service.Errorf(service.ENOTFOUND, "No SSE session %q is open for this key: open one with GET /sse", wording.Clip(id))
		}
		return next(c)
	}
}

// clipQuoted cuts every quoted string in a library's message ("…" as Go quotes, or '…')
// longer than wording.MaxQuoted characters.
func clipQuoted(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		switch msg[i] {
		case '"':
			if q, err := strconv.QuotedPrefix(msg[i:]); err == nil {
				s, _ := strconv.Unquote(q)
				if utf8.RuneCountInString(s) > wording.MaxQuoted {
					b.WriteString(strconv.Quote(wording.Clip(s)))
				} else {
					b.WriteString(q)
				}
				i += len(q)
				continue
			}
		case '\'':
			// An opening quote (not an apostrophe) of a long string.
			if end := strings.IndexByte(msg[i+1:], '\''); end > wording.MaxQuoted && (i == 0 || msg[i-1] == ' ') {
				b.WriteString("'" + wording.Clip(msg[i+1:i+1+end]) + "'")
				i += end + 2
				continue
			}
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}
