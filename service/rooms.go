package service

import (
	"context"
	"slices"

	"github.com/bifrost-hub/bifrost/devices"
)

// ListRooms returns every room with its members and occupancy.
func (s *Service) ListRooms(ctx context.Context) ([]RoomView, error) {
	return list(ctx, s, func(inv inventory) []Room { return inv.rooms }, s.roomView)
}

// GetRoom returns one room by id or name.
func (s *Service) GetRoom(ctx context.Context, ref string) (RoomView, error) {
	return get(ctx, s, ref, inventory.room, s.roomView)
}

func (s *Service) roomView(inv inventory, r Room) RoomView {
	v := RoomView{ID: r.ID, Name: r.Name, Members: []DeviceView{}, CreatedAt: r.CreatedAt}
	for _, id := range r.Members {
		if rec, ok := inv.byID(id); ok {
			v.Members = append(v.Members, s.view(inv, rec))
		}
	}
	for _, sc := range inv.scenes {
		if sc.RoomID == r.ID {
			v.Scenes = append(v.Scenes, sc.ID)
		}
	}
	v.Occupied = s.occupancy(inv, r)
	return v
}

// CreateRoom makes a room with optional members (ids or names of devices).
func (s *Service) CreateRoom(ctx context.Context, name string, members []string) (RoomView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return RoomView{}, err
	}
	n, err := CleanName("room", name)
	if err != nil {
		return RoomView{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return RoomView{}, err
	}
	ids, err := resolveDevices(inv, members)
	if err != nil {
		return RoomView{}, err
	}
	r := Room{ID: NewID("rm"), Name: n, Members: ids, CreatedAt: s.now().UTC()}
	err = s.store.CreateRoom(ctx, r)
	s.audit(ctx, "room.create", n, err, "")
	if err != nil {
		return RoomView{}, err
	}
	return s.roomChanged(ctx, r.ID, "created")
}

func resolveDevices(inv inventory, refs []string) ([]devices.ID, error) {
	ids := make([]devices.ID, 0, len(refs))
	for _, ref := range refs {
		rec, err := resolve("device", ref, inv.devices, recID, recName)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, rec.ID) {
			ids = append(ids, rec.ID)
		}
	}
	return ids, nil
}

// roomChanged publishes and returns a room's fresh view.
func (s *Service) roomChanged(ctx context.Context, id, action string) (RoomView, error) {
	inv, err := s.inventory(ctx)
	if err != nil {
		return RoomView{}, err
	}
	for _, r := range inv.rooms {
		if r.ID == id {
			v := s.roomView(inv, r)
			s.publish("room", id, action, v)
			return v, nil
		}
	}
	return RoomView{}, Errorf(ENOTFOUND, "There is no room %q", id)
}

// RenameRoom renames a room.
func (s *Service) RenameRoom(ctx context.Context, ref, name string) (RoomView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return RoomView{}, err
	}
	n, err := CleanName("room", name)
	if err != nil {
		return RoomView{}, err
	}
	_, r, err := find(ctx, s, ref, inventory.room)
	if err != nil {
		return RoomView{}, err
	}
	err = s.store.RenameRoom(ctx, r.ID, n)
	s.audit(ctx, "room.rename", r.Name, err, "to "+n)
	if err != nil {
		return RoomView{}, err
	}
	return s.roomChanged(ctx, r.ID, "changed")
}

// DeleteRoom deletes a room (its devices stay, roomless) and its room
// scenes.
func (s *Service) DeleteRoom(ctx context.Context, ref string) error {
	_, r, err := findFor(ctx, s, ScopeControl, ref, inventory.room)
	if err != nil {
		return err
	}
	err = s.store.DeleteRoom(ctx, r.ID)
	s.audit(ctx, "room.delete", r.Name, err, "")
	if err == nil {
		s.publish("room", r.ID, "deleted", nil)
	}
	return err
}

// AddRoomMember moves a device (of any kind) into a room.
func (s *Service) AddRoomMember(ctx context.Context, roomRef, deviceRef string) (RoomView, error) {
	return s.setMembership(ctx, roomRef, deviceRef, true)
}

// RemoveRoomMember takes a device out of a room.
func (s *Service) RemoveRoomMember(ctx context.Context, roomRef, deviceRef string) (RoomView, error) {
	return s.setMembership(ctx, roomRef, deviceRef, false)
}

func (s *Service) setMembership(ctx context.Context, roomRef, deviceRef string, add bool) (RoomView, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return RoomView{}, err
	}
	r, err := inv.room(roomRef)
	if err != nil {
		return RoomView{}, err
	}
	candidates := inv.devices
	if !add {
		candidates = membersOf(inv, r)
	}
	rec, err := resolve("device", deviceRef, candidates, recID, recName)
	if err != nil {
		return RoomView{}, err
	}
	target, action := r.ID, "room.add_member"
	if !add {
		target, action = "", "room.remove_member"
	}
	err = s.store.SetDeviceRoom(ctx, rec.ID, target)
	s.audit(ctx, action, r.Name, err, rec.Name)
	if err != nil {
		return RoomView{}, err
	}
	return s.roomChanged(ctx, r.ID, "changed")
}

