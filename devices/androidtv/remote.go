package androidtv

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// keyCodes maps the hub's key names to Android key codes (PROTOCOLS.md
// §4.6): the canonical devices.RemoteKeys, and the TV's other keys.
var keyCodes = map[string]atvwire.KeyCode{
	"up":           atvwire.KeyDpadUp,
	"down":         atvwire.KeyDpadDown,
	"left":         atvwire.KeyDpadLeft,
	"right":        atvwire.KeyDpadRight,
	"select":       atvwire.KeyDpadCenter,
	"back":         atvwire.KeyBack,
	"home":         atvwire.KeyHome,
	"menu":         atvwire.KeyMenu,
	"volume_up":    atvwire.KeyVolumeUp,
	"volume_down":  atvwire.KeyVolumeDown,
	"mute":         atvwire.KeyVolumeMute, // MUTE (91) mutes the microphone
	"play_pause":   atvwire.KeyMediaPlayPause,
	"next":         atvwire.KeyMediaNext,
	"previous":     atvwire.KeyMediaPrevious,
	"power":        atvwire.KeyPower,
	"play":         atvwire.KeyMediaPlay,
	"pause":        atvwire.KeyMediaPause,
	"stop":         atvwire.KeyMediaStop,
	"rewind":       atvwire.KeyMediaRewind,
	"fast_forward": atvwire.KeyMediaFastForward,
	"info":         atvwire.KeyInfo,
	"guide":        atvwire.KeyGuide,
	"search":       atvwire.KeySearch,
	"channel_up":   atvwire.KeyChannelUp,
	"channel_down": atvwire.KeyChannelDown,
	"input":        atvwire.KeyTVInput,
	"sleep":        atvwire.KeySleep,
	"wakeup":       atvwire.KeyWakeup,
}

// Keys lists the keys the TV takes (devices.KeyLister).
func (t *TV) Keys() []string { return Keys() }

// Keys lists the key names PressKey takes: devices.RemoteKeys, then the
// TV's others.
func Keys() []string {
	out := slices.Clone(devices.RemoteKeys)
	var extra []string
	for k := range keyCodes {
		if !slices.Contains(out, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func keyCode(key string) (atvwire.KeyCode, error) {
	if c, ok := keyCodes[strings.ToLower(strings.TrimSpace(key))]; ok {
		return c, nil
	}
	return 0, devices.Invalid(nil, "no key %q: the keys are %s", key, strings.Join(Keys(), ", "))
}

// PressKey presses key once. "power" on a TV that is not connected but
// whose MAC address is known wakes it by Wake-on-LAN, then switches its
// screen on.
func (t *TV) PressKey(ctx context.Context, key string) error {
	code, err := keyCode(key)
	if err != nil {
		return err
	}
	if code == atvwire.KeyPower && !t.Online() && t.MAC() != "" {
		return t.powerOn(ctx)
	}
	return t.send(ctx, atvwire.NewKey(code, atvwire.Short))
}

// HoldKey holds key down for d: a long press. When ctx ends first the key
// is let go at once.
func (t *TV) HoldKey(ctx context.Context, key string, d time.Duration) error {
	code, err := keyCode(key)
	if err != nil {
		return err
	}
	if d <= 0 {
		return devices.Invalid(nil, "a key is held for some time, not %v", d)
	}
	if err := t.send(ctx, atvwire.NewKey(code, atvwire.StartLong)); err != nil {
		return err
	}
	held := devices.Sleep(ctx, d)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := t.send(rctx, atvwire.NewKey(code, atvwire.EndLong)); err != nil {
		return err
	}
	if !held {
		return ctx.Err()
	}
	return nil
}

// SendText types text into the text field open on the TV, replacing what
// it holds, under the counters the TV last gave.
func (t *TV) SendText(ctx context.Context, text string) error {
	if text == "" {
		return devices.Invalid(nil, "no text to send")
	}
	t.mu.Lock()
	err := t.availableLocked()
	field := t.ime
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if !field.open {
		return devices.Invalid(nil, "no text field is open on the TV: open a search box or text field on it first")
	}
	return t.send(ctx, atvwire.NewText(field.counter, field.fieldCount, text))
}
