package espwire

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded protobuf field: its number, its wire type, and its
// value (u for varint and fixed types, b for length-delimited ones).
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

func (f field) str() string {
	if f.typ != protowire.BytesType {
		return ""
	}
	return string(f.b)
}

func (f field) boolean() bool { return f.typ == protowire.VarintType && f.u != 0 }

func (f field) u32() uint32 {
	if f.typ != protowire.VarintType && f.typ != protowire.Fixed32Type {
		return 0
	}
	return uint32(f.u)
}

func (f field) i32() int32 { return int32(f.u32()) }

func (f field) u64() uint64 {
	if f.typ == protowire.BytesType {
		return 0
	}
	return f.u
}

// sint32 is a zigzag-encoded varint.
func (f field) sint32() int32 {
	if f.typ != protowire.VarintType {
		return 0
	}
	return int32(protowire.DecodeZigZag(f.u))
}

func (f field) float() float32 {
	if f.typ != protowire.Fixed32Type {
		return 0
	}
	return math.Float32frombits(uint32(f.u))
}

// varints is a repeated varint field's values, packed or not: an
// unpacked field gives one value per occurrence.
func (f field) varints() []uint64 {
	if f.typ == protowire.VarintType {
		return []uint64{f.u}
	}
	var out []uint64
	for b := f.b; len(b) > 0; {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return out
		}
		out = append(out, v)
		b = b[n:]
	}
	return out
}

// parse walks the fields of a message, calling fn for each; unknown
// fields are fn's to skip.
func parse(b []byte, fn func(field)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrBadFrame, protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.u = uint64(v)
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", ErrBadFrame, num, protowire.ParseError(n))
		}
		b = b[n:]
		fn(f)
	}
	return nil
}

// enc builds a message, leaving out fields at their default value as
// proto3 does.
type enc []byte

func (e enc) str(n protowire.Number, s string) enc {
	if s == "" {
		return e
	}
	e = protowire.AppendTag(e, n, protowire.BytesType)
	return protowire.AppendString(e, s)
}

func (e enc) strs(n protowire.Number, ss []string) enc {
	for _, s := range ss {
		e = protowire.AppendTag(e, n, protowire.BytesType)
		e = protowire.AppendString(e, s)
	}
	return e
}

func (e enc) bytes(n protowire.Number, b []byte) enc {
	if len(b) == 0 {
		return e
	}
	e = protowire.AppendTag(e, n, protowire.BytesType)
	return protowire.AppendBytes(e, b)
}

func (e enc) uint(n protowire.Number, v uint64) enc {
	if v == 0 {
		return e
	}
	e = protowire.AppendTag(e, n, protowire.VarintType)
	return protowire.AppendVarint(e, v)
}

// int32 encodes as proto3's int32 does: a negative value as ten bytes.
func (e enc) int32(n protowire.Number, v int32) enc { return e.uint(n, uint64(int64(v))) }

func (e enc) sint32(n protowire.Number, v int32) enc {
	if v == 0 {
		return e
	}
	e = protowire.AppendTag(e, n, protowire.VarintType)
	return protowire.AppendVarint(e, protowire.EncodeZigZag(int64(v)))
}

// msg writes a nested message, even an empty one: an element of a
// repeated field counts.
func (e enc) msg(n protowire.Number, m enc) enc {
	e = protowire.AppendTag(e, n, protowire.BytesType)
	return protowire.AppendBytes(e, m)
}

func (e enc) boolean(n protowire.Number, v bool) enc {
	if !v {
		return e
	}
	return e.uint(n, 1)
}

// fixed32 always writes the field: the entity keys are forced onto the
// wire even when zero.
func (e enc) fixed32(n protowire.Number, v uint32) enc {
	e = protowire.AppendTag(e, n, protowire.Fixed32Type)
	return protowire.AppendFixed32(e, v)
}

func (e enc) float(n protowire.Number, v float32) enc {
	if v == 0 {
		return e
	}
	return e.fixed32(n, math.Float32bits(v))
}

// Optional fields of command requests: a has_… flag and the value.

func (e enc) optBool(has, n protowire.Number, v *bool) enc {
	if v == nil {
		return e
	}
	return e.boolean(has, true).boolean(n, *v)
}

func (e enc) optFloat(has, n protowire.Number, v *float32) enc {
	if v == nil {
		return e
	}
	return e.boolean(has, true).float(n, *v)
}

func (e enc) optUint(has, n protowire.Number, v *uint32) enc {
	if v == nil {
		return e
	}
	return e.boolean(has, true).uint(n, uint64(*v))
}

func (e enc) optStr(has, n protowire.Number, v *string) enc {
	if v == nil {
		return e
	}
	return e.boolean(has, true).str(n, *v)
}

func ptr[T any](v T) *T { return &v }
