package service

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/wording"
)

// Device settings the service keeps for media players.
const (
	settingReceiver      = "receiver"       // id of the receiver a source is bound to
	settingReceiverInput = "receiver_input" // the receiver input the source is on
)

// Content types a cast accepts.
var CastTypes = []string{"music", "video", "url", "playlist", "channel", "episode", "tvshow", "image"}

// ListMedia returns every media player with live state.
func (s *Service) ListMedia(ctx context.Context) ([]Media, error) {
	listed := func(inv inventory) []DeviceRecord { return listedMedia(inv, inv.players()) } // companions read through their primaries
	return list(ctx, s, listed, s.mediaView)
}

// GetMedia returns one media player by id or name.
func (s *Service) GetMedia(ctx context.Context, ref string) (Media, error) {
	return get(ctx, s, ref, inventory.playerToRead, s.mediaView)
}

// mediaView is a player as the model knows it, as the effective device
// (withCompanions); a source bound to a receiver shows the receiver's
// volume and mute.
func (s *Service) mediaView(inv inventory, rec DeviceRecord) Media {
	m := s.withPlayback(inv, rec, s.withCompanions(inv, rec, s.ownMedia(inv, rec)))
	if rs := s.model.state(m.Receiver); m.State != nil && m.Receiver != "" && rs.online && rs.media != nil {
		m.State.Volume, m.State.Muted = rs.media.Volume, rs.media.Muted
	}
	return m
}

// ownMedia is one player's own view, as its adapter reports it.
func (s *Service) ownMedia(inv inventory, rec DeviceRecord) Media {
	c := inv.capsOf(rec)
	st := s.model.state(rec.ID)
	m := Media{
		DeviceView: s.viewWith(inv, rec, st), Receiver: devices.ID(rec.Settings[settingReceiver]),
		Favorites: c.Favorites, Cast: c.Cast, Group: c.Group, RemoteDevice: c.Remote,
		Class: mediaClass(c), ReceiverInput: rec.Settings[settingReceiverInput],
	}
	if st.online && st.media != nil {
		ms := *st.media
		m.State = &ms
	}
	return m
}

// mediaClass is the class a player says it is, else a TV when it is a
// remote too, else a speaker.
func mediaClass(c capsRecord) string {
	switch {
	case c.MediaClass != "":
		return c.MediaClass
	case c.Remote:
		return devices.MediaTV
	}
	return devices.MediaSpeaker
}

// knownMedia is a player's last known state, or an unreachable error when
// the model has none.
func (s *Service) knownMedia(rec DeviceRecord) (devices.MediaState, error) {
	st := s.model.state(rec.ID)
	if !st.online || st.media == nil {
		return devices.MediaState{}, aboutf(EUNREACHABLE, "%s is offline", rec.Name)
	}
	return *st.media, nil
}

// SetMedia applies a sparse change to a media player. For a source bound to
// a receiver, volume and mute go to the receiver, powering the source on
// wakes the receiver on the bound input, and powering it off takes the
// receiver down too. For a primary, each field goes to the member of the
// merged device that carries it (applyMerged).
func (s *Service) SetMedia(ctx context.Context, ref string, p MediaPatch) (Media, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return Media{}, err
	}
	if err := checkMediaPatch(p); err != nil {
		return Media{}, err
	}
	inv, rec, err := find(ctx, s, ref, inventory.player)
	if err != nil {
		return Media{}, err
	}
	if p.Transport != nil && *p.Transport == TransportToggle {
		t := s.toggled(s.playbackMember(inv, rec))
		p.Transport = &t
	}
	u := s.undoable(ctx, "media "+rec.Name)
	if p.Power != nil || p.Volume != nil || p.Source != nil || p.Mute != nil {
		s.captureMediaChange(ctx, u, rec)
	}
	err = s.applyMerged(ctx, u, inv, rec, p)
	s.audit(ctx, "media.set", rec.Name, err, mediaSummary(p))
	if err != nil {
		return Media{}, err
	}
	s.keep(ctx, u)
	return s.mediaChanged(ctx, rec, false), nil
}

// toggled is what "toggle" means for a player now: pause while it plays,
// play otherwise.
func (s *Service) toggled(rec DeviceRecord) string {
	if st := s.model.state(rec.ID).media; st != nil && st.Transport == devices.TransportPlaying {
		return "pause"
	}
	return "play"
}

