package roku

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
)

var (
	_ devices.MediaPlayer     = (*Device)(nil)
	_ devices.Remote          = (*Device)(nil)
	_ devices.KeyHolder       = (*Device)(nil)
	_ devices.ContentSearcher = (*Device)(nil)
	_ devices.Waker           = (*Device)(nil)
)

// Device is one Roku player or TV: a media player, a remote, a content
// searcher and a Wake-on-LAN target. Its reads answer from the state the
// last poll found, without I/O.
type Device struct {
	a    *Adapter
	id   devices.ID
	wake chan struct{} // asks the poll loop for a poll now

	registered bool // handed to the registry; guarded by a.mu

	mu         sync.Mutex // guards the fields below
	host       string     // "host:port"
	name       string
	model      string
	isTV       bool
	learnedMAC string
	userMAC    string
	online     bool
	lastErr    error // why the last poll failed
	st         snapshot
	apps       []ecp.App // nil until read
	appsAt     time.Time
	seq        uint64 // polls and commands started
	applied    uint64 // the latest of them whose outcome was applied
}

// snapshot is the state a poll reads.
type snapshot struct {
	power       string  // device-info power-mode
	front       ecp.App // the app in front; no ID on the home screen
	screensaver bool
	player      string // media-player state while an app is in front
}

func newDevice(a *Adapter, s saved) *Device {
	return &Device{
		a: a, id: devices.ID(s.ID), wake: make(chan struct{}, 1),
		host: s.Host, name: s.Name, model: s.Model, isTV: s.IsTV, learnedMAC: normalMAC(s.MAC), userMAC: s.UserMAC,
	}
}

// Info describes the device.
func (d *Device) Info() devices.Info {
	d.mu.Lock()
	defer d.mu.Unlock()
	return devices.Info{ID: d.id, Adapter: AdapterName, Kind: devices.KindMedia, Name: d.name, Model: d.model}
}

// Online reports whether the last poll was answered.
func (d *Device) Online() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.online
}

// MAC is the address Wake-on-LAN packets go to: the one set with SetMAC,
// else the one the device reported for the network it is on.
func (d *Device) MAC() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.userMAC != "" {
		return d.userMAC
	}
	return d.learnedMAC
}

// SetMAC sets the address the user gave; "" goes back to the learned one.
func (d *Device) SetMAC(mac string) {
	mac = normalMAC(mac)
	d.mu.Lock()
	changed := d.userMAC != mac
	d.userMAC = mac
	d.mu.Unlock()
	if changed {
		d.a.save()
	}
}

// normalMAC writes a MAC address as "a4:5e:60:c2:11:09" when it reads
// as one, and leaves it as given otherwise (waking then says what is
// wrong with it).
func normalMAC(mac string) string {
	mac = strings.TrimSpace(mac)
	if hw, err := devices.ParseMAC(mac); err == nil {
		return hw.String()
	}
	return mac
}

// record is the device as the state file keeps it.
func (d *Device) record() saved {
	d.mu.Lock()
	defer d.mu.Unlock()
	return saved{ID: string(d.id), Host: d.host, Name: d.name, Model: d.model, IsTV: d.isTV, MAC: d.learnedMAC, UserMAC: d.userMAC}
}

func (d *Device) addr() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.host
}

func (d *Device) tv() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.isTV
}

// moveTo points the device at a new address and reports whether it moved.
func (d *Device) moveTo(addr string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	moved := d.host != addr
	d.host = addr
	return moved
}

// poke asks the poll loop for a poll now.
func (d *Device) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run polls the device until ctx ends: every PollInterval while it
// answers, with backoff from RetryMin to RetryMax while it does not.
func (d *Device) run(ctx context.Context) {
	cfg := &d.a.cfg
	wait := cfg.RetryMin
	for ctx.Err() == nil {
		pause := cfg.PollInterval
		if err := d.refresh(ctx); err != nil {
			pause, wait = wait, min(2*wait, cfg.RetryMax)
		} else {
			wait = cfg.RetryMin
		}
		if !d.sleep(ctx, pause) {
			return
		}
	}
}

// settleTime is how long a poll waits after a poke: a command's effect
// takes a moment to show, and the pokes of a burst of key presses come
// down to one poll.
const settleTime = 250 * time.Millisecond

// sleep waits for dur, or for a poke and then the settle time, and
// reports whether ctx is still alive.
func (d *Device) sleep(ctx context.Context, dur time.Duration) bool {
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-d.wake:
		return devices.Sleep(ctx, min(settleTime, d.a.cfg.PollInterval))
	}
}

// polled is what one poll read.
type polled struct {
	info   ecp.DeviceInfo
	active ecp.ActiveApp
	player string
	apps   []ecp.App // nil when not read this time
}

// refresh polls the device once and applies what it says; a device that
// does not answer is marked offline (unless ctx ended first).
func (d *Device) refresh(ctx context.Context) error {
	d.mu.Lock()
	d.seq++
	seq, addr := d.seq, d.host
	needApps := d.apps == nil || !d.online || time.Since(d.appsAt) > appsRefresh
	known := d.apps
	d.mu.Unlock()
	p, err := d.fetch(ctx, addr, needApps, known)
	if err != nil {
		if ctx.Err() == nil {
			d.failed(seq, err)
		}
		return err
	}
	d.apply(seq, p)
	return nil
}

