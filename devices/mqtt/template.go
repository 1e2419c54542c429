package mqtt

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// valueTemplate is the part of Home Assistant's Jinja value templates that
// discovery payloads use in practice: "{{ value }}" or a path into the JSON
// payload ("{{ value_json.a.b }}", "{{ value_json['a'] }}",
// "{{ value_json.list[0] }}"), optionally through the filters float, int,
// round(n), lower, upper, string, trim. Anything else (statements,
// conditionals, arithmetic) is refused when the entity is configured, so
// an entity is either read right or not at all.
type valueTemplate struct {
	raw     string
	json    bool  // reads value_json rather than value
	path    []any // string keys and int indexes
	filters []tplFilter
}

type tplFilter struct {
	name string
	arg  int
}

// parseTemplate compiles a template; "" reads the payload as it is.
func parseTemplate(s string) (*valueTemplate, error) {
	t := &valueTemplate{raw: s}
	s = strings.TrimSpace(s)
	if s == "" {
		return t, nil
	}
	inner, opened := strings.CutPrefix(s, "{{")
	inner, closed := strings.CutSuffix(inner, "}}")
	if !opened || !closed || strings.Contains(inner, "{{") || strings.Contains(inner, "{%") {
		return nil, fmt.Errorf("template %q is beyond what the hub evaluates", t.raw)
	}
	parts := strings.Split(inner, "|")
	if err := t.parsePath(strings.TrimSpace(parts[0])); err != nil {
		return nil, err
	}
	for _, f := range parts[1:] {
		filter, err := parseFilter(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("template %q: %w", t.raw, err)
		}
		t.filters = append(t.filters, filter)
	}
	return t, nil
}

func (t *valueTemplate) parsePath(expr string) error {
	if expr == "value" {
		return nil
	}
	rest, ok := strings.CutPrefix(expr, "value_json")
	if !ok {
		return fmt.Errorf("template %q is beyond what the hub evaluates", t.raw)
	}
	t.json = true
	for rest != "" {
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			key := rest[1 : end+1]
			if !isIdentifier(key) {
				return fmt.Errorf("template %q: bad key %q", t.raw, key)
			}
			t.path = append(t.path, key)
			rest = rest[end+1:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return fmt.Errorf("template %q: unclosed [", t.raw)
			}
			elem, err := pathElement(strings.TrimSpace(rest[1:end]))
			if err != nil {
				return fmt.Errorf("template %q: %w", t.raw, err)
			}
			t.path = append(t.path, elem)
			rest = rest[end+1:]
		default:
			return fmt.Errorf("template %q is beyond what the hub evaluates", t.raw)
		}
	}
	return nil
}

// pathElement reads 'key', "key" or an index.
func pathElement(s string) (any, error) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1], nil
	}
	i, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("bad index %q", s)
	}
	return i, nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func parseFilter(s string) (tplFilter, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSuffix(s, ")"), "(")
	f := tplFilter{name: strings.TrimSpace(name)}
	switch f.name {
	case "float", "int", "lower", "upper", "string", "trim":
		if hasArg && strings.TrimSpace(arg) != "" && f.name != "float" && f.name != "int" {
			return f, fmt.Errorf("filter %q takes no argument", f.name)
		}
		return f, nil
	case "round":
		f.arg = 0
		if hasArg && strings.TrimSpace(arg) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(arg))
			if err != nil {
				return f, fmt.Errorf("round(%s): want a number of digits", arg)
			}
			f.arg = n
		}
		return f, nil
	}
	return f, fmt.Errorf("filter %q is beyond what the hub evaluates", f.name)
}

// render evaluates the template against a payload. ok is false when the
// payload does not have what the template reads.
func (t *valueTemplate) render(payload []byte) (string, bool) {
	if t == nil || (!t.json && len(t.filters) == 0 && strings.TrimSpace(t.raw) == "") {
		return string(payload), true
	}
	var v any = string(payload)
	if t.json {
		dec := json.NewDecoder(strings.NewReader(string(payload)))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) != nil {
			return "", false
		}
		var ok bool
		if v, ok = walk(doc, t.path); !ok {
			return "", false
		}
	}
	for _, f := range t.filters {
		var ok bool
		if v, ok = applyFilter(f, v); !ok {
			return "", false
		}
	}
	return jinjaText(v)
}

func walk(v any, path []any) (any, bool) {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := v.([]any)
			if !ok || k < 0 || k >= len(l) {
				return nil, false
			}
			v = l[k]
		}
	}
	return v, true
}

func applyFilter(f tplFilter, v any) (any, bool) {
	switch f.name {
	case "float", "round":
		x, ok := number(v)
		if !ok {
			return nil, false
		}
		if f.name == "round" {
			p := math.Pow(10, float64(f.arg))
			x = math.Round(x*p) / p
		}
		return x, true
	case "int":
		x, ok := number(v)
		if !ok {
			return nil, false
		}
		return math.Trunc(x), true
	}
	s, ok := jinjaText(v)
	if !ok {
		return nil, false
	}
	switch f.name {
	case "lower":
		return strings.ToLower(s), true
	case "upper":
		return strings.ToUpper(s), true
	case "trim":
		return strings.TrimSpace(s), true
	}
	return s, true
}

// jinjaText renders a value the way Jinja prints it.
func jinjaText(v any) (string, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case json.Number:
		return x.String(), true
	case string:
		return x, true
	case nil:
		return "None", true
	}
	return "", false
}
