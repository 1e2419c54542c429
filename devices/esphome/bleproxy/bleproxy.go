// Package bleproxy reaches Bluetooth LE peripherals through an ESPHome
// Bluetooth proxy: a ble.Transport over one node's API connection, so
// that the Neewer adapter drives a light in a room the hub's own radio
// does not reach exactly as it drives one next to it.
//
// What a proxy asks of its client (aioesphomeapi and the firmware agree):
// subscribe to advertisements on the connection first, since the proxy
// sends connection and GATT replies only to the subscribed connection;
// connect with the V3 request types (the proxy must offer remote
// caching); ask for the service list and find characteristics by UUID,
// never by handle; and after turning notifications on in the proxy,
// write 01 00 to the characteristic's CCCD itself.
package bleproxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

var (
	// ErrNoSlot: every connection slot of the proxy is taken.
	ErrNoSlot = errors.New("the proxy has no free Bluetooth connection slot")
	// ErrNotProxy: the node offers no active Bluetooth connections, or
	// only through the first connect request, which clients no longer use.
	ErrNotProxy = errors.New("the node is not a Bluetooth proxy with active connections (remote caching)")
	// ErrProxyDown: the API connection to the proxy is down.
	ErrProxyDown = errors.New("the proxy is not connected")
	// ErrDisconnected: the proxy reports the peripheral disconnected.
	ErrDisconnected = errors.New("the peripheral disconnected")
	// ErrNoService: the peripheral lacks the Neewer service or one of
	// its characteristics.
	ErrNoService = errors.New("the peripheral has no Neewer service")
)

// cccdUUID is the Client Characteristic Configuration descriptor.
const cccdUUID = "00002902-0000-1000-8000-00805F9B34FB"

// Transport is a ble.Transport through one proxy.
type Transport struct {
	node *esphome.Node
	stop func()

	mu         sync.Mutex
	ready      bool // subscribed on the current connection
	slots      *espwire.BluetoothConnectionsFreeResponse
	connecting int // links claimed whose connection the proxy has not confirmed
	scans      map[*func(ble.Advertisement)]bool
	links      map[uint64]*link
	changed    chan struct{}
}

var _ ble.Transport = (*Transport)(nil)

// New makes a transport through node, which the caller runs and closes.
func New(node *esphome.Node) *Transport {
	t := &Transport{
		node:    node,
		scans:   map[*func(ble.Advertisement)]bool{},
		links:   map[uint64]*link{},
		changed: make(chan struct{}),
	}
	t.stop = node.Listen(&esphome.Listener{Up: t.up, Message: t.message, Down: t.down})
	return t
}

// Name names the proxy by its address.
func (t *Transport) Name() string { return "esphome " + t.node.Addr() }

// Radio names the proxy for people, "esphome:<node name>" (its address
// until the node has said its name).
func (t *Transport) Radio() string {
	if name := t.node.Info().Name; name != "" {
		return "esphome:" + name
	}
	return "esphome:" + t.node.Addr()
}

