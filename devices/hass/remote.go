package hass

import (
	"context"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// remote is a remote entity: keys through remote.send_command, apps as
// its activities (remote.turn_on with an activity).
type remote struct{ *entity }

func (r *remote) Info() devices.Info { return r.info(devices.KindRemote) }

// androidKeys are the hub's keys as the Android TV Remote integration
// names them; other integrations (Roku, Apple TV, Harmony) take the hub's
// names as they are.
var androidKeys = map[string]string{
	"up": "DPAD_UP", "down": "DPAD_DOWN", "left": "DPAD_LEFT", "right": "DPAD_RIGHT",
	"select": "DPAD_CENTER", "back": "BACK", "home": "HOME", "menu": "MENU",
	"volume_up": "VOLUME_UP", "volume_down": "VOLUME_DOWN", "mute": "MUTE",
	"play_pause": "MEDIA_PLAY_PAUSE", "next": "MEDIA_NEXT", "previous": "MEDIA_PREVIOUS", "power": "POWER",
}

// command is key as the entity's integration names it.
func (r *remote) command(key string) string {
	if r.metaNow().platform == "androidtv_remote" {
		if k, ok := androidKeys[key]; ok {
			return k
		}
		return strings.ToUpper(key)
	}
	return key
}

func (r *remote) PressKey(ctx context.Context, key string) error {
	_, err := r.call(ctx, "remote", "send_command", map[string]any{"command": r.command(key)}, nil)
	return err
}

// HoldKey holds a key with send_command's hold_secs.
func (r *remote) HoldKey(ctx context.Context, key string, d time.Duration) error {
	_, err := r.call(ctx, "remote", "send_command", map[string]any{"command": r.command(key), "hold_secs": d.Seconds()}, nil)
	return err
}

// PowerKind, PowerState and SetPower switch the remote's activity (the
// TV, a Harmony hub's devices) with remote.turn_on and remote.turn_off.
func (r *remote) PowerKind() string { return devices.PowerGeneric }

func (r *remote) PowerState(context.Context) (bool, error) { return r.state().State == "on", nil }

func (r *remote) SetPower(ctx context.Context, on bool) error { return r.switchTo(ctx, on) }

func (r *remote) SendText(context.Context, string) error {
	return devices.Unsupported(nil, "Home Assistant remotes take keys, not text")
}

// LaunchApp starts an activity (remote.turn_on activity=…): an app's
// package id or a deep link for Android TV, a Harmony activity's name.
func (r *remote) LaunchApp(ctx context.Context, app string) error {
	_, err := r.call(ctx, "remote", "turn_on", map[string]any{"activity": app}, nil)
	return err
}

// Apps are the remote's activity_list.
func (r *remote) Apps(context.Context) ([]devices.App, error) {
	list := attrStrings(r.state(), "activity_list")
	out := make([]devices.App, 0, len(list))
	for _, a := range list {
		out = append(out, devices.App{ID: a, Name: a})
	}
	return out, nil
}

func (r *remote) CurrentApp(context.Context) (string, error) {
	return attrString(r.state(), "current_activity"), nil
}
