package ble

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

// HCI is the backend for an adapter the hub owns: it speaks HCI to the
// controller over a raw user-channel socket (CAP_NET_ADMIN; bluetoothd
// must not hold the adapter) and does its own L2CAP and ATT. It does just
// what a Neewer light needs: scan, connect, find the Neewer service, write
// commands and take notifications.
type HCI struct {
	dev io.ReadWriteCloser

	writeMu sync.Mutex // one packet on the wire at a time
	cmdMu   sync.Mutex // one command outstanding at a time
	connMu  sync.Mutex // one connection attempt at a time

	// Set by init under mu; writers read them without it once NewHCI has
	// returned, the read loop under it.
	credits chan struct{} // free ACL buffers in the controller
	aclLen  int

	mu       sync.Mutex
	cmdOp    uint16
	cmdReply chan []byte
	connDone chan connComplete
	links    map[uint16]*hciLink
	scanFn   func(Advertisement)
	scanOn   bool // the controller is scanning
	names    map[string]string

	done      chan struct{}
	closeOnce sync.Once
	err       error
}

// HCI packet types, opcodes and events used here.
const (
	pktCommand = 0x01
	pktACL     = 0x02
	pktEvent   = 0x04

	opDisconnect          = 0x0406
	opSetEventMask        = 0x0C01
	opReset               = 0x0C03
	opReadBufferSize      = 0x1005
	opLEReadBufferSize    = 0x2002
	opLESetScanParameters = 0x200B
	opLESetScanEnable     = 0x200C
	opLECreateConnection  = 0x200D
	opLECreateConnCancel  = 0x200E
	opLEConnectionUpdate  = 0x2013

	evDisconnectionComplete = 0x05
	evCommandComplete       = 0x0E
	evCommandStatus         = 0x0F
	evNumCompletedPackets   = 0x13
	evLEMeta                = 0x3E

	leConnectionComplete = 0x01
	leAdvertisingReport  = 0x02

	cidATT       = 0x0004
	cidSignaling = 0x0005
)

// connComplete is an LE Connection Complete event; link is registered
// already when status is 0, so no ACL data that follows is lost.
type connComplete struct {
	status byte
	link   *hciLink
}

// NewHCI runs the HCI backend over dev, a packet stream to a controller
// (each Read returns one packet, each Write sends one, both prefixed by
// the packet type): it resets the controller and reads its buffer sizes.
// OpenHCI opens dev on Linux; tests pass a fake controller.
func NewHCI(ctx context.Context, dev io.ReadWriteCloser) (*HCI, error) {
	h := &HCI{
		dev:   dev,
		links: map[uint16]*hciLink{},
		names: map[string]string{},
		done:  make(chan struct{}),
	}
	go h.readLoop()
	if err := h.init(ctx); err != nil {
		_ = h.Close()
		return nil, err
	}
	return h, nil
}

func (h *HCI) init(ctx context.Context) error {
	if _, err := h.command(ctx, opReset, nil); err != nil {
		return err
	}
	// The default events plus LE Meta (bit 61).
	mask := []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x00, 0x20}
	if _, err := h.command(ctx, opSetEventMask, mask); err != nil {
		return err
	}
	rp, err := h.command(ctx, opLEReadBufferSize, nil)
	if err != nil {
		return err
	}
	size, count := 0, 0
	if len(rp) >= 4 {
		size, count = int(binary.LittleEndian.Uint16(rp[1:3])), int(rp[3])
	}
	if size == 0 || count == 0 { // shared with BR/EDR
		rp, err := h.command(ctx, opReadBufferSize, nil)
		if err != nil {
			return err
		}
		if len(rp) < 8 {
			return errors.New("hci: short buffer size reply")
		}
		size, count = int(binary.LittleEndian.Uint16(rp[1:3])), int(binary.LittleEndian.Uint16(rp[4:6]))
	}
	if size < 27 || count == 0 {
		return fmt.Errorf("hci: controller reports ACL buffers of %d bytes × %d", size, count)
	}
	credits := make(chan struct{}, count)
	for range count {
		credits <- struct{}{}
	}
	h.mu.Lock() // the read loop may already hear Number Of Completed Packets
	h.aclLen, h.credits = size, credits
	h.mu.Unlock()
	return nil
}

