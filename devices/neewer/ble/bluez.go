package ble

import (
	"context"
	"fmt"
	"sync"
	"time"

	"tinygo.org/x/bluetooth"
)

// BlueZ is the backend for hosts where bluetoothd owns the adapter: it
// drives BlueZ over the D-Bus system bus through tinygo.org/x/bluetooth,
// and needs no capabilities (in a container: the host's /run/dbus
// mounted).
type BlueZ struct {
	adapter *bluetooth.Adapter

	scanMu sync.Mutex // one scan at a time
}

// OpenBlueZ connects to BlueZ on the system bus and checks that the named
// adapter ("hci0") exists.
func OpenBlueZ(adapter string) (*BlueZ, error) {
	a := bluetooth.NewAdapter(adapter)
	if err := a.Enable(); err != nil {
		return nil, fmt.Errorf("bluez: %w", err)
	}
	return &BlueZ{adapter: a}, nil
}

// Name is "bluez".
func (b *BlueZ) Name() string { return "bluez" }

// Scan runs BlueZ discovery until ctx ends.
func (b *BlueZ) Scan(ctx context.Context, found func(Advertisement)) error {
	b.scanMu.Lock()
	defer b.scanMu.Unlock()
	done := make(chan error, 1)
	go func() {
		done <- b.adapter.Scan(func(_ *bluetooth.Adapter, r bluetooth.ScanResult) {
			if ctx.Err() != nil {
				return
			}
			found(Advertisement{
				Address: Address{MAC: r.Address.MAC.String(), Random: r.Address.IsRandom()},
				Name:    r.LocalName(),
				RSSI:    int(r.RSSI),
			})
		})
	}()
	select {
	case err := <-done:
		return scanError(err)
	case <-ctx.Done():
	}
	// StopScan fails until Scan has started; retry until one of them ends.
	for {
		if b.adapter.StopScan() == nil {
			return scanError(<-done)
		}
		select {
		case err := <-done:
			return scanError(err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func scanError(err error) error {
	if err != nil {
		return fmt.Errorf("bluez scan: %w", err)
	}
	return nil
}

// Connect asks BlueZ to connect (BlueZ must have seen the peripheral in a
// scan) and finds the Neewer characteristics. BlueZ's connect cannot be
// cancelled: when ctx ends first, the late connection is dropped.
func (b *BlueZ) Connect(ctx context.Context, addr Address) (Link, error) {
	mac, err := bluetooth.ParseMAC(addr.MAC)
	if err != nil {
		return nil, err
	}
	target := bluetooth.Address{MACAddress: bluetooth.MACAddress{MAC: mac}}
	target.SetRandom(addr.Random)
	type result struct {
		link *bluezLink
		err  error
	}
	res := make(chan result, 1)
	go func() {
		l, err := b.connect(target)
		res <- result{l, err}
	}()
	select {
	case r := <-res:
		return r.link, r.err
	case <-ctx.Done():
		go func() {
			if r := <-res; r.err == nil {
				_ = r.link.Close()
			}
		}()
		return nil, fmt.Errorf("bluez connect %s: %w", addr, ctx.Err())
	}
}

func (b *BlueZ) connect(target bluetooth.Address) (*bluezLink, error) {
	dev, err := b.adapter.Connect(target, bluetooth.ConnectionParams{})
	if err != nil {
		return nil, fmt.Errorf("bluez connect %s: %w", target.MAC, err)
	}
	write, notify, err := neewerCharacteristics(dev)
	if err != nil {
		_ = dev.Disconnect()
		return nil, fmt.Errorf("bluez %s: %w", target.MAC, err)
	}
	l := &bluezLink{dev: dev, write: write, notify: notify, done: make(chan struct{}), quit: make(chan struct{})}
	go l.watch()
	return l, nil
}

func neewerCharacteristics(dev bluetooth.Device) (write, notify bluetooth.DeviceCharacteristic, err error) {
	svcUUID, _ := bluetooth.ParseUUID(ServiceUUID)
	writeUUID, _ := bluetooth.ParseUUID(WriteUUID)
	notifyUUID, _ := bluetooth.ParseUUID(NotifyUUID)
	svcs, err := dev.DiscoverServices([]bluetooth.UUID{svcUUID})
	if err != nil {
		return write, notify, fmt.Errorf("no Neewer service: %w", err)
	}
	chars, err := svcs[0].DiscoverCharacteristics([]bluetooth.UUID{writeUUID, notifyUUID})
	if err != nil {
		return write, notify, fmt.Errorf("no Neewer characteristics: %w", err)
	}
	return chars[0], chars[1], nil
}

// Close does nothing beyond what the links and scans do: BlueZ keeps the
// adapter.
func (b *BlueZ) Close() error { return nil }

// bluezLinkPoll is how often a BlueZ link checks that it is still
// connected (BlueZ tells only the connecting call, not later drops).
const bluezLinkPoll = 5 * time.Second

type bluezLink struct {
	dev    bluetooth.Device
	write  bluetooth.DeviceCharacteristic
	notify bluetooth.DeviceCharacteristic

	mu           sync.Mutex
	withResponse bool // the light refused write-without-response

	done      chan struct{}
	quit      chan struct{}
	closeOnce sync.Once
	doneOnce  sync.Once
}

// Write prefers write-without-response and falls back, once and for
// good, to write-with-response if the light refuses it.
func (l *bluezLink) Write(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	withResponse := l.withResponse
	l.mu.Unlock()
	if !withResponse {
		if _, err := l.write.WriteWithoutResponse(b); err == nil {
			return nil
		}
	}
	if _, err := l.write.Write(b); err != nil {
		l.lost()
		return fmt.Errorf("bluez write: %w", err)
	}
	l.mu.Lock()
	l.withResponse = true
	l.mu.Unlock()
	return nil
}

func (l *bluezLink) Subscribe(ctx context.Context, fn func([]byte)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.notify.EnableNotifications(fn); err != nil {
		return fmt.Errorf("bluez notify: %w", err)
	}
	return nil
}

func (l *bluezLink) Done() <-chan struct{} { return l.done }

func (l *bluezLink) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.quit)
		_ = l.notify.EnableNotifications(nil)
		err = l.dev.Disconnect()
		l.lost()
	})
	return err
}

func (l *bluezLink) lost() { l.doneOnce.Do(func() { close(l.done) }) }

// watch polls BlueZ's Connected property until the link drops or closes.
func (l *bluezLink) watch() {
	t := time.NewTicker(bluezLinkPoll)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-l.done:
			return
		case <-t.C:
			if ok, err := l.dev.Connected(); err != nil || !ok {
				l.lost()
				return
			}
		}
	}
}
