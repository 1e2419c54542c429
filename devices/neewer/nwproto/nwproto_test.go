package nwproto

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The MAC of PROTOCOLS.md §1.10 (the one in NeewerLite's tests).
var testMAC = MAC{0xDF, 0x24, 0x3A, 0xB4, 0x46, 0x5D}

// bs reads "78 81 01 01 FB".
func bs(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad vector %q: %v", s, err)
	}
	return b
}

func enc(v Variant) Encoder { return Encoder{Variant: v, MAC: testMAC} }

var (
	classic2 = Variant{Power: PowerClassic, CCT: CCTTwo, HSI: HSIClassic, FX: FX17}
	classic3 = Variant{Power: PowerClassic, CCT: CCTThree, HSI: HSIClassic, FX: FX17}
	classic5 = Variant{Power: PowerClassic, CCT: CCTFive, HSI: HSIClassic, FX: FX9}
	split    = Variant{Power: PowerClassic, CCT: CCTSplit, HSI: HSINone, FX: FXNone}
	infinity = Variant{Power: PowerMAC, CCT: CCTMAC, HSI: HSIMAC, FX: FX17MAC}
)

// TestVectors is every vector of PROTOCOLS.md §1.10.
func TestVectors(t *testing.T) {
	nlpHSI := infinity
	nlpHSI.HSI = HSIMACShort
	fx := func(e Encoder, name string, v FXValues) []byte {
		t.Helper()
		f, ok := FindEffect(e.Variant.FX, name)
		if !ok {
			t.Fatalf("no effect %q in %s", name, e.Variant.FX)
		}
		b, err := e.Effect(f, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hsi := func(e Encoder, h, s, b int) []byte {
		t.Helper()
		out, err := e.HSI(h, s, b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"N1 power on", enc(classic2).Power(true), "78 81 01 01 FB"},
		{"N2 power off", enc(classic2).Power(false), "78 81 01 02 FC"},
		{"N3 brightness 50", BrightnessOnly(50), "78 82 01 32 2D"},
		{"N4 CCT 5600 alone", CCTOnly(5600), "78 83 01 38 34"},
		{"N5 CCT 2-param", enc(classic2).CCT(80, 5600, 0), "78 87 02 50 38 89"},
		{"N6 CCT 5-param", enc(classic5).CCT(80, 5600, 0), "78 87 05 50 38 32 00 00 BE"},
		{"N8 CCT 3-param", enc(classic3).CCT(80, 5600, 0), "78 87 03 50 38 32 BC"},
		{"N9 HSI", hsi(enc(classic2), 240, 100, 70), "78 86 04 F0 00 64 46 9C"},
		{"N11 scene 3", fx(enc(classic5), "Fire Engine", FXValues{Brightness: 50}), "78 88 02 32 03 37"},
		{"N12 FX cop car", fx(enc(classic2), "Cop Car", FXValues{Brightness: 50, Color: 2, Speed: 5}), "78 8B 04 0A 32 02 05 4A"},
		{"N12 FX cop car, fast, red", fx(enc(classic2), "Cop Car", FXValues{Brightness: 50, Color: 1, Speed: 9}), "78 8B 04 0A 32 01 09 4D"},
		{"N13 query channel", enc(classic2).QueryChannel(), "78 84 00 FC"},
		{"N13 query power", enc(classic2).QueryPower(), "78 85 00 FD"},
		{"N14 reply on", PowerReply(true), "78 02 01 01 7C"},
		{"N14 reply standby", PowerReply(false), "78 02 01 02 7D"},
		{"N14 reply channel 0", ChannelReply(0), "78 01 01 00 7A"},
		{"N15 infinity power on", enc(infinity).Power(true), "78 8D 08 DF 24 3A B4 46 5D 81 01 23"},
		{"N15 infinity power off", enc(infinity).Power(false), "78 8D 08 DF 24 3A B4 46 5D 81 02 24"},
		{"N17 infinity HSI NL", hsi(enc(infinity), 240, 100, 70), "78 8F 0C DF 24 3A B4 46 5D 86 F0 00 64 46 00 C7"},
		{"N18 infinity HSI NLP", hsi(enc(nlpHSI), 240, 100, 70), "78 8F 0B DF 24 3A B4 46 5D 86 F0 00 64 46 C6"},
		{"N19 infinity FX", fx(enc(infinity), "defective bulb", FXValues{Brightness: 50, Kelvin: 5600, Speed: 5}), "78 91 0C DF 24 3A B4 46 5D 8B 03 32 38 32 05 D8"},
		{"N21 NH power on", enc(HomeVariant).Power(true), "7A 0A 01 01 86"},
		{"N21 NH power off", enc(HomeVariant).Power(false), "7A 0A 01 02 87"},
		{"N21 NH query all", enc(HomeVariant).QueryPower(), "7A 08 01 00 83"},
		{"N22 NH CCT", enc(HomeVariant).CCT(50, 3200, 0), "7A 0C 06 32 00 20 00 01 00 DF"},
		{"N23 NH HSI", hsi(enc(HomeVariant), 240, 100, 70), "7A 0D 00 0A 46 00 01 64 00 F0 64 00 01 00 91"},
	}
	for _, c := range cases {
		if want := bs(t, c.want); !bytes.Equal(c.got, want) {
			t.Errorf("%s: got % X; want % X", c.name, c.got, want)
		}
	}
}

// TestCapturesDecode checks that every captured frame of §1.10 verifies and
// reads as what it was.
func TestCapturesDecode(t *testing.T) {
	captured := []struct {
		frame string
		want  Command
	}{
		{"78 86 04 0C 01 32 32 73", Command{Kind: CmdHSI, Hue: 268, Sat: 50, Brightness: 50}},
		{"78 87 05 32 21 15 00 00 6C", Command{Kind: CmdCCT, Brightness: 50, Kelvin: 3300, GM: -29}},
		{"78 8B 04 11 32 00 05 4F", Command{Kind: CmdEffect, EffectID: 0x11}},
		{"78 87 03 46 20 32 9A", Command{Kind: CmdCCT, Brightness: 70, Kelvin: 3200, GM: 0}},
		{"78 8B 05 06 32 37 32 05 AE", Command{Kind: CmdEffect, EffectID: 0x06}},
		{"78 8B 06 05 00 32 37 32 05 AE", Command{Kind: CmdEffect, EffectID: 0x05}},
		{"78 8D 08 F7 AC 16 F1 58 96 81 01 27", Command{Kind: CmdPower, On: true}},
		// NeewerLite's other captures quoted in §1.5 that verify.
		{"78 8F 0C F7 AC 16 F1 58 96 86 45 00 5C 32 00 04", Command{Kind: CmdHSI, Hue: 69, Sat: 92, Brightness: 50}},
		{"78 8F 0B F7 AC 16 F1 58 96 53 01 43 49 00 8A", Command{Kind: CmdHSI, Hue: 339, Sat: 67, Brightness: 73}},
		{"78 90 0B DF 24 3A B4 46 5D 87 1D 41 64 04 F4", Command{Kind: CmdCCT, Brightness: 29, Kelvin: 6500, GM: 50}},
	}
	for _, c := range captured {
		got, err := DecodeCommand(bs(t, c.frame))
		if err != nil {
			t.Errorf("%s: %v", c.frame, err)
			continue
		}
		got.MAC = nil
		if got != c.want {
			t.Errorf("%s: decoded %+v; want %+v", c.frame, got, c.want)
		}
	}
}

// TestCapturesReencode builds the captured frames from their values.
func TestCapturesReencode(t *testing.T) {
	rgb62 := Variant{Power: PowerClassic, CCT: CCTFive, HSI: HSIClassic, FX: FX17}
	gl1c := Variant{Power: PowerClassic, CCT: CCTThree, HSI: HSIClassic, FX: FX18}
	fx := func(v Variant, name string, vals FXValues) []byte {
		e, _ := FindEffect(v.FX, name)
		b, err := Encoder{Variant: v}.Effect(e, vals)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hsi, _ := Encoder{Variant: rgb62}.HSI(268, 50, 50)
	mac := MAC{0xF7, 0xAC, 0x16, 0xF1, 0x58, 0x96}
	cases := []struct {
		got  []byte
		want string
	}{
		{hsi, "78 86 04 0C 01 32 32 73"},
		{Encoder{Variant: rgb62}.CCT(50, 3300, -29), "78 87 05 32 21 15 00 00 6C"},
		{fx(rgb62, "Party", FXValues{Brightness: 50, Color: 0, Speed: 5}), "78 8B 04 11 32 00 05 4F"},
		{Encoder{Variant: gl1c}.CCT(70, 3200, 0), "78 87 03 46 20 32 9A"},
		{fx(gl1c, "CCT Flash", FXValues{Brightness: 50, Kelvin: 5500, Speed: 5}), "78 8B 05 06 32 37 32 05 AE"},
		{fx(gl1c, "Welding", FXValues{BrightnessMin: 0, BrightnessMax: 50, Kelvin: 5500, Speed: 5}), "78 8B 06 05 00 32 37 32 05 AE"},
		{Encoder{Variant: infinity, MAC: mac}.Power(true), "78 8D 08 F7 AC 16 F1 58 96 81 01 27"},
		{Encoder{Variant: infinity, MAC: mac}.Power(false), "78 8D 08 F7 AC 16 F1 58 96 81 02 28"},
	}
	for _, c := range cases {
		if want := bs(t, c.want); !bytes.Equal(c.got, want) {
			t.Errorf("got % X; want % X", c.got, want)
		}
	}
}

func TestDecodeRejectsBadFrames(t *testing.T) {
	cases := []struct {
		frame string
		want  error
	}{
		{"78 02 01 01 7D", ErrChecksum},
		// NeewerLite's CB60 doc capture: its checksum is wrong (§1.5).
		{"78 90 0B DF 24 3A B4 46 5D 87 1D 1B 00 04 CE", ErrChecksum},
		// NEEWER Home doc HSI example: its checksum is wrong (§1.9).
		{"7A 0D 00 0A 64 00 01 64 00 F0 64 00 01 00 8C", ErrChecksum},
		// Command-Patterns.md's power example without the size byte (§1.3).
		{"78 81 01 FA", ErrLength},
		{"78 02 01", ErrShort},
		{"79 02 01 01 7D", ErrPrefix},
		{"78 02 02 01 7D", ErrLength},
	}
	for _, c := range cases {
		if _, err := DecodeReply(bs(t, c.frame)); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v; want %v", c.frame, err, c.want)
		}
		if _, err := DecodeCommand(bs(t, c.frame)); !errors.Is(err, c.want) {
			t.Errorf("%s as a command: error %v; want %v", c.frame, err, c.want)
		}
	}
}

func TestDecodeReply(t *testing.T) {
	cases := []struct {
		frame string
		want  Reply
	}{
		{"78 02 01 01 7C", Reply{Kind: ReplyKindPower, On: true}},
		{"78 02 01 02 7D", Reply{Kind: ReplyKindPower}},
		{"78 01 01 00 7A", Reply{Kind: ReplyKindChannel}},
		{"78 01 01 03 7D", Reply{Kind: ReplyKindChannel, Channel: 3}},
		{"78 87 02 50 38 89", Reply{Kind: ReplyOther}},
	}
	for _, c := range cases {
		got, err := DecodeReply(bs(t, c.frame))
		if err != nil {
			t.Fatalf("%s: %v", c.frame, err)
		}
		if got.Kind != c.want.Kind || got.On != c.want.On || got.Channel != c.want.Channel {
			t.Errorf("%s: %+v; want %+v", c.frame, got, c.want)
		}
	}
	if _, err := DecodeReply(bs(t, "78 02 01 07 82")); err == nil {
		t.Error("a power reply with an unknown state must be refused")
	}
}

func TestSplitCCTIsOneWriteOfTwoFrames(t *testing.T) {
	b := enc(split).CCT(50, 5600, 0)
	frames, err := Split(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || !bytes.Equal(frames[0], bs(t, "78 82 01 32 2D")) || !bytes.Equal(frames[1], bs(t, "78 83 01 38 34")) {
		t.Fatalf("split CCT = % X", b)
	}
	if _, err := Split(append(b, 0x78)); !errors.Is(err, ErrShort) {
		t.Errorf("a trailing byte: %v", err)
	}
}

func TestUnsupportedCommands(t *testing.T) {
	if _, err := enc(split).HSI(0, 100, 50); !errors.Is(err, ErrUnsupported) {
		t.Errorf("HSI on a bi-colour light: %v", err)
	}
	e, _ := FindEffect(FX17, "Lightning")
	if _, err := enc(split).Effect(e, FXValues{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("effect on a light without effects: %v", err)
	}
	if _, ok := enc(classic2).Brightness(50); ok {
		t.Error("classic 0x87 lights have no brightness-only frame")
	}
	if b, ok := enc(split).Brightness(50); !ok || !bytes.Equal(b, bs(t, "78 82 01 32 2D")) {
		t.Errorf("split brightness = % X", b)
	}
	if b, ok := enc(HomeVariant).Brightness(50); !ok || !bytes.Equal(b, bs(t, "7A 0B 03 00 32 00 BA")) {
		t.Errorf("NEEWER Home brightness = % X", b)
	}
}

func TestValueEncodings(t *testing.T) {
	if CCTByte(3249) != 32 || CCTByte(3250) != 33 || CCTByte(-5) != 0 {
		t.Error("CCT rounds kelvin/100 and clamps")
	}
	if GMByte(-50) != 0 || GMByte(0) != 50 || GMByte(50) != 100 || GMByte(99) != 100 {
		t.Error("GM is GM+50, clamped")
	}
	b, _ := enc(classic2).HSI(400, 150, -3)
	if !bytes.Equal(b, Classic(TagHSI, 0x68, 0x01, 100, 0)) {
		t.Errorf("HSI clamps: % X", b)
	}
	mac0 := infinity
	mac0.Power = PowerMACZero
	if got := enc(mac0).Power(false); got[len(got)-2] != 0x00 {
		t.Errorf("mac00 off = % X", got)
	}
	bare := infinity
	bare.HSI = HSIMACBare
	got, _ := enc(bare).HSI(339, 67, 73)
	want := bs(t, "78 8F 0B DF 24 3A B4 46 5D 53 01 43 49 00")
	if !bytes.Equal(got[:len(got)-1], want) {
		t.Errorf("bare HSI = % X", got)
	}
}

func TestEffectCatalogues(t *testing.T) {
	if n := len(Effects(FX9)); n != 9 {
		t.Errorf("fx9 has %d effects", n)
	}
	if n := len(Effects(FX17MAC)); n != 17 {
		t.Errorf("fx17 has %d effects", n)
	}
	if e, ok := FindEffect(FX18, "music"); !ok || e.ID != 0x12 {
		t.Error("fx18 has Music as 0x12")
	}
	if _, ok := FindEffect(FX17, "music"); ok {
		t.Error("fx17 has no Music")
	}
	if Effects(FXNone) != nil {
		t.Error("no catalogue, no effects")
	}
}

func TestVariantSettings(t *testing.T) {
	v := classic2
	if err := v.Set("cct", "5"); err != nil || v.CCT != CCTFive {
		t.Fatalf("cct=5: %v %v", err, v)
	}
	if err := v.Set("HSI", "MAC-short"); err != nil || v.HSI != HSIMACShort {
		t.Fatalf("hsi: %v %v", err, v)
	}
	if err := v.Set("cct", "7"); err == nil || !strings.Contains(err.Error(), "split") {
		t.Errorf("a bad layout must list the valid ones: %v", err)
	}
	if err := v.Set("colour", "x"); err == nil {
		t.Error("unknown setting accepted")
	}
	if !v.UsesMAC() || classic2.UsesMAC() || !infinity.UsesMAC() {
		t.Error("UsesMAC")
	}
	if v.String() != "power=classic cct=5 hsi=mac-short fx=fx17" {
		t.Errorf("String = %q", v.String())
	}
}

func TestParseMAC(t *testing.T) {
	for _, s := range []string{"DF:24:3A:B4:46:5D", "df-24-3a-b4-46-5d", "DF243AB4465D"} {
		m, err := ParseMAC(s)
		if err != nil || m != testMAC || m.String() != "DF:24:3A:B4:46:5D" {
			t.Errorf("%s: %v %v", s, m, err)
		}
	}
	for _, s := range []string{"", "DF:24:3A:B4:46", "ZZ:24:3A:B4:46:5D"} {
		if _, err := ParseMAC(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
