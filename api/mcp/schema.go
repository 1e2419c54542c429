package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// schema is a JSON Schema, written compactly: the whole tools/list answer
// must stay small enough for an assistant's context.
type schema map[string]any

// object is an object schema with the given properties, of which required
// must be present. Unknown properties are refused.
func object(props map[string]schema, required ...string) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// open is an object schema that may carry more than it lists (an output
// whose parts are optional).
func open(props map[string]schema) schema {
	return schema{"type": "object", "properties": props}
}

// anyObject is an object schema that says nothing of its properties (an
// output another tool's schema declares). Shared: never describe it; use
// told for an object schema with a description.
var anyObject = schema{"type": "object"}

// told is an object schema whose properties its description tells.
func told(desc string) schema {
	return described(schema{"type": "object"}, desc)
}

func str(desc string) schema {
	return described(schema{"type": "string"}, desc)
}

func boolean(desc string) schema {
	return described(schema{"type": "boolean"}, desc)
}

// number is a number schema, and integer an integer schema, from lo to
// hi; lo > hi means unbounded. Some clients' converters drop minimum and
// maximum (Gemini's), so the description of a bounded argument says its
// range too.
func number(desc string, lo, hi int) schema {
	return bounded("number", desc, lo, hi)
}

func integer(desc string, lo, hi int) schema {
	return bounded("integer", desc, lo, hi)
}

func bounded(typ, desc string, lo, hi int) schema {
	s := described(schema{"type": typ}, desc)
	if lo <= hi {
		s["minimum"], s["maximum"] = lo, hi
	}
	return s
}

func enum(desc string, values []string) schema {
	return described(schema{"type": "string", "enum": slices.Clone(values)}, desc)
}

func array(desc string, items schema) schema {
	return described(schema{"type": "array", "items": items}, desc)
}

func described(s schema, desc string) schema {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// with returns a copy of props with more properties.
func with(props map[string]schema, more map[string]schema) map[string]schema {
	out := maps.Clone(props)
	maps.Copy(out, more)
	return out
}

// raw encodes the schema; a schema that cannot be encoded is a bug in
// this package, found at start-up.
func (s schema) raw() json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: encoding a tool schema: %v", err))
	}
	return b
}

// noArgs is the input schema of a tool that takes no arguments.
var noArgs = object(map[string]schema{})

// props is an object schema's properties.
func (s schema) props() map[string]schema {
	p, _ := s["properties"].(map[string]schema)
	return p
}
