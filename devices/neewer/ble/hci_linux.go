//go:build linux

package ble

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// hciDevDown is HCIDEVDOWN, _IOW('H', 202, int): the adapter must be down
// before a user channel can be bound to it.
const hciDevDown = 0x400448CA

// OpenHCI takes the adapter ("hci0") for the hub alone: it brings the
// adapter down and binds a raw HCI user channel to it. That needs
// CAP_NET_ADMIN, and fails while bluetoothd holds the adapter.
func OpenHCI(ctx context.Context, adapter string) (*HCI, error) {
	dev, err := strconv.Atoi(strings.TrimPrefix(adapter, "hci"))
	if err != nil || dev < 0 {
		return nil, fmt.Errorf("hci: adapter %q: want a name like hci0", adapter)
	}
	fd, err := unix.Socket(unix.AF_BLUETOOTH, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.BTPROTO_HCI)
	if err != nil {
		return nil, fmt.Errorf("hci: bluetooth socket: %w", err)
	}
	if err := unix.IoctlSetInt(fd, hciDevDown, dev); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("hci: taking %s down (needs CAP_NET_ADMIN): %w", adapter, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrHCI{Dev: uint16(dev), Channel: unix.HCI_CHANNEL_USER}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("hci: binding a user channel to %s (is bluetoothd holding it?): %w", adapter, err)
	}
	// Non-blocking, so the runtime poller serves reads and Close ends them.
	f := os.NewFile(uintptr(fd), adapter)
	return NewHCI(ctx, f)
}