// mediaChanged publishes and returns a player's view after a command.
// read is for commands that give no state back: the player is read first.
func (s *Service) mediaChanged(ctx context.Context, rec DeviceRecord, read bool) Media {
	if read {
		s.readNow(ctx, rec.ID)
	}
	inv, _ := s.inventory(ctx)
	if r, ok := inv.byID(rec.ID); ok {
		rec = r
	}
	s.publishDevice(rec.ID)
	return s.mediaView(inv, rec)
}

// captureMediaChange records, for undo, a player and the receiver it is
// bound to.
func (s *Service) captureMediaChange(ctx context.Context, u *undoLog, rec DeviceRecord) {
	s.capture(u, rec)
	if recv, ok := s.boundReceiver(ctx, rec); ok {
		s.capture(u, recv)
	}
}

func checkMediaPatch(p MediaPatch) error {
	if p.Power == nil && p.Volume == nil && p.Mute == nil && p.Source == nil && p.Transport == nil {
		return Listf(EINVALID, "nothing to change: give ", []string{"power", "volume", "mute", "source", "transport"}, "or", "")
	}
	if p.Volume != nil && (*p.Volume < 0 || *p.Volume > 100) {
		return Errorf(EINVALID, "volume %d is out of range: use 0–100", *p.Volume).With("min", 0).With("max", 100)
	}
	if p.Transport != nil && !slices.Contains(TransportCommands, *p.Transport) {
		return Errorf(EINVALID, "The transport command %q is not one the hub knows; valid: %s", wording.Clip(*p.Transport), strings.Join(TransportCommands, ", ")).
			With("options", TransportCommands)
	}
	if p.Source != nil && strings.TrimSpace(*p.Source) == "" {
		return Errorf(EINVALID, "source may not be empty")
	}
	return nil
}

// applyMedia routes a patch through the receiver binding and sends it.
func (s *Service) applyMedia(ctx context.Context, rec DeviceRecord, p MediaPatch) (devices.MediaState, error) {
	if err := controllable(rec); err != nil {
		return devices.MediaState{}, err
	}
	recv, bound := s.boundReceiver(ctx, rec)
	if !bound {
		return s.sendMedia(ctx, rec, p)
	}
	toRecv := receiverPatch(rec, p)
	p.Volume, p.Mute = nil, nil
	var st devices.MediaState
	var err error
	if p.Power != nil || p.Source != nil || p.Transport != nil {
		if st, err = s.sendMedia(ctx, rec, p); err != nil {
			return st, err
		}
	}
	if toRecv.Power != nil || toRecv.Volume != nil || toRecv.Mute != nil {
		if _, err := s.sendMedia(ctx, recv, toRecv); err != nil {
			return st, err
		}
	}
	return st, nil
}

// receiverPatch is the part of p a source bound to a receiver sends the
// receiver: volume and mute, and power, on the bound input when on.
func receiverPatch(rec DeviceRecord, p MediaPatch) MediaPatch {
	toRecv := MediaPatch{Volume: p.Volume, Mute: p.Mute, Power: p.Power}
	if p.Power != nil && *p.Power {
		if in := rec.Settings[settingReceiverInput]; in != "" {
			toRecv.Source = &in
		}
	}
	return toRecv
}

func (s *Service) boundReceiver(ctx context.Context, rec DeviceRecord) (DeviceRecord, bool) {
	id := rec.Settings[settingReceiver]
	if id == "" {
		return DeviceRecord{}, false
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return DeviceRecord{}, false
	}
	return inv.byID(devices.ID(id))
}

