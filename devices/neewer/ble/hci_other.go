//go:build !linux

package ble

import (
	"context"
	"errors"
)

// OpenHCI needs Linux: raw HCI user channels are a Linux socket family.
func OpenHCI(context.Context, string) (*HCI, error) {
	return nil, errors.New("hci: raw HCI sockets exist only on Linux; use bluez")
}
