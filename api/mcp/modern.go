package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The sessionless 2026-07-28 revision on the lean path.
//
// A request of that revision carries its protocol version twice, in the
// Mcp-Protocol-Version header and in its params' _meta, with the client's
// capabilities (and, if it likes, its name) beside it; and it names its
// method, and the tool, prompt or resource it asks for, in the Mcp-Method
// and Mcp-Name headers. mcp-go's HTTP transport checks all of that before
// handing the message to MCPServer.HandleMessage, and HandleMessage checks
// the headers again only when the transport put them in the context, under
// a key of its own. So the lean path applies the same checks, in the same
// order and with the same codes, statuses and words, and then hands the
// message on with what the transport puts in the context for it: the
// protocol versions it serves (for server/discover).
//
// The transport also gives each such request a session of its own, which
// lives as long as the request. The methods answered here never read it:
// no tool, prompt or resource of this server looks for a session, and the
// library reads one only for per-session tools and resources (there are
// none), for logging/setLevel and subscriptions, and to note the client's
// _meta on it. Those methods, and answers from the client, still go
// through the library's transport.

// modernMethods are the methods of the sessionless revision that the lean
// path answers. initialize and ping are among them: that revision removed
// both, and the library answers them as unknown.
var modernMethods = map[string]bool{
	string(mcplib.MethodToolsCall):              true,
	string(mcplib.MethodToolsList):              true,
	string(mcplib.MethodResourcesList):          true,
	string(mcplib.MethodResourcesRead):          true,
	string(mcplib.MethodResourcesTemplatesList): true,
	string(mcplib.MethodPromptsList):            true,
	string(mcplib.MethodPromptsGet):             true,
	string(mcplib.MethodServerDiscover):         true,
	string(mcplib.MethodInitialize):             true,
	string(mcplib.MethodPing):                   true,
}

// modernRequest is a request of the sessionless revision, as the lean path
// reads it.
type modernRequest struct {
	env     envelope
	body    []byte
	header  http.Header
	version string       // the Mcp-Protocol-Version header
	meta    *mcplib.Meta // params._meta, nil when absent or unreadable
	metaV   string       // the protocol version in meta, or ""

	// params is what the checks and the cache read of the params, read
	// once with meta; paramsOK says it was read so, without an error.
	// When it was not (no params, or a name that is not a string), each
	// reads the message its own way, as the library does.
	params   modernParams
	paramsOK bool
}

// modernParams is what the lean path reads of a request's params: the
// name (of a tool or prompt) or URI (of a resource) that Mcp-Name
// repeats, a tool call's arguments, and _meta.
type modernParams struct {
	toolCall
	URI  string       `json:"uri"`
	Meta *mcplib.Meta `json:"_meta"`
}

// readModern reads a message that modern took for the sessionless
// revision, and reports whether the lean path answers it: a request (not a
// client's answer) of a method in modernMethods, whose header or _meta
// really names that revision or a later one.
func readModern(h http.Header, body []byte, env envelope) (modernRequest, bool) {
	if !modernMethods[env.Method] || !env.hasID {
		return modernRequest{}, false
	}
	m := modernRequest{env: env, body: body, header: h, version: h.Get(mcplib.HeaderProtocolVersion)}
	m.readParams()
	m.metaV = m.meta.ProtocolVersion()
	return m, mcplib.IsModernProtocol(m.metaV) || mcplib.IsModernProtocol(m.version)
}

