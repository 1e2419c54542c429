package service

import (
	"context"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// Companions. One physical device can be two media players in the
// inventory: a TV seen by two adapters, say an Android TV entity with its
// apps and remote and a Roku or Home Assistant view of it that knows what
// plays. Merging the secondary into a primary as its companion makes them
// one effective device:
//
//   - the companion is no longer listed, nor controlled, on its own; a
//     read by its id or name still answers, and names its primary;
//   - the primary's read is the merge: what the primary lacks (now
//     playing, sources, source, capabilities, a receiver binding) comes
//     from its companions, and while the primary is offline an answering
//     companion speaks for the device;
//   - a command to the primary goes, field by field, to the member that
//     carries it (routeMerged).
//
// The link is a setting of the companion's, so the two come apart again
// exactly as they were.

// settingCompanion is the device setting of a companion: its primary's id.
const settingCompanion = "companion_of"

// SetCompanion merges the media player ref into the media player
// primaryRef as its companion, or, with primaryRef "", makes it a device
// of its own again. It answers the primary's merged view (when
// unmerging, ref's own). A device cannot be merged into itself, into a
// companion, nor while it is itself the primary of others.
func (s *Service) SetCompanion(ctx context.Context, ref, primaryRef string) (Media, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return Media{}, err
	}
	players := inv.players()
	rec, err := companionRef(inv, players, ref, strings.TrimSpace(primaryRef) == "")
	if err != nil {
		return Media{}, err
	}
	was, merged := primaryOf(inv, rec)
	primary, err := checkCompanion(inv, players, rec, primaryRef)
	if err == nil {
		err = s.store.SetDeviceSetting(ctx, rec.ID, settingCompanion, string(primary.ID))
	}
	s.audit(ctx, "media.companion", rec.Name, err, strings.TrimSpace(primaryRef))
	if err != nil {
		return Media{}, err
	}
	own := s.mediaChanged(ctx, rec, false)
	if merged && was.ID != primary.ID {
		s.publishDevice(was.ID) // it lost a companion
	}
	if primary.ID == "" {
		return own, nil
	}
	return s.mediaChanged(ctx, primary, false), nil
}

// companionRef resolves the device SetCompanion changes among the media
// players. The two views of one device often share a name, so a name is
// looked for first among the companions when unmerging, and among the
// listed players when merging.
func companionRef(inv inventory, players []DeviceRecord, ref string, unmerge bool) (DeviceRecord, error) {
	first := listedMedia(inv, players)
	if unmerge {
		first = mergedMedia(inv, players)
	}
	if rec, err := resolve("media device", ref, first, recID, recName); err == nil {
		return rec, nil
	}
	return resolve("media device", ref, players, recID, recName)
}

// checkCompanion resolves the primary rec is to be merged into; "" is
// none (an unmerge). The primary is looked for among the other players,
// so a name rec shares with its twin names the twin.
func checkCompanion(inv inventory, players []DeviceRecord, rec DeviceRecord, primaryRef string) (DeviceRecord, error) {
	ref := strings.TrimSpace(primaryRef)
	if ref == "" {
		return DeviceRecord{}, nil
	}
	selfMerge := Errorf(EINVALID, "Cannot merge %s into itself; name the other media device it is one device with", rec.Name)
	if ref == string(rec.ID) {
		return DeviceRecord{}, selfMerge
	}
	primary, err := resolve("media device", ref, others(players, rec.ID), recID, recName)
	if ErrorCode(err) == ENOTFOUND {
		if strings.EqualFold(ref, rec.Name) {
			return DeviceRecord{}, selfMerge
		}
		opts := names(others(listedMedia(inv, players), rec.ID), recName)
		return DeviceRecord{}, Errorf(EINVALID, "There is no media device %q to merge into; %s", primaryRef, OptionText("media device", opts)).
			With("options", opts)
	}
	if err != nil {
		return DeviceRecord{}, err
	}
	if p, ok := primaryOf(inv, primary); ok {
		return DeviceRecord{}, Errorf(EINVALID, "Cannot merge into %s: it is itself merged into %s; merge %s into %s instead", primary.Name, p.Name, rec.Name, p.Name)
	}
	if cs := companionsOf(inv, rec.ID); len(cs) > 0 {
		n := strings.Join(names(cs, recName), ", ")
		return DeviceRecord{}, Errorf(EINVALID, "Cannot merge %s: it is the primary of %s; unmerge %s first", rec.Name, n, n)
	}
	return primary, nil
}

// others is recs without the device id.
func others(recs []DeviceRecord, id devices.ID) []DeviceRecord {
	var out []DeviceRecord
	for _, r := range recs {
		if r.ID != id {
			out = append(out, r)
		}
	}
	return out
}

// primaryOf is the primary rec is merged into, when rec is a companion. A
// link to a device that is gone, or is no media player, or is itself a
// companion, is no link: the device stands on its own.
func primaryOf(inv inventory, rec DeviceRecord) (DeviceRecord, bool) {
	id := devices.ID(rec.Settings[settingCompanion])
	if id == "" || id == rec.ID {
		return DeviceRecord{}, false
	}
	p, ok := inv.byID(id)
	if !ok || !inv.capsOf(p).Media || p.Settings[settingCompanion] != "" {
		return DeviceRecord{}, false
	}
	return p, true
}

