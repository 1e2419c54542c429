package roku

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
	"github.com/bifrost-hub/bifrost/devices/wol"
)

// Waking: how often a woken device is asked whether it answers yet, and
// how often the magic packet is sent again while it does not.
const (
	wakeProbe  = 200 * time.Millisecond
	wakeResend = 2 * time.Second
)

// MediaState is the state the last poll found. A Roku reports no volume,
// so Volume is 0 and Muted false.
func (d *Device) MediaState(ctx context.Context) (devices.MediaState, error) {
	if err := ctx.Err(); err != nil {
		return devices.MediaState{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.online {
		return devices.MediaState{}, offline(d.lastErr)
	}
	return d.stateLocked(), nil
}

// stateLocked is the media state: on (a TV whose power mode is PowerOn; a
// player whenever it answers), the app or input in front as the source,
// the app's transport and name.
func (d *Device) stateLocked() devices.MediaState {
	on := !d.isTV || d.st.power == ecp.PowerOn
	st := devices.MediaState{Power: on, Sources: d.sourcesLocked()}
	front := d.st.front
	if !on || front.ID == "" {
		return st
	}
	st.Source = d.appNameLocked(front)
	if !isInput(front) {
		st.Transport = transport(d.st.player)
		st.NowPlaying = &devices.NowPlaying{App: st.Source}
	}
	return st
}

// transport is the hub's transport state for a media-player state; ""
// while the player is between states (buffering, opening).
func transport(state string) string {
	switch state {
	case ecp.StatePlay:
		return devices.TransportPlaying
	case ecp.StatePause:
		return devices.TransportPaused
	case ecp.StateStop, ecp.StateClose, "finished":
		return devices.TransportStopped
	}
	return ""
}

// appNameLocked is an app's name as the app list gives it (a TV input
// may have been renamed by the user), else as the device reported it.
func (d *Device) appNameLocked(a ecp.App) string {
	for _, x := range d.apps {
		if x.ID == a.ID && x.Name != "" {
			return x.Name
		}
	}
	if a.Name != "" {
		return a.Name
	}
	return a.ID
}

// sourcesLocked are a TV's inputs, then the apps, by name.
func (d *Device) sourcesLocked() []string {
	var inputs, apps []string
	for _, a := range d.apps {
		switch {
		case a.Name == "":
		case isInput(a):
			inputs = append(inputs, a.Name)
		default:
			apps = append(apps, a.Name)
		}
	}
	return append(inputs, apps...)
}

// SetMedia applies a change, power first, and returns the state a poll
// finds after it. Volume and mute are absolute values a Roku cannot take
// (ErrUnsupported: its keys step them). Power on wakes a device that does
// not answer by Wake-on-LAN when its MAC address is known; power off works
// on a Roku TV only. A source is an app or input, by name; transport
// "play" and "pause" press Play only when the player is in the other
// state, "next" and "previous" scan (Fwd, Rev), and there is no "stop".
func (d *Device) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	if c.Volume != nil || c.Mute != nil {
		return devices.MediaState{}, errNoVolume
	}
	if c.Power != nil && !*c.Power && (c.Source != nil || c.Transport != nil) {
		return devices.MediaState{}, devices.Invalid(nil, "cannot switch off and change what plays at once")
	}
	if c.Power != nil {
		if err := d.setPower(ctx, *c.Power); err != nil {
			return devices.MediaState{}, err
		}
	}
	if c.Source != nil {
		if err := d.selectSource(ctx, *c.Source); err != nil {
			return devices.MediaState{}, err
		}
	}
	if c.Transport != nil {
		if err := d.transport(ctx, *c.Transport); err != nil {
			return devices.MediaState{}, err
		}
	}
	if err := d.refresh(ctx); err != nil {
		return devices.MediaState{}, err
	}
	return d.MediaState(ctx)
}

// setPower switches a TV on (PowerOn) or off (PowerOff). A player has no
// power of its own to switch: on means woken (and Home pressed, to wake
// the screen), off is unsupported.
func (d *Device) setPower(ctx context.Context, on bool) error {
	tv := d.tv()
	if !on {
		if !tv {
			return errNoOff
		}
		return d.send(ctx, keypress("PowerOff"))
	}
	woke, err := d.wakeIfAsleep(ctx)
	switch {
	case err != nil:
		return err
	case tv:
		return d.send(ctx, keypress("PowerOn"))
	case woke || d.powerMode() != ecp.PowerOn:
		return d.send(ctx, keypress("Home"))
	}
	return nil
}

func (d *Device) powerMode() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.power
}

