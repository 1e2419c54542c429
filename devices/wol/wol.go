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
	// Any address may be a subnet's broadcast address (a /25's is .127):
	// broadcasting is allowed for every packet.
	if err := allowBroadcast(conn); err != nil {
		return err
	}
	_, err = conn.WriteToUDP(pkt, addr)
	return err
}
