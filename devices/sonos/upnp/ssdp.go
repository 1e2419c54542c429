package upnp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// SSDP discovery of Sonos players.
const (
	SSDPAddr       = "239.255.255.250:1900"
	ZonePlayerType = "urn:schemas-upnp-org:device:ZonePlayer:1"
)

// SearchRequest is an M-SEARCH for search target st, asking for answers
// within mx seconds.
func SearchRequest(st string, mx int) []byte {
	return fmt.Appendf(nil, "M-SEARCH * HTTP/1.1\r\nHOST: %s\r\nMAN: \"ssdp:discover\"\r\nMX: %d\r\nST: %s\r\n\r\n", SSDPAddr, mx, st)
}

// SearchResponse is a player's answer to an M-SEARCH.
type SearchResponse struct {
	Location  string // its device description URL
	Server    string
	ST        string
	USN       string
	Household string // X-RINCON-HOUSEHOLD
}

// IsSonos reports whether the answer comes from a Sonos player (other
// UPnP devices answer searches too).
func (r SearchResponse) IsSonos() bool {
	return strings.Contains(r.Server, "Sonos") || r.Household != ""
}

// ParseSearchResponse parses one M-SEARCH answer datagram.
func ParseSearchResponse(b []byte) (SearchResponse, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if err != nil {
		return SearchResponse{}, fmt.Errorf("upnp: search answer: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return SearchResponse{}, fmt.Errorf("upnp: search answer status %d", resp.StatusCode)
	}
	h := resp.Header
	r := SearchResponse{
		Location: h.Get("Location"), Server: h.Get("Server"), ST: h.Get("St"), USN: h.Get("Usn"),
		Household: h.Get("X-Rincon-Household"),
	}
	if r.Location == "" {
		return r, fmt.Errorf("upnp: search answer without a location")
	}
	return r, nil
}

// Search sends an M-SEARCH for Sonos players to each target (the SSDP
// multicast address, or a player's own address) and calls found with each
// Sonos answer until ctx ends.
func Search(ctx context.Context, targets []string, found func(SearchResponse)) error {
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return fmt.Errorf("upnp: search socket: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	req := SearchRequest(ZonePlayerType, 1)
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
		return fmt.Errorf("upnp: no search could be sent to %v", targets)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("upnp: search: %w", err)
		}
		if r, err := ParseSearchResponse(buf[:n]); err == nil && r.IsSonos() {
			found(r)
		}
	}
}
