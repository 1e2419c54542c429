package esphome_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/mdnsbrowse"
)

// The scan tests share the host's multicast with whatever else runs on
// it, other tests' fake nodes and scans among them: each fake has a MAC
// address of its own, its instance name carries its port, and what the
// adapter tried is read from its log rather than counted at the fake,
// which other scans may reach too.

// scanned is a fake node announcing itself by mDNS, with a MAC address
// of its own.
type scanned struct {
	*esphometest.Node
	mac      string // "AC:BC:32:12:34:56"
	instance string // the instance name it announces, "kitchen-40123"
}

func (s scanned) light() devices.ID { return devices.ID("esphome:" + s.mac + "/ceiling") }

// announced starts a fake node with key ("" for none) that announces
// itself as name until the test ends.
func announced(t *testing.T, name, key string) scanned {
	t.Helper()
	mac := fmt.Sprintf("AC:BC:32:%02X:%02X:%02X", rand.IntN(256), rand.IntN(256), rand.IntN(256))
	fake := esphometest.Start(t, esphometest.Config{Key: key, MAC: mac})
	return scanned{Node: fake, mac: mac, instance: fake.Announce(t, name, strings.ToLower(strings.ReplaceAll(mac, ":", "")))}
}

// tries is a log handler that counts, per node address, the times the
// adapter took up a node a scan found and the connection attempts that
// ended.
type tries struct {
	mu            sync.Mutex
	found, failed map[string]int
}

func newTries() *tries { return &tries{found: map[string]int{}, failed: map[string]int{}} }

func (c *tries) Enabled(context.Context, slog.Level) bool { return true }
func (c *tries) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *tries) WithGroup(string) slog.Handler            { return c }
func (c *tries) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		switch {
		case r.Message == "node found by mDNS" && a.Key == "addr":
			c.found[a.Value.String()]++
		case r.Message == "connection" && a.Key == "detail":
			if at, _, ok := strings.Cut(strings.TrimPrefix(a.Value.String(), "esphome "), ": "); ok {
				c.failed[at]++
			}
		}
		return true
	})
	return nil
}

// of says how often the node at addr was taken up and failed to connect.
func (c *tries) of(addr string) (found, failed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.found[addr], c.failed[addr]
}