func membersOf(inv inventory, r Room) []DeviceRecord {
	out := make([]DeviceRecord, 0, len(r.Members))
	for _, id := range r.Members {
		if rec, ok := inv.byID(id); ok {
			out = append(out, rec)
		}
	}
	return out
}

// SetRoom applies a light patch to a room. An explicit On is power intent
// for the whole room: every member light takes the patch, and a bare {on}
// also reaches the room's power devices and media players. A patch without
// On touches only lights that are already lit, so dimming a room never
// wakes an off lamp. Members are written in parallel.
func (s *Service) SetRoom(ctx context.Context, ref string, p RoomPatch) (FanoutResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return FanoutResult{}, err
	}
	v, err := ParseLightPatch(p)
	if err != nil {
		return FanoutResult{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return FanoutResult{}, err
	}
	r, err := inv.room(ref)
	if err != nil {
		return FanoutResult{}, err
	}
	members := membersOf(inv, r)
	if len(members) == 0 {
		return FanoutResult{}, aboutf(ENOTFOUND, "%s has no devices to set; add some to the room first", r.Name)
	}
	targets := roomTargets(members, p)
	u := s.undoable(ctx, "room "+r.Name)
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		if s.skipsUnlit(rec, p) {
			return errSkipped
		}
		s.capture(u, rec)
		return s.applyToMember(ctx, rec, v)
	})
	s.audit(ctx, "room.set", r.Name, res.err(), patchSummary(p))
	s.keepIfApplied(ctx, u, res)
	return res, nil
}

// RoomTargets lists the devices SetRoom would change with p now: the
// members roomTargets picks, less the unlit lights a patch without On
// skips. It is the same rule SetRoom applies, for callers that must know
// beforehand what a room patch touches (an automation capturing state to
// put back, checking one command per device).
func (s *Service) RoomTargets(ctx context.Context, ref string, p RoomPatch) ([]devices.ID, error) {
	inv, err := s.inventoryFor(ctx, ScopeRead)
	if err != nil {
		return nil, err
	}
	r, err := inv.room(ref)
	if err != nil {
		return nil, err
	}
	var ids []devices.ID
	for _, rec := range roomTargets(membersOf(inv, r), p) {
		if !s.skipsUnlit(rec, p) {
			ids = append(ids, rec.ID)
		}
	}
	return ids, nil
}

// skipsUnlit reports whether a room patch leaves a member alone: a light
// that is not lit, when the patch does not say On.
func (s *Service) skipsUnlit(rec DeviceRecord, p RoomPatch) bool {
	return rec.Kind == devices.KindLight && p.On == nil && !s.isLit(rec)
}

// roomTargets picks which members a room patch may reach: its enabled
// lights (unlit ones are skipped later, in parallel, when On is not given),
// plus power devices and media players for a bare {on}. Buttons are left
// out: switching a room on must not press them.
func roomTargets(members []DeviceRecord, p RoomPatch) []DeviceRecord {
	rest := p
	rest.On = nil
	bareOn := p.On != nil && rest.Empty()
	var out []DeviceRecord
	for _, rec := range members {
		if !rec.Enabled {
			continue
		}
		switch {
		case rec.Kind == devices.KindLight:
			out = append(out, rec)
		case bareOn && rec.Kind == devices.KindPower && decodeCaps(rec).PowerKind == devices.PowerButton: // not pressed
		case bareOn && (rec.Kind == devices.KindPower || rec.Kind == devices.KindMedia):
			out = append(out, rec)
		}
	}
	return out
}

// isLit reports whether a light is on, as last reported.
func (s *Service) isLit(rec DeviceRecord) bool {
	st := s.model.state(rec.ID)
	return st.online && st.light != nil && st.light.On
}

func (s *Service) applyToMember(ctx context.Context, rec DeviceRecord, v LightValues) error {
	switch rec.Kind {
	case devices.KindLight:
		if v.GM != nil && !s.takesGM(rec) {
			v = v.withoutGM() // a room's shift reaches the lights that take one
			if v.Patch.Empty() {
				return errSkipped
			}
		}
		_, err := s.applyLight(ctx, rec, v)
		return err
	case devices.KindPower:
		return s.applyPower(ctx, rec, *v.On)
	case devices.KindMedia:
		_, err := s.applyMedia(ctx, rec, MediaPatch{Power: v.On})
		if ErrorCode(err) == EUNSUPPORTED && !*v.On {
			// A speaker without a power switch is "off" when it is quiet.
			pause := "pause"
			_, err = s.sendMedia(ctx, rec, MediaPatch{Transport: &pause})
			if ErrorCode(err) == EUNSUPPORTED || ErrorCode(err) == EINVALID {
				return nil // nothing playing: already quiet
			}
		}
		return err
	}
	return aboutf(EUNSUPPORTED, "%s takes no room command", rec.Name)
}

// takesGM reports whether a light takes a green–magenta shift.
func (s *Service) takesGM(rec DeviceRecord) bool {
	if c := s.model.state(rec.ID).lightCaps; c != nil {
		return c.GM
	}
	c := decodeCaps(rec).Light
	return c != nil && c.GM
}
