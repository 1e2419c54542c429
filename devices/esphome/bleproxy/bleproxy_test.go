package bleproxy_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/bleproxy"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// waitLimit bounds every wait on a condition.
const waitLimit = esphometest.WaitLimit

// Neewer frames of PROTOCOLS.md §1.10: N1, power on, and N14, the
// light's reply "power on".
var (
	powerOn    = []byte{0x78, 0x81, 0x01, 0x01, 0xFB}
	replyPower = []byte{0x78, 0x02, 0x01, 0x01, 0x7C}
)

// setup runs a fake proxy, a client of it and a transport through it
// until the test ends.
func setup(t *testing.T) (*esphometest.Node, *bleproxy.Transport) {
	t.Helper()
	fake := esphometest.Start(t, esphometest.Config{Name: "hall", BluetoothProxy: true})
	n, err := esphome.New(esphome.Config{
		Addr: fake.Addr(), Logf: t.Logf,
		Backoff: devices.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := bleproxy.New(n)
	t.Cleanup(func() { tr.Close() }) // after the node has stopped
	esphometest.Run(t, n)
	return fake, tr
}

func light() ble.Address { return ble.Address{MAC: esphometest.LightMAC} }

func connect(t *testing.T, tr *bleproxy.Transport) ble.Link {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	l, err := tr.Connect(ctx, light())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// received is the messages of type T the fake received, in order, and
// the index of each among all it received.
func received[T espwire.Message](fake *esphometest.Node) (ms []T, at []int) {
	for i, m := range fake.Received() {
		if x, ok := m.(T); ok {
			ms = append(ms, x)
			at = append(at, i)
		}
	}
	return ms, at
}

func TestScanHearsTheLight(t *testing.T) {
	_, tr := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan ble.Advertisement, 1)
	scanned := make(chan error, 1)
	go func() {
		scanned <- tr.Scan(ctx, func(a ble.Advertisement) {
			select {
			case heard <- a:
			default:
			}
		})
	}()
	select {
	case a := <-heard:
		want := ble.Advertisement{Address: light(), Name: esphometest.LightName, RSSI: esphometest.LightRSSI}
		if a != want {
			t.Fatalf("heard %+v, want %+v", a, want)
		}
	case <-time.After(waitLimit):
		t.Fatal("the light was not heard")
	}
	cancel()
	if err := <-scanned; err != nil {
		t.Fatalf("Scan = %v", err)
	}
}

// The whole exchange over the proxy: subscribed before connecting, a V3
// connect, characteristics found by UUID, a Neewer frame written without
// response, notifications turned on in the proxy and then in the light's
// CCCD, a notification delivered, and the light's disconnection seen.
func TestConnectWriteNotify(t *testing.T) {
	fake, tr := setup(t)
	l := connect(t, tr)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	_, subAt := received[*espwire.SubscribeBluetoothLEAdvertisementsRequest](fake)
	reqs, reqAt := received[*espwire.BluetoothDeviceRequest](fake)
	if len(subAt) != 1 || len(reqs) != 1 || subAt[0] > reqAt[0] {
		t.Fatalf("subscriptions at %v, device requests at %v: want one subscription before the connect", subAt, reqAt)
	}
	want := &espwire.BluetoothDeviceRequest{Address: 0xDF243AB4465D, RequestType: espwire.BluetoothConnectWithoutCache, HasAddressType: true}
	if *reqs[0] != *want {
		t.Fatalf("device request %+v, want %+v", reqs[0], want)
	}

	if err := l.Write(ctx, powerOn); err != nil {
		t.Fatal(err)
	}
	esphometest.WaitFor(t, "the write", fake.Changed, func() bool {
		ws, _ := received[*espwire.BluetoothGATTWriteRequest](fake)
		return len(ws) == 1
	})
	ws, _ := received[*espwire.BluetoothGATTWriteRequest](fake)
	if w := ws[0]; w.Handle != esphometest.HandleWrite || w.Response || !bytes.Equal(w.Data, powerOn) {
		t.Fatalf("write %+v, want % x without response on handle %#x", w, powerOn, esphometest.HandleWrite)
	}

	notes := make(chan []byte, 4)
	if err := l.Subscribe(ctx, func(b []byte) { notes <- b }); err != nil {
		t.Fatal(err)
	}
	ns, nAt := received[*espwire.BluetoothGATTNotifyRequest](fake)
	ds, dAt := received[*espwire.BluetoothGATTWriteDescriptorRequest](fake)
	if len(ns) != 1 || ns[0].Handle != esphometest.HandleNotify || !ns[0].Enable {
		t.Fatalf("notify requests %+v", ns)
	}
	if len(ds) != 1 || ds[0].Handle != esphometest.HandleCCCD || !bytes.Equal(ds[0].Data, []byte{1, 0}) || dAt[0] < nAt[0] {
		t.Fatalf("descriptor writes %+v at %v, notify request at %v: want 01 00 to the CCCD after it", ds, dAt, nAt)
	}
	if !fake.NotifyLight(replyPower) {
		t.Fatal("the light's notifications are not on")
	}
	select {
	case b := <-notes:
		if !bytes.Equal(b, replyPower) {
			t.Fatalf("notification % x, want % x", b, replyPower)
		}
	case <-time.After(waitLimit):
		t.Fatal("no notification")
	}

	fake.DropLight()
	select {
	case <-l.Done():
	case <-time.After(waitLimit):
		t.Fatal("the light's disconnection was not seen")
	}
	if err := l.Write(ctx, powerOn); err == nil {
		t.Fatal("a write on a lost link succeeded")
	}
}

func TestCloseDisconnects(t *testing.T) {
	fake, tr := setup(t)
	l := connect(t, tr)
	if !fake.LightConnected() {
		t.Fatal("the proxy holds no connection to the light")
	}
	l.Close()
	<-l.Done()
	esphometest.WaitFor(t, "the proxy to disconnect", fake.Changed, func() bool { return !fake.LightConnected() })
	// The slot comes back, and the light can be connected again.
	esphometest.WaitFor(t, "the slot back", tr.Changed, func() bool {
		free, _, _ := tr.Slots()
		return free == esphometest.ProxySlots
	})
	connect(t, tr)
}

func TestNoFreeSlotIsRefused(t *testing.T) {
	fake, tr := setup(t)
	esphometest.WaitFor(t, "the proxy's slots", tr.Changed, func() bool { _, _, ok := tr.Slots(); return ok })
	fake.SetFreeSlots(0)
	esphometest.WaitFor(t, "no free slot", tr.Changed, func() bool { free, _, _ := tr.Slots(); return free == 0 })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err := tr.Connect(ctx, light())
	if !errors.Is(err, bleproxy.ErrNoSlot) {
		t.Fatalf("Connect = %v, want ErrNoSlot", err)
	}
	t.Log(err)
	if reqs, _ := received[*espwire.BluetoothDeviceRequest](fake); len(reqs) != 0 {
		t.Fatalf("the proxy was asked anyway: %+v", reqs)
	}
	fake.SetFreeSlots(1)
	esphometest.WaitFor(t, "a free slot", tr.Changed, func() bool { free, _, _ := tr.Slots(); return free == 1 })
	connect(t, tr)
}

// When the API connection drops, the link ends; once the client is back
// (and subscribed again) the light connects again.
func TestAPIDropEndsTheLink(t *testing.T) {
	fake, tr := setup(t)
	l := connect(t, tr)
	fake.Restart(t)
	select {
	case <-l.Done():
	case <-time.After(waitLimit):
		t.Fatal("the link outlived the API connection")
	}
	connect(t, tr)
	if subs, _ := received[*espwire.SubscribeBluetoothLEAdvertisementsRequest](fake); len(subs) != 2 {
		t.Fatalf("%d subscriptions, want one per API connection", len(subs))
	}
}
