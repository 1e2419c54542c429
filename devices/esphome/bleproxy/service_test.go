package bleproxy_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// The light's view follows its signal as the proxy hears it: when the
// advertisements grow fainter, the view's via says so, with no command
// sent and no state asked for.
func TestViewFollowsTheSignal(t *testing.T) {
	fake, tr := proxyNode(t, "studio", -50, nil)
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(waitLimit)
	ad := neewer.New(neewer.Config{
		Proxies: []ble.Transport{tr}, Registry: reg, ScanFor: time.Hour, Rescan: -1,
		Timing: neewer.Timing{
			ConnectTimeout: waitLimit, BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond,
			ProbeInterval: time.Hour, SignalEvery: 50 * time.Millisecond,
		},
	})
	svc := service.New(service.Config{Store: db, Registry: reg})
	done := make(chan struct{}, 2)
	go func() { _ = svc.Run(ctx); done <- struct{}{} }()
	go func() { _ = ad.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		ad.Close()
		<-done
		<-done
		reg.Close()
		db.Close()
	})
	events, stop := svc.Events().Subscribe()
	defer stop()
	sys := service.WithPrincipal(ctx, service.System)
	id := "neewer:" + esphometest.LightMAC

	// viaIs waits until the light's view says it is reached through the
	// studio at rssi.
	viaIs := func(rssi int) {
		t.Helper()
		deadline := time.NewTimer(waitLimit)
		defer deadline.Stop()
		for {
			l, err := svc.GetLight(sys, id)
			if err == nil && l.Via != nil && *l.Via == (devices.Via{Radio: "esphome:studio", RSSI: rssi}) {
				return
			}
			select {
			case <-events:
			case <-deadline.C:
				t.Fatalf("the light's view: %+v, %v; want it reached through the studio at %d dBm", l, err, rssi)
			}
		}
	}
	viaIs(-50)
	fake.SetLightRSSI(-64)
	viaIs(-64)
	fake.SetLightRSSI(-75)
	viaIs(-75)
	ws, _ := received[*espwire.BluetoothGATTWriteRequest](fake)
	for _, w := range ws {
		if w.Handle == esphometest.HandleWrite && len(w.Data) > 1 && w.Data[1] == 0x81 {
			t.Fatalf("a command went to the light (% X); the signal should follow without one", w.Data)
		}
	}
}