// fetch reads the device's state: device-info (who it is, power mode),
// the active app, the media player while an app is in front, and the app
// list when asked for or when the app in front is not on it.
func (d *Device) fetch(ctx context.Context, addr string, needApps bool, known []ecp.App) (polled, error) {
	ctx, cancel := context.WithTimeout(ctx, d.a.cfg.HTTPTimeout)
	defer cancel()
	c := &d.a.client
	var p polled
	var err error
	if p.info, err = c.DeviceInfo(ctx, addr); err != nil {
		return p, deviceError(err)
	}
	if id, _ := deviceID(p.info); id != d.id {
		d.a.log.Debug("another roku answers at a known address", "addr", addr, "id", d.id, "answering", id)
		d.a.attach(p.info, addr)
		return p, devices.Unreachable(nil, "another Roku (%s) answers at its address", id)
	}
	if p.active, err = c.ActiveApp(ctx, addr); err != nil {
		return p, deviceError(err)
	}
	front := p.active.App
	if !p.active.Home() && !isInput(front) {
		pl, err := c.MediaPlayer(ctx, addr)
		if err != nil {
			return p, deviceError(err)
		}
		p.player = pl.State
	}
	if needApps || !p.active.Home() && !slices.ContainsFunc(known, func(a ecp.App) bool { return a.ID == front.ID }) {
		if p.apps, err = c.Apps(ctx, addr); err != nil {
			return p, deviceError(err)
		}
	}
	return p, nil
}

// isInput reports whether an app is a TV input (HDMI, tuner, AV).
func isInput(a ecp.App) bool {
	return a.Type == ecp.TypeTVInput || strings.HasPrefix(a.ID, "tvinput.")
}

// apply takes in what poll seq read, unless a later poll's outcome is
// already in, and tells the registry when anything moved.
func (d *Device) apply(seq uint64, p polled) {
	d.mu.Lock()
	if seq < d.applied {
		d.mu.Unlock()
		return
	}
	d.applied = seq
	before, wasOnline := d.st, d.online
	d.online, d.lastErr = true, nil
	d.st = snapshot{power: p.info.PowerMode, front: p.active.App, screensaver: p.active.Screensaver != nil, player: p.player}
	appsMoved := false
	if p.apps != nil {
		appsMoved = !slices.Equal(d.apps, p.apps)
		d.apps, d.appsAt = p.apps, time.Now()
	}
	learned := d.learnLocked(p.info)
	moved := !wasOnline || before != d.st || appsMoved || learned
	d.mu.Unlock()
	if !wasOnline {
		d.a.log.Info("roku online", "id", d.id)
	}
	if learned {
		d.a.save()
	}
	if moved {
		d.a.cfg.Registry.Changed(d.id)
	}
}

// learnLocked takes the device's name, model, kind and MAC address from
// its device-info and reports whether any changed.
func (d *Device) learnLocked(info ecp.DeviceInfo) bool {
	name, model, mac := info.Name(), info.Model(), normalMAC(info.MAC())
	if mac == "" {
		mac = d.learnedMAC // a device that stops saying keeps what it said
	}
	changed := d.name != name || d.model != model || d.isTV != info.IsTV || d.learnedMAC != mac
	d.name, d.model, d.isTV, d.learnedMAC = name, model, info.IsTV, mac
	return changed
}

// failed marks the device offline for err, unless a later poll's outcome
// is already in.
func (d *Device) failed(seq uint64, err error) {
	d.mu.Lock()
	if seq < d.applied {
		d.mu.Unlock()
		return
	}
	d.applied = seq
	was := d.online
	d.online, d.lastErr = false, err
	d.mu.Unlock()
	if was {
		d.a.log.Info("roku offline", "id", d.id, "err", err)
		d.a.cfg.Registry.Changed(d.id)
	}
}

// target is the address commands go to, or why there is none.
func (d *Device) target() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.online {
		return "", offline(d.lastErr)
	}
	return d.host, nil
}

// request is one ECP exchange with the device at addr.
type request func(ctx context.Context, c *ecp.Client, addr string) error

func keypress(key string) request {
	return func(ctx context.Context, c *ecp.Client, addr string) error { return c.Keypress(ctx, addr, key) }
}

// send runs a request to the online device, bounded by HTTPTimeout. A
// device that does not answer at all is taken for offline until a poll
// hears it again.
func (d *Device) send(ctx context.Context, req request) error {
	addr, err := d.target()
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, d.a.cfg.HTTPTimeout)
	defer cancel()
	err = req(rctx, &d.a.client, addr)
	if err == nil {
		return nil
	}
	var e *ecp.Error
	silent := errors.As(err, &e) && e.Status == 0
	err = deviceError(err)
	if silent && ctx.Err() == nil {
		d.mu.Lock()
		d.seq++
		seq := d.seq
		d.mu.Unlock()
		d.failed(seq, err)
		d.poke()
	}
	return err
}
