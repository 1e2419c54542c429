package ble

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ATT opcodes used here.
const (
	attError          = 0x01
	attMTUReq         = 0x02
	attMTURsp         = 0x03
	attFindInfoReq    = 0x04
	attFindInfoRsp    = 0x05
	attFindByTypeReq  = 0x06
	attFindByTypeRsp  = 0x07
	attReadByTypeReq  = 0x08
	attReadByTypeRsp  = 0x09
	attWriteReq       = 0x12
	attWriteRsp       = 0x13
	attNotify         = 0x1B
	attIndicate       = 0x1D
	attConfirm        = 0x1E
	attWriteCmd       = 0x52
	attErrNotFound    = 0x0A
	attErrUnsupported = 0x06

	attDefaultMTU = 23
	gattPrimary   = 0x2800
	gattChar      = 0x2803
	gattCCCD      = 0x2902

	propWriteNoRsp = 0x04
	propWrite      = 0x08
)

// hciLink is one LE connection: ATT client over L2CAP over ACL.
type hciLink struct {
	h      *HCI
	handle uint16

	attMu sync.Mutex  // one ATT request outstanding
	rsp   chan []byte // the response to it

	mu          sync.Mutex
	rx          []byte // L2CAP frame being reassembled
	inFlight    int    // ACL packets the controller has not freed
	notify      func([]byte)
	writeHandle uint16
	writeNoRsp  bool
	valueHandle uint16 // notify characteristic value
	cccd        uint16

	done      chan struct{}
	doneOnce  sync.Once
	closeOnce sync.Once
}

var errLinkClosed = errors.New("hci: link closed")

func (l *hciLink) Done() <-chan struct{} { return l.done }

func (l *hciLink) lost() { l.doneOnce.Do(func() { close(l.done) }) }

func (l *hciLink) takeInFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.inFlight
	l.inFlight = 0
	return n
}

// settle counts n packets freed by the controller and returns how many
// buffers that gives back.
func (l *hciLink) settle(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n = min(n, l.inFlight)
	l.inFlight -= n
	return n
}

// Close disconnects and waits (briefly) for the controller to confirm.
func (l *hciLink) Close() error {
	var err error
	l.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = l.h.command(ctx, opDisconnect, []byte{byte(l.handle), byte(l.handle >> 8), 0x13})
		if err == nil {
			select {
			case <-l.done:
			case <-ctx.Done():
			}
		}
		l.h.disconnected(l.handle)
	})
	return err
}

