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
	"sync"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/service"
)

// Register mounts the MCP routes on e: /mcp (Streamable HTTP), /sse and
// /message (legacy HTTP+SSE), and quick JSON 404s for the OAuth probes.
func (s *Server) Register(e *echo.Echo) {
	e.POST("/mcp", s.post, s.guard)
	e.GET("/mcp", methodNotAllowed, s.guard)
	e.DELETE("/mcp", methodNotAllowed, s.guard)
	e.GET("/sse", echo.WrapHandler(s.sse.SSEHandler()), s.guard)
	e.POST("/message", echo.WrapHandler(s.sse.MessageHandler()), s.guard, s.ownSession)
	for _, path := range []string{"/.well-known/*", "/register", "/authorize", "/token"} {
		e.Any(path, noOAuth)
	}
}

// post serves one JSON-RPC message of the Streamable HTTP transport.
//
// Messages of the protocol revisions that use initialize (through
// 2025-11-25, which every client speaks today) take the lean path: the
// body is read once and handed to MCPServer.HandleMessage, and the answer
// is written as JSON. Being stateless, the endpoint needs none of the
// per-request session, notification forwarder and SSE upgrade machinery
// of the library's HTTP transport. Messages of the sessionless 2026-07-28
// revision, whose transport rules (Mcp-Method and Mcp-Name headers checked
// against the body) only the library's transport applies, go through it.
func (s *Server) post(c echo.Context) error {
	req := c.Request()
	if !isJSON(req.Header.Get(echo.HeaderContentType)) {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "send the JSON-RPC message as Content-Type: application/json")
	}
	buf := bodies.Get().(*bytes.Buffer)
	defer putBody(buf)
	if err := readBody(req, buf); err != nil {
		return err
	}
	body := buf.Bytes()
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return s.writeMessage(c, buf, http.StatusBadRequest, unreadable(body, err))
	}
	if env.Method != "" && env.ID == nil {
		// A notification: this stateless server keeps nothing one could
		// change. (A notifications/cancelled could only name a request by
		// an id other clients use too; a request ends when its own
		// connection closes.)
		return c.NoContent(http.StatusAccepted)
	}
	if modern(req.Header, body) {
		req.Body = io.NopCloser(bytes.NewReader(body))
		s.stream.ServeHTTP(c.Response(), req)
		return nil
	}
	return s.serveMessage(c, buf, env)
}

// serveMessage answers the request in buf, read as env, on the lean path,
// reusing buf for the answer.
func (s *Server) serveMessage(c echo.Context, buf *bytes.Buffer, env envelope) error {
	req := c.Request()
	if v := req.Header.Get(mcplib.HeaderProtocolVersion); v != "" && !mcplib.IsValidProtocolVersion(v) {
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(env.ID, mcplib.INVALID_REQUEST, "unsupported protocol version "+v))
	}
	switch {
	case !validID(env.ID):
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(nil, mcplib.INVALID_REQUEST, "a JSON-RPC id is a string or a number"))
	case env.Method == "" && env.Result == nil && env.Error == nil:
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(env.ID, mcplib.INVALID_REQUEST, "a JSON-RPC message needs a method"))
	case env.Method == "":
		return c.NoContent(http.StatusAccepted) // an answer to a server request, of which there are none
	}
	key := s.cacheKey(req, env)
	gen := s.svc.Generation() // before the call: a change during it is seen next time
	if key != "" {
		if done, err := s.kept(c, buf, key, gen, env.ID); done {
			return err
		}
	}
	resp := s.mcp.HandleMessage(req.Context(), buf.Bytes())
	if resp == nil {
		return c.NoContent(http.StatusAccepted)
	}
	if key != "" {
		s.keep(key, gen, resp)
	}
	return s.writeMessage(c, buf, statusOf(resp), resp)
}

// unreadable answers a body that is not one JSON-RPC message.
func unreadable(body []byte, err error) mcplib.JSONRPCError {
	var syntax *json.SyntaxError
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		return rpcError(nil, mcplib.INVALID_REQUEST, "batches are not supported: send one JSON-RPC message per request")
	case errors.As(err, &syntax):
		return rpcError(nil, mcplib.PARSE_ERROR, fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, syntax))
	case errors.Is(err, io.ErrUnexpectedEOF) || len(bytes.TrimSpace(body)) == 0:
		return rpcError(nil, mcplib.PARSE_ERROR, "malformed JSON: the body ends before the message does")
	}
	return rpcError(nil, mcplib.INVALID_REQUEST, "the body is not a JSON-RPC message object")
}

// envelope is what the lean path reads of a message before handing it on.
type envelope struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
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
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		s.log.Error("encoding an MCP answer", "err", err)
		buf.Reset()
		_ = enc.Encode(rpcError(nil, mcplib.INTERNAL_ERROR, "internal error"))
		status = http.StatusOK
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
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

// ownSession admits a legacy /message post only from the key that opened
// the session it names.
func (s *Server) ownSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.QueryParam("sessionId")
		p, _ := service.PrincipalFrom(c.Request().Context())
		if owner, ok := s.sseOwners.Load(id); !ok || owner != p.ID {
			return service.Errorf(service.ENOTFOUND, "no SSE session %q is open for this key; open one with GET /sse", id)
		}
		return next(c)
	}
}
