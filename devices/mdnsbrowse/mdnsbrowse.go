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
	"strings"
	"time"

	"github.com/hashicorp/mdns"
)

// Reach is how long a scan should wait, after a browse of wait ends, for
// the instances found to be reached: an answer is handed over at the end
// of its round, and a device is connected and asked who it is (a TLS or
// Noise handshake on the local network) before it can be listed. A
// scanner reports wait+Reach as its time to wait.
const Reach = time.Second

// Found is one instance that answered: its name ("kitchen"), the
// address of its service (host:port, IPv4 when it gives one) and its TXT
// record's fields.
type Found struct {
	Name string
	Addr string
	Info []string
}

// round is how long one query listens before its answers are read.
// hashicorp/mdns goes on writing to an answer it has handed over when the
// same instance answers again (on another socket, say), so an answer is
// read only once its query has ended.
const round = time.Second

// Browse asks for service ("_esphomelib._tcp") for wait and calls fn for
// each instance that answers with an address, once per address, at the
// end of the round of at most a second in which it answered, until wait
// has passed or ctx ends. It returns a query's error, if any.
func Browse(ctx context.Context, service string, wait time.Duration, fn func(Found)) error {
	seen := map[string]bool{}
	end := time.Now().Add(wait)
	for left := wait; left > 0 && ctx.Err() == nil; left = time.Until(end) {
		entries, err := query(ctx, service, min(round, left))
		for _, e := range entries {
			if addr, ok := address(e); ok && !seen[addr] {
				seen[addr] = true
				fn(Found{Name: instance(e.Name, service), Addr: addr, Info: e.InfoFields})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// query asks for service once, for wait, and returns the answers heard.
func query(ctx context.Context, service string, wait time.Duration) ([]*mdns.ServiceEntry, error) {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(service)
	params.Entries = entries
	params.Timeout = wait
	params.DisableIPv6 = true
	params.Logger = log.New(io.Discard, "", 0)
	var heard []*mdns.ServiceEntry
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range entries {
			heard = append(heard, e) // read once the query has ended
		}
	}()
	err := mdns.QueryContext(ctx, params)
	close(entries)
	<-done
	return heard, err
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

// instance is the instance's own label of its full name
// ("kitchen._esphomelib._tcp.local." → "kitchen").
func instance(name, service string) string {
	if i := strings.Index(name, "."+service+"."); i >= 0 {
		return name[:i]
	}
	return ""
}
