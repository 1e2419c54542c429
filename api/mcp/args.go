package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/jsonin"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// decodeArgs decodes a tool's arguments into v. Unknown arguments and
// values of the wrong type are refused in the tool's own words: the
// argument's name as the input schema spells it (never a Go type's), what
// it takes, and what came instead.
func decodeArgs(tool string, raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	args := reflect.TypeOf(v).Elem()
	var mismatch *json.UnmarshalTypeError
	if errors.As(err, &mismatch) {
		return wrongType(args, mismatch)
	}
	if name, ok := jsonin.UnknownField(err); ok {
		return unknownField(tool, args, raw, name)
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return service.Errorf(service.EINVALID, "The arguments are not valid JSON (%v): send them as an object", syntax)
	}
	// A value's own decoder refused it.
	return service.Errorf(service.EINVALID, "%s", wording.Clip(err.Error()))
}

// wrongType says which argument has a value of the wrong type, and what it
// takes.
func wrongType(args reflect.Type, e *json.UnmarshalTypeError) error {
	if e.Field == "" {
		return service.Errorf(service.EINVALID, `Give the arguments as an object, such as {"%s": …}, not %s`, firstArg(args), given(e.Value))
	}
	path := jsonPath(args, e.Field)
	return jsonin.WrongType(path, e.Type, given(e.Value))
}

// unknownField refuses an argument the tool does not take, listing those
// it does; a field of an object among the arguments (a rule's trigger) is
// named with where it is.
func unknownField(tool string, args reflect.Type, raw json.RawMessage, name string) error {
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	if _, ok := top[name]; ok || top == nil {
		names := argNames(args)
		if len(names) == 0 {
			return service.Errorf(service.EINVALID, "Unknown argument %q: %s takes no arguments", wording.Clip(name), tool)
		}
		return service.Errorf(service.EINVALID, "Unknown argument %q: %s takes %s", wording.Clip(name), tool, wording.JoinWords(names, "and"))
	}
	where := findKey(top, name)
	return service.Errorf(service.EINVALID, "Unknown field %q in %s: the tool's description says which fields each part takes", wording.Clip(name), where).With("field", where)
}

// firstArg is the name of an arguments struct's first field, for an
// example.
func firstArg(args reflect.Type) string {
	if names := argNames(args); len(names) > 0 {
		return names[0]
	}
	return "name"
}

// findKey is the path (trigger, actions[0]) of the first object among the
// arguments that has the key name, or "the arguments".
func findKey(top map[string]json.RawMessage, name string) string {
	for arg, raw := range top {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			if path, ok := keyPath(v, name, arg); ok {
				return path
			}
		}
	}
	return "the arguments"
}

func keyPath(v any, name, at string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[name]; ok {
			return at, true
		}
		for k, x := range v {
			if path, ok := keyPath(x, name, at+"."+k); ok {
				return path, true
			}
		}
	case []any:
		for i, x := range v {
			if path, ok := keyPath(x, name, fmt.Sprintf("%s[%d]", at, i)); ok {
				return path, true
			}
		}
	}
	return "", false
}

// jsonPath turns the Go path encoding/json reports for a field (which
// names an embedded struct by its type: "patchArgs.brightness") into the
// argument's path as the caller wrote it ("brightness").
func jsonPath(t reflect.Type, goPath string) string {
	var out []string
	for seg := range strings.SplitSeq(goPath, ".") {
		t = elem(t)
		if t.Kind() != reflect.Struct {
			out = append(out, seg)
			continue
		}
		if f, ok := t.FieldByName(seg); ok && f.Anonymous && jsonName(f) == "" {
			t = f.Type // an embedded struct: its fields are the parent's
			continue
		}
		out = append(out, seg)
		if f, ok := fieldByJSONName(t, seg); ok {
			t = f.Type
		}
	}
	return strings.Join(out, ".")
}

func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// argNames lists the JSON names of an arguments struct's fields,
// including those of embedded structs.
func argNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		switch name := jsonName(f); {
		case f.Anonymous && name == "":
			out = append(out, argNames(f.Type)...)
		case name != "":
			out = append(out, name)
		}
	}
	return out
}

// given says what came instead, from an UnmarshalTypeError's Value: a
// JSON kind ("string"), or a kind and the value itself ("number 40.5",
// `string "2 mins", which is not a duration`).
func given(value string) string {
	value, _, _ = strings.Cut(value, ", which ")
	kind, literal, _ := strings.Cut(value, " ")
	if literal != "" {
		if s, err := strconv.Unquote(literal); err == nil {
			return strconv.Quote(wording.Clip(s))
		}
		return wording.Clip(literal)
	}
	return jsonin.ValueKind(kind)
}

// rounded is a number argument that a whole number holds (brightness in
// percent, a colour temperature in kelvin): a fraction is rounded to the
// nearest.
type rounded int

// JSONKind says a rounded argument takes any number.
func (rounded) JSONKind() string { return "a number" }

func (n *rounded) UnmarshalJSON(b []byte) error {
	f, err := readNumber(b, reflect.TypeFor[rounded]())
	if err != nil {
		return err
	}
	*n = rounded(math.Round(f))
	return nil
}

// whole is a number argument that counts steps (a volume): 40 and 40.0
// are taken, 40.5 is refused.
type whole int

func (n *whole) UnmarshalJSON(b []byte) error {
	f, err := readNumber(b, reflect.TypeFor[whole]())
	if err != nil {
		return err
	}
	if f != math.Trunc(f) {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[whole]()}
	}
	*n = whole(f)
	return nil
}

// readNumber reads a JSON number that fits an int; anything else is an
// UnmarshalTypeError, to which encoding/json adds the argument's name.
func readNumber(b []byte, t reflect.Type) (float64, error) {
	b = bytes.TrimSpace(b)
	f, err := strconv.ParseFloat(string(b), 64)
	var kind string
	switch {
	case err == nil && math.Abs(f) <= math.MaxInt32:
		return f, nil
	case err == nil || (len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9')):
		kind = "number " + string(b) // too large to mean anything here
	case len(b) > 0 && b[0] == '"':
		kind = "string " + string(b)
	case len(b) > 0 && (b[0] == 't' || b[0] == 'f'):
		kind = "bool"
	case len(b) > 0 && b[0] == '[':
		kind = "array"
	default:
		kind = "object"
	}
	return 0, &json.UnmarshalTypeError{Value: kind, Type: t}
}

// ints converts an optional number argument for the service.
func ints[T ~int](p *T) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}