// Name is "hci".
func (h *HCI) Name() string { return "hci" }

// Close closes the socket; every link ends.
func (h *HCI) Close() error {
	var err error
	h.closeOnce.Do(func() {
		err = h.dev.Close()
		h.fail(errors.New("hci: closed"))
	})
	return err
}

func (h *HCI) fail(err error) {
	h.mu.Lock()
	select {
	case <-h.done:
		h.mu.Unlock()
		return
	default:
	}
	h.err = err
	close(h.done)
	links := make([]*hciLink, 0, len(h.links))
	for _, l := range h.links {
		links = append(links, l)
	}
	h.links = map[uint16]*hciLink{}
	h.mu.Unlock()
	for _, l := range links {
		l.lost()
	}
}

func (h *HCI) closedErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return h.err
	}
	return errors.New("hci: closed")
}

func (h *HCI) send(pkt []byte) error {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	_, err := h.dev.Write(pkt)
	return err
}

// command sends an HCI command and waits for its Command Complete (the
// return parameters) or Command Status (the status byte).
func (h *HCI) command(ctx context.Context, op uint16, params []byte) ([]byte, error) {
	h.cmdMu.Lock()
	defer h.cmdMu.Unlock()
	reply := make(chan []byte, 1)
	h.mu.Lock()
	h.cmdOp, h.cmdReply = op, reply
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.cmdReply = nil
		h.mu.Unlock()
	}()
	pkt := append([]byte{pktCommand, byte(op), byte(op >> 8), byte(len(params))}, params...)
	if err := h.send(pkt); err != nil {
		return nil, fmt.Errorf("hci command %04X: %w", op, err)
	}
	answered := func(rp []byte) ([]byte, error) {
		if len(rp) > 0 && rp[0] != 0 {
			return rp, fmt.Errorf("hci command %04X: controller status %02X", op, rp[0])
		}
		return rp, nil
	}
	select {
	case rp := <-reply:
		return answered(rp)
	case <-ctx.Done():
		// A reply that came in as the caller gave up still counts: the
		// controller did what was asked.
		select {
		case rp := <-reply:
			return answered(rp)
		default:
		}
		return nil, fmt.Errorf("hci command %04X: %w", op, ctx.Err())
	case <-h.done:
		return nil, h.closedErr()
	}
}

func (h *HCI) readLoop() {
	buf := make([]byte, 2048)
	for {
		n, err := h.dev.Read(buf)
		if err != nil {
			h.fail(fmt.Errorf("hci: %w", err))
			return
		}
		if n < 1 {
			continue
		}
		pkt := slices.Clone(buf[:n])
		switch pkt[0] {
		case pktEvent:
			h.event(pkt[1:])
		case pktACL:
			h.acl(pkt[1:])
		}
	}
}

func (h *HCI) event(p []byte) {
	if len(p) < 2 || len(p) < 2+int(p[1]) {
		return
	}
	code, params := p[0], p[2:2+int(p[1])]
	switch code {
	case evCommandComplete:
		if len(params) >= 3 {
			h.commandDone(binary.LittleEndian.Uint16(params[1:3]), params[3:])
		}
	case evCommandStatus:
		if len(params) >= 4 {
			h.commandDone(binary.LittleEndian.Uint16(params[2:4]), params[:1])
		}
	case evDisconnectionComplete:
		if len(params) >= 3 && params[0] == 0 {
			h.disconnected(binary.LittleEndian.Uint16(params[1:3]))
		}
	case evNumCompletedPackets:
		h.completed(params)
	case evLEMeta:
		if len(params) > 0 {
			h.leEvent(params[0], params[1:])
		}
	}
}

func (h *HCI) commandDone(op uint16, rp []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmdReply != nil && h.cmdOp == op {
		select {
		case h.cmdReply <- slices.Clone(rp):
		default:
		}
	}
}

func (h *HCI) disconnected(handle uint16) {
	h.mu.Lock()
	l := h.links[handle]
	delete(h.links, handle)
	h.mu.Unlock()
	if l != nil {
		h.refund(l.takeInFlight())
		l.lost()
	}
}

