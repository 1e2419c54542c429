package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// keyAliases maps common spoken or alternative key names onto the canonical
// remote keys.
var keyAliases = map[string]string{
	"ok": "select", "enter": "select", "center": "select", "centre": "select",
	"vol_up": "volume_up", "volumeup": "volume_up", "vol_down": "volume_down", "volumedown": "volume_down",
	"play": "play_pause", "pause": "play_pause", "playpause": "play_pause",
	"forward": "next", "fast_forward": "next", "rewind": "previous", "prev": "previous",
	"return": "back",
}

// ListRemotes returns every TV remote with its apps and current app.
func (s *Service) ListRemotes(ctx context.Context) ([]RemoteView, error) {
	return list(ctx, s, inventory.remotes, s.remoteView)
}

// GetRemote returns one remote by id or name.
func (s *Service) GetRemote(ctx context.Context, ref string) (RemoteView, error) {
	return get(ctx, s, ref, inventory.remote, s.remoteView)
}

func (s *Service) remoteView(inv inventory, rec DeviceRecord) RemoteView {
	st := s.model.state(rec.ID)
	v := RemoteView{DeviceView: s.viewWith(inv, rec, st), Keys: devices.RemoteKeys}
	if st.keys != nil {
		v.Keys = st.keys
	}
	if st.online {
		v.Apps, v.CurrentApp = st.apps, st.currentApp
		switch {
		case st.media != nil:
			on := st.media.Power
			v.On = &on
		case st.power != nil: // a remote that is switched itself
			v.On = st.power
		}
	}
	return v
}

func (s *Service) remote(rec DeviceRecord) (devices.Remote, error) {
	return s.remoteFor(rec, false)
}

// remoteFor is rec's remote; wake takes one asleep off the network that
// Wake-on-LAN can wake (for its power key).
func (s *Service) remoteFor(rec DeviceRecord, wake bool) (devices.Remote, error) {
	get := s.live
	if wake {
		get = s.wakeable
	}
	d, err := get(rec)
	if err != nil {
		return nil, err
	}
	r, ok := d.(devices.Remote)
	if !ok {
		return nil, aboutf(EUNSUPPORTED, "%s has no remote", rec.Name)
	}
	return r, nil
}

// RemoteCommand presses a key, types text, or launches an app (by package
// id, name or deep link) on a TV.
func (s *Service) RemoteCommand(ctx context.Context, ref string, cmd RemoteCommand) (RemoteView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return RemoteView{}, err
	}
	if err := checkRemoteCommand(&cmd); err != nil {
		return RemoteView{}, err
	}
	inv, rec, err := find(ctx, s, ref, inventory.remote)
	if err != nil {
		return RemoteView{}, err
	}
	var u *undoLog
	switch k := aliasOf(cmd.Key); {
	case undoneKeys[k]:
		u = s.undoable(ctx, "the "+k+" key on "+rec.Name)
		s.capture(u, rec)
	case cmd.Power != nil:
		u = s.undoable(ctx, "the power of "+rec.Name)
		s.capture(u, rec)
	}
	err = s.sendRemote(ctx, rec, cmd)
	s.audit(ctx, "remote.command", rec.Name, err, remoteSummary(cmd))
	if err != nil {
		return RemoteView{}, err
	}
	s.readNow(ctx, rec.ID) // the app in front may have changed
	switch {
	case s.changedSince(u, rec.ID):
		s.keep(ctx, u)
	case u != nil:
		s.forget(ctx) // the TV does not say what the key did: nothing to undo
	}
	v := s.remoteView(inv, rec)
	s.publish("remote", string(rec.ID), "changed", v)
	return v, nil
}

// undoneKeys are the keys Undo takes back: they change a TV's power or
// volume, which the model knows (a key whose effect the TV does not report,
// such as a Roku's volume, leaves nothing to undo).
var undoneKeys = map[string]bool{"power": true, "volume_up": true, "volume_down": true}

// changedSince reports whether the player id's power or volume moved since
// u captured it.
func (s *Service) changedSince(u *undoLog, id devices.ID) bool {
	if u == nil {
		return false
	}
	u.mu.Lock()
	prior, ok := u.prior[id]
	u.mu.Unlock()
	now := s.model.state(id).media
	if !ok || prior.Media == nil || now == nil {
		return false
	}
	return now.Power != prior.Media.Power || (prior.Media.Volume != nil && now.Volume != *prior.Media.Volume)
}

// MaxText is the most text one command types (a Roku takes it a character
// at a time, each a request).
const MaxText = 100

// aliasOf is the canonical key a spoken or alternative name stands for.
func aliasOf(k string) string {
	if a, ok := keyAliases[k]; ok {
		return a
	}
	return k
}

// MaxHold is the longest a key may be held down.
const MaxHold = 3 * time.Second

