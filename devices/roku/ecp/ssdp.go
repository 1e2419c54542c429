package ecp

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/ssdp"
)

// SSDP discovery of Roku devices (PROTOCOLS.md §2.1, §4.3).
const (
	SSDPAddr     = ssdp.Addr
	SearchTarget = "roku:ecp"
)

// SearchRequest is an M-SEARCH for Roku devices, asking for answers within
// mx seconds.
func SearchRequest(mx int) []byte { return ssdp.Request(SearchTarget, mx) }

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
	h, err := ssdp.ParseAnswer(b)
	if err != nil {
		return Answer{}, fmt.Errorf("ecp: %w", err)
	}
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
	err := ssdp.Search(ctx, targets, SearchRequest(1), func(b []byte) {
		if a, err := ParseAnswer(b); err == nil && a.IsRoku() {
			found(a)
		}
	})
	if err != nil {
		return fmt.Errorf("ecp: %w", err)
	}
	return nil
}