// completed returns the controller's ACL buffers as it frees them.
func (h *HCI) completed(p []byte) {
	if len(p) < 1 {
		return
	}
	n := int(p[0])
	for i := 0; i < n && len(p) >= 1+4*(i+1); i++ {
		e := p[1+4*i:]
		handle := binary.LittleEndian.Uint16(e[0:2]) & 0x0FFF
		count := int(binary.LittleEndian.Uint16(e[2:4]))
		h.mu.Lock()
		l := h.links[handle]
		h.mu.Unlock()
		if l != nil {
			count = l.settle(count)
		}
		h.refund(count)
	}
}

func (h *HCI) refund(n int) {
	h.mu.Lock()
	credits := h.credits
	h.mu.Unlock()
	if credits == nil { // before init: nothing was sent to complete
		return
	}
	for range n {
		select {
		case credits <- struct{}{}:
		default:
		}
	}
}

func (h *HCI) leEvent(sub byte, p []byte) {
	switch sub {
	case leConnectionComplete:
		if len(p) < 10 {
			return
		}
		c := connComplete{status: p[0]}
		if c.status == 0 {
			c.link = h.addLink(binary.LittleEndian.Uint16(p[1:3]) & 0x0FFF)
		}
		h.mu.Lock()
		ch := h.connDone
		h.mu.Unlock()
		delivered := false
		if ch != nil {
			select {
			case ch <- c:
				delivered = true
			default:
			}
		}
		if !delivered && c.link != nil { // nobody asked for it
			go c.link.Close()
		}
	case leAdvertisingReport:
		h.advertisements(p)
	}
}

// advertisements reads an LE Advertising Report: per report, event type,
// address type, address, data length, data, RSSI.
func (h *HCI) advertisements(p []byte) {
	if len(p) < 1 {
		return
	}
	n, p := int(p[0]), p[1:]
	for range n {
		if len(p) < 9 || len(p) < 10+int(p[8]) {
			return
		}
		random, addr, data := p[1] == 0x01, macLE(p[2:8]), p[9:9+int(p[8])]
		rssi := int(int8(p[9+int(p[8])]))
		p = p[10+int(p[8]):]
		h.mu.Lock()
		name := adName(data)
		if name != "" {
			h.names[addr] = name
		} else {
			name = h.names[addr]
		}
		fn := h.scanFn
		h.mu.Unlock()
		if fn != nil {
			fn(Advertisement{Address: Address{MAC: addr, Random: random}, Name: name, RSSI: rssi})
		}
	}
}

// adName finds the local name (complete or shortened) in advertising data.
func adName(data []byte) string {
	for len(data) >= 2 {
		n := int(data[0])
		if n == 0 || len(data) < 1+n {
			return ""
		}
		if typ := data[1]; typ == 0x09 || typ == 0x08 {
			return strings.TrimRight(string(data[2:1+n]), "\x00")
		}
		data = data[1+n:]
	}
	return ""
}

// macLE reads a little-endian address as "DF:24:3A:B4:46:5D".
func macLE(b []byte) string {
	return fmt.Sprintf("%02X:%02X:%02X:%02X:%02X:%02X", b[5], b[4], b[3], b[2], b[1], b[0])
}

// addrLE is the little-endian form of a printed address.
func addrLE(mac string) ([]byte, error) {
	m, err := nwproto.ParseMAC(mac)
	if err != nil {
		return nil, err
	}
	slices.Reverse(m[:])
	return m[:], nil
}

// Scan turns on active scanning (names come in scan responses) until ctx
// ends. Connection attempts pause it.
func (h *HCI) Scan(ctx context.Context, found func(Advertisement)) error {
	h.connMu.Lock()
	h.mu.Lock()
	if h.scanFn != nil {
		h.mu.Unlock()
		h.connMu.Unlock()
		return errors.New("hci: a scan is already running")
	}
	h.scanFn = found
	h.mu.Unlock()
	err := h.setScan(ctx, true)
	h.connMu.Unlock()
	defer func() {
		h.connMu.Lock()
		defer h.connMu.Unlock()
		stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = h.setScan(stop, false)
		h.mu.Lock()
		h.scanFn = nil
		h.mu.Unlock()
	}()
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while it started: a scan that ended, as asked
		}
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case <-h.done:
		return h.closedErr()
	}
}

