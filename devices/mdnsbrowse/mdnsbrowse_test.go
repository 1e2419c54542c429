package mdnsbrowse

import (
	"net"
	"testing"

	"github.com/hashicorp/mdns"
)

func TestAddress(t *testing.T) {
	e := &mdns.ServiceEntry{AddrV4: net.IPv4(192, 168, 1, 40), Port: 6466}
	if got, ok := address(e); !ok || got != "192.168.1.40:6466" {
		t.Errorf("%q, %v", got, ok)
	}
	e = &mdns.ServiceEntry{Addr: net.ParseIP("fe80::1"), Port: 6053}
	if got, ok := address(e); !ok || got != "[fe80::1]:6053" {
		t.Errorf("%q, %v", got, ok)
	}
	if _, ok := address(&mdns.ServiceEntry{Port: 6466}); ok {
		t.Error("an answer without an address was taken")
	}
	if _, ok := address(&mdns.ServiceEntry{AddrV4: net.IPv4(192, 168, 1, 40)}); ok {
		t.Error("an answer without a port was taken")
	}
}

func TestInstance(t *testing.T) {
	if got := instance("kitchen._esphomelib._tcp.local.", "_esphomelib._tcp"); got != "kitchen" {
		t.Errorf("%q", got)
	}
	if got := instance("kitchen.local.", "_esphomelib._tcp"); got != "" {
		t.Errorf("%q", got)
	}
}