// sendL2CAP sends one L2CAP frame, fragmented to the controller's ACL
// buffer size, taking one buffer credit per packet.
func (l *hciLink) sendL2CAP(ctx context.Context, cid uint16, pdu []byte) error {
	frame := binary.LittleEndian.AppendUint16(nil, uint16(len(pdu)))
	frame = binary.LittleEndian.AppendUint16(frame, cid)
	frame = append(frame, pdu...)
	for i := 0; i < len(frame); {
		n := min(l.h.aclLen, len(frame)-i)
		pb := uint16(0x01) // continuation
		if i == 0 {
			pb = 0x00 // first, non-flushable
		}
		select {
		case <-l.h.credits:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			return errLinkClosed
		}
		l.mu.Lock()
		l.inFlight++
		l.mu.Unlock()
		pkt := []byte{pktACL}
		pkt = binary.LittleEndian.AppendUint16(pkt, l.handle|pb<<12)
		pkt = binary.LittleEndian.AppendUint16(pkt, uint16(n))
		pkt = append(pkt, frame[i:i+n]...)
		if err := l.h.send(pkt); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// receive takes one ACL packet's data (pb: 2 start, 1 continuation).
func (l *hciLink) receive(pb uint16, data []byte) {
	l.mu.Lock()
	if pb != 0x01 {
		l.rx = slices.Clone(data)
	} else {
		l.rx = append(l.rx, data...)
	}
	if len(l.rx) < 4 || len(l.rx) < 4+int(binary.LittleEndian.Uint16(l.rx[0:2])) {
		l.mu.Unlock()
		return
	}
	n := int(binary.LittleEndian.Uint16(l.rx[0:2]))
	cid, pdu := binary.LittleEndian.Uint16(l.rx[2:4]), l.rx[4:4+n]
	l.rx = nil
	l.mu.Unlock()
	switch cid {
	case cidATT:
		l.att(pdu)
	case cidSignaling:
		l.signaling(pdu)
	}
}

// att dispatches an ATT PDU: responses to the waiting request,
// notifications to the subscriber, and requests from the peripheral's
// own client refused (except MTU, answered with the default). Replies go
// out on their own goroutine: the read loop must never wait for credits.
func (l *hciLink) att(pdu []byte) {
	if len(pdu) == 0 {
		return
	}
	op := pdu[0]
	switch {
	case op == attNotify || op == attIndicate:
		if op == attIndicate {
			go l.reply([]byte{attConfirm})
		}
		if len(pdu) < 3 {
			return
		}
		l.mu.Lock()
		fn, vh := l.notify, l.valueHandle
		l.mu.Unlock()
		if fn != nil && binary.LittleEndian.Uint16(pdu[1:3]) == vh {
			fn(slices.Clone(pdu[3:]))
		}
	case op == attMTUReq:
		go l.reply([]byte{attMTURsp, attDefaultMTU, 0x00})
	case op&0x40 != 0 || op == attConfirm: // commands and confirmations: nothing to answer
	case op%2 == 0: // a request from the peripheral
		go l.reply([]byte{attError, op, 0x00, 0x00, attErrUnsupported})
	default:
		select {
		case l.rsp <- slices.Clone(pdu):
		default:
		}
	}
}

func (l *hciLink) reply(pdu []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = l.sendL2CAP(ctx, cidATT, pdu)
}

// signaling answers the LE signaling channel: connection parameter update
// requests are accepted and applied; other requests are rejected.
func (l *hciLink) signaling(pdu []byte) {
	if len(pdu) < 4 {
		return
	}
	code, id := pdu[0], pdu[1]
	switch {
	case code == 0x12 && len(pdu) >= 12: // connection parameter update request
		params := slices.Clone(pdu[4:12])
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = l.sendL2CAP(ctx, cidSignaling, []byte{0x13, id, 0x02, 0x00, 0x00, 0x00})
			update := append([]byte{byte(l.handle), byte(l.handle >> 8)}, params...)
			_, _ = l.h.command(ctx, opLEConnectionUpdate, append(update, 0x00, 0x00, 0x00, 0x00))
		}()
	case code%2 == 0 && code != 0x16: // a request we do not serve (0x16 is a credit indication)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = l.sendL2CAP(ctx, cidSignaling, []byte{0x01, id, 0x02, 0x00, 0x00, 0x00})
		}()
	}
}

// attErr is an ATT Error Response.
type attErr struct {
	req    byte
	handle uint16
	code   byte
}

func (e *attErr) Error() string {
	return fmt.Sprintf("att request %02X on handle %04X: error %02X", e.req, e.handle, e.code)
}

// request sends an ATT request and waits for its response.
func (l *hciLink) request(ctx context.Context, pdu []byte, want byte) ([]byte, error) {
	l.attMu.Lock()
	defer l.attMu.Unlock()
	select {
	case <-l.rsp: // a stale response
	default:
	}
	if err := l.sendL2CAP(ctx, cidATT, pdu); err != nil {
		return nil, err
	}
	select {
	case r := <-l.rsp:
		if r[0] == attError && len(r) >= 5 {
			return nil, &attErr{req: r[1], handle: binary.LittleEndian.Uint16(r[2:4]), code: r[4]}
		}
		if r[0] != want {
			return nil, fmt.Errorf("att: response %02X to request %02X", r[0], pdu[0])
		}
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, errLinkClosed
	}
}

func notFound(err error) bool {
	var ae *attErr
	return errors.As(err, &ae) && ae.code == attErrNotFound
}

// gattCharDecl is a characteristic declaration.
type gattCharDecl struct {
	decl, value uint16
	props       byte
	uuid        [16]byte // little-endian; 16-bit UUIDs are not needed here
}

// discover finds the Neewer service, its write and notify characteristics
// and the notify characteristic's CCCD.
func (l *hciLink) discover(ctx context.Context) error {
	start, end, err := l.findService(ctx, uuidLE(ServiceUUID))
	if err != nil {
		return err
	}
	chars, err := l.characteristics(ctx, start, end)
	if err != nil {
		return err
	}
	write, notify := -1, -1
	for i, c := range chars {
		switch c.uuid {
		case uuidLE(WriteUUID):
			write = i
		case uuidLE(NotifyUUID):
			notify = i
		}
	}
	if write < 0 || notify < 0 {
		return errors.New("the Neewer service lacks its write or notify characteristic")
	}
	last := end
	if notify+1 < len(chars) {
		last = chars[notify+1].decl - 1
	}
	cccd, err := l.findCCCD(ctx, chars[notify].value+1, last)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.writeHandle, l.writeNoRsp = chars[write].value, chars[write].props&propWriteNoRsp != 0
	l.valueHandle, l.cccd = chars[notify].value, cccd
	l.mu.Unlock()
	if chars[write].props&(propWriteNoRsp|propWrite) == 0 {
		return errors.New("the Neewer write characteristic cannot be written")
	}
	return nil
}

