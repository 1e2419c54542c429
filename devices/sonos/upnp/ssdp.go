package upnp

import (
	"context"
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/ssdp"
)

// SSDP discovery of Sonos players.
const (
	SSDPAddr       = ssdp.Addr
	ZonePlayerType = "urn:schemas-upnp-org:device:ZonePlayer:1"
)

// SearchRequest is an M-SEARCH for search target st, asking for answers
// within mx seconds.
func SearchRequest(st string, mx int) []byte { return ssdp.Request(st, mx) }

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
	h, err := ssdp.ParseAnswer(b)
	r := SearchResponse{
		Location: h.Get("Location"), Server: h.Get("Server"), ST: h.Get("St"), USN: h.Get("Usn"),
		Household: h.Get("X-Rincon-Household"),
	}
	if err != nil {
		return r, fmt.Errorf("upnp: %w", err)
	}
	return r, nil
}

// Search sends an M-SEARCH for Sonos players to each target (the SSDP
// multicast address, or a player's own address) and calls found with each
// Sonos answer until ctx ends.
func Search(ctx context.Context, targets []string, found func(SearchResponse)) error {
	err := ssdp.Search(ctx, targets, SearchRequest(ZonePlayerType, 1), func(b []byte) {
		if r, err := ParseSearchResponse(b); err == nil && r.IsSonos() {
			found(r)
		}
	})
	if err != nil {
		return fmt.Errorf("upnp: %w", err)
	}
	return nil
}
