// Package jsonin is strict JSON input and the one wording of what was
// wrong with it: the kind of value a field takes, a field the target does
// not have, a value of the wrong type. Every surface that decodes JSON (the
// HTTP kit, MCP's arguments, automation actions) says these the same way;
// what it returns is a *service.Error, so each surface renders it as any
// other.
package jsonin

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/service"
)

// JSONKinder is a type that says what JSON it takes, for messages (a
// duration takes "15m" or a number of seconds).
type JSONKinder interface {
	JSONKind() string
}

var jsonKinderType = reflect.TypeFor[JSONKinder]()

// JSONKind describes the JSON a Go type takes, as messages say it: "a
// whole number", "a string", or what the type says of itself.
func JSONKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(jsonKinderType) {
		return reflect.Zero(t).Interface().(JSONKinder).JSONKind()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// UnknownField recognises encoding/json's error for a field the target
// does not have (it has no error type of its own) and names the field.
func UnknownField(err error) (string, bool) {
	msg := err.Error()
	i := strings.Index(msg, "unknown field ")
	if i < 0 {
		return "", false
	}
	rest := msg[i+len("unknown field "):]
	field, uerr := strconv.Unquote(rest)
	if uerr != nil {
		field = rest
	}
	return field, true
}

// DecodeError phrases encoding/json's error for a value decoded at path
// (a field's path, "" for the whole value) in the words a person acts on,
// or returns nil when it is not one of encoding/json's.
func DecodeError(err error, path string) *service.Error {
	var mismatch *json.UnmarshalTypeError
	join := func(field string) string {
		switch {
		case path == "":
			return field
		case field == "":
			return path
		}
		return path + "." + field
	}
	if errors.As(err, &mismatch) {
		at := join(mismatch.Field)
		if at == "" {
			return service.Errorf(service.EINVALID, "Send %s, not %s", JSONKind(mismatch.Type), ValueKind(mismatch.Value))
		}
		return WrongType(at, mismatch.Type, ValueKind(mismatch.Value))
	}
	if field, ok := UnknownField(err); ok {
		at := join(field)
		return service.Errorf(service.EINVALID, "Unknown field %q", at).With("field", at)
	}
	return nil
}

// WrongType is the one wording, on every surface, of a JSON value of the
// wrong type at field (its path as the caller wrote it): "Give brightness
// as a number, not a string". want is the Go type the value was decoded
// into (JSONKind says what it takes); got says what came instead, in the
// surface's words (ValueKind's, or the value itself).
func WrongType(field string, want reflect.Type, got string) *service.Error {
	return service.Errorf(service.EINVALID, "Give %s as %s, not %s", field, JSONKind(want), got).With("field", field)
}

// ValueKind says what came instead, from an UnmarshalTypeError's Value:
// "a string" for the bare kind, or the kind with the value as given.
func ValueKind(v string) string {
	switch v {
	case "bool":
		return "true or false"
	case "array", "object":
		return "an " + v
	case "string", "number":
		return "a " + v
	}
	return v
}
