package androidtv

import (
	"context"

	"github.com/bifrost-hub/bifrost/devices/mdnsbrowse"
)

// mdnsService is what Android TVs with the remote service advertise.
const mdnsService = "_androidtvremote2._tcp"

// discover asks by mDNS for TVs for ScanTime and adds those that answer
// (each identified on its pairing port first).
func (a *Adapter) discover(ctx context.Context) {
	err := mdnsbrowse.Browse(ctx, mdnsService, a.cfg.ScanTime, func(f mdnsbrowse.Found) {
		a.life.Go(func() { a.addFound(ctx, f.Addr) })
	})
	if err != nil {
		a.log.Warn("TV discovery failed", "err", err)
	}
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
