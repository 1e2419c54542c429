package espwire_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// unhex reads a vector written as spaced hex, with "|" allowed between
// parts for reading.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "|", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad vector %q: %v", s, err)
	}
	return b
}

func reader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

func TestPlainFrameVectors(t *testing.T) {
	long := bytes.Repeat([]byte{0xAA}, 200)
	cases := []struct {
		name  string
		frame espwire.Frame
		want  string
	}{
		// PingRequest: indicator, length 0, type 7.
		{"ping", espwire.Frame{Type: 7}, "00 | 00 | 07"},
		// A 200-byte payload: the length is the varint c8 01 (200 =
		// 0b1_1001000: low seven bits 0x48 with the continuation bit,
		// then 1).
		{"long", espwire.Frame{Type: 24, Data: long}, "00 | c8 01 | 18 |" + strings.Repeat("aa", 200)},
		// Type 61 (ListEntitiesButtonResponse) is one varint byte, 0x3d.
		{"type 61", espwire.Frame{Type: 61, Data: []byte{1, 2}}, "00 | 02 | 3d | 01 02"},
		// A type above 127 takes two bytes: 130 = 0x82 0x01.
		{"type 130", espwire.Frame{Type: 130}, "00 | 00 | 82 01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := unhex(t, c.want)
			got := espwire.AppendPlain(nil, c.frame)
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendPlain = % x, want % x", got, want)
			}
			back, err := espwire.ReadPlain(reader(want))
			if err != nil {
				t.Fatal(err)
			}
			if back.Type != c.frame.Type || !bytes.Equal(back.Data, c.frame.Data) {
				t.Fatalf("ReadPlain = %+v, want %+v", back, c.frame)
			}
		})
	}
}

func TestReadPlainRefuses(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want error
	}{
		// What a node that requires encryption sends to a plaintext
		// hello: a Noise frame refusing it ("Bad indicator byte").
		{"noise node", "01 00 13 01 426164", espwire.ErrNeedsEncryption},
		{"other indicator", "02 00 07", espwire.ErrBadIndicator},
		// Length 65536 = 80 80 04.
		{"huge length", "00 80 80 04 07", espwire.ErrFrameTooLarge},
		// Five varint bytes with the continuation bit: no node writes so.
		{"long varint", "00 80 80 80 80 01 07", espwire.ErrBadFrame},
		// Type 65536 does not fit the 16 bits of a Noise frame's type.
		{"huge type", "00 00 80 80 04", espwire.ErrBadFrame},
		// Two bytes announced, one sent.
		{"truncated", "00 02 07 01", io.ErrUnexpectedEOF},
		{"truncated header", "00 02", io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := espwire.ReadPlain(reader(unhex(t, c.in)))
			if !errors.Is(err, c.want) {
				t.Fatalf("ReadPlain(%s) = %v, want %v", c.in, err, c.want)
			}
		})
	}
	if _, err := espwire.ReadPlain(reader(nil)); err != io.EOF {
		t.Fatalf("ReadPlain at the end = %v, want io.EOF (a clean close)", err)
	}
}

func TestNoiseFrameVectors(t *testing.T) {
	// The client's hello: an empty Noise frame.
	if got := espwire.ClientHello; !bytes.Equal(got, unhex(t, "01 00 00")) {
		t.Fatalf("ClientHello = % x", got)
	}
	// A 300-byte payload: the length is 01 2c, big-endian.
	p := bytes.Repeat([]byte{0x55}, 300)
	got := espwire.AppendNoiseFrame(nil, p)
	if want := unhex(t, "01 | 01 2c |"+strings.Repeat("55", 300)); !bytes.Equal(got, want) {
		t.Fatalf("AppendNoiseFrame = % x", got[:8])
	}
	back, err := espwire.ReadNoiseFrame(reader(got))
	if err != nil || !bytes.Equal(back, p) {
		t.Fatalf("ReadNoiseFrame = %d bytes, %v", len(back), err)
	}

	// A node's refusal: 01, length 22, then 01 and "Handshake MAC failure".
	rej := espwire.AppendReject(nil, espwire.ReasonMACFailure)
	want := unhex(t, "01 | 00 16 | 01 | 48616e647368616b65204d4143206661696c757265")
	if !bytes.Equal(rej, want) {
		t.Fatalf("AppendReject = % x, want % x", rej, want)
	}

	// What a plaintext node of 2025 answers to a Noise hello: 0x00 and
	// "Bad indicator byte", no frame at all.
	_, err = espwire.ReadNoiseFrame(reader(append([]byte{0}, "Bad indicator byte"...)))
	if !errors.Is(err, espwire.ErrPlaintextNode) {
		t.Fatalf("ReadNoiseFrame(plaintext answer) = %v, want ErrPlaintextNode", err)
	}
	if _, err := espwire.ReadNoiseFrame(reader(unhex(t, "01 00 05 01 02"))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated Noise frame: %v", err)
	}
}