// sendMedia sends one patch to one player through its command worker.
func (s *Service) sendMedia(ctx context.Context, rec DeviceRecord, p MediaPatch) (devices.MediaState, error) {
	get := s.live
	if p.Power != nil && *p.Power {
		get = s.wakeable // a TV asleep off the network is woken first
	}
	d, err := get(rec)
	if err != nil {
		return devices.MediaState{}, err
	}
	mp, ok := d.(devices.MediaPlayer)
	if !ok {
		return devices.MediaState{}, aboutf(EUNSUPPORTED, "%s is not a media player", rec.Name)
	}
	c := devices.MediaChange{Power: p.Power, Volume: p.Volume, Mute: p.Mute, Transport: p.Transport}
	if p.Source != nil {
		src, err := s.matchSource(ctx, rec, mp, *p.Source)
		if err != nil {
			return devices.MediaState{}, err
		}
		c.Source = &src
	}
	st, err := devices.Call(ctx, s.reg, rec.ID, "", func(ctx context.Context) (devices.MediaState, error) {
		st, err := mp.SetMedia(ctx, c)
		if err == nil {
			s.noteArtwork(rec.ID, &st)
			s.record(rec.ID, func(ds *deviceState) { ds.media = &st })
		}
		return st, err
	})
	if err != nil {
		return st, wrapDevice(rec.Name, err)
	}
	return st, nil
}

// matchSource resolves a source name against the player's sources, as
// last reported (read now when the model has none).
func (s *Service) matchSource(ctx context.Context, rec DeviceRecord, mp devices.MediaPlayer, src string) (string, error) {
	st, err := s.knownMedia(rec)
	if err != nil {
		rctx, cancel := s.readCtx(ctx)
		defer cancel()
		if st, err = mp.MediaState(rctx); err != nil {
			return "", deviceError(rec.Name, err)
		}
	}
	if len(st.Sources) == 0 {
		return src, nil
	}
	self := func(v string) string { return v }
	return valueOf(resolve(rec.Name+" source", src, st.Sources, self, self))
}

// valueOf is a resolution of a value a command carries (a source, an
// input): one that matches nothing is invalid input, not a missing target.
func valueOf[T any](v T, err error) (T, error) {
	var e *Error
	if errors.As(err, &e) && e.Code == ENOTFOUND {
		e.Code = EINVALID
	}
	return v, err
}

func mediaSummary(p MediaPatch) string {
	var f []string
	if p.Power != nil {
		f = append(f, "power="+boolText(*p.Power))
	}
	if p.Volume != nil {
		f = append(f, "volume="+itoa(*p.Volume))
	}
	if p.Mute != nil {
		f = append(f, "mute="+boolText(*p.Mute))
	}
	if p.Source != nil {
		f = append(f, "source="+*p.Source)
	}
	if p.Transport != nil {
		f = append(f, "transport="+*p.Transport)
	}
	return strings.Join(f, " ")
}

// Favorites lists a player's favourites, as last read.
func (s *Service) Favorites(ctx context.Context, ref string) ([]devices.Favorite, error) {
	inv, rec, err := findFor(ctx, s, ScopeRead, ref, inventory.player)
	if err != nil {
		return nil, err
	}
	rec = s.memberWith(inv, rec, hasFavorites)
	if !inv.capsOf(rec).Favorites {
		return nil, aboutf(EUNSUPPORTED, "%s has no favourites", rec.Name)
	}
	st := s.model.state(rec.ID)
	if !st.online || st.favorites == nil {
		return nil, aboutf(EUNREACHABLE, "%s is offline", rec.Name)
	}
	return st.favorites, nil
}

// favorites reads a player's favourites from the device, and keeps them.
func (s *Service) favorites(ctx context.Context, rec DeviceRecord) (devices.FavoritePlayer, []devices.Favorite, error) {
	d, err := s.live(rec)
	if err != nil {
		return nil, nil, err
	}
	fp, ok := d.(devices.FavoritePlayer)
	if !ok {
		return nil, nil, aboutf(EUNSUPPORTED, "%s has no favourites", rec.Name)
	}
	rctx, cancel := s.readCtx(ctx)
	defer cancel()
	favs, err := fp.Favorites(rctx)
	if err != nil {
		return nil, nil, deviceError(rec.Name, err)
	}
	favs = nonNil(favs)
	now := s.now()
	s.model.update(rec.ID, func(st *deviceState) { st.favorites, st.favoritesAt = favs, now })
	return fp, favs, nil
}

