package kiosk

import (
	"context"
	"strings"
	"unicode"

	"github.com/bifrost-hub/bifrost/service"
)

// What the kiosk itself does, with its key: check in, listen for
// commands, report the sound level.

// Orders answer a check-in, in the app's field names. A string is ""
// rather than null when there is nothing to say: the app reads each with
// Android's optString, which turns a null into the text "null".
type Orders struct {
	// Command is the command waiting for the kiosk, taken by this
	// check-in.
	Command string `json:"command"`
	// Room is the name of its room, which the app sends with its voice
	// commands.
	Room string `json:"room"`
	// DefaultBoardID is the Rust hub's board to show full screen; this
	// hub has no boards.
	DefaultBoardID string `json:"default_board_id"`
	MicPresence    bool   `json:"mic_presence"`
	MicSensitivity string `json:"mic_sensitivity"`
}

// The bounds of a report.
const (
	maxVersionLen = 64
	maxSourceLen  = 32
	minLevel      = -200.0 // dBFS
	maxLevel      = 20.0
)

// keyOf is the key of the kiosk calling: kiosks call with their own key.
func keyOf(ctx context.Context) (service.Principal, error) {
	p, ok := service.PrincipalFrom(ctx)
	switch {
	case !ok:
		return p, service.Errorf(service.EUNAUTHORIZED, "a kiosk sends its API key")
	case p.Kind != "key":
		return p, service.Errorf(service.EFORBIDDEN, "a kiosk calls with its own API key; a person's session is no kiosk")
	}
	return p, nil
}

// CheckIn records the calling kiosk's report (making its key a kiosk on
// its first check-in) and answers what it should do: the command waiting
// for it, taken now, its room and its microphone settings.
func (ks *Kiosks) CheckIn(ctx context.Context, r Report) (Orders, error) {
	p, err := keyOf(ctx)
	if err != nil {
		return Orders{}, err
	}
	if err := r.check(); err != nil {
		return Orders{}, err
	}
	before, k, command, err := ks.cfg.Store.CheckInKiosk(ctx, p.ID, service.NewID("kio"), r, ks.cfg.Now().UTC())
	if err != nil {
		return Orders{}, err
	}
	switch {
	case before.ID == "":
		ks.publish(k.ID, "created")
	case command != "" || changed(before.Report, k.Report):
		ks.publish(k.ID, "changed")
	}
	return Orders{Command: command, Room: ks.roomName(ctx, k.RoomID), MicPresence: k.MicPresence, MicSensitivity: k.MicSensitivity}, nil
}

// changed reports whether a check-in changed what people see of a kiosk
// at a glance: the battery's level moves slowly, and is read with the
// list.
func changed(a, b Report) bool {
	same := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.AppVersion != b.AppVersion || a.PowerSource != b.PowerSource ||
		!same(a.ScreenOn, b.ScreenOn) || !same(a.BatteryCharging, b.BatteryCharging)
}

// check refuses a report no tablet sends.
func (r Report) check() error {
	switch {
	case len(r.AppVersion) > maxVersionLen || strings.ContainsFunc(r.AppVersion, unicode.IsControl):
		return service.Errorf(service.EINVALID, "app_version must be at most %d characters, without control characters", maxVersionLen).
			With("field", "app_version")
	case r.BatteryLevel != nil && (*r.BatteryLevel < 0 || *r.BatteryLevel > 100):
		return service.Errorf(service.EINVALID, "battery_level must be a percentage from 0 to 100, not %d", *r.BatteryLevel).
			With("field", "battery_level").With("min", 0).With("max", 100)
	case len(r.PowerSource) > maxSourceLen || strings.ContainsFunc(r.PowerSource, unicode.IsControl):
		return service.Errorf(service.EINVALID, "power_source must be a word such as ac, usb, wireless or none").
			With("field", "power_source")
	}
	return nil
}

// roomName is the name of the room id, "" for none (or one just gone).
func (ks *Kiosks) roomName(ctx context.Context, id string) string {
	if id == "" {
		return ""
	}
	r, err := ks.cfg.Home.GetRoom(ctx, id)
	if err != nil {
		if service.ErrorCode(err) != service.ENOTFOUND {
			ks.cfg.Logger.Warn("reading a kiosk's room", "room", id, "err", err)
		}
		return ""
	}
	return r.Name
}

// RoomOf is the room of the kiosk calling, by name: "" when the caller
// is no kiosk or its kiosk is in no room. The voice seam takes it as the
// room of a command that names none.
func (ks *Kiosks) RoomOf(ctx context.Context) string {
	p, ok := service.PrincipalFrom(ctx)
	if !ok || p.Kind != "key" {
		return ""
	}
	k, err := ks.cfg.Store.KioskByKey(ctx, p.ID)
	if err != nil {
		if service.ErrorCode(err) != service.ENOTFOUND {
			ks.cfg.Logger.Warn("reading a key's kiosk", "key", p.ID, "err", err)
		}
		return ""
	}
	return ks.roomName(ctx, k.RoomID)
}

// kioskOf is the kiosk of the key calling.
func (ks *Kiosks) kioskOf(ctx context.Context) (Kiosk, error) {
	p, err := keyOf(ctx)
	if err != nil {
		return Kiosk{}, err
	}
	k, err := ks.cfg.Store.KioskByKey(ctx, p.ID)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return Kiosk{}, errNotCheckedIn(p.Name)
	}
	return k, err
}

func errNotCheckedIn(key string) error {
	return service.Errorf(service.ENOTFOUND, "the key %q is not a kiosk's yet: a kiosk checks in first", key)
}

// ReportNoise records the sound level the calling kiosk heard; people
// following the house hear when the room turns loud or quiet.
func (ks *Kiosks) ReportNoise(ctx context.Context, n Noise) error {
	p, err := keyOf(ctx)
	if err != nil {
		return err
	}
	if n.Level != nil && (*n.Level < minLevel || *n.Level > maxLevel) {
		return service.Errorf(service.EINVALID, "level must be a sound level in dBFS, from %g to %g, not %g", minLevel, maxLevel, *n.Level).
			With("field", "level").With("min", minLevel).With("max", maxLevel)
	}
	before, err := ks.cfg.Store.RecordKioskNoise(ctx, p.ID, n, ks.cfg.Now().UTC())
	if service.ErrorCode(err) == service.ENOTFOUND {
		return errNotCheckedIn(p.Name)
	}
	if err != nil {
		return err
	}
	if before.NoiseElevated == nil || *before.NoiseElevated != n.Elevated {
		ks.publish(before.ID, "changed")
	}
	return nil
}
