package neewer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

// ScanOptions configure `bifrost neewer scan`.
type ScanOptions struct {
	// BLE and BLEAdapter choose the local backend, as for the hub.
	BLE        string
	BLEAdapter string
	// Proxies, when set, lends more radios (ESPHome Bluetooth proxies)
	// as they come up: it calls add with each until ctx ends, then
	// returns. The scan listens on them too.
	Proxies func(ctx context.Context, add func(ble.Transport))
	// Duration is how long to listen (default 10 s).
	Duration time.Duration
	// All lists every advertising device, not only Neewer lights.
	All bool
	// Probe connects to each light found and asks for its power state,
	// to show whether it answers (and so which lights need settings).
	Probe bool
	// Enough, when set, ends the listening before Duration is over once
	// it says so. It is asked after each advertisement, one call at a
	// time, with the address heard and how many radios heard that
	// address during the scan.
	Enough func(mac string, radios int) bool
}

// ScanCommand is `bifrost neewer scan`: it listens for Bluetooth LE
// advertisements, on the local radio and through the proxies lent, and
// prints the Neewer lights heard with the radios that heard them and how
// loud, and the model and frame layout the hub would drive them with,
// for setup and bug reports.
func ScanCommand(ctx context.Context, w io.Writer, opts ScanOptions) error {
	mode, err := ble.ParseMode(opts.BLE)
	if err != nil {
		return err
	}
	var tr ble.Transport
	if mode != ble.ModeOff {
		tr, err = ble.Open(ctx, ble.Options{Mode: mode, Adapter: opts.BLEAdapter})
		switch {
		case err != nil && opts.Proxies == nil:
			return err
		case err != nil:
			fmt.Fprintf(w, "No local Bluetooth (%v); listening through the ESPHome proxies only.\n", err)
		}
	}
	if tr == nil && opts.Proxies == nil {
		return errors.New("Bluetooth is off (BIFROST_BLE=off) and no ESPHome proxy is configured (BIFROST_ESPHOME_HOSTS): nothing to scan with")
	}
	return ScanReport(ctx, tr, w, opts)
}

