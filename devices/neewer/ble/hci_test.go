package ble

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// controller is a fake Bluetooth controller with one Neewer light in
// range: it answers HCI commands, advertises the light while scanning,
// connects to it, and serves the light's GATT table over ATT.
type controller struct {
	t    *testing.T
	conn net.Conn

	light    []byte // the light's address, little-endian
	lightStr string

	mu        sync.Mutex
	commands  []uint16
	frames    [][]byte // writes to the command characteristic
	cccdOn    bool
	connected bool
	sawMTURsp bool
	sawUpdate bool // a connection parameter update reply, accepted
	rx        []byte
}

const (
	fakeHandle = 0x0040
	// The light's GATT table: the Neewer service at 0x0010–0x0016.
	svcStart, svcEnd   = 0x0010, 0x0016
	writeDecl, writeVH = 0x0011, 0x0012
	notiDecl, notiVH   = 0x0013, 0x0014
	cccdHandle         = 0x0015
	otherDecl          = 0x0016
)

func newController(t *testing.T) (*controller, net.Conn) {
	host, dev := net.Pipe()
	c := &controller{t: t, conn: dev, light: []byte{0x5D, 0x46, 0xB4, 0x3A, 0x24, 0xDF}, lightStr: "DF:24:3A:B4:46:5D"}
	go c.run()
	t.Cleanup(func() { dev.Close() })
	return c, host
}

func (c *controller) run() {
	buf := make([]byte, 2048)
	for {
		n, err := c.conn.Read(buf)
		if err != nil {
			return
		}
		p := slices.Clone(buf[:n])
		switch p[0] {
		case pktCommand:
			c.command(binary.LittleEndian.Uint16(p[1:3]), p[4:])
		case pktACL:
			c.acl(p[1:])
		}
	}
}

func (c *controller) send(p ...byte) { _, _ = c.conn.Write(p) }

func (c *controller) complete(op uint16, rp ...byte) {
	c.send(append([]byte{pktEvent, evCommandComplete, byte(3 + len(rp)), 1, byte(op), byte(op >> 8)}, rp...)...)
}

func (c *controller) status(op uint16, st byte) {
	c.send(pktEvent, evCommandStatus, 4, st, 1, byte(op), byte(op>>8))
}

func (c *controller) command(op uint16, params []byte) {
	c.mu.Lock()
	c.commands = append(c.commands, op)
	c.mu.Unlock()
	switch op {
	case opLEReadBufferSize:
		c.complete(op, 0, 27, 0, 2) // two 27-byte buffers: credits matter
	case opLESetScanEnable:
		c.complete(op, 0)
		if params[0] == 1 {
			c.advertise()
		}
	case opLECreateConnection:
		c.status(op, 0)
		if bytes.Equal(params[6:12], c.light) {
			c.connectComplete(0)
		}
	case opLECreateConnCancel:
		c.complete(op, 0)
		c.connectComplete(0x02)
	case opDisconnect:
		c.status(op, 0)
		c.disconnect()
	case opLEConnectionUpdate:
		c.status(op, 0)
	default:
		c.complete(op, 0)
	}
}

// advertise sends the light's advertisement (no name) and its scan
// response (the name).
func (c *controller) advertise() {
	flags := []byte{0x02, 0x01, 0x06}
	name := append([]byte{byte(1 + len("NEEWER-RGB660 PRO")), 0x09}, "NEEWER-RGB660 PRO"...)
	for _, r := range []struct {
		typ  byte
		data []byte
	}{{0x00, flags}, {0x04, name}} {
		rep := append([]byte{leAdvertisingReport, 1, r.typ, 0x00}, c.light...)
		rep = append(rep, byte(len(r.data)))
		rep = append(rep, r.data...)
		rep = append(rep, 0xC4) // RSSI −60
		c.send(append([]byte{pktEvent, evLEMeta, byte(len(rep))}, rep...)...)
	}
}

func (c *controller) connectComplete(st byte) {
	ev := []byte{leConnectionComplete, st, byte(fakeHandle), 0, 0x00, 0x00}
	ev = append(ev, c.light...)
	ev = append(ev, 0x18, 0, 0, 0, 0x90, 0x01, 0)
	c.send(append([]byte{pktEvent, evLEMeta, byte(len(ev))}, ev...)...)
	if st != 0 {
		return
	}
	c.mu.Lock()
	c.connected = true
	c.mu.Unlock()
	// The light's own client asks for an MTU, and it asks for slower
	// connection parameters, as real peripherals do.
	c.l2cap(cidATT, attMTUReq, 0x40, 0x00)
	c.l2cap(cidSignaling, 0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01)
}

