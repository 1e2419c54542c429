package espwire

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/flynn/noise"
)

// Prologue is what both sides mix into the Noise handshake: "NoiseAPIInit"
// and then the payload of the client's hello frame, as its two-byte
// length and its bytes. The client hello is empty, hence the two zero
// bytes.
const Prologue = "NoiseAPIInit\x00\x00"

func prologue(clientHello []byte) []byte {
	b := append([]byte("NoiseAPIInit"), byte(len(clientHello)>>8), byte(len(clientHello)))
	return append(b, clientHello...)
}

// NoiseProtocol is the one protocol a node offers, chosen by the first
// byte of its hello.
const NoiseProtocol = 0x01

// Handshake results, the first byte of a handshake frame's payload.
const (
	handshakeOK     = 0x00
	handshakeReject = 0x01
)

// Reasons a node gives when it refuses a handshake.
const (
	ReasonBadIndicator = "Bad indicator byte"
	ReasonMACFailure   = "Handshake MAC failure"
)

// ErrKeyMismatch: the node refused the handshake because the client's
// key is not the node's ("Handshake MAC failure").
var ErrKeyMismatch = errors.New("the API encryption key does not match")

// RejectError is a node's refusal of a handshake, with the reason it gave.
// It is ErrKeyMismatch when the reason is a MAC failure.
type RejectError struct{ Reason string }

func (e *RejectError) Error() string { return "the node refused the handshake: " + e.Reason }

// Is makes a MAC failure ErrKeyMismatch.
func (e *RejectError) Is(target error) bool {
	return target == ErrKeyMismatch && e.Reason == ReasonMACFailure
}

// ParseKey decodes a node's API key: 32 bytes in standard base64, as
// ESPHome's `api: encryption: key:` takes it.
func ParseKey(s string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(k) != 32 {
		return nil, errors.New("an API encryption key is 32 bytes in base64 (44 characters)")
	}
	return k, nil
}

// ServerHello is what a node says about itself before the handshake.
type ServerHello struct {
	Protocol byte
	Name     string // the node's name (firmware from 2022.2)
	MAC      string // 12 hex digits, no separators (firmware from 2025.4)
}

// AppendServerHello appends the payload of a node's hello: the protocol
// byte, then the name and the MAC address, each ended by a zero byte.
func AppendServerHello(b []byte, h ServerHello) []byte {
	b = append(b, h.Protocol)
	b = append(append(b, h.Name...), 0)
	return append(append(b, h.MAC...), 0)
}

// ParseServerHello reads a node's hello; older firmware sends only the
// protocol byte, or no MAC.
func ParseServerHello(p []byte) (ServerHello, error) {
	if len(p) == 0 {
		return ServerHello{}, fmt.Errorf("%w: empty server hello", ErrBadFrame)
	}
	h := ServerHello{Protocol: p[0]}
	parts := bytes.SplitN(p[1:], []byte{0}, 3)
	if len(parts) >= 2 {
		h.Name = string(parts[0])
	}
	if len(parts) == 3 {
		h.MAC = string(parts[1])
	}
	if h.Protocol != NoiseProtocol {
		return h, fmt.Errorf("%w: the node chose protocol 0x%02x", ErrBadFrame, h.Protocol)
	}
	return h, nil
}

// Codec reads and writes whole messages over one connection.
type Codec interface {
	ReadFrame() (Frame, error)
	// WriteFrames writes frames in one write. Not safe for concurrent use.
	WriteFrames(fs ...Frame) error
}

// Plain is the plaintext codec.
type Plain struct {
	R *bufio.Reader
	W io.Writer
}

func (p *Plain) ReadFrame() (Frame, error) { return ReadPlain(p.R) }

func (p *Plain) WriteFrames(fs ...Frame) error {
	var b []byte
	for _, f := range fs {
		b = AppendPlain(b, f)
	}
	_, err := p.W.Write(b)
	return err
}

// Noise is the encrypted codec, after the handshake.
type Noise struct {
	r        *bufio.Reader
	w        io.Writer
	enc, dec *noise.CipherState
}

// ReadFrame reads and decrypts one frame: inside, the type and the
// payload's length as two bytes big-endian each, then the payload.
func (n *Noise) ReadFrame() (Frame, error) {
	c, err := ReadNoiseFrame(n.r)
	if err != nil {
		return Frame{}, err
	}
	p, err := n.dec.Decrypt(c[:0], nil, c)
	if err != nil {
		return Frame{}, fmt.Errorf("%w: does not decrypt", ErrBadFrame)
	}
	if len(p) < 4 {
		return Frame{}, fmt.Errorf("%w: %d bytes decrypted", ErrBadFrame, len(p))
	}
	size := int(p[2])<<8 | int(p[3])
	if size > len(p)-4 {
		return Frame{}, fmt.Errorf("%w: payload of %d bytes in %d", ErrBadFrame, size, len(p)-4)
	}
	return Frame{Type: uint16(p[0])<<8 | uint16(p[1]), Data: p[4 : 4+size]}, nil
}