func TestServerHello(t *testing.T) {
	// Protocol 0x01, "kitchen" and a zero byte, the MAC and a zero byte.
	want := unhex(t, "01 | 6b69746368656e 00 | 616263646566303132333435 00")
	h := espwire.ServerHello{Protocol: 1, Name: "kitchen", MAC: "abcdef012345"}
	if got := espwire.AppendServerHello(nil, h); !bytes.Equal(got, want) {
		t.Fatalf("AppendServerHello = % x", got)
	}
	back, err := espwire.ParseServerHello(want)
	if err != nil || back != h {
		t.Fatalf("ParseServerHello = %+v, %v", back, err)
	}
	// Firmware before 2025.4 sends no MAC; before 2022.2 no name either.
	old, err := espwire.ParseServerHello(unhex(t, "01 6b69746368656e 00"))
	if err != nil || old.Name != "kitchen" || old.MAC != "" {
		t.Fatalf("hello without MAC = %+v, %v", old, err)
	}
	if _, err := espwire.ParseServerHello(unhex(t, "01")); err != nil {
		t.Fatalf("bare hello: %v", err)
	}
	if _, err := espwire.ParseServerHello(unhex(t, "02 00")); !errors.Is(err, espwire.ErrBadFrame) {
		t.Fatalf("unknown protocol: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	k, err := espwire.ParseKey(" AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= \n")
	if err != nil || len(k) != 32 || k[0] != 0 || k[31] != 31 {
		t.Fatalf("ParseKey = % x, %v", k, err)
	}
	for _, bad := range []string{"", "not base64!", "AAECAwQFBgcICQoLDA0ODw=="} {
		if _, err := espwire.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) took it", bad)
		}
	}
}

// FuzzReadPlain: any bytes from a node end in a frame or an error, never a
// panic, and no frame is larger than MaxPayload.
func FuzzReadPlain(f *testing.F) {
	f.Add([]byte{0, 0, 7})
	f.Add([]byte{0, 0xc8, 0x01, 0x18})
	f.Add([]byte{0, 0x80, 0x80, 0x04, 0x07})
	f.Add([]byte{1, 0, 0x13, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := reader(b)
		for {
			fr, err := espwire.ReadPlain(r)
			if err != nil {
				return
			}
			if len(fr.Data) > espwire.MaxPayload {
				t.Fatalf("frame of %d bytes", len(fr.Data))
			}
			if _, err := espwire.Decode(fr); err != nil && !errors.Is(err, espwire.ErrBadFrame) {
				t.Fatalf("Decode: %v is not ErrBadFrame", err)
			}
		}
	})
}

// FuzzReadNoise: the same for Noise frames.
func FuzzReadNoise(f *testing.F) {
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{1, 0xff, 0xff, 0})
	f.Add([]byte{0, 'B', 'a', 'd'})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := reader(b)
		for {
			p, err := espwire.ReadNoiseFrame(r)
			if err != nil {
				return
			}
			if len(p) > espwire.MaxPayload {
				t.Fatalf("frame of %d bytes", len(p))
			}
		}
	})
}
