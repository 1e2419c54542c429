package esphometest

import (
	"time"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// The fake proxy's one peripheral: a Neewer light, and its GATT table.
// The handles are the fake's own, unlike any in PROTOCOLS.md, so a client
// that hard-codes handles fails.
const (
	LightMAC   = "DF:24:3A:B4:46:5D"
	LightName  = "NW-RGB660"
	LightRSSI  = -58
	ProxySlots = 3

	HandleWrite  = 0x2a
	HandleNotify = 0x2c
	HandleCCCD   = 0x2d
)

// ProxyFeatures is what the fake proxy offers: passive scanning, active
// connections, remote caching, raw advertisements.
const ProxyFeatures = espwire.ProxyPassiveScan | espwire.ProxyActiveConnections |
	espwire.ProxyRemoteCaching | espwire.ProxyRawAdvertisements

// advertiseEvery is how often the fake proxy repeats the light's
// advertisement to a subscribed connection.
const advertiseEvery = 10 * time.Millisecond

// proxy is the Bluetooth proxy state of a node; n.mu guards it.
type proxy struct {
	free      int
	connected *conn // the connection the light is connected for
	notifying bool
}

var lightAddr, _ = espwire.MACToUint64(LightMAC)

func (p *proxy) slots() *espwire.BluetoothConnectionsFreeResponse {
	m := &espwire.BluetoothConnectionsFreeResponse{Free: uint32(p.free), Limit: ProxySlots}
	if p.connected != nil {
		m.Allocated = []uint64{lightAddr}
	}
	return m
}

// SetFreeSlots sets how many connection slots the proxy has free (others'
// connections hold the rest) and tells the subscribed clients.
func (n *Node) SetFreeSlots(free int) {
	n.mu.Lock()
	n.proxy.free = free
	m := n.proxy.slots()
	n.mu.Unlock()
	n.broadcastBLE(m)
}

// SetLightRSSI sets how loud the proxy hears the light from its next
// advertisement on, as when the light or the proxy is moved.
func (n *Node) SetLightRSSI(rssi int) {
	n.mu.Lock()
	n.cfg.LightRSSI = rssi
	n.mu.Unlock()
}

// LightConnected reports whether a client holds a connection to the light.
func (n *Node) LightConnected() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proxy.connected != nil
}

// NotifyLight sends a notification from the light's notify
// characteristic, as the light does, when notifications are on in the
// proxy and the light (its CCCD written); it reports whether it sent.
func (n *Node) NotifyLight(data []byte) bool {
	n.mu.Lock()
	c, on := n.proxy.connected, n.proxy.notifying
	n.mu.Unlock()
	if c == nil || !on {
		return false
	}
	m := &espwire.BluetoothGATTNotifyDataResponse{}
	m.Address, m.Handle, m.Data = lightAddr, HandleNotify, data
	return c.send(m) == nil
}

// DropLight disconnects the light, as one that goes out of range or is
// switched off at the wall.
func (n *Node) DropLight() {
	n.mu.Lock()
	c := n.proxy.connected
	n.mu.Unlock()
	if c != nil {
		n.disconnectLight(c, 0x13)
	}
}

func (n *Node) disconnectLight(c *conn, reason int32) {
	n.mu.Lock()
	n.proxy.connected, n.proxy.notifying = nil, false
	n.proxy.free++
	slots := n.proxy.slots()
	n.notify()
	n.mu.Unlock()
	_ = c.send(&espwire.BluetoothDeviceConnectionResponse{Address: lightAddr, Error: reason})
	n.broadcastBLE(slots)
}

func (n *Node) broadcastBLE(m espwire.Message) {
	n.mu.Lock()
	var to []*conn
	for c := range n.conns {
		if c.bleSubscribed {
			to = append(to, c)
		}
	}
	n.mu.Unlock()
	for _, c := range to {
		_ = c.send(m)
	}
}

