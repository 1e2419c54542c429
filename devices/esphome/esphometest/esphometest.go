// Package esphometest is a fake ESPHome node for tests, written from the
// native API as nodes speak it: plaintext or Noise with a key, the
// behaviour of firmware of 2024 or of 2025 and later, and four entities
// (a colour light, a switch, a temperature sensor and a motion sensor),
// and any more lights, fans and buttons a test gives it, whose states it
// sends when they change. It can restart, dropping every
// connection and listening again on the same address.
package esphometest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// Firmware is the age of the node's firmware, where behaviour differs.
type Firmware int

const (
	// Firmware2025 speaks API 1.12: a plaintext node answers a Noise hello
	// with "\x00Bad indicator byte" and never answers a ConnectRequest.
	Firmware2025 Firmware = iota
	// Firmware2024 speaks API 1.10: a plaintext node closes the connection
	// at a Noise hello, and the node answers a ConnectRequest and closes
	// a connection that asks for entities without one.
	Firmware2024
)

// The keys of the node's entities.
const (
	KeyLight  = 0x1001
	KeySwitch = 0x1002
	KeySensor = 0x1003
	KeyMotion = 0x1004
)

// Config describes the node.
type Config struct {
	Name     string // "kitchen"
	MAC      string // "AC:BC:32:89:0E:A9"
	Key      string // base64 API key; "" for a node without encryption
	Firmware Firmware
	// BluetoothProxy makes the node a Bluetooth proxy with ProxySlots
	// connection slots, hearing one Neewer light (LightMAC).
	BluetoothProxy bool
	// LightRSSI is how loud the proxy hears the light (LightRSSI when 0)
	// until SetLightRSSI changes it.
	LightRSSI int
	// Entities are more the node lists after its four: lights, which
	// start off in their first colour mode, fans, which start off, and
	// buttons. It performs their commands as a node does.
	Entities []espwire.Entity
}

// Node is the fake node.
type Node struct {
	cfg  Config
	psk  []byte
	addr string

	mu       sync.Mutex
	ln       net.Listener
	conns    map[*conn]bool
	raw      map[net.Conn]bool // every open connection, settled or not
	attempts int
	light    espwire.LightStateResponse
	lights   map[uint32]*espwire.LightStateResponse // Config.Entities' lights
	fans     map[uint32]*espwire.FanStateResponse
	on       bool    // the switch
	reading  float32 // the sensor
	motion   bool
	received []espwire.Message
	accepted int
	changed  chan struct{}
	wg       sync.WaitGroup
	proxy    proxy
}

type conn struct {
	c          net.Conn
	codec      espwire.Codec
	wmu        sync.Mutex
	subscribed bool
	loggedIn   bool
	// bleSubscribed: subscribed to advertisements; guarded by Node.mu.
	bleSubscribed bool
	closed        chan struct{}
}

// Start starts a node on a loopback port; the test's end closes it.
func Start(t testing.TB, cfg Config) *Node {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "kitchen"
	}
	if cfg.MAC == "" {
		cfg.MAC = "AC:BC:32:89:0E:A9"
	}
	if cfg.LightRSSI == 0 {
		cfg.LightRSSI = LightRSSI
	}
	n := &Node{cfg: cfg, conns: map[*conn]bool{}, raw: map[net.Conn]bool{}, changed: make(chan struct{}), reading: 21.5}
	n.proxy.free = ProxySlots
	n.light = espwire.LightStateResponse{Key: KeyLight, ColorMode: espwire.ColorModeColorTemperature, Brightness: 1, ColorTemperature: 370}
	n.lights, n.fans = map[uint32]*espwire.LightStateResponse{KeyLight: &n.light}, map[uint32]*espwire.FanStateResponse{}
	for _, e := range cfg.Entities {
		switch e := e.(type) {
		case *espwire.ListEntitiesLightResponse:
			st := &espwire.LightStateResponse{Key: e.Key, Brightness: 1, ColorBrightness: 1, Red: 1, Green: 1, Blue: 1, White: 1}
			if len(e.SupportedColorModes) > 0 {
				st.ColorMode = e.SupportedColorModes[0]
			}
			n.lights[e.Key] = st
		case *espwire.ListEntitiesFanResponse:
			n.fans[e.Key] = &espwire.FanStateResponse{Key: e.Key}
		}
	}
	if cfg.Key != "" {
		psk, err := espwire.ParseKey(cfg.Key)
		if err != nil {
			t.Fatal(err)
		}
		n.psk = psk
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n.addr = ln.Addr().String()
	n.listen(ln)
	t.Cleanup(n.Close)
	return n
}