// PlayFavorite plays a favourite given by id, title or unique part of a
// title. The favourites as last read are tried first; a name they lack is
// looked for again on the player.
func (s *Service) PlayFavorite(ctx context.Context, ref, favorite string) (Media, error) {
	inv, rec, err := findFor(ctx, s, ScopeControl, ref, inventory.player)
	if err != nil {
		return Media{}, err
	}
	if err := controllable(rec); err != nil {
		return Media{}, err
	}
	dev := s.memberWith(inv, rec, hasFavorites) // a companion's favourites play on it
	fav, fp, err := s.findFavorite(ctx, dev, favorite)
	if err == nil {
		err = s.reg.Do(ctx, dev.ID, "", func(ctx context.Context) error { return fp.PlayFavorite(ctx, fav.ID) })
		err = wrapDevice(rec.Name, err)
	}
	s.audit(ctx, "media.play_favorite", rec.Name, err, fav.Title)
	if err != nil {
		return Media{}, err
	}
	if dev.ID != rec.ID {
		s.readNow(ctx, dev.ID)
	}
	return s.mediaChanged(ctx, rec, true), nil
}

func (s *Service) findFavorite(ctx context.Context, rec DeviceRecord, favorite string) (devices.Favorite, devices.FavoritePlayer, error) {
	byID := func(f devices.Favorite) string { return f.ID }
	byTitle := func(f devices.Favorite) string { return f.Title }
	if known := s.model.state(rec.ID).favorites; known != nil {
		if fav, err := resolve("favourite", favorite, known, byID, byTitle); err == nil {
			if d, err := s.live(rec); err == nil {
				if fp, ok := d.(devices.FavoritePlayer); ok {
					return fav, fp, nil
				}
			}
		}
	}
	fp, favs, err := s.favorites(ctx, rec)
	if err != nil {
		return devices.Favorite{}, nil, err
	}
	fav, err := valueOf(resolve("favourite", favorite, favs, byID, byTitle))
	return fav, fp, err
}

// Cast plays content (a URL or a provider's id) of a given type.
func (s *Service) Cast(ctx context.Context, ref, contentID, contentType string) (Media, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return Media{}, err
	}
	if strings.TrimSpace(contentID) == "" {
		return Media{}, Errorf(EINVALID, "Give content_id: a URL or a provider's content id")
	}
	if !slices.Contains(CastTypes, contentType) {
		return Media{}, Errorf(EINVALID, "The content type %q is not valid; valid: %s", wording.Clip(contentType), strings.Join(CastTypes, ", ")).
			With("options", CastTypes)
	}
	inv, rec, err := find(ctx, s, ref, inventory.player)
	if err != nil {
		return Media{}, err
	}
	dev := s.memberWith(inv, rec, canCast) // a companion that casts does it for its primary
	err = s.cast(ctx, dev, contentID, contentType)
	s.audit(ctx, "media.cast", rec.Name, err, contentType+" "+contentID)
	if err != nil {
		return Media{}, err
	}
	if dev.ID != rec.ID {
		s.readNow(ctx, dev.ID)
	}
	return s.mediaChanged(ctx, rec, true), nil
}

func (s *Service) cast(ctx context.Context, rec DeviceRecord, id, typ string) error {
	if err := controllable(rec); err != nil {
		return err
	}
	d, err := s.live(rec)
	if err != nil {
		return err
	}
	c, ok := d.(devices.Caster)
	if !ok {
		return aboutf(EUNSUPPORTED, "%s cannot play cast content", rec.Name)
	}
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", func(ctx context.Context) error { return c.Cast(ctx, id, typ) }))
}

// Group makes each of members play in sync with the speaker ref.
func (s *Service) Group(ctx context.Context, ref string, members []string) (FanoutResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return FanoutResult{}, err
	}
	if len(members) == 0 {
		return FanoutResult{}, Errorf(EINVALID, "name at least one speaker to join the group")
	}
	inv, coord, err := find(ctx, s, ref, inventory.player)
	if err != nil {
		return FanoutResult{}, err
	}
	speakers := inv.where(func(c capsRecord) bool { return c.Group })
	var targets []DeviceRecord
	for _, m := range members {
		rec, err := resolve("speaker", m, speakers, recID, recName)
		if err != nil {
			return FanoutResult{}, err
		}
		if rec.ID == coord.ID {
			return FanoutResult{}, aboutf(EINVALID, "%s cannot join its own group", rec.Name)
		}
		targets = append(targets, rec)
	}
	if !inv.capsOf(coord).Group {
		return FanoutResult{}, aboutf(EUNSUPPORTED, "%s cannot lead a speaker group", coord.Name)
	}
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		return s.joinGroup(ctx, rec, coord.ID)
	})
	s.audit(ctx, "media.group", coord.Name, res.err(), strings.Join(members, ", "))
	for _, t := range targets {
		s.readNow(ctx, t.ID)
	}
	s.mediaChanged(ctx, coord, true)
	return res, nil
}

