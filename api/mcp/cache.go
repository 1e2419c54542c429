package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	mcplib "github.com/mark3labs/mcp-go/mcp"
)

// calls keeps the encoded result of read tools called without arguments
// (list_lights, get_home_state, …) with the model generation it was made
// at (service.Generation), per protocol revision (whose answers differ:
// 2026-07-28 adds resultType and the server's name), and gives it again while
// nothing a read shows has changed: an assistant that reads the house
// before every command costs one encoding a change, not one a call. The
// key check has run before (guard); the answer of a read tool does not
// depend on who asks.
type calls struct {
	mu   sync.Mutex
	kept map[string]keptResult

	readTools    sync.Map // a tool's name → whether it only reads (readTool)
	headerParams sync.Map // a tool's name → whether it has header parameters (Server.headerParams)
}

type keptResult struct {
	gen    uint64
	result json.RawMessage
}

// toolCall is what the cache reads of a tools/call's params.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// noArguments reports whether a call's arguments are none: absent, null or
// an empty object.
func noArguments(args json.RawMessage) bool {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || bytes.Equal(a, []byte("null")) {
		return true
	}
	inner, ok := bytes.CutPrefix(a, []byte("{"))
	return ok && bytes.Equal(bytes.TrimSpace(inner), []byte("}"))
}

// cacheKey is the key of a call whose result may be kept, or "".
func (s *Server) cacheKey(req *http.Request, env envelope) string {
	if env.Method != string(mcplib.MethodToolsCall) || len(env.Params.raw) == 0 {
		return ""
	}
	call := env.call.toolCall
	if !env.callRead && json.Unmarshal(env.Params.raw, &call) != nil {
		return ""
	}
	return s.callKey(call, req.Header.Get(mcplib.HeaderProtocolVersion))
}

// callKey is the key of call on protocol version, if its result may be
// kept, or "".
func (s *Server) callKey(call toolCall, version string) string {
	if !noArguments(call.Arguments) || !s.readTool(call.Name) {
		return ""
	}
	return call.Name + "\x00" + version
}

// readTool reports whether the tool called name only reads. The answer is
// remembered per name: the server's tools are all added in New.
func (s *Server) readTool(name string) bool {
	if r, ok := s.calls.readTools.Load(name); ok {
		return r.(bool)
	}
	t := s.mcp.GetTool(name)
	r := t != nil && t.Tool.Annotations.ReadOnlyHint != nil && *t.Tool.Annotations.ReadOnlyHint
	if t != nil {
		s.calls.readTools.Store(name, r) // never a name the server does not have
	}
	return r
}

// kept is the kept result for key at gen, as the answer to the request
// id (sent as rawID), if there is one.
func (s *Server) kept(key string, gen uint64, id any, rawID json.RawMessage) (keptAnswer, bool) {
	s.calls.mu.Lock()
	k, ok := s.calls.kept[key]
	s.calls.mu.Unlock()
	if !ok || k.gen != gen {
		return keptAnswer{}, false
	}
	idJSON := plainID(rawID)
	if idJSON == nil {
		var err error
		if idJSON, err = json.Marshal(mcplib.NewRequestId(id)); err != nil {
			return keptAnswer{}, false
		}
	}
	return keptAnswer{id: idJSON, result: k.result}, true
}

// plainID is a request's id as sent when encoding it again would give the
// same bytes (a small whole number, or a string of letters, digits and
// -_.:), else nil.
func plainID(raw json.RawMessage) json.RawMessage {
	digits := len(raw) > 0 && len(raw) <= 15 && (raw[0] != '0' || len(raw) == 1)
	for _, c := range raw {
		digits = digits && c >= '0' && c <= '9'
	}
	if digits {
		return raw
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil
	}
	for _, c := range raw[1 : len(raw)-1] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-_.:", c) >= 0) {
			return nil
		}
	}
	return raw
}

// keptAnswer is a kept result answering one request, written without
// encoding the result again.
type keptAnswer struct {
	id, result json.RawMessage
}

func (k keptAnswer) appendTo(buf *bytes.Buffer) {
	buf.WriteString(`{"jsonrpc":"` + mcplib.JSONRPC_VERSION + `","id":`)
	buf.Write(k.id)
	buf.WriteString(`,"result":`)
	buf.Write(k.result)
	buf.WriteString("}\n")
}

// keep remembers the result of a successful call for key at gen, encoded
// as the answer is written: with HTML characters escaped or not.
func (s *Server) keep(key string, gen uint64, resp mcplib.JSONRPCMessage, escapeHTML bool) {
	r, ok := resp.(mcplib.JSONRPCResponse)
	if !ok {
		return
	}
	if res, ok := r.Result.(*mcplib.CallToolResult); !ok || res.IsError {
		return // a tool error may be gone next time: always asked afresh
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML) // as writeMessage or writeModern encodes
	if enc.Encode(r.Result) != nil {
		return
	}
	result := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	s.calls.mu.Lock()
	if s.calls.kept == nil {
		s.calls.kept = map[string]keptResult{}
	}
	s.calls.kept[key] = keptResult{gen: gen, result: result}
	s.calls.mu.Unlock()
}
