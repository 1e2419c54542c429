// Package ble is the Bluetooth LE transport the Neewer adapter talks
// through: a small interface (scan, connect, write, subscribe) and two
// backends, BlueZ over D-Bus (tinygo.org/x/bluetooth) and a raw HCI socket
// the hub owns. The HCI backend is the hub's own: the HCI user channel,
// LE scanning and connections, L2CAP and the few ATT requests a Neewer
// light needs, on golang.org/x/sys/unix alone. github.com/go-ble/ble, the
// usual library for this, is not among the modules the project builds
// with, and a light needs only a small part of what it does.
//
// Neither backend can reach a radio in CI: the adapter is tested against a
// fake peripheral implementing Transport (package neewertest), and the HCI
// backend against a fake controller speaking HCI, L2CAP and ATT.
package ble

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

// The Neewer GATT layout (PROTOCOLS.md §1.1): one service, a write
// characteristic for commands and a notify characteristic for replies.
const (
	ServiceUUID = "69400001-B5A3-F393-E0A9-E50E24DCCA99"
	WriteUUID   = "69400002-B5A3-F393-E0A9-E50E24DCCA99"
	NotifyUUID  = "69400003-B5A3-F393-E0A9-E50E24DCCA99"
)

// Address is a peripheral's Bluetooth address.
type Address struct {
	// MAC is "DF:24:3A:B4:46:5D", upper case.
	MAC string
	// Random is true for a random (not public) address.
	Random bool
}

// ParseAddress reads an address in any of the forms nwproto.ParseMAC
// takes and returns it in canonical form.
func ParseAddress(s string) (Address, error) {
	m, err := nwproto.ParseMAC(s)
	if err != nil {
		return Address{}, err
	}
	return Address{MAC: m.String()}, nil
}

func (a Address) String() string { return a.MAC }

// Advertisement is one peripheral heard while scanning.
type Advertisement struct {
	Address Address
	Name    string // the advertised local name, "" until one is heard
	RSSI    int
}

// Transport reaches peripherals.
type Transport interface {
	// Name names the backend: "bluez" or "hci".
	Name() string
	// Scan listens for advertisements and calls found for each (from any
	// goroutine, possibly many times for one peripheral) until ctx ends.
	// Only one scan runs at a time.
	Scan(ctx context.Context, found func(Advertisement)) error
	// Connect opens a link to the Neewer service of the peripheral at
	// addr, giving up when ctx ends.
	Connect(ctx context.Context, addr Address) (Link, error)
	// Close releases the radio; links and scans end.
	Close() error
}

// Link is a connection to one peripheral's Neewer service.
type Link interface {
	// Write sends one command write to the write characteristic.
	Write(ctx context.Context, b []byte) error
	// Subscribe turns on notifications from the notify characteristic;
	// fn gets each one and must not block.
	Subscribe(ctx context.Context, fn func([]byte)) error
	// Done is closed when the link is lost or closed.
	Done() <-chan struct{}
	// Close ends the link.
	Close() error
}

// Mode chooses a backend.
type Mode string

const (
	ModeAuto  Mode = "auto"  // BlueZ if the system bus answers, else HCI, else off
	ModeBlueZ Mode = "bluez" // tinygo.org/x/bluetooth over D-Bus
	ModeHCI   Mode = "hci"   // a raw HCI user channel the hub owns
	ModeOff   Mode = "off"   // no Bluetooth
)

// ParseMode reads a BIFROST_BLE value; "" is auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeBlueZ, ModeHCI, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("bluetooth mode %q: use auto, bluez, hci or off", s)
}

// ErrOff says Bluetooth is off, by choice or because no backend could
// reach a radio.
var ErrOff = errors.New("bluetooth is off")

// Options configure Open.
type Options struct {
	Mode Mode
	// Adapter is the controller to use, "hci0" by default.
	Adapter string
}

// Open starts the backend opts.Mode names. In auto mode it tries BlueZ,
// then HCI; when neither can reach a radio the error wraps ErrOff and says
// why each failed. Mode off returns ErrOff.
func Open(ctx context.Context, opts Options) (Transport, error) {
	if opts.Adapter == "" {
		opts.Adapter = "hci0"
	}
	switch opts.Mode {
	case ModeOff:
		return nil, ErrOff
	case ModeBlueZ:
		return nilIfErr(OpenBlueZ(opts.Adapter))
	case ModeHCI:
		return nilIfErr(OpenHCI(ctx, opts.Adapter))
	}
	bz, bzErr := OpenBlueZ(opts.Adapter)
	if bzErr == nil {
		return bz, nil
	}
	h, hciErr := OpenHCI(ctx, opts.Adapter)
	if hciErr == nil {
		return h, nil
	}
	return nil, fmt.Errorf("%w: no radio could be reached (bluez: %v; hci: %v)", ErrOff, bzErr, hciErr)
}

// nilIfErr keeps a typed nil pointer out of the Transport interface.
func nilIfErr[T Transport](t T, err error) (Transport, error) {
	if err != nil {
		return nil, err
	}
	return t, nil
}

// uuidLE is a 128-bit UUID (one of the constants above) in the
// little-endian byte order ATT uses.
func uuidLE(s string) [16]byte {
	var le [16]byte
	be, _ := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	for i := range min(len(be), 16) {
		le[15-i] = be[i]
	}
	return le
}