// Addr is the node's host:port.
func (n *Node) Addr() string { return n.addr }

func (n *Node) listen(ln net.Listener) {
	n.mu.Lock()
	n.ln = ln
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				n.serve(c)
			}()
		}
	}()
}

// Close stops the node and drops its connections.
func (n *Node) Close() {
	n.mu.Lock()
	if n.ln != nil {
		n.ln.Close()
		n.ln = nil
	}
	for c := range n.raw {
		c.Close()
	}
	n.mu.Unlock()
	n.wg.Wait()
}

// Restart drops every connection, as a node that reboots does, and
// listens again on the same address.
func (n *Node) Restart(t testing.TB) {
	t.Helper()
	n.Close()
	ln, err := net.Listen("tcp", n.addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", n.addr, err)
	}
	n.listen(ln)
}

// Changed is closed at the node's next change: a connection, a message
// received. Take it before reading what it guards.
func (n *Node) Changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.changed
}

func (n *Node) notify() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// Received is every message clients sent, in order, hellos included.
func (n *Node) Received() []espwire.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]espwire.Message(nil), n.received...)
}

// Accepted is how many connections the node has accepted.
func (n *Node) Accepted() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.accepted
}

// Attempts is how many connections clients opened, including those the
// node refused or closed at once.
func (n *Node) Attempts() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.attempts
}

// Subscribers is how many connections are subscribed to states.
func (n *Node) Subscribers() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for c := range n.conns {
		if c.subscribed {
			k++
		}
	}
	return k
}

// Light is the light's state.
func (n *Node) Light() espwire.LightStateResponse { return n.LightOf(KeyLight) }

// LightOf is the state of the light with key.
func (n *Node) LightOf(key uint32) espwire.LightStateResponse {
	n.mu.Lock()
	defer n.mu.Unlock()
	return *n.lights[key]
}

// Fan is the state of the fan with key.
func (n *Node) Fan(key uint32) espwire.FanStateResponse {
	n.mu.Lock()
	defer n.mu.Unlock()
	return *n.fans[key]
}

// SetReading changes the sensor's reading and sends it.
func (n *Node) SetReading(v float32) {
	n.mu.Lock()
	n.reading = v
	n.mu.Unlock()
	n.broadcast(&espwire.SensorStateResponse{Key: KeySensor, State: v})
}

// SetMotion changes the motion sensor's state and sends it.
func (n *Node) SetMotion(v bool) {
	n.mu.Lock()
	n.motion = v
	n.mu.Unlock()
	n.broadcast(&espwire.BinarySensorStateResponse{Key: KeyMotion, State: v})
}

// Ping and AskTime send a PingRequest or a GetTimeRequest to every
// subscribed client, as a node does.
func (n *Node) Ping()    { n.broadcast(&espwire.PingRequest{}) }
func (n *Node) AskTime() { n.broadcast(&espwire.GetTimeRequest{}) }

// SendRaw writes b, as it is, to every subscribed client: a truncated
// frame, a huge length, a frame that does not decrypt. With hangUp the
// node then closes those connections.
func (n *Node) SendRaw(b []byte, hangUp bool) {
	for _, c := range n.subscribed() {
		c.wmu.Lock()
		_, _ = c.c.Write(b)
		c.wmu.Unlock()
		if hangUp {
			c.c.Close()
		}
	}
}

