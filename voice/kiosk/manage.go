package kiosk

import (
	"context"
	"slices"

	"github.com/bifrost-hub/bifrost/service"
)

// What admins do with kiosks: list them, put them in rooms, set their
// microphones, send them commands. (Revoking one is revoking its key.)

// manage is what RequireAdmin is told an admin may do here.
const manage = "manage kiosks"

// List lists the kiosks, with their rooms' names and whether each is
// online.
func (ks *Kiosks) List(ctx context.Context) ([]Kiosk, error) {
	if err := ks.cfg.Admins.RequireAdmin(ctx, manage); err != nil {
		return nil, err
	}
	list, err := ks.cfg.Store.ListKiosks(ctx)
	if err != nil {
		return nil, err
	}
	rooms, err := ks.cfg.Home.ListRooms(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(rooms))
	for _, r := range rooms {
		names[r.ID] = r.Name
	}
	for i := range list {
		list[i] = ks.seen(list[i], names[list[i].RoomID])
	}
	return list, nil
}

// seen is k as people see it: in the room named room, online or not.
func (ks *Kiosks) seen(k Kiosk, room string) Kiosk {
	k.Room = room
	k.Online = !k.Revoked && ks.cfg.Now().Sub(k.LastSeen) < OnlineWithin
	return k
}

// get returns kiosk id as people see it, for an admin.
func (ks *Kiosks) get(ctx context.Context, id string) (Kiosk, error) {
	if err := ks.cfg.Admins.RequireAdmin(ctx, manage); err != nil {
		return Kiosk{}, err
	}
	k, err := ks.cfg.Store.GetKiosk(ctx, id)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return Kiosk{}, service.Errorf(service.ENOTFOUND, "no kiosk has the id %q", id)
	}
	if err != nil {
		return Kiosk{}, err
	}
	return ks.seen(k, ks.roomName(ctx, k.RoomID)), nil
}

// SetRoom puts kiosk id in the room ref (by id or name), or in none when
// ref is "". The kiosk takes it at its next check-in, and its key's
// voice commands that name no room are said in it at once.
func (ks *Kiosks) SetRoom(ctx context.Context, id, ref string) (Kiosk, error) {
	k, err := ks.get(ctx, id)
	if err != nil {
		return Kiosk{}, err
	}
	var room service.RoomView
	if ref != "" {
		if room, err = ks.cfg.Home.GetRoom(ctx, ref); err != nil {
			return Kiosk{}, err
		}
	}
	err = ks.cfg.Store.SetKioskRoom(ctx, id, room.ID)
	ks.cfg.Audit.Audit(ctx, "kiosk.room", k.Name, err, room.Name)
	return ks.changed(ctx, id, err)
}

// SetMic turns the kiosk's microphone presence on or off, at a
// sensitivity ("" keeps the one it has). The kiosk takes it at its next
// check-in.
func (ks *Kiosks) SetMic(ctx context.Context, id string, presence bool, sensitivity string) (Kiosk, error) {
	k, err := ks.get(ctx, id)
	if err != nil {
		return Kiosk{}, err
	}
	if sensitivity == "" {
		sensitivity = k.MicSensitivity
	}
	if !slices.Contains(Sensitivities, sensitivity) {
		return Kiosk{}, service.Errorf(service.EINVALID, "sensitivity %q is not one of low, medium, high", sensitivity).
			With("field", "sensitivity").With("options", Sensitivities)
	}
	err = ks.cfg.Store.SetKioskMic(ctx, id, presence, sensitivity)
	detail := "off"
	if presence {
		detail = "on, " + sensitivity
	}
	ks.cfg.Audit.Audit(ctx, "kiosk.mic", k.Name, err, detail)
	return ks.changed(ctx, id, err)
}

// Send sends kiosk id a command: at once over its command stream when it
// has one open, and with the answer to its next check-in (the app
// carries out a command it gets twice in a row only once).
func (ks *Kiosks) Send(ctx context.Context, id, command string) (Kiosk, error) {
	if !slices.Contains(Commands, command) {
		return Kiosk{}, service.Errorf(service.EINVALID, "command %q is not one a kiosk takes; send sleep or wake", command).
			With("field", "command").With("options", Commands)
	}
	k, err := ks.get(ctx, id)
	if err != nil {
		return Kiosk{}, err
	}
	if k.Revoked {
		return Kiosk{}, service.Errorf(service.ECONFLICT, "the key of kiosk %q is revoked, so it no longer listens; pair it again", k.Name)
	}
	err = ks.cfg.Store.QueueKioskCommand(ctx, id, command)
	ks.cfg.Audit.Audit(ctx, "kiosk.command", k.Name, err, command)
	if err == nil {
		ks.push(id, command)
	}
	return ks.changed(ctx, id, err)
}

// changed answers kiosk id after a change, and tells the house of it;
// err is the change's error.
func (ks *Kiosks) changed(ctx context.Context, id string, err error) (Kiosk, error) {
	if err != nil {
		return Kiosk{}, err
	}
	ks.publish(id, "changed")
	return ks.get(ctx, id)
}
