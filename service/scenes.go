package service

import (
	"context"
	"errors"

	"github.com/bifrost-hub/bifrost/devices"
)

// ListScenes returns every scene.
func (s *Service) ListScenes(ctx context.Context) ([]SceneView, error) {
	return list(ctx, s, func(inv inventory) []Scene { return inv.scenes }, sceneView)
}

// GetScene returns one scene by id or name.
func (s *Service) GetScene(ctx context.Context, ref string) (SceneView, error) {
	return get(ctx, s, ref, inventory.scene, sceneView)
}

func sceneView(inv inventory, sc Scene) SceneView {
	v := SceneView{ID: sc.ID, Name: sc.Name, RoomID: sc.RoomID, Room: inv.roomOf[sc.RoomID], Entries: sc.Entries, CreatedAt: sc.CreatedAt}
	if v.Entries == nil {
		v.Entries = []SceneEntry{}
	}
	return v
}

// CaptureScene saves the live state of a room (roomRef set: a Room Scene)
// or of the whole house (roomRef "": a Home Scene) as a new scene: each
// online light's on/brightness/colour-or-temperature-or-effect and each
// power device's on/off. Devices that do not answer are left out and named
// in Skipped.
func (s *Service) CaptureScene(ctx context.Context, name, roomRef string) (SceneView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return SceneView{}, err
	}
	n, err := CleanName("scene", name)
	if err != nil {
		return SceneView{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return SceneView{}, err
	}
	sc := Scene{ID: NewID("sc"), Name: n, CreatedAt: s.now().UTC()}
	members, where := inv.devices, "the house"
	if roomRef != "" {
		r, err := inv.room(roomRef)
		if err != nil {
			return SceneView{}, err
		}
		sc.RoomID, members, where = r.ID, membersOf(inv, r), r.Name
	}
	entries, skipped := s.captureEntries(inv, members)
	if len(entries) == 0 {
		return SceneView{}, Errorf(EINVALID, "nothing to capture: no light, power device or TV in %s answered", where)
	}
	sc.Entries = entries
	err = s.store.CreateScene(ctx, sc)
	s.audit(ctx, "scene.create", n, err, where)
	if err != nil {
		return SceneView{}, err
	}
	v := sceneView(inv, sc)
	v.Skipped = skipped
	s.publish("scene", sc.ID, "created", v)
	return v, nil
}

// captureEntries takes every capturable member's last known state (lights,
// power devices but buttons, which have none to keep, and TVs' power);
// those the model has none of are skipped, and named.
func (s *Service) captureEntries(inv inventory, members []DeviceRecord) ([]SceneEntry, []Outcome) {
	var out []SceneEntry
	var skipped []Outcome
	for _, rec := range members {
		tv := rec.Kind == devices.KindMedia && inv.capsOf(rec).Remote
		if !capturable(inv, rec, tv) {
			continue
		}
		if e, ok := s.knownEntry(rec, false, tv); ok {
			out = append(out, e)
			continue
		}
		skipped = append(skipped, Outcome{ID: rec.ID, Name: rec.Name, Code: EUNREACHABLE, Error: rec.Name + " is offline", named: true})
	}
	return out, skipped
}

// capturable reports whether a scene keeps rec's state: an enabled light,
// power device other than a button (a press is no state), or TV.
func capturable(inv inventory, rec DeviceRecord, tv bool) bool {
	switch {
	case !rec.Enabled:
		return false
	case rec.Kind == devices.KindPower:
		return inv.capsOf(rec).PowerKind != devices.PowerButton
	}
	return rec.Kind == devices.KindLight || tv
}

