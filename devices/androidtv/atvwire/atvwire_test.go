package atvwire

import (
	"bytes"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// unhex reads a §4.2 vector ("06 52 04 …").
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unframe reads the one frame of b, which must hold nothing else.
func unframe(t *testing.T, b []byte) []byte {
	t.Helper()
	r := NewReader(bytes.NewReader(b))
	msg, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the frame: %v, want EOF", err)
	}
	return msg
}

// remoteVectors are §4.2's control-port vectors, framed.
var remoteVectors = []struct {
	name string
	msg  *RemoteMessage
	hex  string
}{
	{"DPAD_UP", NewKey(KeyDpadUp, Short), "06 52 04 08 13 10 03"},
	{"DPAD_DOWN", NewKey(KeyDpadDown, Short), "06 52 04 08 14 10 03"},
	{"DPAD_LEFT", NewKey(KeyDpadLeft, Short), "06 52 04 08 15 10 03"},
	{"DPAD_RIGHT", NewKey(KeyDpadRight, Short), "06 52 04 08 16 10 03"},
	{"DPAD_CENTER", NewKey(KeyDpadCenter, Short), "06 52 04 08 17 10 03"},
	{"BACK", NewKey(KeyBack, Short), "06 52 04 08 04 10 03"},
	{"HOME", NewKey(KeyHome, Short), "06 52 04 08 03 10 03"},
	{"MEDIA_PLAY_PAUSE", NewKey(KeyMediaPlayPause, Short), "06 52 04 08 55 10 03"},
	{"POWER", NewKey(KeyPower, Short), "06 52 04 08 1A 10 03"},
	{"POWER long start", NewKey(KeyPower, StartLong), "06 52 04 08 1A 10 01"},
	{"VOLUME_UP", NewKey(KeyVolumeUp, Short), "06 52 04 08 18 10 03"},
	{"VOLUME_DOWN", NewKey(KeyVolumeDown, Short), "06 52 04 08 19 10 03"},
	{"VOLUME_MUTE", NewKey(KeyVolumeMute, Short), "07 52 05 08 A4 01 10 03"},
	{"app link", NewAppLink("https://www.youtube.com"),
		"1C D2 05 19 0A 17 68 74 74 70 73 3A 2F 2F 77 77 77 2E 79 6F 75 74 75 62 65 2E 63 6F 6D"},
	{"ping response", NewPingResponse(5), "04 4A 02 08 05"},
	{"set_active 615", NewSetActive(DefaultFeatures), "05 12 03 08 E7 04"},
	{"configure reply", NewConfigureReply(DefaultFeatures),
		"1E 0A 1C 08 E7 04 12 17 18 01 22 01 31 2A 09 61 74 76 72 65 6D 6F 74 65 32 05 31 2E 30 2E 30"},
}

func TestRemoteVectors(t *testing.T) {
	if DefaultFeatures != 615 {
		t.Fatalf("DefaultFeatures = %d, want 615", DefaultFeatures)
	}
	for _, v := range remoteVectors {
		want := unhex(t, v.hex)
		if got := v.msg.Frame(); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % X\nwant % X", v.name, got, want)
			continue
		}
		back, err := ParseRemote(unframe(t, want))
		if err != nil {
			t.Errorf("%s: decoding: %v", v.name, err)
			continue
		}
		if !reflect.DeepEqual(back, v.msg) {
			t.Errorf("%s: decoded %+v, want %+v", v.name, back, v.msg)
		}
	}
}

