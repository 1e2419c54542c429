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

// Reach is how long a scan should wait, after a browse of wait ends, for
// the instances found to be reached: Browse hands them over when the
// query ends, and a device is connected and asked who it is (a TLS or
// Noise handshake on the local network) before it can be listed. A
// scanner reports wait+Reach as its time to wait.
const Reach = time.Second

// Found is one instance that answered: the address of its service
// (host:port, IPv4 when it gives one) and its TXT record's fields.
type Found struct {
	Addr string
	Info []string
}

// Browse asks for service ("_esphomelib._tcp") for wait, or until ctx
// ends, then calls fn for each instance that answered with an address,
// in the order they answered. It returns the query's error, if any.
//
// The answers are read only once the query is over: the library hands
// an instance over as soon as it has an address, a port and a TXT
// record, and goes on filling the same entry in as more of its records
// arrive, so reading it before the query ends races with the library.
func Browse(ctx context.Context, service string, wait time.Duration, fn func(Found)) error {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(service)
	params.Entries = entries
	params.Timeout = wait
	params.DisableIPv6 = true
	params.Logger = log.New(io.Discard, "", 0)
	var answered []*mdns.ServiceEntry
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range entries { // kept, not read: see above
			answered = append(answered, e)
		}
	}()
	err := mdns.QueryContext(ctx, params)
	close(entries)
	<-done
	for _, e := range answered {
		if addr, ok := address(e); ok {
			fn(Found{Addr: addr, Info: e.InfoFields})
		}
	}
	return err
}

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