func (c *controller) disconnect() {
	c.mu.Lock()
	c.connected = false
	c.mu.Unlock()
	c.send(pktEvent, evDisconnectionComplete, 4, 0, byte(fakeHandle), 0, 0x13)
}

// l2cap sends an L2CAP frame to the host in one ACL packet.
func (c *controller) l2cap(cid uint16, pdu ...byte) {
	f := binary.LittleEndian.AppendUint16(nil, uint16(len(pdu)))
	f = binary.LittleEndian.AppendUint16(f, cid)
	f = append(f, pdu...)
	p := []byte{pktACL, byte(fakeHandle), 0x20} // PB 10: first, flushable
	p = binary.LittleEndian.AppendUint16(p, uint16(len(f)))
	c.send(append(p, f...)...)
}

func (c *controller) acl(p []byte) {
	hdr := binary.LittleEndian.Uint16(p[0:2])
	data := p[4:]
	// Every packet is freed at once.
	c.send(pktEvent, evNumCompletedPackets, 5, 1, byte(fakeHandle), 0, 1, 0)
	if hdr>>12&3 == 0 {
		c.rx = slices.Clone(data)
	} else {
		c.rx = append(c.rx, data...)
	}
	if len(c.rx) < 4 || len(c.rx) < 4+int(binary.LittleEndian.Uint16(c.rx)) {
		return
	}
	cid, pdu := binary.LittleEndian.Uint16(c.rx[2:4]), c.rx[4:]
	c.rx = nil
	switch cid {
	case cidATT:
		c.att(pdu)
	case cidSignaling:
		if pdu[0] == 0x13 && pdu[4] == 0 {
			c.mu.Lock()
			c.sawUpdate = true
			c.mu.Unlock()
		}
	}
}

func u16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

func (c *controller) attError(req byte, h uint16, code byte) {
	c.l2cap(cidATT, attError, req, byte(h), byte(h>>8), code)
}

func (c *controller) att(pdu []byte) {
	switch pdu[0] {
	case attMTURsp:
		c.mu.Lock()
		c.sawMTURsp = true
		c.mu.Unlock()
	case attFindByTypeReq:
		svc := uuidLE(ServiceUUID)
		if !bytes.Equal(pdu[7:], svc[:]) {
			c.attError(pdu[0], 1, attErrNotFound)
			return
		}
		c.l2cap(cidATT, attFindByTypeRsp, svcStart, 0, svcEnd, 0)
	case attReadByTypeReq:
		c.readByType(u16(pdu[1:3]), u16(pdu[3:5]))
	case attFindInfoReq:
		if from, to := u16(pdu[1:3]), u16(pdu[3:5]); from <= cccdHandle && cccdHandle <= to {
			c.l2cap(cidATT, attFindInfoRsp, 0x01, cccdHandle, 0, 0x02, 0x29)
			return
		}
		c.attError(pdu[0], u16(pdu[1:3]), attErrNotFound)
	case attWriteReq:
		if u16(pdu[1:3]) == cccdHandle {
			c.mu.Lock()
			c.cccdOn = pdu[3] == 1
			c.mu.Unlock()
		}
		c.l2cap(cidATT, attWriteRsp)
	case attWriteCmd:
		if u16(pdu[1:3]) != writeVH {
			return
		}
		frame := slices.Clone(pdu[3:])
		c.mu.Lock()
		c.frames = append(c.frames, frame)
		notify := c.cccdOn
		c.mu.Unlock()
		if notify && bytes.Equal(frame, []byte{0x78, 0x85, 0x00, 0xFD}) {
			c.l2cap(cidATT, attNotify, notiVH, 0, 0x78, 0x02, 0x01, 0x01, 0x7C)
		}
	}
}

// readByType answers one characteristic declaration at a time, as an ATT
// MTU of 23 allows.
func (c *controller) readByType(from, to uint16) {
	decls := []struct {
		h, vh uint16
		props byte
		uuid  string
	}{
		{writeDecl, writeVH, 0x0C, WriteUUID},
		{notiDecl, notiVH, 0x10, NotifyUUID},
		{otherDecl, otherDecl + 1, 0x02, "69400004-B5A3-F393-E0A9-E50E24DCCA99"},
	}
	for _, d := range decls {
		if d.h >= from && d.h <= to {
			u := uuidLE(d.uuid)
			rec := []byte{attReadByTypeRsp, 21, byte(d.h), 0, d.props, byte(d.vh), 0}
			c.l2cap(cidATT, append(rec, u[:]...)...)
			return
		}
	}
	c.attError(attReadByTypeReq, from, attErrNotFound)
}

func (c *controller) snapshot() (cmds []uint16, frames [][]byte, mtu, update bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.commands), slices.Clone(c.frames), c.sawMTURsp, c.sawUpdate
}