func (s *Service) joinGroup(ctx context.Context, rec DeviceRecord, coord devices.ID) error {
	if err := controllable(rec); err != nil {
		return err
	}
	g, err := s.grouper(rec)
	if err != nil {
		return err
	}
	return wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", func(ctx context.Context) error { return g.JoinGroup(ctx, coord) }))
}

func (s *Service) grouper(rec DeviceRecord) (devices.Grouper, error) {
	d, err := s.live(rec)
	if err != nil {
		return nil, err
	}
	g, ok := d.(devices.Grouper)
	if !ok {
		return nil, aboutf(EUNSUPPORTED, "%s cannot be grouped", rec.Name)
	}
	return g, nil
}

// Ungroup makes a speaker play alone again.
func (s *Service) Ungroup(ctx context.Context, ref string) (Media, error) {
	_, rec, err := findFor(ctx, s, ScopeControl, ref, inventory.player)
	if err != nil {
		return Media{}, err
	}
	err = controllable(rec)
	var g devices.Grouper
	if err == nil {
		g, err = s.grouper(rec)
	}
	if err == nil {
		err = wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", func(ctx context.Context) error { return g.LeaveGroup(ctx) }))
	}
	s.audit(ctx, "media.ungroup", rec.Name, err, "")
	if err != nil {
		return Media{}, err
	}
	return s.mediaChanged(ctx, rec, true), nil
}

// BindReceiver routes a source's volume and power through a receiver, on
// one of its inputs. An empty receiver removes the binding. A source cannot
// be bound to itself, nor to a receiver that is itself bound.
func (s *Service) BindReceiver(ctx context.Context, ref, receiver, input string) (Media, error) {
	inv, rec, err := findFor(ctx, s, ScopeControl, ref, inventory.player)
	if err != nil {
		return Media{}, err
	}
	recvID, in, err := s.checkBinding(ctx, inv, rec, receiver, input)
	if err == nil {
		err = s.store.SetDeviceSetting(ctx, rec.ID, settingReceiver, string(recvID))
	}
	if err == nil {
		err = s.store.SetDeviceSetting(ctx, rec.ID, settingReceiverInput, in)
	}
	s.audit(ctx, "media.bind_receiver", rec.Name, err, receiver+" "+in)
	if err != nil {
		return Media{}, err
	}
	return s.mediaChanged(ctx, rec, false), nil
}

func (s *Service) checkBinding(ctx context.Context, inv inventory, rec DeviceRecord, receiver, input string) (devices.ID, string, error) {
	if strings.TrimSpace(receiver) == "" {
		return "", "", nil
	}
	players := inv.where(func(c capsRecord) bool { return c.Media })
	recv, err := valueOf(resolve("receiver", receiver, players, recID, recName))
	if err != nil {
		return "", "", err
	}
	switch {
	case recv.ID == rec.ID:
		return "", "", aboutf(EINVALID, "%s cannot be bound to itself", rec.Name)
	case recv.Settings[settingReceiver] != "":
		return "", "", aboutf(EINVALID, "%s is itself bound to a receiver; bind %s to that receiver instead", recv.Name, rec.Name)
	}
	for _, other := range players {
		if other.Settings[settingReceiver] == string(rec.ID) {
			return "", "", aboutf(EINVALID, "%s is a receiver for %s, so it cannot be bound to another", rec.Name, other.Name)
		}
	}
	if strings.TrimSpace(input) == "" {
		return recv.ID, "", nil
	}
	st, err := s.knownMedia(recv)
	if err != nil || len(st.Sources) == 0 {
		return recv.ID, input, nil // checked when the receiver answers
	}
	self := func(v string) string { return v }
	in, err := valueOf(resolve(recv.Name+" input", input, st.Sources, self, self))
	return recv.ID, in, err
}

// Check refuses a patch no player could take (what SetMedia refuses
// before it asks a player).
func (p MediaPatch) Check() error { return checkMediaPatch(p) }
