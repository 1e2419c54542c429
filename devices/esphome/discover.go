package esphome

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mdnsbrowse"
)

// mdnsService is what ESPHome nodes with the native API announce.
const mdnsService = "_esphomelib._tcp"

// Scan asks by mDNS for nodes for ScanTime and connects, with the
// house's key, to those it does not know yet; their entities join the
// registry as they are listed. It returns how long that takes: ScanTime
// and the time to reach the last nodes found. A node that needs a key of its own is
// tried once and then waits for it (KeysWanted).
func (a *Adapter) Scan(ctx context.Context) (time.Duration, error) {
	if _, err := a.life.RunningFor(ctx); err != nil { // the hub may scan while its adapters start
		return 0, err
	}
	if err := a.life.Spawn(a.discover); err != nil {
		return 0, err
	}
	return a.cfg.ScanTime + mdnsbrowse.Reach, nil
}

// discover runs one mDNS query and tries the new nodes it finds.
func (a *Adapter) discover(ctx context.Context) {
	err := mdnsbrowse.Browse(ctx, mdnsService, a.cfg.ScanTime, func(f mdnsbrowse.Found) {
		a.found(ctx, f)
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

// found tries the node f, with the house's key, unless a node at that
// address, or with that MAC address, is kept, tried or waiting for its
// key already.
func (a *Adapter) found(ctx context.Context, f mdnsbrowse.Found) {
	mac := txtMAC(f.Info)
	n, err := a.newNode(f.Addr, a.cfg.Key)
	if err != nil || !a.claim(n.Addr(), mac) {
		return
	}
	a.log.Info("node found by mDNS", "addr", n.Addr(), "name", f.Name)
	w := devices.KeyWanted{Address: n.Addr(), Name: f.Name, MAC: colonMAC(mac)}
	nctx, stop, ok := a.start(ctx, n)
	if !ok || !a.life.Go(func() { a.settle(nctx, stop, n, w) }) {
		if ok {
			stop()
		}
		a.release(n.Addr())
	}
}

// claim marks the node at addr (with the MAC address mac, "" when not
// known) as tried, unless it is kept, tried or waiting for its key.
func (a *Adapter) claim(addr, mac string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	same := func(at, m string) bool { return at == addr || (mac != "" && macKey(m) == mac) }
	for at, r := range a.nodes {
		if same(at, r.node.Info().MACAddress) {
			return false
		}
	}
	for at, m := range a.trying {
		if same(at, m) {
			return false
		}
	}
	for at, w := range a.wanted {
		if same(at, w.MAC) {
			return false
		}
	}
	a.trying[addr] = mac
	return true
}

func (a *Adapter) release(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.trying, addr)
}

// settle keeps a node a scan found once it connects. One that refuses
// the house's key, or needs a key the house has not got, is stopped at
// once and waits for its own key, rather than being tried again and
// again with a key it will not take.
func (a *Adapter) settle(nctx context.Context, stop context.CancelFunc, n *Node, w devices.KeyWanted) {
	err := waitConnected(nctx, n, wantsKey) // a node not answering yet is waited out
	switch {
	case err == nil:
		a.keep(nctx, stop, n, newMirror(a, n))
		a.release(n.Addr())
	case wantsKey(err):
		stop()
		w.Refused = errors.Is(err, ErrKeyMismatch)
		a.want(w)
		a.log.Warn(wantedText(w), "addr", w.Address, "err", err)
	default: // the adapter stops
		stop()
		a.release(n.Addr())
	}
}

// wantsKey reports whether err says the node needs a key other than the
// one it was tried with.
func wantsKey(err error) bool {
	return errors.Is(err, ErrKeyMismatch) || errors.Is(err, ErrNeedsKey)
}

// wantedText says, in a log's words, what a person does about w.
func wantedText(w devices.KeyWanted) string {
	what := "ESPHome node at " + w.Address
	if w.Name != "" {
		what = "ESPHome node '" + w.Name + "' at " + w.Address
	}
	if w.Refused {
		return what + " refused the house's API encryption key (BIFROST_ESPHOME_KEY); add it by address with its own key"
	}
	return what + " needs its API encryption key; add it by address with its key"
}

// want remembers w as waiting for its key, no longer tried.
func (a *Adapter) want(w devices.KeyWanted) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.trying, w.Address)
	a.wanted[w.Address] = w
	a.wantedChanged()
}

// wantedChanged wakes those waiting for a change of the nodes that
// wait for their key; a.mu is held.
func (a *Adapter) wantedChanged() {
	close(a.wantedCh)
	a.wantedCh = make(chan struct{})
}

// unwant forgets the waiting nodes at n's address or with its MAC
// address, now that n is kept; a.mu is held.
func (a *Adapter) unwant(n *Node) {
	mac := macKey(n.Info().MACAddress)
	for at, w := range a.wanted {
		if at == n.Addr() || (mac != "" && macKey(w.MAC) == mac) {
			delete(a.wanted, at)
			a.wantedChanged()
		}
	}
}

// KeysWanted lists the nodes scans found that need an API encryption
// key other than the house's, by address; each leaves the list once it
// is added with its key (AddWithKey).
func (a *Adapter) KeysWanted() []devices.KeyWanted {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]devices.KeyWanted, 0, len(a.wanted))
	for _, w := range a.wanted {
		out = append(out, w)
	}
	slices.SortFunc(out, func(x, y devices.KeyWanted) int { return strings.Compare(x.Address, y.Address) })
	return out
}

// colonMAC is a MAC address of 12 hex digits as "AC:BC:32:89:0E:A9"; ""
// for anything else.
func colonMAC(hex string) string {
	hw, err := devices.ParseMAC(hex)
	if err != nil {
		return ""
	}
	return strings.ToUpper(hw.String())
}
