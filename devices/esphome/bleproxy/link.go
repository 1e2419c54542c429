package bleproxy

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// link is a connection through the proxy to one peripheral.
type link struct {
	t       *Transport
	addr    uint64
	done    chan struct{}
	pending bool // guarded by t.mu: claimed, not yet confirmed

	// Found at connection (under mu), read-only after.
	write, notify *espwire.GATTCharacteristic
	cccd          uint32

	mu       sync.Mutex
	lost     error
	waiters  []*waiter
	onNotify func([]byte)
	closing  sync.Once
}

var _ ble.Link = (*link)(nil)

// A waiter waits for the proxy's answer to a request: match is called
// with each message about the peripheral until it says done.
type waiter struct {
	match func(espwire.Message) (done bool, err error)
	ch    chan error
}

func (l *link) Done() <-chan struct{} { return l.done }

// expect registers a waiter before its request is sent.
func (l *link) expect(match func(espwire.Message) (bool, error)) *waiter {
	w := &waiter{match: match, ch: make(chan error, 1)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		w.ch <- l.lost
	} else {
		l.waiters = append(l.waiters, w)
	}
	return w
}

// request sends m and waits for w's answer.
func (l *link) request(ctx context.Context, w *waiter, m espwire.Message) error {
	if err := l.t.send(ctx, m); err != nil {
		l.drop(w)
		return err
	}
	select {
	case err := <-w.ch:
		return err
	case <-ctx.Done():
		l.drop(w)
		return ctx.Err()
	}
}

func (l *link) drop(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.waiters {
		if x == w {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			return
		}
	}
}

// handle takes a message about the peripheral, on the node's connection
// goroutine.
func (l *link) handle(m espwire.Message) {
	l.mu.Lock()
	if n, ok := m.(*espwire.BluetoothGATTNotifyDataResponse); ok && l.notify != nil && n.Handle == l.notify.Handle {
		fn := l.onNotify
		l.mu.Unlock()
		if fn != nil {
			fn(n.Data)
		}
		return
	}
	keep := l.waiters[:0]
	for _, w := range l.waiters {
		if done, err := w.match(m); done {
			w.ch <- err
		} else {
			keep = append(keep, w)
		}
	}
	l.waiters = keep
	l.mu.Unlock()
	if c, ok := m.(*espwire.BluetoothDeviceConnectionResponse); ok && !c.Connected {
		l.lose(ErrDisconnected)
	}
}

// lose ends the link once: Done closes and every waiter gets err.
func (l *link) lose(err error) {
	l.mu.Lock()
	if l.lost != nil {
		l.mu.Unlock()
		return
	}
	l.lost = err
	ws := l.waiters
	l.waiters = nil
	close(l.done)
	l.mu.Unlock()
	for _, w := range ws {
		w.ch <- err
	}
	l.t.release(l)
}

// open connects, then finds the Neewer characteristics.
func (l *link) open(ctx context.Context, random bool) error {
	w := l.expect(func(m espwire.Message) (bool, error) {
		c, ok := m.(*espwire.BluetoothDeviceConnectionResponse)
		switch {
		case !ok:
			return false, nil
		case !c.Connected:
			return true, fmt.Errorf("the proxy could not connect (error %d)", c.Error)
		}
		return true, nil
	})
	req := &espwire.BluetoothDeviceRequest{
		Address: l.addr, RequestType: espwire.BluetoothConnectWithoutCache, HasAddressType: true,
	}
	if random {
		req.AddressType = 1
	}
	if err := l.request(ctx, w, req); err != nil {
		return err
	}
	l.t.confirmed(l)
	services, err := l.services(ctx)
	if err != nil {
		return err
	}
	return l.find(services)
}