// readParams reads the params and their _meta in one pass. That is what
// the library reads, each in a pass of its own, when the message has one
// params member and the pass meets no error; otherwise _meta is read in
// the shape the library reads it in, so that a _meta it cannot read is
// missing here too, and the params are left to each check.
func (m *modernRequest) readParams() {
	if m.env.callRead {
		m.params, m.meta, m.paramsOK = m.env.call, m.env.call.Meta, true
		return
	}
	if m.env.Params.n == 1 && json.Unmarshal(m.env.Params.raw, &m.params) == nil {
		m.meta, m.paramsOK = m.params.Meta, true
		return
	}
	var wrapper struct {
		Params struct {
			Meta *mcplib.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(m.body, &wrapper) == nil {
		m.meta = wrapper.Params.Meta
	}
}

// plain reports whether HandleMessage takes the message for a request:
// version "2.0", and no result beside the method. Anything else it
// answers (or ignores) before any of the checks of the revision.
func (m modernRequest) plain() bool {
	return m.env.version2() && (len(m.env.Result) == 0 || bytes.Equal(m.env.Result, []byte("null")))
}

// serveModern answers a request of the sessionless revision on the lean
// path.
func (s *Server) serveModern(c echo.Context, buf *bytes.Buffer, m modernRequest) error {
	answer := s.modernAnswer(c.Request(), m)
	if answer == nil {
		return c.NoContent(http.StatusAccepted)
	}
	return s.writeModern(c, buf, answer)
}

// modernAnswer is the answer to m, or nil for none: the refusal of a
// request the revision's checks refuse, a kept answer, or the server's.
func (s *Server) modernAnswer(req *http.Request, m modernRequest) any {
	if refused := s.transportRefusal(m); refused != nil {
		return *refused
	}
	key := ""
	if m.plain() {
		if refused := s.messageRefusal(m); refused != nil {
			return *refused
		}
		key = s.modernKey(req, m)
	}
	gen := s.svc.Generation() // before the call: a change during it is seen next time
	if key != "" {
		if k, ok := s.kept(key, gen, m.env.id, m.env.RawID); ok {
			return k
		}
	}
	resp := s.mcp.HandleMessage(mcpserver.WithSupportedProtocolVersions(req.Context(), s.versions), m.body)
	if resp == nil {
		return nil
	}
	if key != "" {
		s.keep(key, gen, resp, true)
	}
	return resp
}

// modernKey is cacheKey for m, from the params as read once.
func (s *Server) modernKey(req *http.Request, m modernRequest) string {
	if !m.paramsOK {
		return s.cacheKey(req, m.env)
	}
	if m.env.Method != string(mcplib.MethodToolsCall) {
		return ""
	}
	return s.callKey(m.params.toolCall, m.version)
}

// transportRefusal is the library transport's refusal of m, or nil: a
// Last-Event-ID (streams are not resumable), a protocol version missing
// from the header or the _meta, or different in the two, or one this
// server does not serve.
func (s *Server) transportRefusal(m modernRequest) *mcplib.JSONRPCError {
	id, meta := m.env.id, m.metaV
	var e mcplib.JSONRPCError
	switch {
	case m.header.Get(mcplib.HeaderLastEventID) != "":
		e = transportError(id, mcplib.HEADER_MISMATCH, "Last-Event-ID is not supported in protocol version "+mcplib.ProtocolVersion20260728+
			": streams are not resumable, re-issue the request with a new ID")
	case m.version == "":
		e = transportError(id, mcplib.HEADER_MISMATCH, mcplib.HeaderProtocolVersion+" header is required for requests carrying "+mcplib.MetaKeyProtocolVersion)
	case meta == "":
		e = transportError(id, mcplib.INVALID_PARAMS, "missing or invalid _meta field "+mcplib.MetaKeyProtocolVersion)
	case m.version != meta:
		e = transportError(id, mcplib.HEADER_MISMATCH, mcplib.HeaderProtocolVersion+" header "+m.version+" does not match request "+
			mcplib.MetaKeyProtocolVersion+" "+meta)
	case !slices.Contains(s.versions, meta): // as s.stream.SupportsProtocolVersion
		e = mcplib.UnsupportedProtocolVersionError{Version: meta, Supported: s.versions}.JSONRPCError()
		e.ID = mcplib.NewRequestId(id)
	default:
		return nil
	}
	return &e
}

// transportError is an error answer as the library's transport writes
// one.
func transportError(id any, code int, msg string) mcplib.JSONRPCError {
	return mcplib.JSONRPCError{
		JSONRPC: mcplib.JSONRPC_VERSION,
		ID:      mcplib.NewRequestId(id),
		Error:   mcplib.JSONRPCErrorDetails{Code: code, Message: msg},
	}
}

// messageRefusal is HandleMessage's refusal of a plain request m of the
// revision, or nil: _meta without the client's capabilities, or
// Mcp-Method, Mcp-Name or a tool's Mcp-Param-* header missing or
// disagreeing with the body. (HandleMessage checks the headers only when
// the library's transport hands them over; it checks the capabilities
// itself, but a kept answer is given without it.)
func (s *Server) messageRefusal(m modernRequest) *mcplib.JSONRPCError {
	var err error
	if !hasCapabilities(m.meta) {
		err = errors.New("missing or invalid _meta field " + mcplib.MetaKeyClientCapabilities)
	} else {
		err = s.checkHeaders(m)
	}
	if err == nil {
		return nil
	}
	e := protocolError(m.env.id, err)
	return &e
}

// hasCapabilities reports whether meta carries the client's
// capabilities in a shape the library reads (Meta.ClientCapabilities is
// not nil). An empty object, which is what most requests carry, is taken
// as it is; anything else the library decodes.
func hasCapabilities(meta *mcplib.Meta) bool {
	if caps, ok := meta.GetMetaField(mcplib.MetaKeyClientCapabilities).(map[string]any); ok && len(caps) == 0 {
		return true
	}
	return meta.ClientCapabilities() != nil
}

// checkHeaders checks the revision's headers against the body of m, as
// HandleMessage does with the headers the library's transport gives it.
func (s *Server) checkHeaders(m modernRequest) error {
	method := mcplib.MCPMethod(m.env.Method)
	if err := m.checkStandardHeaders(method); err != nil {
		return err
	}
	if method != mcplib.MethodToolsCall {
		return nil
	}
	name, ok := m.toolName()
	if !ok || name == "" || !s.headerParams(name) {
		return nil
	}
	t := s.mcp.GetTool(name)
	if t == nil {
		return nil // the call answers that there is no such tool
	}
	return mcplib.ValidateParamHeadersLookup(func(name string) (string, bool) {
		v := m.header.Values(name)
		if len(v) == 0 {
			return "", false
		}
		return v[0], true
	}, &t.Tool, m.env.Params.raw)
}

// toolName is the name a tools/call's params give, and whether they could
// be read for it.
func (m modernRequest) toolName() (string, bool) {
	if m.paramsOK {
		return m.params.Name, true
	}
	var call struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal(m.env.Params.raw, &call)
	return call.Name, err == nil
}

// checkStandardHeaders is mcplib.ValidateStandardHeaders over the params
// as read once: Mcp-Method must name the body's method and, for a method
// that names a tool, prompt or resource, Mcp-Name (plain or in Base64)
// must name the same one. The errors are the library's, in its words.
func (m modernRequest) checkStandardHeaders(method mcplib.MCPMethod) error {
	if !mcplib.MethodRequiresNameHeader(method) || !mcplib.RequiresStandardHeaders(m.metaV) {
		return mcplib.ValidateStandardHeaders(m.header.Get, m.metaV, method, nil) // reads no params
	}
	switch h := m.header.Get(mcplib.HeaderMethod); {
	case h == "":
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderMethod, Reason: "missing required header"}
	case h != string(method):
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderMethod, Reason: fmt.Sprintf("header value %q does not match body value %q", h, method)}
	}
	h := m.header.Get(mcplib.HeaderName)
	if h == "" {
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderName, Reason: fmt.Sprintf("missing required header for method %q", method)}
	}
	name, ok := mcplib.DecodeHeaderValue(h)
	if !ok {
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderName, Reason: "invalid Base64 encoding"}
	}
	body, ok := m.bodyName(method)
	if !ok {
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderName, Reason: fmt.Sprintf("failed to extract name from parameters for method %q", method)}
	}
	if name != body {
		return mcplib.HeaderMismatchError{Header: mcplib.HeaderName, Reason: fmt.Sprintf("header value %q does not match body value %q", name, body)}
	}
	return nil
}

