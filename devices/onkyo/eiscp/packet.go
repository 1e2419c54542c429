// Package eiscp speaks Onkyo's Integra Serial Control Protocol over
// Ethernet (eISCP), as Onkyo, Integra and Pioneer receivers do on TCP and
// UDP port 60128: the packet format, the receiver's self-description, the
// input and network-service tables, and discovery. It knows nothing of the
// hub; package onkyo builds the adapter on it.
package eiscp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Port is the TCP and UDP port receivers listen on.
const Port = 60128

const (
	magic      = "ISCP"
	headerSize = 16
	version    = 0x01
	// maxData bounds one message; the receiver's NRI self-description is
	// the longest message, at tens of kilobytes.
	maxData = 1 << 20
)

// Unit types: the character after '!' in a message.
const (
	UnitReceiver = '1' // what a controller sends to a receiver, and what it answers
	UnitAny      = 'x' // discovery of Onkyo and Integra models
	UnitPioneer  = 'p' // discovery of Pioneer models
)

// Message is one ISCP message: a unit type, a three-letter command and its
// parameter ("PWR" "01").
type Message struct {
	Unit    byte
	Command string
	Param   string
}

// NewMessage is a message to a receiver.
func NewMessage(command, param string) Message {
	return Message{Unit: UnitReceiver, Command: command, Param: param}
}

// String is the command and parameter, "PWR01".
func (m Message) String() string { return m.Command + m.Param }

// Encode is the eISCP packet a controller sends: the 16-byte header, then
// "!", the unit, the command, the parameter and one CR.
func (m Message) Encode() []byte { return packet(m, true) }

// DiscoveryQuery is the packet a controller broadcasts to find receivers
// of a unit type (UnitAny or UnitPioneer): "!xECNQSTN" with no CR, as the
// reference implementations send it.
func DiscoveryQuery(unit byte) []byte {
	return packet(Message{Unit: unit, Command: "ECN", Param: "QSTN"}, false)
}

func packet(m Message, cr bool) []byte {
	unit := m.Unit
	if unit == 0 {
		unit = UnitReceiver
	}
	data := make([]byte, 0, 3+len(m.Command)+len(m.Param))
	data = append(data, '!', unit)
	data = append(data, m.Command...)
	data = append(data, m.Param...)
	if cr {
		data = append(data, '\r')
	}
	out := make([]byte, headerSize, headerSize+len(data))
	copy(out, magic)
	binary.BigEndian.PutUint32(out[4:], headerSize)
	binary.BigEndian.PutUint32(out[8:], uint32(len(data)))
	out[12] = version
	return append(out, data...)
}

// ErrMessage is returned for data that is not an ISCP message.
var ErrMessage = errors.New("eiscp: not an ISCP message")

// ParseMessage parses the data section of a packet: "!", the unit, the
// command, and the parameter up to the end-of-file mark (0x1A) or the line
// end, whichever comes first.
func ParseMessage(data []byte) (Message, error) {
	if len(data) < 5 || data[0] != '!' {
		return Message{}, fmt.Errorf("%w: %q", ErrMessage, clip(data))
	}
	param := data[5:]
	if i := bytes.IndexAny(param, "\x1a\r\n"); i >= 0 {
		param = param[:i]
	}
	return Message{Unit: data[1], Command: string(data[2:5]), Param: string(param)}, nil
}

func clip(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// Decode parses one whole packet (header and data).
func Decode(p []byte) (Message, error) {
	return NewReader(bytes.NewReader(p)).Read()
}

// Reader reads packets from a stream, resynchronising on the "ISCP" magic
// when it meets bytes that are not a header.
type Reader struct {
	r *bufio.Reader
}

// NewReader reads packets from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReader(r)} }

// Read returns the next message. Garbage before a header is skipped; a
// packet whose data is not an ISCP message is skipped too.
func (r *Reader) Read() (Message, error) {
	for {
		data, err := r.next()
		if err != nil {
			return Message{}, err
		}
		if m, err := ParseMessage(data); err == nil {
			return m, nil
		}
	}
}

// next returns the data section of the next packet. A header with
// impossible sizes is skipped, and reading resumes at the next magic.
func (r *Reader) next() ([]byte, error) {
	var h [headerSize - len(magic)]byte
	for {
		if err := r.sync(); err != nil {
			return nil, err
		}
		peek, err := r.r.Peek(len(h))
		if err != nil {
			return nil, unexpected(err)
		}
		copy(h[:], peek)
		if validHeader(h) {
			break
		}
	}
	r.r.Discard(len(h))
	hsize := binary.BigEndian.Uint32(h[0:])
	dsize := binary.BigEndian.Uint32(h[4:])
	if _, err := r.r.Discard(int(hsize - headerSize)); err != nil {
		return nil, unexpected(err)
	}
	data := make([]byte, dsize)
	if _, err := io.ReadFull(r.r, data); err != nil {
		return nil, unexpected(err)
	}
	return data, nil
}

func validHeader(h [headerSize - len(magic)]byte) bool {
	hsize := binary.BigEndian.Uint32(h[0:])
	dsize := binary.BigEndian.Uint32(h[4:])
	return hsize >= headerSize && hsize <= 64 && dsize <= maxData
}

// sync consumes bytes up to and including the next "ISCP".
func (r *Reader) sync() error {
	matched := 0
	for matched < len(magic) {
		b, err := r.r.ReadByte()
		if err != nil {
			if matched > 0 {
				return unexpected(err)
			}
			return err
		}
		switch {
		case b == magic[matched]:
			matched++
		case b == magic[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	return nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
