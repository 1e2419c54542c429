// Package mqtttest has what the MQTT tests share.
package mqtttest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"testing"
)

// Addr returns a loopback address on a port nobody listens on, taken
// below the kernel's range for outgoing connections and bind(":0"). A
// test that lets go of the port (a broker it stops and starts again) then
// finds it still free: no other process is handed it meanwhile.
func Addr(tb testing.TB) string {
	tb.Helper()
	const low = 10000
	high := ephemeralLow()
	for range 200 {
		if high-low < 1000 {
			break
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", low+rand.IntN(high-low)))
		if err != nil {
			continue
		}
		addr := l.Addr().String()
		_ = l.Close()
		return addr
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var hi int
		if n, _ := fmt.Sscan(string(b), &lo, &hi); n != 2 {
			lo = 32768
		}
	}
	return lo
}