func openFake(t *testing.T) (*HCI, *controller) {
	t.Helper()
	c, host := newController(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	h, err := NewHCI(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, c
}

func TestHCIScanHearsTheLightByName(t *testing.T) {
	h, c := openFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Advertisement, 4)
	done := make(chan error, 1)
	go func() {
		done <- h.Scan(ctx, func(a Advertisement) {
			if a.Name != "" {
				select {
				case got <- a:
				default:
				}
			}
		})
	}()
	select {
	case a := <-got:
		if a.Address.MAC != c.lightStr || a.Name != "NEEWER-RGB660 PRO" || a.RSSI != -60 || a.Address.Random {
			t.Errorf("heard %+v", a)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no advertisement heard")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cmds, _, _, _ := c.snapshot()
	if cmds[len(cmds)-1] != opLESetScanEnable {
		t.Errorf("scan not turned off: %04X", cmds)
	}
}

func TestHCIConnectWritesAndNotifies(t *testing.T) {
	h, c := openFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	l, err := h.Connect(ctx, Address{MAC: c.lightStr})
	if err != nil {
		t.Fatal(err)
	}
	notes := make(chan []byte, 1)
	if err := l.Subscribe(ctx, func(b []byte) { notes <- b }); err != nil {
		t.Fatal(err)
	}
	// More writes than the controller has buffers: credits come back.
	cct := []byte{0x78, 0x87, 0x02, 0x50, 0x38, 0x89}
	for range 5 {
		if err := l.Write(ctx, cct); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Write(ctx, []byte{0x78, 0x85, 0x00, 0xFD}); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-notes:
		if !bytes.Equal(b, []byte{0x78, 0x02, 0x01, 0x01, 0x7C}) {
			t.Errorf("notification % X", b)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no notification")
	}
	_, frames, mtu, update := c.snapshot()
	if len(frames) != 6 || !bytes.Equal(frames[0], cct) {
		t.Errorf("frames % X", frames)
	}
	waitFor(t, func() bool { _, _, mtu, update = c.snapshot(); return mtu && update })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Done():
	default:
		t.Error("a closed link is not done")
	}
	if err := l.Write(ctx, cct); !errors.Is(err, errLinkClosed) {
		t.Errorf("write after close: %v", err)
	}
}

func TestHCIConnectGivesUpAtTheDeadline(t *testing.T) {
	h, c := openFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := h.Connect(ctx, Address{MAC: "11:22:33:44:55:66"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("connect to a light out of range: %v", err)
	}
	cmds, _, _, _ := c.snapshot()
	if !slices.Contains(cmds, opLECreateConnCancel) {
		t.Errorf("the pending connection was not cancelled: %04X", cmds)
	}
}

func TestHCILinkDropIsNoticed(t *testing.T) {
	h, c := openFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	l, err := h.Connect(ctx, Address{MAC: c.lightStr})
	if err != nil {
		t.Fatal(err)
	}
	c.disconnect() // the light went away
	select {
	case <-l.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("a dropped link is not done")
	}
	if err := l.Write(ctx, []byte{0x78, 0x85, 0x00, 0xFD}); err == nil {
		t.Error("write on a dropped link succeeded")
	}
}

func TestHCIClosedControllerEndsLinks(t *testing.T) {
	h, c := openFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	l, err := h.Connect(ctx, Address{MAC: c.lightStr})
	if err != nil {
		t.Fatal(err)
	}
	c.conn.Close()
	select {
	case <-l.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("links outlived their controller")
	}
	if _, err := h.Connect(ctx, Address{MAC: c.lightStr}); err == nil {
		t.Error("connect on a closed controller succeeded")
	}
}

func TestModeAndAddress(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "AUTO": ModeAuto, "bluez": ModeBlueZ, " hci ": ModeHCI, "off": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("usb"); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := Open(context.Background(), Options{Mode: ModeOff}); !errors.Is(err, ErrOff) {
		t.Errorf("mode off: %v", err)
	}
	a, err := ParseAddress("df-24-3a-b4-46-5d")
	if err != nil || a.MAC != "DF:24:3A:B4:46:5D" {
		t.Errorf("ParseAddress: %v %v", a, err)
	}
	le, _ := addrLE("DF:24:3A:B4:46:5D")
	if !bytes.Equal(le, []byte{0x5D, 0x46, 0xB4, 0x3A, 0x24, 0xDF}) || macLE(le) != "DF:24:3A:B4:46:5D" {
		t.Errorf("address byte order: % X", le)
	}
	u := uuidLE(ServiceUUID)
	if u[0] != 0x99 || u[15] != 0x69 {
		t.Errorf("uuid byte order: % X", u)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
