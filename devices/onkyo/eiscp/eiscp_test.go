package eiscp_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The vectors of PROTOCOLS.md §3.4.
func TestEncodeVectors(t *testing.T) {
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"PWR01", eiscp.NewMessage("PWR", "01").Encode(), "49 53 43 50 00 00 00 10 00 00 00 08 01 00 00 00 21 31 50 57 52 30 31 0D"},
		{"PWR00", eiscp.NewMessage("PWR", "00").Encode(), "49 53 43 50 00 00 00 10 00 00 00 08 01 00 00 00 21 31 50 57 52 30 30 0D"},
		{"PWRQSTN", eiscp.NewMessage("PWR", eiscp.Question).Encode(), "49 53 43 50 00 00 00 10 00 00 00 0A 01 00 00 00 21 31 50 57 52 51 53 54 4E 0D"},
		{"MVL28", eiscp.NewMessage("MVL", eiscp.VolumeParam(40, 100)).Encode(), "49 53 43 50 00 00 00 10 00 00 00 08 01 00 00 00 21 31 4D 56 4C 32 38 0D"},
		{"AMT01", eiscp.NewMessage("AMT", eiscp.Bool(true)).Encode(), "49 53 43 50 00 00 00 10 00 00 00 08 01 00 00 00 21 31 41 4D 54 30 31 0D"},
		{"!xECNQSTN", eiscp.DiscoveryQuery(eiscp.UnitAny), "49 53 43 50 00 00 00 10 00 00 00 09 01 00 00 00 21 78 45 43 4E 51 53 54 4E"},
	}
	for _, c := range cases {
		if want := unhex(t, c.want); !bytes.Equal(c.got, want) {
			t.Errorf("%s = % X\nwant  % X", c.name, c.got, want)
		}
	}
}

func TestDecodeReceiverReply(t *testing.T) {
	m, err := eiscp.Decode(unhex(t, "49 53 43 50 00 00 00 10 00 00 00 0A 01 00 00 00 21 31 50 57 52 30 31 1A 0D 0A"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Command != "PWR" || m.Param != "01" || m.Unit != '1' {
		t.Fatalf("decoded %+v; want PWR 01 from unit 1", m)
	}
}

// Every line end OH accepts after the EOF mark, and none.
func TestDecodeLineEnds(t *testing.T) {
	for _, tail := range []string{"\x1a", "\x1a\r", "\x1a\r\n", "\x1a\r\n\x00", "\x1a\n\n\r\n", "\r\n"} {
		p := frame("!1MVL2A" + tail)
		m, err := eiscp.Decode(p)
		if err != nil || m.String() != "MVL2A" {
			t.Errorf("tail %q: %v %v", tail, m, err)
		}
	}
}

// frame wraps data as a receiver would send it.
func frame(data string) []byte {
	p := eiscp.NewMessage("XXX", "").Encode()[:16]
	p[11] = byte(len(data))
	return append(p, data...)
}

func TestReaderResynchronises(t *testing.T) {
	var stream []byte
	stream = append(stream, "garbage IS"...)
	stream = append(stream, frame("!1PWR01\x1a")...)
	bad := frame("!1AMT01\x1a")
	bad[7] = 0x02 // header size 2: impossible, skipped
	stream = append(stream, bad...)
	stream = append(stream, frame("not a message")...)
	stream = append(stream, frame("!1SLI10\x1a\r\n")...)
	r := eiscp.NewReader(bytes.NewReader(stream))
	var got []string
	for {
		m, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.String())
	}
	if strings.Join(got, ",") != "PWR01,SLI10" {
		t.Fatalf("read %v; want PWR01, SLI10", got)
	}
}

func TestReaderCutShort(t *testing.T) {
	p := frame("!1PWR01\x1a")
	_, err := eiscp.NewReader(bytes.NewReader(p[:20])).Read()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v; want unexpected EOF", err)
	}
}