// SendFrame sends f, whatever its type, to every subscribed client in
// the connection's framing.
func (n *Node) SendFrame(f espwire.Frame) {
	for _, c := range n.subscribed() {
		c.wmu.Lock()
		_ = c.codec.WriteFrames(f)
		c.wmu.Unlock()
	}
}

func (n *Node) subscribed() []*conn {
	n.mu.Lock()
	defer n.mu.Unlock()
	var to []*conn
	for c := range n.conns {
		if c.subscribed {
			to = append(to, c)
		}
	}
	return to
}

func (n *Node) broadcast(m espwire.Message) {
	for _, c := range n.subscribed() {
		_ = c.send(m)
	}
}

func (c *conn) send(ms ...espwire.Message) error {
	fs := make([]espwire.Frame, len(ms))
	for i, m := range ms {
		fs[i] = espwire.Encode(m)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.codec.WriteFrames(fs...)
}

func (n *Node) serve(nc net.Conn) {
	n.mu.Lock()
	if n.ln == nil {
		n.mu.Unlock()
		nc.Close()
		return
	}
	n.raw[nc] = true
	n.attempts++
	n.notify()
	n.mu.Unlock()
	defer func() {
		nc.Close()
		n.mu.Lock()
		delete(n.raw, nc)
		n.mu.Unlock()
	}()
	c, ok := n.open(nc)
	if !ok {
		return
	}
	n.mu.Lock()
	if n.ln == nil { // closed while the handshake ran
		n.mu.Unlock()
		return
	}
	n.conns[c] = true
	n.accepted++
	n.notify()
	n.mu.Unlock()
	defer func() {
		close(c.closed)
		n.mu.Lock()
		delete(n.conns, c)
		lost := n.proxy.connected == c
		n.notify()
		n.mu.Unlock()
		if lost { // a proxy drops the connections of a client that goes
			n.disconnectLight(c, 0x16)
		}
	}()
	for {
		f, err := c.codec.ReadFrame()
		if err != nil {
			return
		}
		m, err := espwire.Decode(f)
		if err != nil {
			return
		}
		n.record(m)
		if !n.answer(c, m) {
			return
		}
	}
}

// open reads the first byte and settles the framing as the node's
// firmware does.
func (n *Node) open(nc net.Conn) (*conn, bool) {
	r := bufio.NewReader(nc)
	first, err := r.Peek(1)
	if err != nil {
		return nil, false
	}
	c := &conn{c: nc, codec: &espwire.Plain{R: r, W: nc}, closed: make(chan struct{})}
	switch {
	case n.psk != nil && first[0] != espwire.IndicatorNoise:
		_, _ = nc.Write(espwire.AppendReject(nil, espwire.ReasonBadIndicator))
		drain(r)
		return nil, false
	case n.psk != nil:
		hello := espwire.ServerHello{Protocol: espwire.NoiseProtocol, Name: n.cfg.Name, MAC: macDigits(n.cfg.MAC)}
		codec, err := espwire.ServerHandshake(r, nc, n.psk, hello, nil)
		if err != nil {
			return nil, false
		}
		c.codec = codec
	case first[0] != espwire.IndicatorPlain && n.cfg.Firmware == Firmware2024:
		return nil, false // closes without a word
	case first[0] != espwire.IndicatorPlain:
		_, _ = nc.Write(append([]byte{0}, espwire.ReasonBadIndicator...))
		drain(r)
		return nil, false
	}
	return c, true
}

// drain reads what the client sent until it closes, so that the node's
// close is a FIN after its answer, not a reset that could overtake it.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, io.LimitReader(r, 1<<16)) }

func macDigits(mac string) string {
	out := make([]byte, 0, 12)
	for i := 0; i < len(mac); i++ {
		if c := mac[i]; c != ':' {
			if 'A' <= c && c <= 'F' {
				c += 'a' - 'A'
			}
			out = append(out, c)
		}
	}
	return string(out)
}

func (n *Node) record(m espwire.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.received = append(n.received, m)
	n.notify()
}

var errClose = errors.New("close")

// answer answers one message; false closes the connection.
func (n *Node) answer(c *conn, m espwire.Message) bool {
	if ok, err := n.answerProxy(c, m); ok {
		return err == nil
	}
	var err error
	switch m := m.(type) {
	case *espwire.HelloRequest:
		err = c.send(n.helloResponse())
	case *espwire.ConnectRequest:
		if n.cfg.Firmware == Firmware2024 {
			c.loggedIn = true
			err = c.send(&espwire.ConnectResponse{})
		}
	case *espwire.DeviceInfoRequest:
		err = c.send(n.deviceInfo())
	case *espwire.ListEntitiesRequest:
		if n.cfg.Firmware == Firmware2024 && !c.loggedIn {
			return false // "tried to access without authentication"
		}
		err = c.send(append(n.entities(), &espwire.ListEntitiesDoneResponse{})...)
	case *espwire.SubscribeStatesRequest:
		n.mu.Lock()
		c.subscribed = true
		n.notify()
		n.mu.Unlock()
		err = c.send(n.states()...)
	case *espwire.PingRequest:
		err = c.send(&espwire.PingResponse{})
	case *espwire.DisconnectRequest:
		_ = c.send(&espwire.DisconnectResponse{})
		err = errClose
	case *espwire.LightCommandRequest:
		if st := n.applyLight(m); st != nil {
			n.broadcast(st)
		}
	case *espwire.FanCommandRequest:
		if st := n.applyFan(m); st != nil {
			n.broadcast(st)
		}
	case *espwire.SwitchCommandRequest:
		n.mu.Lock()
		n.on = m.State
		n.mu.Unlock()
		n.broadcast(&espwire.SwitchStateResponse{Key: KeySwitch, State: m.State})
	}
	return err == nil
}

func (n *Node) helloResponse() *espwire.HelloResponse {
	h := &espwire.HelloResponse{APIVersionMajor: 1, APIVersionMinor: 12, ServerInfo: n.cfg.Name + " (esphome v2025.8.0)", Name: n.cfg.Name}
	if n.cfg.Firmware == Firmware2024 {
		h.APIVersionMinor, h.ServerInfo = 10, n.cfg.Name+" (esphome v2024.6.0)"
	}
	return h
}

func (n *Node) deviceInfo() *espwire.DeviceInfoResponse {
	info := &espwire.DeviceInfoResponse{
		Name: n.cfg.Name, FriendlyName: "Kitchen node", MACAddress: n.cfg.MAC,
		ESPHomeVersion: "2025.8.0", Model: "esp32dev", Manufacturer: "Espressif",
		SuggestedArea: "Kitchen", APIEncryptionSupported: n.psk != nil,
	}
	if n.cfg.BluetoothProxy {
		info.BluetoothProxyFeatureFlags = ProxyFeatures
		info.BluetoothMACAddress = n.cfg.MAC[:len(n.cfg.MAC)-1] + "B"
	}
	return info
}

func (n *Node) entities() []espwire.Message {
	es := []espwire.Message{
		&espwire.ListEntitiesLightResponse{
			EntityInfo:          espwire.EntityInfo{ObjectID: "ceiling", Key: KeyLight, Name: "Ceiling"},
			SupportedColorModes: []espwire.ColorMode{espwire.ColorModeColorTemperature, espwire.ColorModeRGB},
			MinMireds:           153, MaxMireds: 500,
			Effects: []string{"Rainbow", "Strobe"},
		},
		&espwire.ListEntitiesSwitchResponse{EntityInfo: espwire.EntityInfo{ObjectID: "kettle", Key: KeySwitch, Name: "Kettle"}, DeviceClass: "outlet"},
		&espwire.ListEntitiesSensorResponse{
			EntityInfo: espwire.EntityInfo{ObjectID: "temperature", Key: KeySensor, Name: "Temperature"},
			Unit:       "°C", AccuracyDecimals: 1, DeviceClass: "temperature", StateClass: espwire.StateClassMeasurement,
		},
		&espwire.ListEntitiesBinarySensorResponse{EntityInfo: espwire.EntityInfo{ObjectID: "motion", Key: KeyMotion, Name: "Motion"}, DeviceClass: "motion"},
	}
	for _, e := range n.cfg.Entities {
		es = append(es, e)
	}
	return es
}

func (n *Node) states() []espwire.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.light
	out := []espwire.Message{
		&l,
		&espwire.SwitchStateResponse{Key: KeySwitch, State: n.on},
		&espwire.SensorStateResponse{Key: KeySensor, State: n.reading},
		&espwire.BinarySensorStateResponse{Key: KeyMotion, State: n.motion},
	}
	for _, e := range n.cfg.Entities {
		if st, ok := n.lights[e.Entity().Key]; ok {
			c := *st
			out = append(out, &c)
		}
		if st, ok := n.fans[e.Entity().Key]; ok {
			c := *st
			out = append(out, &c)
		}
	}
	return out
}

