package wol

import (
	"bytes"
	"context"
	"encoding/hex"
	"github.com/bifrost-hub/bifrost/devices"
	"net"
	"strings"
	"testing"
	"time"
)

// The vector of PROTOCOLS.md §4.7.
func TestPacketVector(t *testing.T) {
	mac, err := devices.ParseMAC("A4:5E:60:C2:11:09")
	if err != nil {
		t.Fatal(err)
	}
	want := "FFFFFFFFFFFF" + strings.Repeat("A45E60C21109", 16)
	if got := strings.ToUpper(hex.EncodeToString(Packet(mac))); got != want {
		t.Fatalf("packet\n got %s\nwant %s", got, want)
	}
	if n := len(Packet(mac)); n != 102 {
		t.Fatalf("packet is %d bytes, want 102", n)
	}
}

func TestParseMAC(t *testing.T) {
	for _, s := range []string{"a4:5e:60:c2:11:09", "A4-5E-60-C2-11-09", "a45e60c21109", " A4:5E:60:C2:11:09 "} {
		mac, err := devices.ParseMAC(s)
		if err != nil || mac.String() != "a4:5e:60:c2:11:09" {
			t.Errorf("ParseMAC(%q) = %v, %v", s, mac, err)
		}
	}
	for _, s := range []string{"", "a4:5e:60", "zz:5e:60:c2:11:09", "00:00:00:00:00:00:00:e0"} {
		if _, err := devices.ParseMAC(s); err == nil {
			t.Errorf("ParseMAC(%q) accepted", s)
		}
	}
}

func TestSendReachesListener(t *testing.T) {
	l, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mac, _ := devices.ParseMAC("A4:5E:60:C2:11:09")
	if err := Send(context.Background(), mac, []string{"192.0.2.1:abc", l.LocalAddr().String()}); err != nil {
		t.Fatal(err)
	}
	l.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 200)
	n, _, err := l.ReadFromUDP(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf[:n], Packet(mac)) {
		t.Fatalf("received % X", buf[:n])
	}
	if err := Send(context.Background(), mac, []string{"192.0.2.1:abc"}); err == nil {
		t.Fatal("a target that cannot be resolved was taken")
	}
}
