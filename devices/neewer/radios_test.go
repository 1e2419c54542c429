package neewer_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
)

// A light reached through the hub's own radio says so, with the signal
// the scan heard it at; no radio at all leaves nothing to scan with.
func TestViaTheLocalRadio(t *testing.T) {
	radio := neewertest.NewRadio()
	radio.Add(keyMAC, "NW-RGB660")
	reg := devices.NewRegistry(time.Second)
	changed := make(chan struct{}, 1)
	reg.Subscribe(func(devices.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	ad := neewer.New(neewer.Config{Transport: radio, Radio: "hci0", Registry: reg, Timing: timing(), ScanFor: time.Hour, Rescan: -1})
	ctx, cancel := context.WithCancel(context.Background())
	go ad.Run(ctx)
	t.Cleanup(func() { cancel(); ad.Close(); reg.Close() })

	deadline := time.After(10 * time.Second)
	for {
		if l, ok := ad.Light(keyMAC); ok {
			if v, up := l.Via(); up {
				if want := (devices.Via{Radio: "hci0", RSSI: -60}); v != want {
					t.Fatalf("via %+v, want %+v", v, want)
				}
				break
			}
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the light never said which radio reaches it")
		}
	}

	none := neewer.New(neewer.Config{Registry: reg})
	defer none.Close()
	if _, err := none.Scan(context.Background()); err == nil {
		t.Fatal("a scan with no radio at all started")
	}
}