// runScanner runs an adapter with no configured node, key as the
// house's key ("" for none), a scan of half a second and pause as the
// least pause before a node is tried again; its log goes to the tries
// it returns.
func runScanner(t *testing.T, key string, pause time.Duration) (*esphome.Adapter, *watched, *tries) {
	t.Helper()
	reg, log := newWatched(), newTries()
	a, err := esphome.NewAdapter(esphome.AdapterConfig{
		Registry: reg.Registry, Key: key, ScanTime: 500 * time.Millisecond, Logger: slog.New(log),
		Backoff: devices.Backoff{Min: pause, Max: max(pause, 50*time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return a, reg, log
}

// TestScanFindsNode: a scan finds, by mDNS, a node the adapter was not
// told of, connects with the house's key, and its entities become
// devices; a second scan keeps the one connection.
func TestScanFindsNode(t *testing.T) {
	fake := announced(t, "kitchen-scan-test", houseKey)
	a, reg, log := runScanner(t, houseKey, 5*time.Millisecond)
	d, err := a.Scan(context.Background())
	if err != nil || d != 500*time.Millisecond+mdnsbrowse.Reach {
		t.Fatalf("Scan = %v, %v", d, err)
	}
	ids := []devices.ID{fake.light()}
	for _, e := range []string{"kettle", "temperature", "motion"} {
		ids = append(ids, devices.ID("esphome:"+fake.mac+"/"+e))
	}
	esphometest.WaitFor(t, "the found node's four devices online", reg.Changed, func() bool {
		for _, id := range ids {
			if d, ok := reg.Get(id); !ok || !d.Online() {
				return false
			}
		}
		return true
	})
	a.Discover(t.Context()) // a second scan, to its end
	if found, failed := log.of(fake.Addr()); !keeps(a, fake.Addr()) || found != 1 || failed != 0 {
		t.Errorf("after a second scan: nodes %v; the node taken up %d times, %d attempts failed", a.Nodes(), found, failed)
	}
}

// keeps reports whether a keeps the node at addr connected.
func keeps(a *esphome.Adapter, addr string) bool {
	for _, n := range a.Nodes() {
		if n.Addr() == addr {
			return true
		}
	}
	return false
}

// TestScanKnowsNodeByMAC: a node added under its host name and found by
// mDNS under its IP address is kept once, known by its MAC address.
func TestScanKnowsNodeByMAC(t *testing.T) {
	fake := announced(t, "kitchen-mac-test", houseKey)
	a, _, log := runScanner(t, houseKey, 5*time.Millisecond)
	_, port, _ := net.SplitHostPort(fake.Addr())
	ctx, cancel := context.WithTimeout(t.Context(), esphometest.WaitLimit)
	defer cancel()
	if _, err := a.Add(ctx, net.JoinHostPort("localhost", port)); err != nil {
		t.Fatal(err)
	}
	a.Discover(t.Context())
	if found, _ := log.of(fake.Addr()); found != 0 || keeps(a, fake.Addr()) {
		t.Errorf("nodes %v; the node found under its IP address taken up %d times", a.Nodes(), found)
	}
}

// TestScanNodeWantsKey: a node a scan finds that refuses the house's
// key, or needs a key where the house has none, is tried once and then
// listed as waiting for its key, with its name, address and MAC address,
// and no device; a second scan leaves it alone. Added by its address
// with its key, it connects and leaves the list.
func TestScanNodeWantsKey(t *testing.T) {
	for name, house := range map[string]string{"refused": houseKey, "no house key": ""} {
		t.Run(name, func(t *testing.T) {
			fake := announced(t, "kitchen-key-test", otherKey)
			// A pause of a minute before trying again: any second try is a scan's.
			a, reg, log := runScanner(t, house, time.Minute)
			if _, err := a.Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
			var w devices.KeyWanted
			esphometest.WaitFor(t, "the node listed as waiting for its key", a.WantedChanged, func() bool {
				var ok bool
				w, ok = wantedAt(a, fake.Addr())
				return ok
			})
			want := devices.KeyWanted{Address: fake.Addr(), Name: fake.instance, MAC: fake.mac, Refused: house != ""}
			if w != want {
				t.Errorf("listed %+v, want %+v", w, want)
			}
			a.Discover(t.Context()) // a second scan, to its end
			_, listed := wantedAt(a, fake.Addr())
			if found, failed := log.of(fake.Addr()); !listed || found != 1 || failed != 1 || keeps(a, fake.Addr()) {
				t.Fatalf("after a second scan: listed %v; the node taken up %d times, %d attempts failed; nodes %v",
					listed, found, failed, a.Nodes())
			}
			if _, ok := reg.Get(fake.light()); ok {
				t.Fatal("the node that waits for its key has devices")
			}

			ctx, cancel := context.WithTimeout(t.Context(), esphometest.WaitLimit)
			defer cancel()
			if _, err := a.AddWithKey(ctx, w.Address, otherKey); err != nil {
				t.Fatal(err)
			}
			if _, ok := wantedAt(a, fake.Addr()); ok {
				t.Error("the node added with its key is still listed as waiting for it")
			}
			if d, ok := reg.Get(fake.light()); !ok || !d.Online() {
				t.Error("the node's light is not an online device")
			}
		})
	}
}

// wantedAt is the node waiting for its key at addr, if one is.
func wantedAt(a *esphome.Adapter, addr string) (devices.KeyWanted, bool) {
	for _, w := range a.KeysWanted() {
		if w.Address == addr {
			return w, true
		}
	}
	return devices.KeyWanted{}, false
}
