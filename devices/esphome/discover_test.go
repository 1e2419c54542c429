package esphome_test

import (
	"context"
	"io"
	"log"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/mdns"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
)

// announce answers mDNS queries for _esphomelib._tcp with the fake
// node's address, as a node announces itself (its MAC in the TXT
// record), until the test ends.
func announce(t *testing.T, name string, fake *esphometest.Node, mac string) {
	t.Helper()
	host, portText, _ := net.SplitHostPort(fake.Addr())
	port, _ := strconv.Atoi(portText)
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
}

// TestScanFindsNode: a scan finds, by mDNS, a node the adapter was not
// told of, connects with the house's key, and its entities become
// devices; a second scan keeps the one connection.
func TestScanFindsNode(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: houseKey})
	announce(t, "kitchen-scan-test", fake, "acbc32890ea9")
	a, reg := runAdapter(t, houseKey, 500*time.Millisecond)
	d, err := a.Scan(context.Background())
	if err != nil || d != 500*time.Millisecond {
		t.Fatalf("Scan = %v, %v", d, err)
	}
	esphometest.WaitFor(t, "the found node's four devices online", reg.Changed, func() bool {
		for _, id := range []devices.ID{lampID, kettleID, tempID, motionID} {
			if d, ok := reg.Get(id); !ok || !d.Online() {
				return false
			}
		}
		return true
	})
	a.Discover(t.Context()) // a second scan, to its end
	if n := len(a.Nodes()); n != 1 || fake.Attempts() != 1 {
		t.Errorf("after a second scan: %d nodes, %d connections to the node", n, fake.Attempts())
	}
}

// TestScanKnowsNodeByMAC: a node added under its host name and found by
// mDNS under its IP address is kept once, known by its MAC address.
func TestScanKnowsNodeByMAC(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: houseKey})
	announce(t, "kitchen-mac-test", fake, "acbc32890ea9")
	a, _ := runAdapter(t, houseKey, 500*time.Millisecond)
	_, port, _ := net.SplitHostPort(fake.Addr())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := a.Add(ctx, net.JoinHostPort("localhost", port)); err != nil {
		t.Fatal(err)
	}
	a.Discover(t.Context())
	if ns := a.Nodes(); len(ns) != 1 || fake.Attempts() != 1 {
		t.Errorf("%d nodes, %d connections to the node", len(ns), fake.Attempts())
	}
}
