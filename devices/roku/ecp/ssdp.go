package ecp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// SSDP discovery of Roku devices (PROTOCOLS.md §2.1, §4.3).
const (
	SSDPAddr     = "239.255.255.250:1900"
	SearchTarget = "roku:ecp"
)

// SearchRequest is an M-SEARCH for Roku devices, asking for answers within
// mx seconds.
func SearchRequest(mx int) []byte {
	return fmt.Appendf(nil, "M-SEARCH * HTTP/1.1\r\nHOST: %s\r\nMAN: \"ssdp:discover\"\r\nMX: %d\r\nST: %s\r\n\r\n", SSDPAddr, mx, SearchTarget)
}

// Answer is a device's answer to an M-SEARCH.
type Answer struct {
	Location string // "http://192.168.1.40:8060/"
	ST       string
	USN      string // "uuid:roku:ecp:<serial>"
	Server   string
}

// Addr is the device's "host:port", from Location; "" when there is none.
func (a Answer) Addr() string {
	u, err := url.Parse(a.Location)
	if err != nil || u.Host == "" {
		return ""
	}
	return WithPort(u.Host)
}

// Serial is the serial number in USN, "" when it has none.
func (a Answer) Serial() string {
	_, s, ok := strings.Cut(a.USN, "roku:ecp:")
	if !ok {
		return ""
	}
	s, _, _ = strings.Cut(s, "::")
	return s
}

// IsRoku reports whether the answer comes from a Roku (other UPnP devices
// may answer a search too).
func (a Answer) IsRoku() bool {
	return strings.EqualFold(a.ST, SearchTarget) || strings.Contains(strings.ToLower(a.USN), SearchTarget)
}

// ParseAnswer parses one M-SEARCH answer datagram.
func ParseAnswer(b []byte) (Answer, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if err != nil {
		return Answer{}, fmt.Errorf("ecp: search answer: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Answer{}, fmt.Errorf("ecp: search answer status %d", resp.StatusCode)
	}
	h := resp.Header
	a := Answer{Location: h.Get("Location"), ST: h.Get("St"), USN: h.Get("Usn"), Server: h.Get("Server")}
	if a.Addr() == "" {
		return a, fmt.Errorf("ecp: search answer without a location")
	}
	return a, nil
}

// Search sends an M-SEARCH for Roku devices to each target (the SSDP
// multicast address, or a device's own address) and calls found with each
// Roku's answer until ctx ends.
func Search(ctx context.Context, targets []string, found func(Answer)) error {
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return fmt.Errorf("ecp: search socket: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	req := SearchRequest(1)
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
		return fmt.Errorf("ecp: no search could be sent to %v", targets)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("ecp: search: %w", err)
		}
		if a, err := ParseAnswer(buf[:n]); err == nil && a.IsRoku() {
			found(a)
		}
	}
}
