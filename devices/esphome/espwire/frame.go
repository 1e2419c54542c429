// Package espwire speaks ESPHome's native API (TCP 6053) as its nodes do:
// the plaintext frames, the Noise-encrypted frames and their handshake
// (Noise_NNpsk0_25519_ChaChaPoly_SHA256 with the node's API key as the
// pre-shared key), and the protobuf messages a client exchanges with a
// node, written from the field tables of ESPHome's api.proto. It knows
// nothing of the hub; package esphome builds the client on it, and
// package esphometest a node for tests.
package espwire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Port is the TCP port nodes listen on.
const Port = 6053

// Indicator bytes: the first byte of every frame.
const (
	IndicatorPlain = 0x00
	IndicatorNoise = 0x01
)

// MaxPayload bounds one message's payload in either framing: a Noise frame
// carries at most 65535 bytes in its 16-bit length, and nodes refuse a
// plaintext frame above the same size. A frame announcing more is refused
// before anything is allocated for it.
const MaxPayload = 0xFFFF

// maxVarintLen bounds the varints of a plaintext header: 65535 fits in
// three bytes, and a node writes no more; four leaves room for padding.
const maxVarintLen = 4

var (
	// ErrNeedsEncryption: a plaintext read met the Noise indicator, as a
	// node that requires encryption answers a plaintext hello.
	ErrNeedsEncryption = errors.New("the node requires the encrypted API")
	// ErrPlaintextNode: a Noise read met the plaintext indicator, as a node
	// without encryption answers a Noise hello ("\x00Bad indicator byte").
	ErrPlaintextNode = errors.New("the node speaks the plaintext API only")
	// ErrBadIndicator: a frame began with neither indicator.
	ErrBadIndicator = errors.New("bad indicator byte")
	// ErrFrameTooLarge: a frame announced more than MaxPayload bytes.
	ErrFrameTooLarge = errors.New("frame too large")
	// ErrBadFrame: a frame's header or its decrypted content is malformed.
	ErrBadFrame = errors.New("malformed frame")
)

// Frame is one message on the wire: its type (the option (id) of its
// message in api.proto) and its protobuf payload.
type Frame struct {
	Type uint16
	Data []byte
}

// AppendPlain appends f as a plaintext frame: 0x00, the payload's length
// as a varint, the type as a varint, the payload.
func AppendPlain(b []byte, f Frame) []byte {
	b = append(b, IndicatorPlain)
	b = appendVarint(b, uint64(len(f.Data)))
	b = appendVarint(b, uint64(f.Type))
	return append(b, f.Data...)
}

// ReadPlain reads one plaintext frame.
func ReadPlain(r *bufio.Reader) (Frame, error) {
	ind, err := r.ReadByte()
	if err != nil {
		return Frame{}, err
	}
	if err := checkIndicator(ind, IndicatorPlain); err != nil {
		return Frame{}, err
	}
	size, err := readVarint(r)
	if err != nil {
		return Frame{}, err
	}
	if size > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, size)
	}
	typ, err := readVarint(r)
	if err != nil {
		return Frame{}, err
	}
	if typ > 0xFFFF {
		return Frame{}, fmt.Errorf("%w: message type %d", ErrBadFrame, typ)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return Frame{}, unexpected(err)
	}
	return Frame{Type: uint16(typ), Data: data}, nil
}

// AppendNoiseFrame appends payload (a handshake message or an encrypted
// message) as a Noise frame: 0x01, its length as two bytes big-endian, the
// payload.
func AppendNoiseFrame(b, payload []byte) []byte {
	b = append(b, IndicatorNoise, byte(len(payload)>>8), byte(len(payload)))
	return append(b, payload...)
}

// ReadNoiseFrame reads one Noise frame's payload.
func ReadNoiseFrame(r *bufio.Reader) ([]byte, error) {
	var h [3]byte
	if _, err := io.ReadFull(r, h[:1]); err != nil {
		return nil, err
	}
	if err := checkIndicator(h[0], IndicatorNoise); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(r, h[1:]); err != nil {
		return nil, unexpected(err)
	}
	data := make([]byte, int(h[1])<<8|int(h[2]))
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, unexpected(err)
	}
	return data, nil
}

func checkIndicator(got, want byte) error {
	switch {
	case got == want:
		return nil
	case got == IndicatorNoise:
		return ErrNeedsEncryption
	case got == IndicatorPlain:
		return ErrPlaintextNode
	}
	return fmt.Errorf("%w 0x%02x", ErrBadIndicator, got)
}

// unexpected turns an EOF inside a frame into io.ErrUnexpectedEOF: the
// peer closed with half a frame sent.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func readVarint(r *bufio.Reader) (uint64, error) {
	var v uint64
	for i := 0; i < maxVarintLen; i++ {
		c, err := r.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		v |= uint64(c&0x7F) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: varint longer than %d bytes", ErrBadFrame, maxVarintLen)
}
