package roku

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
)

// ecpKeys maps the hub's key names to ECP's (PROTOCOLS.md §4.6): the
// canonical devices.RemoteKeys, then the keys a Roku remote has besides.
var ecpKeys = map[string]string{
	"up": "Up", "down": "Down", "left": "Left", "right": "Right", "select": "Select",
	"back": "Back", "home": "Home", "menu": "Info",
	"volume_up": "VolumeUp", "volume_down": "VolumeDown", "mute": "VolumeMute",
	"play_pause": "Play", "next": "Fwd", "previous": "Rev", "power": "Power",

	"play": "Play", "pause": "Play", "rewind": "Rev", "fast_forward": "Fwd",
	"info": "Info", "search": "Search", "channel_up": "ChannelUp", "channel_down": "ChannelDown",
	"input": "InputHDMI1", "backspace": "Backspace", "enter": "Enter", "instant_replay": "InstantReplay",
	"power_on": "PowerOn", "power_off": "PowerOff", "find_remote": "FindRemote",
	"input_tuner": "InputTuner", "input_av1": "InputAV1",
	"input_hdmi1": "InputHDMI1", "input_hdmi2": "InputHDMI2", "input_hdmi3": "InputHDMI3", "input_hdmi4": "InputHDMI4",
}

// Keys returns the key names PressKey and HoldKey take: the canonical
// ones first, then the rest in alphabetical order.
func Keys() []string { return slices.Clone(keyNames()) }

// keyNames are Keys, listed at their first use.
var keyNames = sync.OnceValue(func() []string {
	extra := slices.Sorted(maps.Keys(ecpKeys))
	extra = slices.DeleteFunc(extra, func(k string) bool { return slices.Contains(devices.RemoteKeys, k) })
	return append(slices.Clone(devices.RemoteKeys), extra...)
})

// ecpKey is the ECP key for a hub key name ("volume_up", "Volume-Up").
func ecpKey(key string) (string, error) {
	k := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(key)))
	if e, ok := ecpKeys[k]; ok {
		return e, nil
	}
	return "", devices.Invalid(nil, "no key %q: the keys are %s", key, strings.Join(keyNames(), ", "))
}

// PressKey presses a key (one of Keys). "power" on a TV that does not
// answer wakes it by Wake-on-LAN first, when its MAC address is known, and
// then switches it on rather than toggling.
func (d *Device) PressKey(ctx context.Context, key string) error {
	k, err := ecpKey(key)
	if err != nil {
		return err
	}
	if (k == "Power" || k == "PowerOn") && !d.Online() && d.tv() && d.MAC() != "" {
		if _, err := d.wakeIfAsleep(ctx); err != nil {
			return err
		}
		k = "PowerOn"
	}
	if err := d.send(ctx, keypress(k)); err != nil {
		return err
	}
	d.poke()
	return nil
}

// HoldKey holds a key down for dur (keydown, keyup). The key is released
// even when ctx ends first.
func (d *Device) HoldKey(ctx context.Context, key string, dur time.Duration) error {
	k, err := ecpKey(key)
	if err != nil {
		return err
	}
	err = d.send(ctx, func(ctx context.Context, c *ecp.Client, addr string) error { return c.Keydown(ctx, addr, k) })
	if err != nil {
		return err
	}
	held := devices.Sleep(ctx, dur)
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.a.cfg.HTTPTimeout)
	defer cancel()
	err = d.send(uctx, func(ctx context.Context, c *ecp.Client, addr string) error { return c.Keyup(ctx, addr, k) })
	d.poke()
	if !held {
		return fmt.Errorf("the hold was cut short: %w", ctx.Err())
	}
	return err
}

// SendText types text into the field in focus, one character (UTF-8 rune)
// per key press.
func (d *Device) SendText(ctx context.Context, text string) error {
	for _, r := range text {
		if err := d.send(ctx, keypress(ecp.Literal(r))); err != nil {
			return err
		}
	}
	d.poke()
	return nil
}

// LaunchApp opens an app by id ("12") or by name ("Netflix"). A Roku has
// no general way to open a link, so a URL is ErrUnsupported.
func (d *Device) LaunchApp(ctx context.Context, appOrLink string) error {
	s := strings.TrimSpace(appOrLink)
	if strings.Contains(s, "://") {
		return errNoLinks
	}
	id, err := d.findApp(s, false)
	if err != nil {
		return err
	}
	if err := d.send(ctx, launch(id, "", "")); err != nil {
		return err
	}
	d.poke()
	return nil
}

// findApp resolves an app (or, for a source, an input) by id or by name,
// ignoring case. An id not in the list (installed since it was read) is
// taken as it is when it looks like one.
func (d *Device) findApp(s string, source bool) (string, error) {
	s = strings.TrimSpace(s)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.apps {
		if a.ID == s {
			return a.ID, nil
		}
	}
	for _, a := range d.apps {
		if strings.EqualFold(a.Name, s) {
			return a.ID, nil
		}
	}
	if looksLikeID(s) {
		return s, nil
	}
	what, list := "app", d.appNamesLocked()
	if source {
		what, list = "source", d.sourcesLocked()
	}
	if s == "" {
		return "", devices.Invalid(nil, "no %s given", what)
	}
	if len(list) == 0 {
		return "", devices.Invalid(nil, "no %s %q (the app list is not known yet)", what, s)
	}
	return "", devices.Invalid(nil, "no %s %q: the %ss are %s", what, s, what, strings.Join(list, ", "))
}

// looksLikeID reports whether s is an app id: a channel number, "dev"
// (the sideloaded app) or an input.
func looksLikeID(s string) bool {
	if s == "dev" || strings.HasPrefix(s, "tvinput.") {
		return true
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func (d *Device) appNamesLocked() []string {
	var out []string
	for _, a := range d.apps {
		if !isInput(a) && a.Name != "" {
			out = append(out, a.Name)
		}
	}
	return out
}

// Apps are the installed apps and a TV's inputs, as the last read of the
// app list found them.
func (d *Device) Apps(ctx context.Context) ([]devices.App, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.online {
		return nil, offline(d.lastErr)
	}
	out := make([]devices.App, 0, len(d.apps))
	for _, a := range d.apps {
		if a.Type == ecp.TypeApp || isInput(a) {
			out = append(out, devices.App{ID: a.ID, Name: a.Name})
		}
	}
	return out, nil
}

// HomeApp is what CurrentApp reports on the home screen.
const HomeApp = "home"

// CurrentApp is the id of the app (or input) in front, HomeApp on the
// home screen.
func (d *Device) CurrentApp(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.online {
		return "", offline(d.lastErr)
	}
	if d.st.front.ID == "" {
		return HomeApp, nil
	}
	return d.st.front.ID, nil
}

// Keys lists the keys the Roku takes (devices.KeyLister).
func (d *Device) Keys() []string { return Keys() }
