package esphometest

import (
	"io"
	"log"
	"net"
	"strconv"
	"testing"

	"github.com/hashicorp/mdns"
)

// Announce answers mDNS queries for _esphomelib._tcp with the fake
// node's address until the test ends, as a node announces itself, with
// its MAC address (hex digits, "acbc32890ea9") in the TXT record. The
// instance it announces is name and the node's port ("kitchen-40123"),
// so that other processes announcing nodes on the network cannot be
// taken for it; Announce returns it. Without multicast it skips the
// test.
func (n *Node) Announce(t testing.TB, name, mac string) string {
	t.Helper()
	host, portText, _ := net.SplitHostPort(n.Addr())
	port, _ := strconv.Atoi(portText)
	name += "-" + portText
	zone, err := mdns.NewMDNSService(name, "_esphomelib._tcp", "local.", name+".local.", port,
		[]net.IP{net.ParseIP(host)}, []string{"mac=" + mac, "version=2026.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mdns.NewServer(&mdns.Config{Zone: zone, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Skipf("no multicast here for an mDNS responder: %v", err)
	}
	t.Cleanup(func() { _ = srv.Shutdown() })
	return name
}