// poloVectors are §4.2's pairing-port vectors, framed.
var poloVectors = []struct {
	name string
	msg  *PoloMessage
	hex  string
}{
	{"pairing_request", NewPairingRequest("hub"),
		"17 08 02 10 C8 01 52 10 0A 09 61 74 76 72 65 6D 6F 74 65 12 03 68 75 62"},
	{"options", NewClientOptions(), "10 08 02 10 C8 01 A2 01 08 0A 04 08 03 10 06 18 01"},
	{"configuration", NewClientConfiguration(), "10 08 02 10 C8 01 F2 01 08 0A 04 08 03 10 06 10 01"},
	{"secret", NewSecret(unhexPlain("6ED9247171D53C1B289504946353AA793EC805559235A177353F0DA5C75F390D")),
		"2A 08 02 10 C8 01 C2 02 22 0A 20 6E D9 24 71 71 D5 3C 1B 28 95 04 94 63 53 AA 79 3E C8 05 55 92 35 A1 77 35 3F 0D A5 C7 5F 39 0D"},
}

func unhexPlain(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestPoloVectors(t *testing.T) {
	for _, v := range poloVectors {
		want := unhex(t, v.hex)
		if got := Frame(v.msg.Marshal()); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % X\nwant % X", v.name, got, want)
			continue
		}
		back, err := ParsePolo(unframe(t, want))
		if err != nil {
			t.Errorf("%s: decoding: %v", v.name, err)
			continue
		}
		v.msg.Version, v.msg.Status = ProtocolVersion, StatusOK // as decoded
		if !reflect.DeepEqual(back, v.msg) {
			t.Errorf("%s: decoded %+v, want %+v", v.name, back, v.msg)
		}
	}
}