// checkRemoteCommand requires exactly one action and canonicalises the key.
func checkRemoteCommand(cmd *RemoteCommand) error {
	n := 0
	for _, set := range []bool{cmd.Key != "", cmd.Text != "", cmd.App != "", cmd.Power != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Listf(EINVALID, "Give exactly one of ", []string{"key", "text", "app", "power"}, "and", "")
	}
	if n := len([]rune(cmd.Text)); n > MaxText {
		return Errorf(EINVALID, "text is %d characters; a TV takes at most %d at a time", n, MaxText).With("field", "text")
	}
	if cmd.HoldSecs < 0 || cmd.HoldSecs > MaxHold.Seconds() || (cmd.HoldSecs > 0 && cmd.Key == "") {
		return Errorf(EINVALID, "A key is held down (hold_secs) for up to %d seconds; give hold_secs with a key", int(MaxHold.Seconds())).
			With("field", "hold_secs")
	}
	if cmd.Key == "" {
		return nil
	}
	k := strings.ToLower(strings.TrimSpace(cmd.Key))
	cmd.Key = strings.ReplaceAll(strings.ReplaceAll(k, " ", "_"), "-", "_")
	return nil
}

// listedKeys are the keys a remote lists (devices.KeyLister), nil for
// others.
func listedKeys(d devices.Device) []string {
	if kl, ok := d.(devices.KeyLister); ok {
		return kl.Keys()
	}
	return nil
}

// keysOf are the keys a remote takes: the canonical ones, or all it lists.
func keysOf(r any) []string {
	if kl, ok := r.(devices.KeyLister); ok {
		return kl.Keys()
	}
	return devices.RemoteKeys
}

// resolveKey is the key of r that key names: its own name for it, or the
// canonical key an alias stands for.
func resolveKey(r devices.Remote, key string) (string, error) {
	keys := keysOf(r)
	if slices.Contains(keys, key) {
		return key, nil
	}
	if a := aliasOf(key); slices.Contains(keys, a) {
		return a, nil
	}
	return "", Errorf(EINVALID, "%q is not a remote key; valid: %s", key, strings.Join(keys, ", ")).With("options", keys)
}

func (s *Service) sendRemote(ctx context.Context, rec DeviceRecord, cmd RemoteCommand) error {
	if err := controllable(rec); err != nil {
		return err
	}
	if cmd.Power != nil {
		return s.remotePower(ctx, rec, *cmd.Power)
	}
	r, err := s.remoteFor(rec, aliasOf(cmd.Key) == "power")
	if err != nil {
		return err
	}
	if cmd.Key != "" {
		if cmd.Key, err = resolveKey(r, cmd.Key); err != nil {
			return err
		}
	}
	var run func(context.Context) error
	switch {
	case cmd.Key != "" && cmd.HoldSecs > 0:
		kh, ok := r.(devices.KeyHolder)
		if !ok {
			return aboutf(EUNSUPPORTED, "%s cannot hold a key down; press it without hold_secs", rec.Name)
		}
		hold := time.Duration(cmd.HoldSecs * float64(time.Second))
		run = func(ctx context.Context) error { return kh.HoldKey(ctx, cmd.Key, hold) }
	case cmd.Key != "":
		run = func(ctx context.Context) error { return r.PressKey(ctx, cmd.Key) }
	case cmd.Text != "":
		run = func(ctx context.Context) error { return r.SendText(ctx, cmd.Text) }
	default:
		app, err := s.matchApp(ctx, rec, r, cmd.App)
		if err != nil {
			return err
		}
		return s.launch(ctx, rec, r, app)
	}
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", run))
}

// remotePower turns a TV on or off: through its player when it is one
// (which wakes it over the network and follows a receiver binding), else
// with the power key, pressed only when the TV is not already so.
func (s *Service) remotePower(ctx context.Context, rec DeviceRecord, on bool) error {
	if decodeCaps(rec).Media {
		_, err := s.applyMedia(ctx, rec, MediaPatch{Power: &on})
		return err
	}
	if decodeCaps(rec).PowerKind != "" { // a remote with a switch of its own
		return s.applyPower(ctx, rec, on)
	}
	if st := s.model.state(rec.ID).media; st != nil && st.Power == on {
		return nil
	}
	return s.sendRemote(ctx, rec, RemoteCommand{Key: "power"})
}

// matchApp resolves an app by package id, name or unique part of a name; a
// deep link (anything with "://") passes through.
func (s *Service) matchApp(ctx context.Context, rec DeviceRecord, r devices.Remote, app string) (string, error) {
	if strings.Contains(app, ":") {
		return app, nil // a deep link, spotify:search:…, market://…
	}
	apps := s.model.state(rec.ID).apps
	if apps == nil {
		rctx, cancel := s.readCtx(ctx)
		defer cancel()
		var err error
		if apps, err = r.Apps(rctx); err != nil {
			return "", deviceError(rec.Name, err)
		}
	}
	a, err := resolve(rec.Name+" app", app, apps,
		func(a devices.App) string { return a.ID }, func(a devices.App) string { return a.Name })
	if err != nil && looksLikePackage(app) {
		return app, nil // an app the TV has that its list does not name: the TV says if not
	}
	return a.ID, err
}

// looksLikePackage reports whether s is shaped like an Android package id
// ("com.example.app"), not a name people say.
func looksLikePackage(s string) bool {
	return strings.Count(s, ".") >= 1 && !strings.ContainsAny(s, " /") && s == strings.TrimSpace(s)
}

func remoteSummary(c RemoteCommand) string {
	switch {
	case c.Key != "":
		return "key=" + c.Key
	case c.App != "":
		return "app=" + c.App
	case c.Power != nil:
		return fmt.Sprintf("power=%t", *c.Power)
	}
	return "text"
}

// Check refuses a command no remote could take (what RemoteCommand
// refuses before it asks a TV).
func (c RemoteCommand) Check() error { return checkRemoteCommand(&c) }