// services asks for the peripheral's services; the proxy sends them a
// few at a time.
func (l *link) services(ctx context.Context) ([]espwire.GATTService, error) {
	var out []espwire.GATTService
	w := l.expect(func(m espwire.Message) (bool, error) {
		switch m := m.(type) {
		case *espwire.BluetoothGATTGetServicesResponse:
			out = append(out, m.Services...)
		case *espwire.BluetoothGATTGetServicesDoneResponse:
			return true, nil
		case *espwire.BluetoothGATTErrorResponse:
			return true, fmt.Errorf("service discovery failed (error %d)", m.Error)
		}
		return false, nil
	})
	req := &espwire.BluetoothGATTGetServicesRequest{}
	req.Address = l.addr
	if err := l.request(ctx, w, req); err != nil {
		return nil, err
	}
	return out, nil
}

// find picks the Neewer characteristics, and the notify one's CCCD, by
// UUID.
func (l *link) find(services []espwire.GATTService) error {
	var write, notify *espwire.GATTCharacteristic
	for i := range services {
		s := &services[i]
		if !hasUUID(s.UUID, ble.ServiceUUID) {
			continue
		}
		for j := range s.Characteristics {
			c := &s.Characteristics[j]
			switch {
			case hasUUID(c.UUID, ble.WriteUUID):
				write = c
			case hasUUID(c.UUID, ble.NotifyUUID):
				notify = c
			}
		}
	}
	if write == nil || notify == nil {
		return ErrNoService
	}
	l.mu.Lock() // handle reads notify as notifications come
	defer l.mu.Unlock()
	l.write, l.notify = write, notify
	for _, d := range notify.Descriptors {
		if hasUUID(d.UUID, cccdUUID) {
			l.cccd = d.Handle
		}
	}
	return nil
}

// acked waits for the proxy's acknowledgement of a write (or notify
// request) on handle h, or its error.
func acked(h uint32) func(espwire.Message) (bool, error) {
	return func(m espwire.Message) (bool, error) {
		switch m := m.(type) {
		case *espwire.BluetoothGATTWriteResponse:
			return m.Handle == h, nil
		case *espwire.BluetoothGATTNotifyResponse:
			return m.Handle == h, nil
		case *espwire.BluetoothGATTErrorResponse:
			if m.Handle == h {
				return true, fmt.Errorf("GATT error %d on handle %#x", m.Error, h)
			}
		}
		return false, nil
	}
}

// Write writes b to the write characteristic: without response when it
// allows that, as the Neewer apps do; with response otherwise.
func (l *link) Write(ctx context.Context, b []byte) error {
	req := &espwire.BluetoothGATTWriteRequest{Address: l.addr, Handle: l.write.Handle, Data: b}
	if l.write.Properties&espwire.GATTWriteWithoutResponse != 0 {
		if err := l.alive(); err != nil {
			return err
		}
		return l.t.send(ctx, req)
	}
	req.Response = true
	return l.request(ctx, l.expect(acked(req.Handle)), req)
}

func (l *link) alive() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// Subscribe turns notifications on in the proxy, then in the peripheral
// by writing 01 00 to the characteristic's CCCD.
func (l *link) Subscribe(ctx context.Context, fn func([]byte)) error {
	l.mu.Lock()
	l.onNotify = fn
	l.mu.Unlock()
	h := l.notify.Handle
	if err := l.request(ctx, l.expect(acked(h)), &espwire.BluetoothGATTNotifyRequest{Address: l.addr, Handle: h, Enable: true}); err != nil {
		return fmt.Errorf("notifications: %w", err)
	}
	if l.cccd == 0 {
		return errors.New("notifications: the notify characteristic has no CCCD")
	}
	req := &espwire.BluetoothGATTWriteDescriptorRequest{}
	req.Address, req.Handle, req.Data = l.addr, l.cccd, []byte{0x01, 0x00}
	if err := l.request(ctx, l.expect(acked(l.cccd)), req); err != nil {
		return fmt.Errorf("notifications: CCCD: %w", err)
	}
	return nil
}

// Close asks the proxy to disconnect and ends the link.
func (l *link) Close() error {
	l.closing.Do(func() {
		if l.alive() == nil {
			req := &espwire.BluetoothDeviceRequest{Address: l.addr, RequestType: espwire.BluetoothDisconnect}
			_ = l.t.send(context.Background(), req)
		}
		l.lose(errClosed)
	})
	return nil
}

var errClosed = errors.New("the link is closed")