// applyLight applies a command as a node does: only what it names, a
// colour without a mode in RGB mode and a temperature without one in
// colour temperature mode; a colour's brightness full if it was 0; and in
// a cold/warm white mode a temperature spread over the two channels,
// the nearer at full (with a gamma of 1, where a node uses its own).
func (n *Node) applyLight(m *espwire.LightCommandRequest) *espwire.LightStateResponse {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.lights[m.Key]
	if l == nil {
		return nil
	}
	set(&l.State, m.State)
	set(&l.Brightness, m.Brightness)
	set(&l.ColorMode, m.ColorMode)
	set(&l.ColorBrightness, m.ColorBrightness)
	set(&l.White, m.White)
	set(&l.ColdWhite, m.ColdWhite)
	set(&l.WarmWhite, m.WarmWhite)
	set(&l.Effect, m.Effect)
	if m.RGB != nil {
		l.Red, l.Green, l.Blue = m.RGB.Red, m.RGB.Green, m.RGB.Blue
		if m.ColorMode == nil {
			l.ColorMode = espwire.ColorModeRGB
		}
		if m.ColorBrightness == nil && l.ColorBrightness == 0 {
			l.ColorBrightness = 1
		}
	}
	if m.ColorTemperature != nil {
		l.ColorTemperature = *m.ColorTemperature
		if m.ColorMode == nil {
			l.ColorMode = espwire.ColorModeColorTemperature
		}
		if l.ColorMode.ColdWarm() && !l.ColorMode.White() && m.ColdWhite == nil && m.WarmWhite == nil {
			l.ColdWhite, l.WarmWhite = n.spread(m.Key, l.ColorTemperature)
		}
	}
	out := *l
	return &out
}

