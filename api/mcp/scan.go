package mcp

import (
	"strconv"
	"unicode/utf8"

	mcplib "github.com/mark3labs/mcp-go/mcp"
)

// A quick reading of a message in the shape clients send.
//
// encoding/json reads a message three times over on the lean path: the
// envelope, then the params (a tool's name, its arguments and _meta), and
// _meta into the map the library keeps it in. quickRead reads all of that
// in one pass, but only a message in a narrow shape, every part of which
// encoding/json reads in one way only:
//
//   - an object whose members are jsonrpc, id, method and params, each at
//     most once, named exactly so (encoding/json also takes a member named
//     in other letter cases, and the last of several);
//   - jsonrpc and method plain strings: no escapes, no control
//     characters, valid UTF-8 (encoding/json would change invalid UTF-8);
//   - an id that is a number strconv.ParseFloat reads (as encoding/json
//     does into an any; one out of range is its error) or a plain string;
//   - params an object whose members are name and uri (plain strings),
//     arguments (any value, kept as sent) and _meta (an object), each at
//     most once and named exactly so;
//   - in _meta, keys that are plain strings and values of any kind, with
//     strings plain, numbers that strconv.ParseFloat reads, and no deeper
//     than maxQuickDepth.
//
// Anything else, valid or not, is left to encoding/json: quickRead
// reports false and the message is read as before. What it reads is what
// encoding/json reads of such a message: the same raw bytes for jsonrpc,
// id, params and arguments, the same strings, the id as a float64 or a
// string, and _meta as mcplib.Meta.UnmarshalJSON makes it (a map of
// map[string]any, []any, float64, string, bool and nil, the last of a
// duplicated key kept, progressToken taken out).

// maxQuickDepth is the deepest nesting quickRead reads in _meta and
// arguments; a deeper message is read by encoding/json.
const maxQuickDepth = 32

// quickRead reads msg into env, params and all, when msg has the shape
// above, and reports whether it did; when it did not, env is unchanged.
// The raw members (jsonrpc, params, arguments) share msg's bytes, except
// the id, which is copied: an answer is written over the request's buffer,
// and a kept answer writes the id as sent.
func (env *envelope) quickRead(msg []byte) bool {
	s := scanner{b: msg}
	var e envelope
	var seen struct{ jsonrpc, id, method, params bool }
	if !s.next('{') {
		return false
	}
	for {
		key, ok := s.plain()
		if !ok || !s.next(':') {
			return false
		}
		switch string(key) {
		case "jsonrpc":
			start := s.at()
			if seen.jsonrpc {
				return false
			}
			if _, ok := s.plain(); !ok {
				return false
			}
			e.JSONRPC, seen.jsonrpc = msg[start:s.i], true
		case "id":
			if seen.id || !e.quickID(&s) {
				return false
			}
			seen.id = true
		case "method":
			m, ok := s.plain()
			if seen.method || !ok {
				return false
			}
			e.Method, seen.method = known(m), true
		case "params":
			start := s.at()
			if seen.params || !s.params(&e.call) {
				return false
			}
			e.Params = params{raw: msg[start:s.i], n: 1}
			e.callRead, seen.params = true, true
		default:
			return false
		}
		if s.next(',') {
			continue
		}
		if !s.next('}') || !s.end() {
			return false
		}
		break
	}
	e.hasID = seen.id
	*env = e
	return true
}

// quickID reads the id: a number or a plain string.
func (env *envelope) quickID(s *scanner) bool {
	start := s.at()
	if start < len(s.b) && s.b[start] == '"' {
		v, ok := s.plain()
		if !ok {
			return false
		}
		env.id = string(v)
	} else {
		n, ok := s.number()
		if !ok {
			return false
		}
		f, ok := parseNumber(n)
		if !ok {
			return false
		}
		env.id = f
	}
	env.RawID = append([]byte(nil), s.b[start:s.i]...)
	return true
}

// params reads a message's params into p.
func (s *scanner) params(p *modernParams) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	var seen struct{ name, uri, arguments, meta bool }
	for {
		key, ok := s.plain()
		if !ok || !s.next(':') {
			return false
		}
		switch string(key) {
		case "name":
			v, ok := s.plain()
			if seen.name || !ok {
				return false
			}
			p.Name, seen.name = string(v), true
		case "uri":
			v, ok := s.plain()
			if seen.uri || !ok {
				return false
			}
			p.URI, seen.uri = string(v), true
		case "arguments":
			start := s.at()
			if seen.arguments {
				return false
			}
			if _, ok := s.value(0, false); !ok {
				return false
			}
			p.Arguments, seen.arguments = s.b[start:s.i], true
		case "_meta":
			if seen.meta || s.at() >= len(s.b) || s.b[s.at()] != '{' {
				return false // null too: encoding/json leaves the pointer nil
			}
			v, ok := s.value(0, true)
			if !ok {
				return false
			}
			fields := v.(map[string]any)
			p.Meta = &mcplib.Meta{ProgressToken: fields["progressToken"], AdditionalFields: fields}
			delete(fields, "progressToken")
			seen.meta = true
		default:
			return false
		}
		if s.next(',') {
			continue
		}
		return s.next('}')
	}
}

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