// ScanReport is ScanCommand on a local transport already open (nil for
// none), which it closes.
func ScanReport(ctx context.Context, tr ble.Transport, w io.Writer, opts ScanOptions) error {
	if opts.Duration <= 0 {
		opts.Duration = 10 * time.Second
	}
	var list []radio
	if tr != nil {
		list = append(list, radio{label: cmp.Or(opts.BLEAdapter, "hci0"), tr: tr})
	}
	pool := newRadios(list, Timing{}, time.Hour, nil)
	defer pool.Close()
	lctx, stop := context.WithCancel(ctx)
	lent := make(chan struct{})
	go func() {
		defer close(lent)
		if opts.Proxies != nil {
			opts.Proxies(lctx, func(p ble.Transport) { pool.add(radio{tr: p}) })
		}
	}()
	defer func() { stop(); <-lent }() // no radio joins the pool once it closes

	what := "the local radio"
	switch {
	case opts.Proxies != nil && tr != nil:
		what = "the local radio and the ESPHome proxies as they come up"
	case opts.Proxies != nil:
		what = "the ESPHome proxies as they come up"
	}
	fmt.Fprintf(w, "Listening for %s with %s…\n", opts.Duration, what)
	var enough func(ble.Advertisement) bool
	if opts.Enough != nil {
		enough = func(a ble.Advertisement) bool {
			return opts.Enough(a.Address.MAC, len(pool.heardBy(a.Address.MAC)))
		}
	}
	heard, err := listen(ctx, pool, opts.Duration, opts.All, enough)
	if err != nil {
		return err
	}
	for _, name := range pool.silentProxies() {
		fmt.Fprintf(w, "%s heard no Bluetooth device at all. A proxy sends what it hears to one client at a time: "+
			"while the hub or Home Assistant is connected to it, a scan through it hears nothing. "+
			"Stop that client for the scan, or give each its own proxy.\n", name)
	}
	if len(heard) == 0 {
		fmt.Fprintln(w, "No Neewer light heard. Is it on, in range, and not connected to a phone?")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "ADDRESS\tNAME\tRSSI\tHEARD BY\tMODEL\tTYPE\tKELVIN\tCOLOUR\tEFFECTS\tVARIANT"
	if opts.Probe {
		header += "\tANSWERS"
	}
	fmt.Fprintln(tw, header)
	for _, adv := range heard {
		m := DetectModel(adv.Name)
		model, typ := m.Name, fmt.Sprint(m.Type)
		if !m.Known {
			model, typ = m.Name+" (unknown: defaults)", "-"
		}
		by := pool.heardBy(adv.Address.MAC)
		if len(by) == 0 {
			by = []signal{{radio: "?", rssi: adv.RSSI}}
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t%s\t%s\t%d–%d\t%s\t%d\t%s",
			adv.Address.MAC, adv.Name, by[0].rssi, heardBy(by), model, typ, m.KelvinMin, m.KelvinMax,
			yesNo(m.RGB), len(m.Effects()), m.Variant)
		if opts.Probe {
			line += "\t" + probe(ctx, pool, adv.Address, m)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nAdd a light by address, with settings where the detected ones are wrong:")
	fmt.Fprintf(w, "  BIFROST_NEEWER_LIGHTS='%s,name=Key Light,model=%s,cct=%s'\n",
		heard[0].Address.MAC, DetectModel(heard[0].Name).Name, DetectModel(heard[0].Name).Variant.CCT)
	return nil
}

// listen collects advertisements for d, or until enough (if not nil)
// says so after one, the last one per address, in address order.
func listen(ctx context.Context, tr ble.Transport, d time.Duration, all bool, enough func(ble.Advertisement) bool) ([]ble.Advertisement, error) {
	var mu sync.Mutex
	seen := map[string]ble.Advertisement{}
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := tr.Scan(sctx, func(a ble.Advertisement) {
		mu.Lock()
		defer mu.Unlock()
		if old, ok := seen[a.Address.MAC]; ok && a.Name == "" {
			a.Name = old.Name
		}
		seen[a.Address.MAC] = a
		if enough != nil && enough(a) {
			cancel()
		}
	})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	var out []ble.Advertisement
	for _, a := range seen {
		if all || IsNeewerName(a.Name) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b ble.Advertisement) int { return strings.Compare(a.Address.MAC, b.Address.MAC) })
	return out, nil
}

// probe connects, asks the power state and reports what came back.
func probe(ctx context.Context, tr ble.Transport, addr ble.Address, m Model) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	link, err := tr.Connect(ctx, addr)
	if err != nil {
		return "no connection: " + err.Error()
	}
	defer link.Close()
	replies := make(chan nwproto.Reply, 4)
	if err := link.Subscribe(ctx, func(b []byte) {
		if r, err := nwproto.DecodeReply(b); err == nil && r.Kind == nwproto.ReplyKindPower {
			select {
			case replies <- r:
			default:
			}
		}
	}); err != nil {
		return "no notifications: " + err.Error()
	}
	mac, _ := nwproto.ParseMAC(addr.MAC)
	if err := link.Write(ctx, nwproto.Encoder{Variant: m.Variant, MAC: mac}.QueryPower()); err != nil {
		return "write failed: " + err.Error()
	}
	select {
	case r := <-replies:
		if r.On {
			return "power: on"
		}
		return "power: standby"
	case <-time.After(2 * time.Second):
		return "no answer (normal for some models)"
	case <-ctx.Done():
		return "no answer"
	}
}

// heardBy lists the radios that heard a light and how loud, loudest
// first: "esphome:studio -50, hci0 -71".
func heardBy(by []signal) string {
	parts := make([]string, len(by))
	for i, s := range by {
		parts[i] = fmt.Sprintf("%s %d", s.radio, s.rssi)
	}
	return strings.Join(parts, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