// companionsOf lists the companions merged into the player id.
func companionsOf(inv inventory, id devices.ID) []DeviceRecord {
	var out []DeviceRecord
	for _, d := range inv.devices {
		if d.Settings[settingCompanion] != string(id) {
			continue
		}
		if p, ok := primaryOf(inv, d); ok && p.ID == id {
			out = append(out, d)
		}
	}
	return out
}

// listedMedia is players without the companions: the media devices as
// they are listed and controlled.
func listedMedia(inv inventory, players []DeviceRecord) []DeviceRecord {
	out := make([]DeviceRecord, 0, len(players))
	for _, p := range players {
		if _, merged := primaryOf(inv, p); !merged {
			out = append(out, p)
		}
	}
	return out
}

// mergedMedia is the companions among players.
func mergedMedia(inv inventory, players []DeviceRecord) []DeviceRecord {
	var out []DeviceRecord
	for _, p := range players {
		if _, merged := primaryOf(inv, p); merged {
			out = append(out, p)
		}
	}
	return out
}

// resolveMedia resolves ref among the listed players. A companion named
// by ref resolves for a read; for a command it is an error naming the
// primary to control instead.
func resolveMedia(inv inventory, players []DeviceRecord, ref string, read bool) (DeviceRecord, error) {
	listed := listedMedia(inv, players)
	rec, err := resolve("media device", ref, listed, recID, recName)
	if ErrorCode(err) != ENOTFOUND || len(listed) == len(players) {
		return rec, err
	}
	c, cerr := resolve("media device", ref, mergedMedia(inv, players), recID, recName)
	switch {
	case cerr != nil:
		return rec, err
	case read:
		return c, nil
	}
	p, _ := primaryOf(inv, c)
	return DeviceRecord{}, Errorf(ENOTFOUND, "The media device %s is merged into %s; control %s instead", c.Name, p.Name, p.Name).
		With("options", names(listed, recName))
}

// withCompanions is m, rec's own view, as the effective device: a
// companion names its primary; a primary is merged with its companions.
// A player whose primary is gone, or is no player, is a device of its own.
func (s *Service) withCompanions(inv inventory, rec DeviceRecord, m Media) Media {
	if p, ok := primaryOf(inv, rec); ok {
		m.CompanionOf = p.ID
		return m
	}
	m.CompanionOf = ""
	for _, c := range companionsOf(inv, rec.ID) {
		m = mergeMedia(m, s.ownMedia(inv, c))
	}
	return m
}

// mergeMedia is the primary's view m with what it lacks filled from its
// companion's view c. m.State is m's own copy.
func mergeMedia(m, c Media) Media {
	m.Companions = append(m.Companions, c.ID)
	m.Favorites = m.Favorites || c.Favorites
	m.Cast = m.Cast || c.Cast
	m.Group = m.Group || c.Group
	m.RemoteDevice = m.RemoteDevice || c.RemoteDevice
	if m.Receiver == "" {
		m.Receiver, m.ReceiverInput = c.Receiver, c.ReceiverInput
	}
	switch {
	case c.State == nil:
	case m.State == nil: // the primary does not answer: the companion speaks for the device
		m.Online, m.State = true, c.State
	default:
		fillMedia(m.State, *c.State)
	}
	return m
}

// fillMedia fills what st lacks from a companion's state c. Playback (what
// plays and the transport) is taken whole, from the member that reports
// it, so the read shows the playback transport commands go to.
func fillMedia(st *devices.MediaState, c devices.MediaState) {
	if st.NowPlaying == nil && st.Transport == "" {
		st.NowPlaying, st.Transport = c.NowPlaying, c.Transport
	}
	if len(st.Sources) == 0 {
		st.Sources = c.Sources
	}
	if st.Source == "" {
		st.Source = c.Source
	}
	if st.GroupCoordinator == "" {
		st.GroupCoordinator = c.GroupCoordinator
	}
}

// members are rec and, when it is a primary, its companions: rec first.
func members(inv inventory, rec DeviceRecord) []DeviceRecord {
	return append([]DeviceRecord{rec}, companionsOf(inv, rec.ID)...)
}

// memberWith is the member of rec that can do what has asks: rec itself
// when it can, else the first companion that can (one that answers
// first), else rec, which then says it cannot.
func (s *Service) memberWith(inv inventory, rec DeviceRecord, has func(capsRecord) bool) DeviceRecord {
	if has(inv.capsOf(rec)) {
		return rec
	}
	var found *DeviceRecord
	for _, c := range companionsOf(inv, rec.ID) {
		if !has(inv.capsOf(c)) {
			continue
		}
		if s.answering(c) {
			return c
		}
		if found == nil {
			found = &c
		}
	}
	if found != nil {
		return *found
	}
	return rec
}

func hasFavorites(c capsRecord) bool { return c.Favorites }
func canCast(c capsRecord) bool      { return c.Cast }

