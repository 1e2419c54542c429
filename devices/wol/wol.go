// Package wol sends Wake-on-LAN magic packets: 6 bytes 0xFF, then the
// target's 6-byte MAC address 16 times, in one UDP datagram (PROTOCOLS.md
// §4.7). TVs whose network sleeps in standby wake on one.
package wol

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// DefaultTarget is where packets go unless configured otherwise: the
// limited broadcast address, port 9 (discard).
const DefaultTarget = "255.255.255.255:9"

// ParseMAC reads a 6-byte hardware address written with colons, dashes,
// dots or nothing between its bytes ("A4:5E:60:C2:11:09", "a45e60c21109").
func ParseMAC(s string) (net.HardwareAddr, error) {
	s = strings.TrimSpace(s)
	if len(s) == 12 && !strings.ContainsAny(s, ":-.") {
		var b strings.Builder
		for i := 0; i < 12; i += 2 {
			if i > 0 {
				b.WriteByte(':')
			}
			b.WriteString(s[i : i+2])
		}
		s = b.String()
	}
	mac, err := net.ParseMAC(s)
	if err != nil || len(mac) != 6 {
		return nil, fmt.Errorf("%q is not a MAC address such as A4:5E:60:C2:11:09", s)
	}
	return mac, nil
}

// Packet is the magic packet for mac.
func Packet(mac net.HardwareAddr) []byte {
	p := make([]byte, 0, 6+16*6)
	for range 6 {
		p = append(p, 0xFF)
	}
	for range 16 {
		p = append(p, mac[:6]...)
	}
	return p
}

// Send sends the magic packet for mac to every target ("host:port"; a
// bare host gets port 9). It succeeds when at least one target took the
// datagram, and otherwise says why the first one did not.
func Send(ctx context.Context, mac net.HardwareAddr, targets []string) error {
	if len(mac) != 6 {
		return errors.New("a Wake-on-LAN address has 6 bytes")
	}
	if len(targets) == 0 {
		targets = []string{DefaultTarget}
	}
	pkt := Packet(mac)
	var first error
	sent := 0
	for _, t := range targets {
		if err := sendTo(ctx, pkt, withPort(t)); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		sent++
	}
	if sent == 0 {
		return fmt.Errorf("sending the Wake-on-LAN packet: %w", first)
	}
	return nil
}

func withPort(t string) string {
	if _, _, err := net.SplitHostPort(t); err == nil {
		return t
	}
	return net.JoinHostPort(strings.Trim(t, "[]"), "9")
}

func sendTo(ctx context.Context, pkt []byte, target string) error {
	addr, err := net.ResolveUDPAddr("udp", target)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	if addr.IP.Equal(net.IPv4bcast) || strings.HasSuffix(addr.IP.String(), ".255") {
		if err := allowBroadcast(conn); err != nil {
			return err
		}
	}
	_, err = conn.WriteToUDP(pkt, addr)
	return err
}