// answerProxy answers a Bluetooth proxy request; it reports whether m
// was one. Like a proxy, it answers connection and GATT requests only on
// a connection subscribed to advertisements.
func (n *Node) answerProxy(c *conn, m espwire.Message) (bool, error) {
	if !n.cfg.BluetoothProxy {
		return false, nil
	}
	switch m.(type) {
	case *espwire.SubscribeBluetoothLEAdvertisementsRequest:
		n.mu.Lock()
		c.bleSubscribed = true
		n.mu.Unlock()
		n.wg.Add(1)
		go n.advertise(c)
		return true, nil
	case *espwire.SubscribeBluetoothConnectionsFreeRequest:
		n.mu.Lock()
		s := n.proxy.slots()
		n.mu.Unlock()
		return true, c.send(s)
	}
	switch m.(type) {
	case *espwire.BluetoothDeviceRequest, *espwire.BluetoothGATTGetServicesRequest, *espwire.BluetoothGATTWriteRequest,
		*espwire.BluetoothGATTNotifyRequest, *espwire.BluetoothGATTWriteDescriptorRequest:
		if !c.bleSubscribed {
			return true, nil // unanswered
		}
	default:
		return false, nil
	}
	switch m := m.(type) {
	case *espwire.BluetoothDeviceRequest:
		return true, n.deviceRequest(c, m)
	case *espwire.BluetoothGATTGetServicesRequest:
		return true, c.send(append(lightServices(), doneFor(lightAddr))...)
	case *espwire.BluetoothGATTWriteRequest:
		if m.Response {
			return true, c.send(writeResponse(m.Handle))
		}
		return true, nil
	case *espwire.BluetoothGATTNotifyRequest:
		ack := &espwire.BluetoothGATTNotifyResponse{}
		ack.Address, ack.Handle = lightAddr, m.Handle
		return true, c.send(ack)
	case *espwire.BluetoothGATTWriteDescriptorRequest:
		if m.Handle == HandleCCCD {
			n.mu.Lock()
			n.proxy.notifying = len(m.Data) == 2 && m.Data[0]&1 == 1
			n.mu.Unlock()
		}
		return true, c.send(writeResponse(m.Handle))
	}
	return false, nil
}

func (n *Node) deviceRequest(c *conn, m *espwire.BluetoothDeviceRequest) error {
	if m.Address != lightAddr {
		return c.send(&espwire.BluetoothDeviceConnectionResponse{Address: m.Address, Error: 0x02})
	}
	switch m.RequestType {
	case espwire.BluetoothConnectWithCache, espwire.BluetoothConnectWithoutCache:
		n.mu.Lock()
		if n.proxy.free == 0 || n.proxy.connected != nil {
			n.mu.Unlock()
			return c.send(&espwire.BluetoothDeviceConnectionResponse{Address: lightAddr, Error: -1})
		}
		n.proxy.free--
		n.proxy.connected = c
		slots := n.proxy.slots()
		n.notify()
		n.mu.Unlock()
		n.broadcastBLE(slots)
		return c.send(&espwire.BluetoothDeviceConnectionResponse{Address: lightAddr, Connected: true, MTU: 23})
	case espwire.BluetoothDisconnect:
		if n.LightConnected() {
			n.disconnectLight(c, 0)
		}
	}
	return nil
}

// advertise repeats the light's advertisement to c until it closes.
func (n *Node) advertise(c *conn) {
	defer n.wg.Done()
	t := time.NewTicker(advertiseEvery)
	defer t.Stop()
	for {
		n.mu.Lock()
		rssi := n.cfg.LightRSSI
		n.mu.Unlock()
		ad := &espwire.BluetoothLERawAdvertisementsResponse{Advertisements: []espwire.BluetoothLERawAdvertisement{{
			Address: lightAddr, RSSI: int32(rssi),
			Data: append([]byte{0x02, 0x01, 0x06, byte(1 + len(LightName)), 0x09}, LightName...),
		}}}
		if c.send(ad) != nil {
			return
		}
		select {
		case <-c.closed:
			return
		case <-t.C:
		}
	}
}

// lightServices is the light's GATT table in two parts, as a proxy
// sends it: the GAP service, then the Neewer service.
func lightServices() []espwire.Message {
	neewer := func(n uint64) espwire.GATTUUID {
		return espwire.GATTUUID{UUID: [2]uint64{0x69400000B5A3F393 | n<<32, 0xE0A9E50E24DCCA99}}
	}
	gap := &espwire.BluetoothGATTGetServicesResponse{Address: lightAddr, Services: []espwire.GATTService{{
		UUID: espwire.GATTUUID{Short: 0x1800}, Handle: 0x01,
		Characteristics: []espwire.GATTCharacteristic{{UUID: espwire.GATTUUID{Short: 0x2a00}, Handle: 0x03, Properties: 0x02}},
	}}}
	light := &espwire.BluetoothGATTGetServicesResponse{Address: lightAddr, Services: []espwire.GATTService{{
		UUID: neewer(1), Handle: 0x28,
		Characteristics: []espwire.GATTCharacteristic{
			{UUID: neewer(2), Handle: HandleWrite, Properties: espwire.GATTWriteWithoutResponse | espwire.GATTWrite},
			{
				UUID: neewer(3), Handle: HandleNotify, Properties: espwire.GATTNotify,
				Descriptors: []espwire.GATTDescriptor{{UUID: espwire.GATTUUID{Short: 0x2902}, Handle: HandleCCCD}},
			},
		},
	}}}
	return []espwire.Message{gap, light}
}

func doneFor(a uint64) *espwire.BluetoothGATTGetServicesDoneResponse {
	m := &espwire.BluetoothGATTGetServicesDoneResponse{}
	m.Address = a
	return m
}

func writeResponse(h uint32) *espwire.BluetoothGATTWriteResponse {
	m := &espwire.BluetoothGATTWriteResponse{}
	m.Address, m.Handle = lightAddr, h
	return m
}