// maxSealed is the largest message that still fits a frame once the
// 16-byte tag and the 4-byte inner header are added.
const maxSealed = MaxPayload - 16 - 4

func (n *Noise) WriteFrames(fs ...Frame) error {
	var b []byte
	for _, f := range fs {
		if len(f.Data) > maxSealed {
			return fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, len(f.Data))
		}
		p := []byte{byte(f.Type >> 8), byte(f.Type), byte(len(f.Data) >> 8), byte(len(f.Data))}
		c, err := n.enc.Encrypt(nil, nil, append(p, f.Data...))
		if err != nil {
			return err
		}
		b = AppendNoiseFrame(b, c)
	}
	_, err := n.w.Write(b)
	return err
}

// ClientHello is the client's first frame: an empty Noise frame.
var ClientHello = []byte{IndicatorNoise, 0x00, 0x00}

func handshakeState(psk, prologue []byte, initiator bool, random io.Reader) (*noise.HandshakeState, error) {
	return noise.NewHandshakeState(noise.Config{
		CipherSuite:           noise.NewCipherSuite(noise.DH25519, noise.CipherChaChaPoly, noise.HashSHA256),
		Pattern:               noise.HandshakeNN,
		Initiator:             initiator,
		Prologue:              prologue,
		PresharedKey:          psk,
		PresharedKeyPlacement: 0,
		Random:                random,
	})
}

// ClientHandshake runs the client's side: its hello and first handshake
// message in one write, then the node's hello and its handshake reply.
// random is the source of the ephemeral key (nil: crypto/rand). A node
// without encryption answers with ErrPlaintextNode or closes; one with
// another key answers with a RejectError that is ErrKeyMismatch.
func ClientHandshake(r *bufio.Reader, w io.Writer, psk []byte, random io.Reader) (*Noise, ServerHello, error) {
	hs, err := handshakeState(psk, []byte(Prologue), true, random)
	if err != nil {
		return nil, ServerHello{}, err
	}
	msg, _, _, err := hs.WriteMessage([]byte{handshakeOK}, nil)
	if err != nil {
		return nil, ServerHello{}, err
	}
	if _, err := w.Write(AppendNoiseFrame(append([]byte(nil), ClientHello...), msg)); err != nil {
		return nil, ServerHello{}, err
	}
	p, err := ReadNoiseFrame(r)
	if err != nil {
		return nil, ServerHello{}, err
	}
	hello, err := ParseServerHello(p)
	if err != nil {
		return nil, hello, err
	}
	p, err = readHandshake(r)
	if err != nil {
		return nil, hello, err
	}
	_, enc, dec, err := hs.ReadMessage(nil, p)
	if err != nil {
		return nil, hello, ErrKeyMismatch
	}
	if enc == nil {
		return nil, hello, fmt.Errorf("%w: handshake did not finish", ErrBadFrame)
	}
	return &Noise{r: r, w: w, enc: enc, dec: dec}, hello, nil
}

// readHandshake reads a handshake frame and returns its message, or the
// node's refusal as a *RejectError.
func readHandshake(r *bufio.Reader) ([]byte, error) {
	p, err := ReadNoiseFrame(r)
	if err != nil {
		return nil, err
	}
	switch {
	case len(p) == 0:
		return nil, fmt.Errorf("%w: empty handshake frame", ErrBadFrame)
	case p[0] == handshakeReject:
		return nil, &RejectError{Reason: string(p[1:])}
	case p[0] != handshakeOK:
		return nil, fmt.Errorf("%w: handshake frame begins 0x%02x", ErrBadFrame, p[0])
	}
	return p[1:], nil
}

// AppendReject appends a node's refusal of a handshake: a Noise frame
// whose payload is 0x01 and the reason.
func AppendReject(b []byte, reason string) []byte {
	return AppendNoiseFrame(b, append([]byte{handshakeReject}, reason...))
}

// ServerHandshake runs a node's side once its first byte showed the Noise
// indicator: it reads the client's hello, sends its own, reads the
// client's handshake message and answers it. A message that does not
// authenticate under psk is refused with "Handshake MAC failure" and
// ErrKeyMismatch returned.
func ServerHandshake(r *bufio.Reader, w io.Writer, psk []byte, hello ServerHello, random io.Reader) (*Noise, error) {
	clientHello, err := ReadNoiseFrame(r)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(AppendNoiseFrame(nil, AppendServerHello(nil, hello))); err != nil {
		return nil, err
	}
	p, err := readHandshake(r)
	if err != nil {
		return nil, err
	}
	hs, err := handshakeState(psk, prologue(clientHello), false, random)
	if err != nil {
		return nil, err
	}
	if _, _, _, err := hs.ReadMessage(nil, p); err != nil {
		_, _ = w.Write(AppendReject(nil, ReasonMACFailure))
		return nil, ErrKeyMismatch
	}
	msg, dec, enc, err := hs.WriteMessage([]byte{handshakeOK}, nil)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(AppendNoiseFrame(nil, msg)); err != nil {
		return nil, err
	}
	return &Noise{r: r, w: w, enc: enc, dec: dec}, nil
}