// at skips white space and is where the next value starts.
func (s *scanner) at() int {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return s.i
		}
	}
	return s.i
}

// next reads c, after any white space, if it comes next.
func (s *scanner) next(c byte) bool {
	if i := s.at(); i < len(s.b) && s.b[i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether nothing but white space is left.
func (s *scanner) end() bool { return s.at() == len(s.b) }

// plain reads a plain string (no escapes, no control characters, valid
// UTF-8: one encoding/json reads as its bytes) and gives its content.
func (s *scanner) plain() ([]byte, bool) {
	start := s.at()
	if start >= len(s.b) || s.b[start] != '"' {
		return nil, false
	}
	for j := start + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[start+1 : j]
			if !utf8.Valid(v) {
				return nil, false
			}
			s.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// number reads a number as JSON writes one and gives its bytes.
func (s *scanner) number() ([]byte, bool) {
	start := s.at()
	j := start
	digits := func() bool {
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	switch {
	case j < len(s.b) && s.b[j] == '0':
		j++
	case !digits():
		return nil, false
	}
	if j < len(s.b) && s.b[j] == '.' {
		j++
		if !digits() {
			return nil, false
		}
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false
		}
	}
	s.i = j
	return s.b[start:j], true
}

// value reads any value in the shape quickRead takes, at depth, and when
// decode is set gives it as encoding/json decodes it into an any.
func (s *scanner) value(depth int, decode bool) (any, bool) {
	start := s.at()
	if start >= len(s.b) {
		return nil, false
	}
	switch c := s.b[start]; {
	case c == '{':
		return s.object(depth+1, decode)
	case c == '[':
		return s.array(depth+1, decode)
	case c == '"':
		v, ok := s.plain()
		if !ok || !decode {
			return nil, ok
		}
		return known(v), true
	case c == '-' || c >= '0' && c <= '9':
		n, ok := s.number()
		if !ok || !decode {
			return nil, ok
		}
		return parseNumber(n)
	}
	for _, lit := range [...]struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(s.b)-start >= len(lit.word) && string(s.b[start:start+len(lit.word)]) == lit.word {
			s.i = start + len(lit.word)
			return lit.v, true
		}
	}
	return nil, false
}

// object reads an object; decoded, it is a map[string]any in which the
// last of a duplicated key stands.
func (s *scanner) object(depth int, decode bool) (any, bool) {
	if depth > maxQuickDepth {
		return nil, false
	}
	s.i++ // {
	var m map[string]any
	if decode {
		m = map[string]any{}
	}
	if s.next('}') {
		return m, true
	}
	for {
		key, ok := s.plain()
		if !ok || !s.next(':') {
			return nil, false
		}
		v, ok := s.value(depth, decode)
		if !ok {
			return nil, false
		}
		if decode {
			m[known(key)] = v
		}
		if s.next(',') {
			continue
		}
		return m, s.next('}')
	}
}

// array reads an array; decoded, it is an []any, empty but not nil when
// the array is.
func (s *scanner) array(depth int, decode bool) (any, bool) {
	if depth > maxQuickDepth {
		return nil, false
	}
	s.i++ // [
	var a []any
	if decode {
		a = []any{}
	}
	if s.next(']') {
		return a, true
	}
	for {
		v, ok := s.value(depth, decode)
		if !ok {
			return nil, false
		}
		if decode {
			a = append(a, v)
		}
		if s.next(',') {
			continue
		}
		return a, s.next(']')
	}
}

// known is b as a string, without a copy for the method, the _meta keys
// and the protocol version most requests carry.
func known(b []byte) string {
	switch string(b) {
	case string(mcplib.MethodToolsCall):
		return string(mcplib.MethodToolsCall)
	case mcplib.MetaKeyProtocolVersion:
		return mcplib.MetaKeyProtocolVersion
	case mcplib.MetaKeyClientCapabilities:
		return mcplib.MetaKeyClientCapabilities
	case mcplib.MetaKeyClientInfo:
		return mcplib.MetaKeyClientInfo
	case mcplib.ProtocolVersion20260728:
		return mcplib.ProtocolVersion20260728
	}
	return string(b)
}

// parseNumber is the float64 encoding/json decodes n, a JSON number, to
// in an any (strconv.ParseFloat's, which fails out of range). A whole
// number of up to 15 digits is read as it is: below 2^53, it is exactly
// what ParseFloat gives.
func parseNumber(n []byte) (float64, bool) {
	if len(n) > 0 && len(n) <= 15 {
		v := int64(0)
		for _, c := range n {
			if c < '0' || c > '9' {
				f, err := strconv.ParseFloat(string(n), 64)
				return f, err == nil
			}
			v = v*10 + int64(c-'0')
		}
		return float64(v), true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}