// setScan turns scanning on or off; callers hold connMu.
func (h *HCI) setScan(ctx context.Context, on bool) error {
	h.mu.Lock()
	active := h.scanOn
	h.mu.Unlock()
	if active == on {
		return nil
	}
	if on {
		// Active scan, 30 ms interval and window, public own address.
		if _, err := h.command(ctx, opLESetScanParameters, []byte{0x01, 0x30, 0x00, 0x30, 0x00, 0x00, 0x00}); err != nil {
			return err
		}
	}
	enable := byte(0)
	if on {
		enable = 1
	}
	if _, err := h.command(ctx, opLESetScanEnable, []byte{enable, 0x00}); err != nil {
		return err
	}
	h.mu.Lock()
	h.scanOn = on
	h.mu.Unlock()
	return nil
}

// Connect creates an LE connection, then finds the Neewer service and its
// characteristics over ATT. A running scan pauses meanwhile.
func (h *HCI) Connect(ctx context.Context, addr Address) (Link, error) {
	h.connMu.Lock()
	l, err := h.createConnection(ctx, addr)
	h.mu.Lock()
	resume := h.scanFn != nil
	h.mu.Unlock()
	if resume {
		rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = h.setScan(rctx, true)
		cancel()
	}
	h.connMu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := l.discover(ctx); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("hci %s: %w", addr, err)
	}
	return l, nil
}

func (h *HCI) createConnection(ctx context.Context, addr Address) (*hciLink, error) {
	peer, err := addrLE(addr.MAC)
	if err != nil {
		return nil, err
	}
	if err := h.setScan(ctx, false); err != nil {
		return nil, err
	}
	peerType := byte(0)
	if addr.Random {
		peerType = 1
	}
	done := make(chan connComplete, 1)
	h.mu.Lock()
	h.connDone = done
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.connDone = nil
		h.mu.Unlock()
	}()
	// Scan 60/30 ms; connection interval 30–50 ms, no latency, 4 s
	// supervision timeout.
	params := []byte{0x60, 0x00, 0x30, 0x00, 0x00, peerType}
	params = append(params, peer...)
	params = append(params, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00, 0x00, 0x00, 0x00)
	if _, err := h.command(ctx, opLECreateConnection, params); err != nil {
		if ctx.Err() != nil {
			// The command went out before the caller gave up: the
			// controller may be connecting, so it is told to stop.
			return nil, h.cancelConnection(done, addr, ctx.Err())
		}
		return nil, fmt.Errorf("hci connect %s: %w", addr, err)
	}
	select {
	case c := <-done:
		if c.status != 0 {
			return nil, fmt.Errorf("hci connect %s: controller status %02X", addr, c.status)
		}
		return c.link, nil
	case <-ctx.Done():
		return nil, h.cancelConnection(done, addr, ctx.Err())
	case <-h.done:
		return nil, h.closedErr()
	}
}

// cancelConnection stops a pending connection; one that completed in the
// meantime is dropped.
func (h *HCI) cancelConnection(done chan connComplete, addr Address, cause error) error {
	stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if rp, err := h.command(stop, opLECreateConnCancel, nil); err != nil && len(rp) > 0 {
		// The controller refused the cancel: no connection was pending.
		return fmt.Errorf("hci connect %s: %w", addr, cause)
	}
	select {
	case c := <-done:
		if c.link != nil {
			_ = c.link.Close()
		}
	case <-stop.Done():
	case <-h.done:
	}
	return fmt.Errorf("hci connect %s: %w", addr, cause)
}

func (h *HCI) addLink(handle uint16) *hciLink {
	l := &hciLink{h: h, handle: handle, rsp: make(chan []byte, 1), done: make(chan struct{})}
	h.mu.Lock()
	h.links[handle] = l
	h.mu.Unlock()
	return l
}

// acl reassembles L2CAP frames from ACL packets and hands them to their
// link.
func (h *HCI) acl(p []byte) {
	if len(p) < 4 {
		return
	}
	hdr := binary.LittleEndian.Uint16(p[0:2])
	n := int(binary.LittleEndian.Uint16(p[2:4]))
	if len(p) < 4+n {
		return
	}
	h.mu.Lock()
	l := h.links[hdr&0x0FFF]
	h.mu.Unlock()
	if l != nil {
		l.receive(hdr>>12&0x3, p[4:4+n])
	}
}