// spread is a temperature's cold and warm channels on the light with key.
func (n *Node) spread(key uint32, mired float32) (cold, warm float32) {
	for _, e := range n.cfg.Entities {
		if e, ok := e.(*espwire.ListEntitiesLightResponse); ok && e.Key == key && e.MaxMireds > e.MinMireds {
			ww := (min(max(mired, e.MinMireds), e.MaxMireds) - e.MinMireds) / (e.MaxMireds - e.MinMireds)
			top := max(ww, 1-ww)
			return (1 - ww) / top, ww / top
		}
	}
	return 1, 1
}

// applyFan applies a command as a node does: a fan turned on at no
// speed level runs at its highest.
func (n *Node) applyFan(m *espwire.FanCommandRequest) *espwire.FanStateResponse {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.fans[m.Key]
	if f == nil {
		return nil
	}
	set(&f.State, m.State)
	set(&f.Oscillating, m.Oscillating)
	set(&f.Direction, m.Direction)
	set(&f.SpeedLevel, m.SpeedLevel)
	set(&f.PresetMode, m.PresetMode)
	if f.State && f.SpeedLevel == 0 {
		for _, e := range n.cfg.Entities {
			if e, ok := e.(*espwire.ListEntitiesFanResponse); ok && e.Key == m.Key {
				f.SpeedLevel = e.SupportedSpeedCount
			}
		}
	}
	out := *f
	return &out
}

func set[T any](to *T, v *T) {
	if v != nil {
		*to = *v
	}
}