func TestPoloAnswersRoundTrip(t *testing.T) {
	for _, m := range []*PoloMessage{
		{PairingRequestAck: &PairingRequestAck{ServerName: "Living room"}},
		{Options: &Options{OutputEncodings: []Encoding{HexCode}, PreferredRole: RoleInput}},
		{ConfigurationAck: &ConfigurationAck{}},
		{SecretAck: &SecretAck{Secret: []byte{1, 2, 3}}},
		{Status: StatusBadSecret},
	} {
		back, err := ParsePolo(m.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if m.Version == 0 {
			m.Version = ProtocolVersion
		}
		if m.Status == 0 {
			m.Status = StatusOK
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("decoded %+v, want %+v", back, m)
		}
	}
}

func TestRemoteStateMessagesRoundTrip(t *testing.T) {
	for _, m := range []*RemoteMessage{
		{Configure: &Configure{Features: 1023, DeviceInfo: &DeviceInfo{Model: "SHIELD Android TV", Vendor: "NVIDIA", Unknown1: 1, Unknown2: "1", PackageName: "androidtv-remote", AppVersion: "5.2"}}},
		{Start: &Start{}},
		{Start: &Start{Started: true}},
		{SetVolumeLevel: &VolumeLevel{PlayerModel: "SHIELD", Max: 100, Level: 35, Muted: true}},
		{PingRequest: &PingRequest{Val1: 7, Val2: -1}},
		{ImeKeyInject: &ImeKeyInject{App: &AppInfo{Counter: 4, Label: "YouTube", Package: "com.google.android.youtube.tv"}, TextField: &TextFieldStatus{Counter: 2, Value: "ab", Start: 1, End: 1, Label: "Search"}}},
		{ImeBatchEdit: &ImeBatchEdit{ImeCounter: 9, FieldCounter: 4}},
		NewText(9, 4, "héllo"),
		{ImeShowRequest: &ImeShowRequest{TextField: &TextFieldStatus{Counter: 3, Value: "x"}}},
		{Error: &RemoteError{Value: true, Message: NewKey(KeyHome, Short).Marshal()}},
	} {
		back, err := ParseRemote(m.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("decoded %+v, want %+v", back, m)
		}
	}
	if e := NewText(1, 2, "héllo").ImeBatchEdit.Edits[0].Text; e.Start != 4 || e.End != 4 {
		t.Errorf("cursor %d..%d, want at the last rune (4)", e.Start, e.End)
	}
}

func TestUnknownFieldsAreSkipped(t *testing.T) {
	// remote_voice_begin (30) with a session id, then a key press.
	b := append(unhex(t, "F2 01 02 08 01"), NewKey(KeyHome, Short).Marshal()...)
	m, err := ParseRemote(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.KeyInject == nil || m.KeyInject.Code != KeyHome {
		t.Fatalf("decoded %+v", m)
	}
	if _, err := ParseRemote([]byte{0x52, 0x09, 0x08}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncated message: %v, want ErrMalformed", err)
	}
}

// The synthetic hash of §4.2: both moduli 256 bytes of AA and BB, both
// exponents 65537, code tail 1234.
func TestPairingHashVector(t *testing.T) {
	client := &rsa.PublicKey{N: new(big.Int).SetBytes(bytes.Repeat([]byte{0xAA}, 256)), E: 65537}
	server := &rsa.PublicKey{N: new(big.Int).SetBytes(bytes.Repeat([]byte{0xBB}, 256)), E: 65537}
	want := "6ED9247171D53C1B289504946353AA793EC805559235A177353F0DA5C75F390D"
	for _, code := range []string{"6E1234", "001234", "ff1234", " 6e 12 34 "} {
		h, err := PairingHash(client, server, code)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.ToUpper(hex.EncodeToString(h)); got != want {
			t.Fatalf("hash for %q\n got %s\nwant %s", code, got, want)
		}
	}
	h, _ := PairingHash(client, server, "6E1234")
	if err := CheckCode(h, "6E1234"); err != nil {
		t.Errorf("6E1234: %v", err)
	}
	if err := CheckCode(h, "6e1234"); err != nil {
		t.Errorf("6e1234: %v", err)
	}
	for _, c := range []string{"6F1234", "001234", "E61234"} {
		if err := CheckCode(h, c); !errors.Is(err, ErrCodeMismatch) {
			t.Errorf("%s: %v, want ErrCodeMismatch", c, err)
		}
	}
	if got := CodeFor(client, server, [2]byte{0x12, 0x34}); got != "6E1234" {
		t.Errorf("CodeFor = %s, want 6E1234", got)
	}
	for _, c := range []string{"", "6E123", "6E12345", "6G1234", "6E-234"} {
		if _, err := PairingHash(client, server, c); !errors.Is(err, ErrCodeFormat) {
			t.Errorf("%q: %v, want ErrCodeFormat", c, err)
		}
	}
}

// chunks reads from data at most n bytes per Read: a stream that splits
// every message.
type chunks struct {
	data []byte
	n    int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

func TestReaderSplitAndCoalesced(t *testing.T) {
	var stream []byte
	var want [][]byte
	for _, v := range remoteVectors {
		stream = append(stream, unhex(t, v.hex)...)
		want = append(want, v.msg.Marshal())
	}
	big := NewAppLink(strings.Repeat("x", 300)) // a two-byte length
	stream = append(stream, big.Frame()...)
	want = append(want, big.Marshal())
	for _, n := range []int{1, 2, 3, 7, 64, len(stream)} {
		r := NewReader(&chunks{data: stream, n: n})
		for i, w := range want {
			got, err := r.Next()
			if err != nil {
				t.Fatalf("chunks of %d, message %d: %v", n, i, err)
			}
			if !bytes.Equal(got, w) {
				t.Fatalf("chunks of %d, message %d:\n got % X\nwant % X", n, i, got, w)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("chunks of %d: after the last message %v, want EOF", n, err)
		}
	}
}

func TestReaderTruncatedAndOversized(t *testing.T) {
	r := NewReader(bytes.NewReader(unhex(t, "06 52 04 08")))
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("truncated body: %v", err)
	}
	r = NewReader(bytes.NewReader([]byte{0x80}))
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("truncated length: %v", err)
	}
	r = NewReader(bytes.NewReader(AppendFrame(nil, make([]byte, 0))[:0:0]))
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("empty stream: %v", err)
	}
	huge := []byte{0xFF, 0xFF, 0xFF, 0x7F}
	if _, err := NewReader(bytes.NewReader(huge)).Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("huge length: %v", err)
	}
}
