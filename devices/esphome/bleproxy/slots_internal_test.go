package bleproxy

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// A slot being taken is not free: Slots says what Connect would find.
func TestSlotsLeaveOutLinksBeingConnected(t *testing.T) {
	tr := &Transport{
		slots:   &espwire.BluetoothConnectionsFreeResponse{Free: 1, Limit: 3},
		links:   map[uint64]*link{},
		changed: make(chan struct{}),
	}
	l, err := tr.claim(0xA1)
	if err != nil {
		t.Fatal(err)
	}
	if free, limit, ok := tr.Slots(); free != 0 || limit != 3 || !ok {
		t.Fatalf("with the last slot being taken: %d of %d free, %v", free, limit, ok)
	}
	if _, err := tr.claim(0xA2); err == nil {
		t.Fatal("a second link took the slot being taken")
	}
	tr.release(l)
	if free, _, _ := tr.Slots(); free != 1 {
		t.Fatalf("with the slot given back: %d free", free)
	}
}
