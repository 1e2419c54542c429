// Package nwproto is the wire format of Neewer Bluetooth LE lights: the
// classic 0x78 frames, the "infinity" frames that embed the light's MAC
// address, and the NEEWER Home 0x7A frames; the checksum rule; the effect
// catalogues; and the decoder for what the lights send back.
//
// It is pure: no Bluetooth, no I/O, no state. The facts come from
// shared/PROTOCOLS.md §1, whose test vectors are this package's tests.
package nwproto

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Frame prefixes.
const (
	Prefix     = 0x78 // classic and infinity frames
	HomePrefix = 0x7A // NEEWER Home ("NH-…") frames
)

// Command tags of the classic family. The MAC tags wrap a classic tag as
// their sub-tag.
const (
	TagPower        = 0x81
	TagBrightness   = 0x82
	TagCCTOnly      = 0x83
	TagQueryChannel = 0x84
	TagQueryPower   = 0x85
	TagHSI          = 0x86
	TagCCT          = 0x87
	TagScene        = 0x88
	TagFX           = 0x8B
	TagMACPower     = 0x8D
	TagMACHSI       = 0x8F
	TagMACCCT       = 0x90
	TagMACFX        = 0x91
)

// Tags of the replies a light notifies.
const (
	ReplyChannel = 0x01
	ReplyPower   = 0x02
)

// NEEWER Home command ids.
const (
	HomeQuery      = 0x08
	HomePower      = 0x0A
	HomeBrightness = 0x0B
	HomeCCT        = 0x0C
	HomeHSI        = 0x0D
	HomeMusic      = 0x0E
	HomeScene      = 0x12
)

// MAC is a light's Bluetooth address, most significant byte first, as it
// is printed ("DF:24:3A:B4:46:5D") and as infinity frames carry it.
type MAC [6]byte

// ParseMAC reads "DF:24:3A:B4:46:5D" (also with '-' or no separators, in
// any case).
func ParseMAC(s string) (MAC, error) {
	var m MAC
	digits := strings.NewReplacer(":", "", "-", "").Replace(strings.TrimSpace(s))
	if len(digits) != 12 {
		return m, fmt.Errorf("bluetooth address %q: want six hex bytes like DF:24:3A:B4:46:5D", s)
	}
	if _, err := hex.Decode(m[:], []byte(digits)); err != nil {
		return m, fmt.Errorf("bluetooth address %q: want six hex bytes like DF:24:3A:B4:46:5D", s)
	}
	return m, nil
}

// String is the address as "DF:24:3A:B4:46:5D".
func (m MAC) String() string {
	return fmt.Sprintf("%02X:%02X:%02X:%02X:%02X:%02X", m[0], m[1], m[2], m[3], m[4], m[5])
}

// Checksum is the sum of every byte, modulo 256: the last byte of every
// frame is the checksum of the bytes before it.
func Checksum(b []byte) byte {
	var s byte
	for _, v := range b {
		s += v
	}
	return s
}

// Classic builds a classic frame: 0x78, tag, payload length, payload,
// checksum.
func Classic(tag byte, payload ...byte) []byte {
	return seal(append([]byte{Prefix, tag, byte(len(payload))}, payload...))
}

// WithMAC builds an infinity frame: 0x78, tag, length, the six MAC bytes, a
// sub-tag, payload, checksum. The length counts MAC, sub-tag and payload.
func WithMAC(tag byte, mac MAC, subtag byte, payload ...byte) []byte {
	b := append([]byte{Prefix, tag, byte(len(mac) + 1 + len(payload))}, mac[:]...)
	b = append(b, subtag)
	return seal(append(b, payload...))
}

// WithMACBare builds an infinity frame without a sub-tag, a layout seen
// in the wild for HSI (PROTOCOLS.md §1.5).
func WithMACBare(tag byte, mac MAC, payload ...byte) []byte {
	b := append([]byte{Prefix, tag, byte(len(mac) + len(payload))}, mac[:]...)
	return seal(append(b, payload...))
}

// Home builds a standard NEEWER Home frame: 0x7A, id, length, payload,
// checksum.
func Home(id byte, payload ...byte) []byte {
	return seal(append([]byte{HomePrefix, id, byte(len(payload))}, payload...))
}

// HomeLong builds a long NEEWER Home frame, whose length is two bytes,
// big-endian.
func HomeLong(id byte, payload ...byte) []byte {
	n := len(payload)
	return seal(append([]byte{HomePrefix, id, byte(n >> 8), byte(n)}, payload...))
}

// homeLong reports whether NEEWER Home frames with this id carry a
// two-byte length.
func homeLong(id byte) bool { return id == HomeHSI || id == HomeScene }

func seal(b []byte) []byte { return append(b, Checksum(b)) }

// Errors the decoder returns; each is wrapped with the offending bytes.
var (
	ErrShort    = errors.New("frame too short")
	ErrPrefix   = errors.New("not a Neewer frame")
	ErrLength   = errors.New("frame length does not match its size byte")
	ErrChecksum = errors.New("frame checksum is wrong")
)

// Frame is a decoded frame of either family.
type Frame struct {
	Prefix  byte
	Tag     byte // the tag (classic) or command id (NEEWER Home)
	Payload []byte
}

// Parse checks a frame's prefix, length and checksum and splits it into
// its parts. Frames of both families are accepted.
func Parse(b []byte) (Frame, error) {
	if len(b) < 4 {
		return Frame{}, fmt.Errorf("% X: %w", b, ErrShort)
	}
	if b[0] != Prefix && b[0] != HomePrefix {
		return Frame{}, fmt.Errorf("% X: %w", b, ErrPrefix)
	}
	head, n := 3, int(b[2])
	if b[0] == HomePrefix && homeLong(b[1]) {
		if len(b) < 5 {
			return Frame{}, fmt.Errorf("% X: %w", b, ErrShort)
		}
		head, n = 4, int(b[2])<<8|int(b[3])
	}
	if len(b) != head+n+1 {
		return Frame{}, fmt.Errorf("% X: %w", b, ErrLength)
	}
	last := len(b) - 1
	if Checksum(b[:last]) != b[last] {
		return Frame{}, fmt.Errorf("% X (checksum %02X, want %02X): %w", b, b[last], Checksum(b[:last]), ErrChecksum)
	}
	return Frame{Prefix: b[0], Tag: b[1], Payload: b[head:last]}, nil
}

// Split cuts a buffer holding one or more frames (a write may carry two,
// as the brightness + CCT pair does) into frames, checking each.
func Split(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("% X: %w", b, ErrShort)
		}
		size := 3 + int(b[2]) + 1
		if b[0] == HomePrefix && homeLong(b[1]) && len(b) >= 4 {
			size = 4 + (int(b[2])<<8 | int(b[3])) + 1
		}
		if size > len(b) {
			return nil, fmt.Errorf("% X: %w", b, ErrLength)
		}
		if _, err := Parse(b[:size]); err != nil {
			return nil, err
		}
		out = append(out, b[:size])
		b = b[size:]
	}
	return out, nil
}
