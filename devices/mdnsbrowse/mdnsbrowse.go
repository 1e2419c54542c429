// Package mdnsbrowse asks the local network by multicast DNS for the
// instances of one service, as the adapters that find devices by DNS-SD
// (Android TVs, ESPHome nodes) do on a scan.
package mdnsbrowse

import (
	"context"
	"io"
	"log"
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/mdns"
)

// Found is one instance that answered: the address of its service
// (host:port, IPv4 when it gives one) and its TXT record's fields.
type Found struct {
	Addr string
	Info []string
}

// Browse asks for service ("_esphomelib._tcp") for wait and calls fn for
// each answer that gives an address, in the order they come, until wait
// has passed or ctx ends. It returns the query's error, if any.
func Browse(ctx context.Context, service string, wait time.Duration, fn func(Found)) error {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(service)
	params.Entries = entries
	params.Timeout = wait
	params.DisableIPv6 = true
	params.Logger = log.New(io.Discard, "", 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range entries {
			if addr, ok := address(e); ok {
				fn(Found{Addr: addr, Info: e.InfoFields})
			}
		}
	}()
	err := mdns.QueryContext(ctx, params)
	close(entries)
	<-done
	return err
}

// address is the service address an answer gives.
func address(e *mdns.ServiceEntry) (string, bool) {
	ip := e.AddrV4
	if ip == nil {
		ip = e.Addr
	}
	if ip == nil || e.Port <= 0 {
		return "", false
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(e.Port)), true
}
