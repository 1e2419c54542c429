package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
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
}

type keptResult struct {
	gen    uint64
	result json.RawMessage
}

// toolCall is what the cache reads of a tools/call's params.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// cacheKey is the key of a call whose result may be kept, or "".
func (s *Server) cacheKey(req *http.Request, env envelope) string {
	if env.Method != string(mcplib.MethodToolsCall) || len(env.Params) == 0 {
		return ""
	}
	var call toolCall
	if json.Unmarshal(env.Params, &call) != nil || len(call.Arguments) > 0 {
		return ""
	}
	t := s.mcp.GetTool(call.Name)
	if t == nil || t.Tool.Annotations.ReadOnlyHint == nil || !*t.Tool.Annotations.ReadOnlyHint {
		return ""
	}
	return call.Name + "\x00" + req.Header.Get(mcplib.HeaderProtocolVersion)
}

// kept is the kept result for key at gen, as the answer to the request
// id, if there is one.
func (s *Server) kept(key string, gen uint64, id any) (keptAnswer, bool) {
	s.calls.mu.Lock()
	k, ok := s.calls.kept[key]
	s.calls.mu.Unlock()
	if !ok || k.gen != gen {
		return keptAnswer{}, false
	}
	idJSON, err := json.Marshal(mcplib.NewRequestId(id))
	if err != nil {
		return keptAnswer{}, false
	}
	return keptAnswer{id: idJSON, result: k.result}, true
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
