package esphome_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
)

// runAdapter runs an adapter with no configured node, key as the
// house's key ("" for none) and scan as its ScanTime.
func runAdapter(t *testing.T, key string, scan time.Duration) (*esphome.Adapter, *watched) {
	t.Helper()
	reg := newWatched()
	a, err := esphome.NewAdapter(esphome.AdapterConfig{
		Registry: reg.Registry, Key: key, ScanTime: scan,
		Backoff: devices.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return a, reg
}

// TestAddWithKey adds a node that wants its own key, which is not the
// house's: its four entities are devices as soon as AddWithKey returns.
func TestAddWithKey(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: otherKey})
	a, reg := runAdapter(t, houseKey, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := a.AddWithKey(ctx, fake.Addr(), otherKey)
	if err != nil {
		t.Fatal(err)
	}
	want := []devices.ID{lampID, tempID, kettleID, motionID}
	if len(ids) != len(want) {
		t.Fatalf("added %v", ids)
	}
	for _, id := range want {
		if d, ok := reg.Get(id); !ok || !d.Online() {
			t.Errorf("%s is not an online device", id)
		}
	}
	if ns := a.Nodes(); len(ns) != 1 || !ns[0].Encrypted() {
		t.Errorf("nodes kept: %v", ns)
	}
}

// TestAddRefusedKey: a key the node refuses, a node that needs a key and
// has none, and a key that is no key are errors holding
// devices.ErrBadKey, of kind devices.ErrInvalid; a node that does not
// answer is unreachable; none of them leaves a node or a device behind.
func TestAddRefusedKey(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: houseKey})
	a, reg := runAdapter(t, "", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for name, key := range map[string]string{
		"wrong key": otherKey,
		"no key":    "",
		"not a key": "c2hvcnQ=",
	} {
		_, err := a.AddWithKey(ctx, fake.Addr(), key)
		if !errors.Is(err, devices.ErrBadKey) || !errors.Is(err, devices.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	fake.Close()
	if _, err := a.Add(ctx, fake.Addr()); !errors.Is(err, devices.ErrUnreachable) || errors.Is(err, devices.ErrBadKey) {
		t.Errorf("a closed node: %v", err)
	}
	if n, d := len(a.Nodes()), len(reg.List()); n != 0 || d != 0 {
		t.Errorf("%d nodes and %d devices left behind", n, d)
	}
}