// wakeIfAsleep wakes a device that does not answer by Wake-on-LAN and
// waits, within ctx, until it does; it reports whether it had to.
func (d *Device) wakeIfAsleep(ctx context.Context) (bool, error) {
	d.mu.Lock()
	online, host, last := d.online, d.host, d.lastErr
	d.mu.Unlock()
	if online {
		return false, nil
	}
	mac := d.MAC()
	if mac == "" {
		f := offline(last)
		f.Said += " (and no MAC address is known to wake it by Wake-on-LAN)"
		return false, f
	}
	hw, err := devices.ParseMAC(mac)
	if err != nil {
		return false, devices.Invalid(err, "cannot wake it: %v", err)
	}
	return true, d.wakeUp(ctx, hw, d.wakeTargets(host))
}

// wakeTargets are the configured Wake-on-LAN destinations and the
// device's last known address, port 9.
func (d *Device) wakeTargets(host string) []string {
	targets := append([]string(nil), d.a.cfg.WakeTargets...)
	if h, _, err := net.SplitHostPort(host); err == nil {
		targets = append(targets, net.JoinHostPort(h, "9"))
	}
	return targets
}

// wakeUp sends magic packets (again every wakeResend) until the device
// answers a poll or ctx ends.
func (d *Device) wakeUp(ctx context.Context, hw net.HardwareAddr, targets []string) error {
	ctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	d.a.log.Info("waking roku", "id", d.id, "mac", hw.String())
	var sent time.Time
	for {
		if time.Since(sent) >= wakeResend {
			if err := wol.Send(ctx, hw, targets); err != nil {
				return devices.Unreachable(err, "could not be woken")
			}
			sent = time.Now()
		}
		if d.refresh(ctx) == nil {
			return nil
		}
		if !devices.Sleep(ctx, wakeProbe) {
			return devices.Unreachable(ctx.Err(), "did not answer after Wake-on-LAN")
		}
	}
}

// selectSource opens an app or input by name (or id).
func (d *Device) selectSource(ctx context.Context, source string) error {
	id, err := d.findApp(source, true)
	if err != nil {
		return err
	}
	return d.send(ctx, launch(id, "", ""))
}

func launch(id, contentID, mediaType string) request {
	return func(ctx context.Context, c *ecp.Client, addr string) error {
		return c.Launch(ctx, addr, id, contentID, mediaType)
	}
}

// transport presses the key for a transport command. Play toggles, so
// "play" and "pause" ask the player first and press only when it is in
// the other state.
func (d *Device) transport(ctx context.Context, t string) error {
	cmd := strings.ToLower(strings.TrimSpace(t))
	switch cmd {
	case "play", "pause":
		var pl ecp.Player
		err := d.send(ctx, func(ctx context.Context, c *ecp.Client, addr string) (err error) {
			pl, err = c.MediaPlayer(ctx, addr)
			return err
		})
		if err != nil {
			return err
		}
		playing := pl.State == ecp.StatePlay || pl.State == "buffer"
		if playing == (cmd == "play") {
			return nil
		}
		return d.send(ctx, keypress("Play"))
	case "next":
		return d.send(ctx, keypress("Fwd"))
	case "previous":
		return d.send(ctx, keypress("Rev"))
	case "stop":
		return errNoStop
	}
	return devices.Invalid(nil, "unknown transport command %q: play, pause, next or previous", t)
}
