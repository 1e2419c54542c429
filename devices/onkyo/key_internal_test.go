package onkyo

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// The id scheme of receivers that answer discovery without an identifier.
func TestReceiverKey(t *testing.T) {
	withMAC := eiscp.Identity{Model: "TX-NR609", Port: 60128, Identifier: "0009B0123456"}
	if k := receiverKey(withMAC, "192.168.1.30:60128"); k != "0009B0123456" {
		t.Errorf("key %q; want the identifier", k)
	}
	noID := eiscp.Identity{Model: "TX-NR609", Port: 60128}
	for addr, want := range map[string]string{
		"192.168.1.30:60128": "192.168.1.30",
		"192.168.1.30:60200": "192.168.1.30:60200",
		"AVR.lan:60128":      "avr.lan",
		"[fe80::1]:60128":    "[fe80::1]",
		"[fe80::1]:7":        "[fe80::1]:7",
	} {
		if k := receiverKey(noID, addr); k != want {
			t.Errorf("key at %s = %q; want %q", addr, k, want)
		}
	}
	if a, b := receiverKey(noID, eiscp.WithPort("192.168.1.30")), receiverKey(noID, "192.168.1.30:60128"); a != b {
		t.Errorf("a host with and without the default port: %q, %q", a, b)
	}
}
