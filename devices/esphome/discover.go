package esphome

import (
	"context"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices/mdnsbrowse"
)

// mdnsService is what ESPHome nodes with the native API announce.
const mdnsService = "_esphomelib._tcp"

// Scan asks by mDNS for nodes for ScanTime and connects, with the
// house's key, to those it does not know yet; their entities join the
// registry as they are listed.
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if _, err := a.life.RunningFor(ctx); err != nil { // the hub may scan while its adapters start
		return 0, err
	}
	if err := a.life.Spawn(a.discover); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime, nil
}

// discover runs one mDNS query and keeps the new nodes it finds.
func (a *Adapter) discover(ctx context.Context) {
	err := mdnsbrowse.Browse(ctx, mdnsService, a.cfg.ScanTime, func(f mdnsbrowse.Found) {
		a.found(ctx, f.Addr, txtMAC(f.Info))
	})
	if err != nil {
		a.log.Warn("node discovery failed", "err", err)
	}
}

// txtMAC is the node's MAC address as its TXT record gives it
// ("mac=acbc32890ea9"), in hex digits only, lower case; "" when none.
func txtMAC(fields []string) string {
	for _, f := range fields {
		if v, ok := strings.CutPrefix(f, "mac="); ok {
			return macKey(v)
		}
	}
	return ""
}

// macKey is a MAC address in hex digits only, lower case.
func macKey(mac string) string {
	return strings.ToLower(strings.NewReplacer(":", "", "-", "").Replace(mac))
}

// found keeps the node at addr, with the house's key, unless a node at
// that address, or with that MAC address, is kept already.
func (a *Adapter) found(ctx context.Context, addr, mac string) {
	if a.knows(addr, mac) {
		return
	}
	n, err := a.newNode(addr, a.cfg.Key)
	if err != nil {
		return
	}
	a.log.Info("node found by mDNS", "addr", addr)
	if nctx, stop, ok := a.start(ctx, n); ok {
		a.keep(nctx, stop, n, newMirror(a, n))
	}
}

// knows reports whether a node at addr, or with the MAC address mac, is
// kept already.
func (a *Adapter) knows(addr, mac string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for at, r := range a.nodes {
		if at == addr || (mac != "" && macKey(r.node.Info().MACAddress) == mac) {
			return true
		}
	}
	return false
}
