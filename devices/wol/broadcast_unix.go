//go:build unix

package wol

import (
	"net"
	"syscall"
)

// allowBroadcast sets SO_BROADCAST, without which a datagram to a
// broadcast address is refused.
func allowBroadcast(c *net.UDPConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
	}); err != nil {
		return err
	}
	return serr
}
