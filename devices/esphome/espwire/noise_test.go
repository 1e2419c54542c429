package espwire_test

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/curve25519"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

var (
	testKey  = bytes.Repeat([]byte{0x42}, 32)
	otherKey = bytes.Repeat([]byte{0x43}, 32)
	hello    = espwire.ServerHello{Protocol: 1, Name: "kitchen", MAC: "aabbccddeeff"}
)

// serve runs a node's side of the handshake on one end of a pipe.
func serve(t *testing.T, c net.Conn, psk []byte) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer c.Close()
		n, err := espwire.ServerHandshake(bufio.NewReader(c), c, psk, hello, nil)
		if err != nil {
			done <- err
			return
		}
		f, err := n.ReadFrame()
		if err == nil {
			// Echo the frame back, one type up, as a node answers a request.
			err = n.WriteFrames(espwire.Frame{Type: f.Type + 1, Data: f.Data})
		}
		done <- err
	}()
	return done
}

func TestNoiseHandshake(t *testing.T) {
	client, node := net.Pipe()
	defer client.Close()
	done := serve(t, node, testKey)

	n, h, err := espwire.ClientHandshake(bufio.NewReader(client), client, testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h != hello {
		t.Fatalf("server hello = %+v", h)
	}
	if err := n.WriteFrames(espwire.Encode(&espwire.PingRequest{})); err != nil {
		t.Fatal(err)
	}
	f, err := n.ReadFrame()
	if err != nil || f.Type != espwire.TypePingResponse {
		t.Fatalf("answer = %+v, %v", f, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNoiseWrongKey(t *testing.T) {
	client, node := net.Pipe()
	defer client.Close()
	done := serve(t, node, testKey)

	_, _, err := espwire.ClientHandshake(bufio.NewReader(client), client, otherKey, nil)
	var rej *espwire.RejectError
	if !errors.As(err, &rej) || rej.Reason != "Handshake MAC failure" || !errors.Is(err, espwire.ErrKeyMismatch) {
		t.Fatalf("client: %v, want the node's MAC failure", err)
	}
	if err := <-done; !errors.Is(err, espwire.ErrKeyMismatch) {
		t.Fatalf("node: %v", err)
	}
}

// TestNoiseAgainstSpec runs the client's side of
// Noise_NNpsk0_25519_ChaChaPoly_SHA256 written here from the Noise
// specification (rev. 34, §5 and §9) with nothing but SHA-256, HMAC,
// X25519 and ChaCha20-Poly1305, against the node's side in the package,
// and checks every byte the client sends.
func TestNoiseAgainstSpec(t *testing.T) {
	client, node := net.Pipe()
	defer client.Close()
	done := serve(t, node, testKey)
	r := bufio.NewReader(client)

	var s specState
	s.init("Noise_NNpsk0_25519_ChaChaPoly_SHA256", []byte("NoiseAPIInit\x00\x00"))
	// -> psk, e
	s.mixKeyAndHash(testKey)
	priv := bytes.Repeat([]byte{7}, 32)
	pub, _ := curve25519.X25519(priv, curve25519.Basepoint)
	s.mixHash(pub)
	s.mixKey(pub) // with a psk, e is also mixed into the key
	msg1 := append(append([]byte{0x00}, pub...), s.encryptAndHash(nil)...)

	// The client hello (an empty frame) and the first message in its frame:
	// 01 00 00 | 01 00 31 | 00, e (32 bytes), tag (16 bytes).
	out := append(append([]byte{}, espwire.ClientHello...), espwire.AppendNoiseFrame(nil, msg1)...)
	if len(out) != 3+3+49 || out[3] != 0x01 || out[4] != 0x00 || out[5] != 0x31 || out[6] != 0x00 {
		t.Fatalf("client's first write = % x", out[:8])
	}
	if _, err := client.Write(out); err != nil {
		t.Fatal(err)
	}
	p, err := espwire.ReadNoiseFrame(r)
	if err != nil || !bytes.Equal(p, espwire.AppendServerHello(nil, hello)) {
		t.Fatalf("server hello % x, %v", p, err)
	}
	// <- e, ee: 00, e (32 bytes), tag (16 bytes)
	p, err = espwire.ReadNoiseFrame(r)
	if err != nil || len(p) != 49 || p[0] != 0 {
		t.Fatalf("handshake reply % x, %v", p, err)
	}
	re := p[1:33]
	s.mixHash(re)
	s.mixKey(re)
	dh, _ := curve25519.X25519(priv, re)
	s.mixKey(dh)
	if _, err := s.decryptAndHash(p[33:]); err != nil {
		t.Fatalf("the node's reply does not authenticate: %v", err)
	}
	send, recv := s.split()

	// A PingRequest inside: type 00 07, length 00 00.
	c := sealAt(send, 0, []byte{0x00, 0x07, 0x00, 0x00})
	if _, err := client.Write(espwire.AppendNoiseFrame(nil, c)); err != nil {
		t.Fatal(err)
	}
	p, err = espwire.ReadNoiseFrame(r)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := openAt(recv, 0, p)
	if err != nil || !bytes.Equal(plain, []byte{0x00, 0x08, 0x00, 0x00}) {
		t.Fatalf("the node's answer = % x, %v", plain, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// specState is the Noise symmetric state, as the specification gives it.
type specState struct {
	ck, h, k []byte
	n        uint64
}

func (s *specState) init(name string, prologue []byte) {
	h := sha256.Sum256([]byte(name)) // the name is longer than 32 bytes
	s.h, s.ck = h[:], h[:]
	s.mixHash(prologue)
}

func (s *specState) mixHash(b []byte) {
	h := sha256.Sum256(append(append([]byte{}, s.h...), b...))
	s.h = h[:]
}

func hkdf(ck, ikm []byte, n int) [][]byte {
	mac := func(k, b []byte) []byte { m := hmac.New(sha256.New, k); m.Write(b); return m.Sum(nil) }
	tk := mac(ck, ikm)
	var out [][]byte
	prev := []byte{}
	for i := 1; i <= n; i++ {
		prev = mac(tk, append(append([]byte{}, prev...), byte(i)))
		out = append(out, prev)
	}
	return out
}

func (s *specState) mixKey(ikm []byte) {
	o := hkdf(s.ck, ikm, 2)
	s.ck, s.k, s.n = o[0], o[1], 0
}

func (s *specState) mixKeyAndHash(ikm []byte) {
	o := hkdf(s.ck, ikm, 3)
	s.ck = o[0]
	s.mixHash(o[1])
	s.k, s.n = o[2], 0
}

func nonce(n uint64) []byte {
	b := make([]byte, 12) // 32 zero bits, then n little-endian
	binary.LittleEndian.PutUint64(b[4:], n)
	return b
}

func sealAt(k []byte, n uint64, p []byte) []byte {
	a, _ := chacha20poly1305.New(k)
	return a.Seal(nil, nonce(n), p, nil)
}

func openAt(k []byte, n uint64, c []byte) ([]byte, error) {
	a, _ := chacha20poly1305.New(k)
	return a.Open(nil, nonce(n), c, nil)
}

func (s *specState) encryptAndHash(p []byte) []byte {
	a, _ := chacha20poly1305.New(s.k)
	c := a.Seal(nil, nonce(s.n), p, s.h)
	s.n++
	s.mixHash(c)
	return c
}

func (s *specState) decryptAndHash(c []byte) ([]byte, error) {
	a, _ := chacha20poly1305.New(s.k)
	p, err := a.Open(nil, nonce(s.n), c, s.h)
	s.n++
	s.mixHash(c)
	return p, err
}

func (s *specState) split() (initiatorToResponder, responderToInitiator []byte) {
	o := hkdf(s.ck, nil, 2)
	return o[0], o[1]
}