// ActivateScene re-applies every entry of a scene in parallel and reports
// per-device results.
func (s *Service) ActivateScene(ctx context.Context, ref string) (FanoutResult, error) {
	_, sc, err := findFor(ctx, s, ScopeControl, ref, inventory.scene)
	if err != nil {
		return FanoutResult{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return FanoutResult{}, err
	}
	targets, entries := sceneTargets(inv, sc)
	u := s.undoable(ctx, "scene "+sc.Name)
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		if rec.Kind == "" {
			return Errorf(ENOTFOUND, "%s is no longer in the inventory", rec.ID)
		}
		s.capture(u, rec)
		return s.applyEntry(ctx, rec, entries[rec.ID])
	})
	s.audit(ctx, "scene.activate", sc.Name, res.err(), "")
	s.keepIfApplied(ctx, u, res)
	s.publish("scene", sc.ID, "activated", res)
	return res, nil
}

// sceneTargets pairs each entry with its device record; a device that has
// left the inventory gets a record with only its id, to be reported.
func sceneTargets(inv inventory, sc Scene) ([]DeviceRecord, map[devices.ID]SceneEntry) {
	targets := make([]DeviceRecord, 0, len(sc.Entries))
	entries := make(map[devices.ID]SceneEntry, len(sc.Entries))
	for _, e := range sc.Entries {
		rec, ok := inv.byID(e.DeviceID)
		if !ok {
			rec = DeviceRecord{ID: e.DeviceID, Name: string(e.DeviceID)}
		}
		targets = append(targets, rec)
		entries[e.DeviceID] = e
	}
	return targets, entries
}

func (s *Service) applyEntry(ctx context.Context, rec DeviceRecord, e SceneEntry) error {
	switch {
	case e.Light != nil:
		v, err := ParseLightPatch(patchFromState(*e.Light))
		if err == nil {
			_, err = s.applyLight(ctx, rec, v)
		}
		return err
	case e.Power != nil:
		return s.applyPower(ctx, rec, *e.Power)
	case e.Media != nil:
		p := MediaPatch{Power: &e.Media.Power}
		if e.Media.Power {
			p.Volume = e.Media.Volume
		}
		_, err := s.applyMedia(ctx, rec, p)
		return err
	}
	return errors.New("empty scene entry")
}

// patchFromState is the patch that restores a captured light state.
func patchFromState(st devices.LightState) LightPatch {
	on := st.On
	if !on {
		return LightPatch{On: &on}
	}
	p := LightPatch{On: &on}
	if st.Brightness > 0 {
		b := st.Brightness
		p.Brightness = &b
	}
	switch {
	case st.Mode == devices.ModeEffect && st.Effect != "":
		e := st.Effect
		p.Effect = &e
	case st.Mode == devices.ModeColor && st.Color != nil:
		h := st.Color.Hex
		p.Hex = &h
	case st.Kelvin > 0:
		k, gm := st.Kelvin, st.GM
		p.Kelvin, p.GM = &k, &gm // also 0: a neutral white undoes a shift

	}
	return p
}

// RenameScene renames a scene.
func (s *Service) RenameScene(ctx context.Context, ref, name string) (SceneView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return SceneView{}, err
	}
	n, err := CleanName("scene", name)
	if err != nil {
		return SceneView{}, err
	}
	_, sc, err := find(ctx, s, ref, inventory.scene)
	if err != nil {
		return SceneView{}, err
	}
	err = s.store.RenameScene(ctx, sc.ID, n)
	s.audit(ctx, "scene.rename", sc.Name, err, "to "+n)
	if err != nil {
		return SceneView{}, err
	}
	sc.Name = n
	inv, err := s.inventory(ctx)
	if err != nil {
		return SceneView{}, err
	}
	v := sceneView(inv, sc)
	s.publish("scene", sc.ID, "changed", v)
	return v, nil
}

// DeleteScene deletes a scene by id; deleting one that is already gone
// succeeds (idempotent). A name is accepted too.
func (s *Service) DeleteScene(ctx context.Context, ref string) error {
	_, sc, err := findFor(ctx, s, ScopeControl, ref, inventory.scene)
	if ErrorCode(err) == ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	err = s.store.DeleteScene(ctx, sc.ID)
	if ErrorCode(err) == ENOTFOUND {
		err = nil
	}
	s.audit(ctx, "scene.delete", sc.Name, err, "")
	if err == nil {
		s.publish("scene", sc.ID, "deleted", nil)
	}
	return err
}