// bodyName is what Mcp-Name must say for method, from the params: a
// resource's URI, else a name.
func (m modernRequest) bodyName(method mcplib.MCPMethod) (string, bool) {
	switch {
	case !m.paramsOK:
		return mcplib.ExtractHeaderName(method, m.env.Params.raw)
	case method == mcplib.MethodResourcesRead:
		return m.params.URI, true
	}
	return m.params.Name, true
}

// headerParams reports whether the tool called name has parameters that
// travel in Mcp-Param-* headers too (x-mcp-header). The answer is
// remembered per name: the server's tools are all added in New.
func (s *Server) headerParams(name string) bool {
	if h, ok := s.calls.headerParams.Load(name); ok {
		return h.(bool)
	}
	t := s.mcp.GetTool(name)
	if t == nil {
		return false
	}
	h := len(mcplib.ExtractParamHeaderBindings(&t.Tool)) > 0
	s.calls.headerParams.Store(name, h)
	return h
}

// protocolError is the error answer HandleMessage gives for a request the
// revision's checks refuse with err.
func protocolError(id any, err error) mcplib.JSONRPCError {
	var unsupported mcplib.UnsupportedProtocolVersionError
	var mismatch mcplib.HeaderMismatchError
	var missing mcplib.MissingRequiredClientCapabilityError
	switch {
	case errors.As(err, &unsupported):
		e := unsupported.JSONRPCError()
		e.ID = mcplib.NewRequestId(id)
		return e
	case errors.As(err, &mismatch):
		return rpcError(id, mcplib.HEADER_MISMATCH, mismatch.Error())
	case errors.As(err, &missing):
		return rpcError(id, mcplib.MISSING_REQUIRED_CLIENT_CAPABILITY, missing.Error())
	}
	return rpcError(id, mcplib.INVALID_PARAMS, err.Error())
}

// modernStatus is the HTTP status the revision gives an answer: an error
// is a 404 or a 400 by its code, anything else a 200.
func modernStatus(m any) int {
	e, ok := m.(mcplib.JSONRPCError)
	if !ok {
		return http.StatusOK
	}
	switch e.Error.Code {
	case mcplib.METHOD_NOT_FOUND:
		return http.StatusNotFound
	case mcplib.HEADER_MISMATCH, mcplib.MISSING_REQUIRED_CLIENT_CAPABILITY, mcplib.UNSUPPORTED_PROTOCOL_VERSION,
		mcplib.INVALID_REQUEST, mcplib.INVALID_PARAMS, mcplib.PARSE_ERROR:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// writeModern writes an answer of the sessionless revision, encoded into
// buf as the library's transport encodes it (its words as they are, HTML
// characters escaped), so a client sees the same bytes on either path.
func (s *Server) writeModern(c echo.Context, buf *bytes.Buffer, m any) error {
	buf.Reset()
	status := modernStatus(m)
	if k, ok := m.(keptAnswer); ok {
		k.appendTo(buf)
	} else if err := json.NewEncoder(buf).Encode(m); err != nil {
		s.log.Error("encoding an MCP answer", "err", err)
		buf.Reset()
		_ = json.NewEncoder(buf).Encode(rpcError(nil, mcplib.INTERNAL_ERROR, "Internal error"))
		status = http.StatusOK
	}
	return writeJSON(c, status, buf.Bytes())
}