func TestVolume(t *testing.T) {
	for _, c := range []struct {
		pct, steps int
		want       string
	}{{0, 100, "00"}, {40, 100, "28"}, {100, 100, "64"}, {50, 80, "28"}, {100, 80, "50"}, {100, 200, "C8"}, {150, 100, "64"}, {-3, 100, "00"}} {
		if got := eiscp.VolumeParam(c.pct, c.steps); got != c.want {
			t.Errorf("VolumeParam(%d, %d) = %s; want %s", c.pct, c.steps, got, c.want)
		}
	}
	if v, err := eiscp.ParseVolume("28", 80); err != nil || v != 50 {
		t.Errorf("ParseVolume(28, 80) = %d, %v", v, err)
	}
	if _, err := eiscp.ParseVolume("N/A", 100); err == nil {
		t.Error("N/A parsed as a volume")
	}
}

func TestParseIdentity(t *testing.T) {
	id, err := eiscp.ParseIdentity("TX-NR609/60128/DX/0009B0123456")
	if err != nil {
		t.Fatal(err)
	}
	if id.Model != "TX-NR609" || id.Port != 60128 || id.Area != "DX" || id.Identifier != "0009B0123456" {
		t.Fatalf("%+v", id)
	}
	if id.String() != "TX-NR609/60128/DX/0009B0123456" {
		t.Errorf("String() = %s", id)
	}
	// Some receivers answer with an empty identifier.
	id, err = eiscp.ParseIdentity("TX-NR609/60128/DX/")
	if err != nil || id.Model != "TX-NR609" || id.Port != 60128 || id.Area != "DX" || id.Identifier != "" {
		t.Fatalf("no identifier: %+v %v", id, err)
	}
	for _, bad := range []string{"", "TX/1/DX", "TX/port/DX/ID", "/60128/DX/"} {
		if _, err := eiscp.ParseIdentity(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

const sampleNRI = `<?xml version="1.0" encoding="utf-8"?><response status="ok"><device id="TX-NR686">` +
	`<brand>ONKYO</brand><model>TX-NR686</model><macaddress>0009B0E74DA8</macaddress>` +
	`<netservicelist count="3"><netservice id="0a" value="1" name="Spotify" zone="03"/>` +
	`<netservice id="0e" value="1" name="TuneIn" zone="03"/><netservice id="04" value="0" name="Pandora" zone="03"/></netservicelist>` +
	`<zonelist count="3"><zone id="1" value="1" name="Main" volmax="80" volstep="0"/>` +
	`<zone id="2" value="1" name="Zone2" volmax="80" volstep="0"/><zone id="3" value="0" name="Zone3" volmax="0"/></zonelist>` +
	`<selectorlist count="3"><selector id="10" value="1" name="Apple TV" zone="03" iconid="10"/>` +
	`<selector id="05" value="0" name="PC" zone="03" iconid="05"/><selector id="12" value="1" name="TV" zone="03" iconid="12"/></selectorlist>` +
	`</device></response>`

func TestParseInfo(t *testing.T) {
	info, err := eiscp.ParseInfo(sampleNRI)
	if err != nil {
		t.Fatal(err)
	}
	if info.Model != "TX-NR686" || info.MAC != "0009B0E74DA8" {
		t.Errorf("model %q mac %q", info.Model, info.MAC)
	}
	if z, ok := info.Zone(2); !ok || !z.Enabled || z.VolMax != 80 {
		t.Errorf("zone 2: %+v %v", z, ok)
	}
	if z, _ := info.Zone(3); z.Enabled {
		t.Error("zone 3 is disabled")
	}
	if len(info.Inputs) != 2 || info.Inputs[0] != (eiscp.Input{Code: "10", Name: "Apple TV"}) {
		t.Errorf("inputs %+v", info.Inputs)
	}
	if len(info.NetServices) != 2 || info.NetServices[0] != (eiscp.Input{Code: "0A", Name: "Spotify"}) {
		t.Errorf("services %+v", info.NetServices)
	}
}

func TestNetValues(t *testing.T) {
	if eiscp.PlayState("P--") != eiscp.PlayPlaying || eiscp.PlayState("N/A") != 0 {
		t.Error("PlayState")
	}
	if eiscp.ListService("0a000000000E0000FFFF00Spotify") != "0A" || eiscp.ListService("") != "" {
		t.Error("ListService")
	}
	if eiscp.NetServiceParam("0e") != "0E0" {
		t.Error("NetServiceParam")
	}
}

// answeringReceiver answers every discovery query on loopback with the
// message answer, as a receiver would on the LAN; it returns its address
// and the queries it gets.
func answeringReceiver(t *testing.T, answer string) (string, <-chan []byte) {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	queries := make(chan []byte, 4)
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			select {
			case queries <- append([]byte(nil), buf[:n]...):
			default:
			}
			pc.WriteTo(frame(answer), from)
		}
	}()
	return pc.LocalAddr().String(), queries
}

func TestIdentifyOverUDP(t *testing.T) {
	addr, queries := answeringReceiver(t, "!1ECNTX-NR609/60128/DX/0009B0123456\x1a\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	id, err := eiscp.Identify(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if id.Identifier != "0009B0123456" || id.Model != "TX-NR609" {
		t.Fatalf("%+v", id)
	}
	if q := <-queries; !bytes.Equal(q, eiscp.DiscoveryQuery(eiscp.UnitAny)) {
		t.Errorf("query % X", q)
	}
}

// The answer with an empty identifier, "!1ECNTX-NR609/60128/DX/".
func TestIdentifyWithoutIdentifier(t *testing.T) {
	addr, _ := answeringReceiver(t, "!1ECNTX-NR609/60128/DX/\x1a\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	id, err := eiscp.Identify(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if id.Model != "TX-NR609" || id.Port != 60128 || id.Identifier != "" {
		t.Fatalf("%+v", id)
	}
}

func TestIdentifyNoAnswer(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := eiscp.Identify(ctx, pc.LocalAddr().String()); !errors.Is(err, eiscp.ErrNoAnswer) {
		t.Fatalf("err = %v", err)
	}
}

func TestWithPort(t *testing.T) {
	if eiscp.WithPort("10.0.0.5") != "10.0.0.5:60128" || eiscp.WithPort("10.0.0.5:7") != "10.0.0.5:7" {
		t.Error("WithPort")
	}
}

// volstep="0" is a zone in half steps (0.5 dB): its top volume parameter
// is twice volmax; volstep="1", or none, is whole steps.
func TestZoneVolumeScale(t *testing.T) {
	info, err := eiscp.ParseInfo(`<?xml version="1.0" encoding="utf-8"?><response status="ok"><device id="X"><zonelist count="4">` +
		`<zone id="1" value="1" name="Main" volmax="80" volstep="0"/><zone id="2" value="1" name="Zone2" volmax="80" volstep="1"/>` +
		`<zone id="3" value="1" name="Zone3" volmax="0"/><zone id="4" value="1" name="Zone4" volmax="0" volstep="0"/>` +
		`</zonelist></device></response>`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		zone   int
		half   bool
		rawMax int
	}{{1, true, 160}, {2, false, 80}, {3, false, 100}, {4, true, 200}} {
		z, ok := info.Zone(c.zone)
		if !ok || z.HalfSteps != c.half || z.RawMax() != c.rawMax {
			t.Errorf("zone %d: %+v, raw max %d; want half steps %v, raw max %d", c.zone, z, z.RawMax(), c.half, c.rawMax)
		}
	}
	if got := eiscp.VolumeParam(50, 160); got != "50" {
		t.Errorf("50 %% of 160 half steps = %s; want 50 (40 displayed)", got)
	}
}
