package atvwire

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The helpers below write proto fields. Proto3 leaves out a scalar at its
// zero value; the "must" variants always write it (proto2 required
// fields). A present sub-message is always written, even when empty.

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return mustUint(b, num, v)
}

func mustUint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendInt writes an int32 as proto does: a negative one sign-extended
// to 64 bits.
func appendInt(b []byte, num protowire.Number, v int32) []byte {
	return appendUint(b, num, uint64(int64(v)))
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return mustUint(b, num, 1)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendMessage writes a sub-message that enc appends to a buffer.
func appendMessage(b []byte, num protowire.Number, enc func([]byte) []byte) []byte {
	return appendBytes(b, num, enc(nil))
}

// field is one decoded field: its number, and its value (v for a varint,
// raw for a length-delimited one).
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	raw []byte
}

func (f field) int32() int32 { return int32(f.v) }
func (f field) bool() bool   { return f.v != 0 }
func (f field) str() string  { return string(f.raw) }

// ErrMalformed is a message that does not parse.
var ErrMalformed = errors.New("atvwire: malformed message")

// walk calls fn for every varint and length-delimited field of b, in
// order; fields of other wire types are skipped.
func walk(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.raw, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", ErrMalformed, num, protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.VarintType && typ != protowire.BytesType {
			continue
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// isVarint and isBytes check a known field's wire type; a field with the
// wrong one is skipped, as an unknown field would be.
func (f field) isVarint() bool { return f.typ == protowire.VarintType }
func (f field) isBytes() bool  { return f.typ == protowire.BytesType }