// answering reports whether the model has rec's media state: it is online
// and has reported.
func (s *Service) answering(rec DeviceRecord) bool {
	st := s.model.state(rec.ID)
	return st.online && st.media != nil
}

// playbackMember is the member of rec transport commands go to: the first
// that reports playback (something playing, or a transport), else rec.
func (s *Service) playbackMember(inv inventory, rec DeviceRecord) DeviceRecord {
	for _, m := range members(inv, rec) {
		st := s.model.state(m.ID)
		if st.online && st.media != nil && (st.media.NowPlaying != nil || st.media.Transport != "") {
			return m
		}
	}
	return rec
}

// volumeMember is the member volume and mute go to: the first bound to a
// receiver, else the primary, else (the primary does not answer) the
// first companion that does.
func (s *Service) volumeMember(ms []DeviceRecord) int {
	for i, m := range ms {
		if m.Settings[settingReceiver] != "" {
			return i
		}
	}
	for i, m := range ms {
		if s.answering(m) {
			return i
		}
	}
	return 0
}

// sourceMember is the member a source goes to: the first whose sources
// include it, else the primary (whose answer says what it has).
func (s *Service) sourceMember(ms []DeviceRecord, src string) int {
	self := func(v string) string { return v }
	for i, m := range ms {
		st, err := s.knownMedia(m)
		if err != nil || len(st.Sources) == 0 {
			continue
		}
		if _, err := resolve("source", src, st.Sources, self, self); err == nil {
			return i
		}
	}
	return 0
}

// routeMerged splits a patch to a primary among its members ms (the
// primary first): volume and mute to volumeMember, transport to the
// playback member, a source to sourceMember, power to the primary, and a
// power-on also to the companions while the primary does not answer
// (fanned).
func (s *Service) routeMerged(inv inventory, ms []DeviceRecord, p MediaPatch) (patches []MediaPatch, fanned bool) {
	patches = make([]MediaPatch, len(ms))
	if p.Volume != nil || p.Mute != nil {
		i := s.volumeMember(ms)
		patches[i].Volume, patches[i].Mute = p.Volume, p.Mute
	}
	if p.Transport != nil {
		target := s.playbackMember(inv, ms[0])
		for i, m := range ms {
			if m.ID == target.ID {
				patches[i].Transport = p.Transport
			}
		}
	}
	if p.Source != nil {
		patches[s.sourceMember(ms, *p.Source)].Source = p.Source
	}
	if p.Power != nil {
		patches[0].Power = p.Power
		if *p.Power && !s.answering(ms[0]) {
			for i := 1; i < len(ms); i++ {
				patches[i].Power, fanned = p.Power, true
			}
		}
	}
	return patches, fanned
}

// applyMerged sends a patch to rec, through its receiver binding; for a
// primary, each field goes to the member that carries it (routeMerged),
// and the companions it changes are captured in u, for undo. A power-on
// fanned to every member succeeds when any member takes it. A receiver
// bound to a companion wakes and sleeps with the device, as it would
// bound to the primary.
func (s *Service) applyMerged(ctx context.Context, u *undoLog, inv inventory, rec DeviceRecord, p MediaPatch) error {
	ms := members(inv, rec)
	if len(ms) == 1 {
		_, err := s.applyMedia(ctx, rec, p)
		return err
	}
	patches, fanned := s.routeMerged(inv, ms, p)
	powered, powerErr := false, error(nil)
	for i, m := range ms {
		mp := patches[i]
		if mp == (MediaPatch{}) {
			continue
		}
		if i > 0 && (mp.Power != nil || mp.Volume != nil || mp.Mute != nil || mp.Source != nil) {
			s.captureMediaChange(ctx, u, m)
		}
		_, err := s.applyMedia(ctx, m, mp)
		switch {
		case err == nil:
			powered = powered || mp.Power != nil
			if i > 0 {
				s.publishDevice(m.ID)
			}
		case fanned && onlyPower(mp):
			powerErr = err // forgiven when another member takes it
		default:
			return err
		}
	}
	if !powered && powerErr != nil {
		return powerErr
	}
	return s.powerCompanionReceiver(ctx, u, inv, ms, patches, p.Power)
}

func onlyPower(p MediaPatch) bool { return p == MediaPatch{Power: p.Power} }

// powerCompanionReceiver powers the receiver of the member volume goes to
// with the device, when that member is a companion the power was not sent
// to.
func (s *Service) powerCompanionReceiver(ctx context.Context, u *undoLog, inv inventory, ms []DeviceRecord, patches []MediaPatch, power *bool) error {
	i := s.volumeMember(ms)
	m := ms[i]
	if power == nil || i == 0 || patches[i].Power != nil || m.Settings[settingReceiver] == "" {
		return nil
	}
	recv, ok := inv.byID(devices.ID(m.Settings[settingReceiver]))
	if !ok {
		return nil
	}
	s.capture(u, recv)
	_, err := s.sendMedia(ctx, recv, receiverPatch(m, MediaPatch{Power: power}))
	return err
}