// Follow waits until node shows itself a Bluetooth proxy that makes
// active connections (its device info says so), then calls found with a
// transport through it, once. It returns then, or when ctx ends. The
// transport shares the node's one API connection with everything else
// that follows the node.
func Follow(ctx context.Context, node *esphome.Node, found func(*Transport)) {
	for {
		ch := node.Changed()
		up, _ := node.Status()
		if up && node.Info().BluetoothProxyFeatureFlags&espwire.ProxyActiveConnections != 0 {
			found(New(node))
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// Slots is the proxy's free and total connection slots, as it last said,
// less the slots of links being connected that it has not counted yet
// (so free is 0 when Connect would find none); ok is false until it has
// said.
func (t *Transport) Slots() (free, limit int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.slots == nil {
		return 0, 0, false
	}
	return t.free(), int(t.slots.Limit), true
}

// free is how many slots a link can take now; t.mu is held.
func (t *Transport) free() int {
	return max(int(t.slots.Free)-t.connecting, 0)
}

// Changed is closed at the transport's next change: subscribed, the
// proxy's slots, a link gone. Take it before reading what it guards.
func (t *Transport) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// Close disconnects every link and stops following the node.
func (t *Transport) Close() error {
	t.mu.Lock()
	links := make([]*link, 0, len(t.links))
	for _, l := range t.links {
		links = append(links, l)
	}
	t.mu.Unlock()
	for _, l := range links {
		_ = l.Close()
	}
	t.stop()
	t.down()
	return nil
}

// notify wakes those waiting on the transport's state; t.mu is held.
func (t *Transport) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// up subscribes on a new connection: advertisements (raw when the proxy
// offers them), then connection slots.
func (t *Transport) up() {
	flags := uint32(0)
	if t.node.Info().BluetoothProxyFeatureFlags&espwire.ProxyRawAdvertisements != 0 {
		flags = espwire.SubscribeRawAdvertisements
	}
	ctx := context.Background()
	if t.node.Send(ctx, &espwire.SubscribeBluetoothLEAdvertisementsRequest{Flags: flags}) != nil ||
		t.node.Send(ctx, &espwire.SubscribeBluetoothConnectionsFreeRequest{}) != nil {
		return // the connection is ending; down follows
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ready = true
	t.notify()
}

// down ends every link: a proxy that lost its client drops them.
func (t *Transport) down() {
	t.mu.Lock()
	t.ready, t.slots = false, nil
	links := make([]*link, 0, len(t.links))
	for _, l := range t.links {
		links = append(links, l)
	}
	t.notify()
	t.mu.Unlock()
	for _, l := range links {
		l.lose(ErrProxyDown)
	}
}

func (t *Transport) message(m espwire.Message) {
	switch m := m.(type) {
	case *espwire.BluetoothLERawAdvertisementsResponse:
		for i := range m.Advertisements {
			a := &m.Advertisements[i]
			t.heard(ble.Advertisement{Address: address(a.Address, a.AddressType), Name: a.LocalName(), RSSI: int(a.RSSI)})
		}
	case *espwire.BluetoothLEAdvertisementResponse:
		t.heard(ble.Advertisement{Address: address(m.Address, m.AddressType), Name: m.Name, RSSI: int(m.RSSI)})
	case *espwire.BluetoothConnectionsFreeResponse:
		t.mu.Lock()
		t.slots = m
		t.notify()
		t.mu.Unlock()
	default:
		if a, ok := peripheral(m); ok {
			t.mu.Lock()
			l := t.links[a]
			t.mu.Unlock()
			if l != nil {
				l.handle(m)
			}
		}
	}
}

func address(a uint64, typ uint32) ble.Address {
	return ble.Address{MAC: espwire.Uint64ToMAC(a), Random: typ == 1}
}

// peripheral is the address a reply to a GATT or connection request is
// about.
func peripheral(m espwire.Message) (uint64, bool) {
	switch m := m.(type) {
	case *espwire.BluetoothDeviceConnectionResponse:
		return m.Address, true
	case *espwire.BluetoothGATTGetServicesResponse:
		return m.Address, true
	case *espwire.BluetoothGATTGetServicesDoneResponse:
		return m.Address, true
	case *espwire.BluetoothGATTWriteResponse:
		return m.Address, true
	case *espwire.BluetoothGATTNotifyResponse:
		return m.Address, true
	case *espwire.BluetoothGATTNotifyDataResponse:
		return m.Address, true
	case *espwire.BluetoothGATTErrorResponse:
		return m.Address, true
	}
	return 0, false
}

func (t *Transport) heard(a ble.Advertisement) {
	t.mu.Lock()
	fns := make([]func(ble.Advertisement), 0, len(t.scans))
	for f := range t.scans {
		fns = append(fns, *f)
	}
	t.mu.Unlock()
	for _, f := range fns {
		f(a)
	}
}

// Scan calls found for each advertisement the proxy hears until ctx
// ends. The proxy listens all the time; scanning only listens to it.
func (t *Transport) Scan(ctx context.Context, found func(ble.Advertisement)) error {
	key := &found
	t.mu.Lock()
	t.scans[key] = true
	t.mu.Unlock()
	<-ctx.Done()
	t.mu.Lock()
	delete(t.scans, key)
	t.mu.Unlock()
	return nil
}

// ListensAlways says that the proxy hears advertisements all the time,
// whether or not anyone scans: listening to it costs nothing, so the
// Neewer adapter does, to follow each light's signal.
func (t *Transport) ListensAlways() bool { return true }

// Connect connects through the proxy to the peripheral at addr and finds
// its Neewer service. It waits for the proxy's connection while ctx
// lasts, and refuses at once when the proxy has no free slot.
func (t *Transport) Connect(ctx context.Context, addr ble.Address) (ble.Link, error) {
	a, err := espwire.MACToUint64(addr.MAC)
	if err != nil {
		return nil, err
	}
	if err := t.waitReady(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name(), err)
	}
	if f := t.node.Info().BluetoothProxyFeatureFlags; f&espwire.ProxyActiveConnections == 0 || f&espwire.ProxyRemoteCaching == 0 {
		return nil, fmt.Errorf("%s: %w", t.Name(), ErrNotProxy)
	}
	l, err := t.claim(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", t.Name(), addr.MAC, err)
	}
	if err := l.open(ctx, addr.Random); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("%s: %s: %w", t.Name(), addr.MAC, err)
	}
	return l, nil
}

// waitReady waits until the transport is subscribed and knows the
// proxy's slots.
func (t *Transport) waitReady(ctx context.Context) error {
	for {
		t.mu.Lock()
		ok, ch := t.ready && t.slots != nil, t.changed
		t.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrProxyDown, ctx.Err())
		}
	}
}

// claim takes a slot for a link to a, when the proxy has one free.
func (t *Transport) claim(a uint64) (*link, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.links[a] != nil {
		return nil, errors.New("already connected through this proxy")
	}
	if t.free() == 0 {
		return nil, fmt.Errorf("%w (%d in use)", ErrNoSlot, t.slots.Limit)
	}
	t.connecting++
	l := &link{t: t, addr: a, done: make(chan struct{}), pending: true}
	t.links[a] = l
	t.notify() // a slot fewer free
	return l, nil
}

// confirmed counts a claimed link as connected: the proxy's own count
// of free slots covers it from now on.
func (t *Transport) confirmed(l *link) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.pending {
		l.pending = false
		t.connecting--
	}
}

func (t *Transport) release(l *link) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.links[l.addr] == l {
		delete(t.links, l.addr)
	}
	if l.pending {
		l.pending = false
		t.connecting--
	}
	t.notify()
}

// send sends m to the proxy.
func (t *Transport) send(ctx context.Context, m espwire.Message) error {
	if err := t.node.Send(ctx, m); err != nil {
		return fmt.Errorf("%w: %w", ErrProxyDown, err)
	}
	return nil
}

// hasUUID reports whether u is the UUID s.
func hasUUID(u espwire.GATTUUID, s string) bool { return strings.EqualFold(u.String(), s) }
