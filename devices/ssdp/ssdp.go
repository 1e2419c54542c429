// Package ssdp is the Simple Service Discovery Protocol's search, as
// Sonos players and Rokus answer it (PROTOCOLS.md §2.1): an M-SEARCH
// datagram to the multicast address (or a device's own), and the HTTP-shaped
// answers that come back.
package ssdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Addr is SSDP's multicast address.
const Addr = "239.255.255.250:1900"

// Request is an M-SEARCH for search target st, asking for answers within
// mx seconds.
func Request(st string, mx int) []byte {
	return fmt.Appendf(nil, "M-SEARCH * HTTP/1.1\r\nHOST: %s\r\nMAN: \"ssdp:discover\"\r\nMX: %d\r\nST: %s\r\n\r\n", Addr, mx, st)
}

// ParseAnswer reads one answer datagram's headers: a 200 with a Location.
func ParseAnswer(b []byte) (http.Header, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if err != nil {
		return nil, fmt.Errorf("search answer: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("search answer status %d", resp.StatusCode)
	}
	if resp.Header.Get("Location") == "" {
		return resp.Header, errors.New("search answer without a location")
	}
	return resp.Header, nil
}

// Search sends req to each target ("host:port") and calls answer with
// every datagram that comes back, until ctx ends.
func Search(ctx context.Context, targets []string, req []byte, answer func([]byte)) error {
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return fmt.Errorf("search socket: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	sent := 0
	for _, t := range targets {
		addr, err := net.ResolveUDPAddr("udp4", t)
		if err != nil {
			continue
		}
		if _, err := conn.WriteTo(req, addr); err == nil {
			sent++
		}
	}
	if sent == 0 {
		return fmt.Errorf("no search could be sent to %v", targets)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("search: %w", err)
		}
		answer(buf[:n])
	}
}
