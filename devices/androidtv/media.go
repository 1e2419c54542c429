package androidtv

import (
	"context"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
	"github.com/bifrost-hub/bifrost/devices/wol"
)

// transportKeys are the keys of the transport commands.
var transportKeys = map[string]atvwire.KeyCode{
	"play": atvwire.KeyMediaPlay, "pause": atvwire.KeyMediaPause, "stop": atvwire.KeyMediaStop,
	"next": atvwire.KeyMediaNext, "previous": atvwire.KeyMediaPrevious,
}

// MediaState is the TV's state as it last pushed it: its screen, its
// volume (0–100 % of its own range), the app in front as the source
// (by catalogue name, or package id), the catalogue's apps as sources.
func (t *TV) MediaState(ctx context.Context) (devices.MediaState, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.availableLocked(); err != nil {
		return devices.MediaState{}, err
	}
	return t.mediaLocked(), nil
}

func (t *TV) mediaLocked() devices.MediaState {
	st := devices.MediaState{Power: t.screen, Muted: t.vol.muted, Sources: appNames()}
	if t.vol.max > 0 {
		st.Volume = min(int(math.Round(float64(t.vol.level)*100/float64(t.vol.max))), 100)
	}
	if t.app != "" {
		st.Source = appName(t.app)
		st.NowPlaying = &devices.NowPlaying{App: st.Source}
	}
	return st
}

// SetMedia applies a change, power first, and returns the state that
// resulted. Power on wakes a TV that is not connected by Wake-on-LAN
// (when its MAC address is known) and waits for it, then presses WAKEUP
// unless the screen is on; power off presses SLEEP. Volume presses the
// volume keys the number of the TV's own steps between its level and the
// one asked for. Mute presses VOLUME_MUTE when the TV's mute differs. A
// source opens that app; a transport command presses its media key.
func (t *TV) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	steps := []func(context.Context) error{}
	if c.Power != nil {
		on := *c.Power
		steps = append(steps, func(ctx context.Context) error {
			if on {
				return t.powerOn(ctx)
			}
			return t.powerOff(ctx)
		})
	}
	if c.Volume != nil {
		v := *c.Volume
		steps = append(steps, func(ctx context.Context) error { return t.setVolume(ctx, v) })
	}
	if c.Mute != nil {
		m := *c.Mute
		steps = append(steps, func(ctx context.Context) error { return t.setMute(ctx, m) })
	}
	if c.Source != nil {
		src := *c.Source
		steps = append(steps, func(ctx context.Context) error { return t.setSource(ctx, src) })
	}
	if c.Transport != nil {
		tr := *c.Transport
		steps = append(steps, func(ctx context.Context) error { return t.transport(ctx, tr) })
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return devices.MediaState{}, err
		}
	}
	return t.MediaState(ctx)
}

// powerOn brings the TV's screen on, waking it first when it is not
// connected.
func (t *TV) powerOn(ctx context.Context) error {
	if !t.Online() {
		if err := t.wake(ctx); err != nil {
			return err
		}
		// The state the TV had before it slept is stale: wait (briefly)
		// for what it says now.
		t.settle(ctx, func() bool { return t.started })
	}
	t.mu.Lock()
	on := t.screen
	t.mu.Unlock()
	if on {
		return nil
	}
	if err := t.send(ctx, atvwire.NewKey(atvwire.KeyWakeup, atvwire.Short)); err != nil {
		return err
	}
	t.settle(ctx, func() bool { return t.screen })
	return nil
}

func (t *TV) powerOff(ctx context.Context) error {
	if err := t.send(ctx, atvwire.NewKey(atvwire.KeySleep, atvwire.Short)); err != nil {
		return err
	}
	t.settle(ctx, func() bool { return !t.screen })
	return nil
}

// wakeEvery is how often a TV being woken is sent the magic packet again
// and dialled.
const wakeEvery = time.Second

// wake sends Wake-on-LAN packets to the configured targets and to the
// TV's last address (port 9), dialling it after each, until it is online
// or ctx (a little before its deadline) ends.
func (t *TV) wake(ctx context.Context) error {
	t.mu.Lock()
	mac, addr, err := t.macLocked(), t.addr, error(nil)
	if t.pairing != pairPaired {
		err = t.needsPairingLocked()
	}
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if mac == "" {
		return devices.Unreachable(nil, "not connected, and without its MAC address it cannot be woken by Wake-on-LAN")
	}
	hw, err := devices.ParseMAC(mac)
	if err != nil {
		return devices.Invalid(nil, "its Wake-on-LAN address: %v", err)
	}
	targets := append(slices.Clone(t.a.cfg.WakeTargets), net.JoinHostPort(addr.Host, strconv.Itoa(9)))
	wctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	for first := true; ; first = false {
		if err := wol.Send(wctx, hw, targets); err != nil && first {
			return devices.Unreachable(err, "not connected, and the Wake-on-LAN packet did not go out")
		}
		t.kickNow()
		actx, acancel := context.WithTimeout(wctx, wakeEvery)
		up := t.await(actx, t.onlineLocked)
		acancel()
		if up {
			return nil
		}
		if wctx.Err() != nil {
			return devices.Unreachable(nil, "did not come back on the network after Wake-on-LAN")
		}
	}
}

// setVolume presses the volume keys from the TV's level to v % of its
// range, then waits for the TV to report the new level.
func (t *TV) setVolume(ctx context.Context, v int) error {
	t.mu.Lock()
	vol, err := t.vol, t.availableLocked()
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if !vol.known || vol.max <= 0 {
		return devices.Unsupported(nil, "the TV does not report its volume, so it cannot be set to a level (volume_up and volume_down still work)")
	}
	target := int(math.Round(float64(max(0, min(v, 100))) * float64(vol.max) / 100))
	n := target - vol.level
	if n == 0 {
		return nil
	}
	key := atvwire.KeyVolumeUp
	if n < 0 {
		key, n = atvwire.KeyVolumeDown, -n
	}
	presses := make([]*atvwire.RemoteMessage, n)
	for i := range presses {
		presses[i] = atvwire.NewKey(key, atvwire.Short)
	}
	if err := t.send(ctx, presses...); err != nil {
		return err
	}
	t.settle(ctx, func() bool { return t.vol.level == target })
	return nil
}

func (t *TV) setMute(ctx context.Context, m bool) error {
	t.mu.Lock()
	vol, err := t.vol, t.availableLocked()
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if vol.known && vol.muted == m {
		return nil
	}
	if err := t.send(ctx, atvwire.NewKey(atvwire.KeyVolumeMute, atvwire.Short)); err != nil {
		return err
	}
	t.settle(ctx, func() bool { return t.vol.muted == m })
	return nil
}

// setSource opens the catalogue app src (by name or package id).
func (t *TV) setSource(ctx context.Context, src string) error {
	a, ok := findApp(src)
	if !ok {
		return devices.Invalid(nil, "no source %q: the sources are %s", src, strings.Join(appNames(), ", "))
	}
	if err := t.openLink(ctx, a.Link); err != nil {
		return err
	}
	t.settle(ctx, func() bool { return t.app == a.Package })
	return nil
}

func (t *TV) transport(ctx context.Context, tr string) error {
	key, ok := transportKeys[tr]
	if !ok {
		return devices.Invalid(nil, "no transport command %q: it is play, pause, stop, next or previous", tr)
	}
	return t.send(ctx, atvwire.NewKey(key, atvwire.Short))
}
