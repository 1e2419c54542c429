package androidtv

import (
	"context"
	"io"
	"log"
	"net"
	"strconv"

	"github.com/hashicorp/mdns"
)

// mdnsService is what Android TVs with the remote service advertise.
const mdnsService = "_androidtvremote2._tcp"

// discover asks by mDNS for TVs for ScanTime and adds those that answer
// (each identified on its pairing port first).
func (a *Adapter) discover(ctx context.Context) {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(mdnsService)
	params.Entries = entries
	params.Timeout = a.cfg.ScanTime
	params.DisableIPv6 = true
	params.Logger = log.New(io.Discard, "", 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range entries {
			if addr, ok := entryAddress(e); ok {
				a.life.Go(func() { a.addFound(ctx, addr) })
			}
		}
	}()
	if err := mdns.QueryContext(ctx, params); err != nil {
		a.log.Warn("TV discovery failed", "err", err)
	}
	close(entries)
	<-done
}

// entryAddress is the control address an mDNS answer gives.
func entryAddress(e *mdns.ServiceEntry) (string, bool) {
	ip := e.AddrV4
	if ip == nil {
		ip = e.Addr
	}
	if ip == nil || e.Port <= 0 {
		return "", false
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(e.Port)), true
}

// addFound identifies and adds a TV found by discovery.
func (a *Adapter) addFound(ctx context.Context, addr string) {
	if a.knows(addr) {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	ad, err := parseAddress(addr)
	if err != nil {
		return
	}
	r, err := a.identify(qctx, ad)
	if err != nil {
		a.log.Debug("TV found by mDNS did not say who it is", "addr", addr, "err", err)
		return
	}
	a.attach(r, true)
}