func (l *hciLink) findService(ctx context.Context, uuid [16]byte) (uint16, uint16, error) {
	req := []byte{attFindByTypeReq, 0x01, 0x00, 0xFF, 0xFF, byte(gattPrimary & 0xFF), byte(gattPrimary >> 8)}
	r, err := l.request(ctx, append(req, uuid[:]...), attFindByTypeRsp)
	if notFound(err) {
		return 0, 0, errors.New("the peripheral has no Neewer service")
	}
	if err != nil {
		return 0, 0, err
	}
	if len(r) < 5 {
		return 0, 0, errors.New("att: short service reply")
	}
	return binary.LittleEndian.Uint16(r[1:3]), binary.LittleEndian.Uint16(r[3:5]), nil
}

// characteristics reads every 128-bit characteristic declaration between
// start and end.
func (l *hciLink) characteristics(ctx context.Context, start, end uint16) ([]gattCharDecl, error) {
	var out []gattCharDecl
	for from := start; from <= end && from != 0; {
		req := []byte{attReadByTypeReq, byte(from), byte(from >> 8), byte(end), byte(end >> 8), byte(gattChar & 0xFF), byte(gattChar >> 8)}
		r, err := l.request(ctx, req, attReadByTypeRsp)
		if notFound(err) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(r) < 2 || r[1] < 7 {
			return nil, errors.New("att: malformed characteristic reply")
		}
		size, recs := int(r[1]), r[2:]
		last := from
		for ; len(recs) >= size; recs = recs[size:] {
			c := gattCharDecl{
				decl:  binary.LittleEndian.Uint16(recs[0:2]),
				props: recs[2],
				value: binary.LittleEndian.Uint16(recs[3:5]),
			}
			if size == 21 {
				copy(c.uuid[:], recs[5:21])
			}
			out = append(out, c)
			last = c.decl
		}
		from = last + 1
	}
	return out, nil
}

// findCCCD finds the Client Characteristic Configuration descriptor among
// the handles from..to; lights that do not list it get the usual value
// handle + 1.
func (l *hciLink) findCCCD(ctx context.Context, from, to uint16) (uint16, error) {
	for h := from; h <= to && h != 0; {
		r, err := l.request(ctx, []byte{attFindInfoReq, byte(h), byte(h >> 8), byte(to), byte(to >> 8)}, attFindInfoRsp)
		if notFound(err) {
			break
		}
		if err != nil {
			return 0, err
		}
		if len(r) < 2 {
			break
		}
		size := 4
		if r[1] == 0x02 {
			size = 18
		}
		last := h
		for recs := r[2:]; len(recs) >= size; recs = recs[size:] {
			handle := binary.LittleEndian.Uint16(recs[0:2])
			if size == 4 && binary.LittleEndian.Uint16(recs[2:4]) == gattCCCD {
				return handle, nil
			}
			last = handle
		}
		h = last + 1
	}
	return from, nil
}

// Subscribe writes the CCCD to turn notifications on.
func (l *hciLink) Subscribe(ctx context.Context, fn func([]byte)) error {
	l.mu.Lock()
	l.notify = fn
	cccd := l.cccd
	l.mu.Unlock()
	_, err := l.request(ctx, []byte{attWriteReq, byte(cccd), byte(cccd >> 8), 0x01, 0x00}, attWriteRsp)
	if err != nil {
		return fmt.Errorf("hci subscribe: %w", err)
	}
	return nil
}

// Write sends a command as Write Command when the characteristic allows
// it, else as Write Request.
func (l *hciLink) Write(ctx context.Context, b []byte) error {
	if len(b) > attDefaultMTU-3 {
		return fmt.Errorf("hci write: %d bytes do not fit one ATT write", len(b))
	}
	select {
	case <-l.done:
		return errLinkClosed
	default:
	}
	l.mu.Lock()
	handle, noRsp := l.writeHandle, l.writeNoRsp
	l.mu.Unlock()
	if noRsp {
		return l.sendL2CAP(ctx, cidATT, append([]byte{attWriteCmd, byte(handle), byte(handle >> 8)}, b...))
	}
	_, err := l.request(ctx, append([]byte{attWriteReq, byte(handle), byte(handle >> 8)}, b...), attWriteRsp)
	return err
}
