// Package atvwire speaks the Android TV Remote protocol v2 (PROTOCOLS.md
// §4.2): the varint-length framing both ports use, the polo pairing
// messages of the pairing port (6467), the remote messages of the control
// port (6466), the pairing secret, and what a TV's certificate says about
// it. It knows nothing of the hub; package androidtv is the adapter.
//
// Messages are encoded and decoded by hand with protowire: the field
// numbers are those of the ATV remotemessage.proto and polo.proto tables.
package atvwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxFrame bounds one message. The largest a TV sends are voice payloads
// of about 20 KB; anything near this is a broken stream.
const MaxFrame = 1 << 20

// AppendFrame appends msg to dst behind its varint length.
func AppendFrame(dst, msg []byte) []byte {
	dst = protowire.AppendVarint(dst, uint64(len(msg)))
	return append(dst, msg...)
}

// Frame is msg behind its varint length.
func Frame(msg []byte) []byte { return AppendFrame(make([]byte, 0, len(msg)+3), msg) }

// Reader reads framed messages from a stream, however the stream cuts
// them: a message split across reads, or several in one.
type Reader struct {
	br *bufio.Reader
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader { return &Reader{br: bufio.NewReader(r)} }

// ErrFrameTooLarge is a length prefix beyond MaxFrame.
var ErrFrameTooLarge = errors.New("atvwire: frame longer than 1 MiB")

// Next returns the next message, without its length prefix. A stream that
// ends between messages gives io.EOF; one that ends inside a message gives
// io.ErrUnexpectedEOF.
func (r *Reader) Next() ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		return nil, fmt.Errorf("atvwire: reading a frame length: %w", err)
	}
	if n > MaxFrame {
		return nil, ErrFrameTooLarge
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r.br, msg); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return msg, nil
}
