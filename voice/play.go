package voice

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// defaultPlayers are the players a command without a target means: those
// playing (those paused, to resume), else the only player there is.
func (h *home) defaultPlayers(a act) []*thing {
	want := devices.TransportPlaying
	if a == actResume {
		want = devices.TransportPaused
	}
	var players, busy []*thing
	for _, t := range h.things {
		if t.media == nil {
			continue
		}
		players = append(players, t)
		if st := t.media.State; st != nil && st.Power && st.Transport == want {
			busy = append(busy, t)
		}
	}
	if len(busy) > 0 {
		return busy
	}
	if len(players) == 1 {
		return players
	}
	return nil
}

// playersFor are the players a player's command goes to. Devices named
// are taken as named. Of a room, the players that are on (playing, to
// pause), else all of them. Said nowhere in particular, or in a room
// that has none, the players that play now (are paused, to resume).
func (h *home) playersFor(sc scope, members []*thing, a act) []*thing {
	if len(sc.things) > 0 || sc.kind != "" && sc.kind != devices.KindMedia {
		return members // "stop the fan": not a player's command
	}
	players := filter(members, func(t *thing) bool { return t.media != nil })
	explicit := sc.named && !sc.fromContext
	if tvs := filter(players, (*thing).isTV); a == actOpen && len(tvs) > 0 {
		return tvs
	}
	keeps := []func(*thing) bool{isPlaying(a), isPoweredOn}
	if !explicit && isTransport(a) {
		keeps = keeps[:1] // "pause", said in a room where nothing plays: what plays elsewhere
	}
	if len(players) > 0 {
		for _, keep := range keeps {
			if on := filter(players, keep); len(on) > 0 {
				return on
			}
		}
		if explicit || a == actOpen || a == actPlay || a == actSource {
			return players
		}
	}
	if explicit {
		return players
	}
	if sc.kind == devices.KindMedia || a == actOpen {
		// "mute the tv", "launch youtube", said where there is none: the
		// house's of that kind, the one there is or those that play.
		house := scope{house: true, kind: devices.KindMedia, tv: sc.tv || a == actOpen}
		if all := h.members(house); len(all) == 1 {
			return all
		} else if on := filter(all, isPoweredOn); len(on) > 0 {
			return on
		}
	}
	return h.defaultPlayers(a)
}

// isTransport reports whether an act moves playback.
func isTransport(a act) bool {
	return a == actResume || a == actPause || a == actStop || a == actNext || a == actPrevious
}

func isPoweredOn(t *thing) bool { return t.media.State != nil && t.media.State.Power }

// isPlaying is whether a player is in the state a command acts on:
// paused, to resume; playing, for the rest.
func isPlaying(a act) func(*thing) bool {
	want := devices.TransportPlaying
	if a == actResume {
		want = devices.TransportPaused
	}
	return func(t *thing) bool {
		st := t.media.State
		return st != nil && st.Power && st.Transport == want
	}
}

// player carries out a player's command.
func (c *Commander) player(ctx context.Context, h *home, sc scope, members []*thing, in intent) (string, bool) {
	players := filter(members, func(t *thing) bool { return t.media != nil })
	if len(players) == 0 {
		if in.act == actStop && (len(sc.things) > 0 || sc.kind != "") {
			return c.power(ctx, sc, members, false) // "stop the fan"
		}
		return fmt.Sprintf("There is no player %s.", placeOf(sc)), false
	}
	if len(players) > 1 && (in.act == actPlay || in.act == actOpen || in.act == actSource) {
		players = busiest(players)
	}
	name := wording.JoinWords(names(players), "and")
	transport := func(cmd, said string) (string, bool) {
		return c.players(ctx, players, said, func(*service.Media) service.MediaPatch { return service.MediaPatch{Transport: &cmd} })
	}
	switch in.act {
	case actResume:
		return transport("play", "Playing on %s.")
	case actPause:
		return transport("pause", "Paused %s.")
	case actStop:
		return transport("stop", "Stopped %s.")
	case actNext:
		return transport("next", "Skipped to the next track on %s.")
	case actPrevious:
		return transport("previous", "Back to the previous track on %s.")
	case actVolume:
		v := in.n
		return c.players(ctx, players, "Set the volume of %s to "+fmt.Sprint(v)+".", func(*service.Media) service.MediaPatch {
			return service.MediaPatch{Volume: &v}
		})
	case actLouder, actQuieter:
		delta, word := in.n, "Turned up"
		if in.act == actQuieter {
			delta, word = -delta, "Turned down"
		}
		return c.players(ctx, players, word+" %s.", func(m *service.Media) service.MediaPatch {
			v := 0
			if m.State != nil {
				v = m.State.Volume
			}
			v = max(0, min(100, v+delta))
			return service.MediaPatch{Volume: &v}
		})
	case actMute, actUnmute:
		mute := in.act == actMute
		said := "Muted %s."
		if !mute {
			said = "Unmuted %s."
		}
		return c.players(ctx, players, said, func(*service.Media) service.MediaPatch { return service.MediaPatch{Mute: &mute} })
	case actOpen:
		return c.playOn(ctx, players, "open "+in.text)
	case actPlay:
		return c.playThing(ctx, players, in.text)
	case actSource:
		src := in.text
		return c.players(ctx, players, "Switched %s to "+src+".", func(*service.Media) service.MediaPatch { return service.MediaPatch{Source: &src} })
	}
	return fmt.Sprintf("I can't do that on %s.", name), false
}

// busiest are the players of a list that play now, or all of them.
func busiest(ts []*thing) []*thing {
	on := filter(ts, func(t *thing) bool { return t.media.State != nil && t.media.State.Power })
	if len(on) == 1 {
		return on
	}
	tvs := filter(ts, (*thing).isTV)
	if len(tvs) == 1 {
		return tvs
	}
	return ts[:1]
}

func names(ts []*thing) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.name
	}
	return out
}

// players sends a change to each player; said has a %s for their names.
func (c *Commander) players(ctx context.Context, players []*thing, said string, patch func(*service.Media) service.MediaPatch) (string, bool) {
	return c.each(ctx, fmt.Sprintf(said, wording.JoinWords(names(players), "and")), players, func(t *thing) error {
		_, err := c.house.SetMedia(ctx, t.id, patch(t.media))
		return err
	})
}

// playOn opens an app or plays a title on a TV.
func (c *Commander) playOn(ctx context.Context, players []*thing, query string) (string, bool) {
	tv := players[0]
	res, err := c.house.PlayOn(ctx, tv.id, query)
	if err != nil {
		return sayError(err), false
	}
	return strings.TrimSuffix(res.Message, ".") + ".", true
}

// playThing plays a favourite by name on a speaker, or a title on a TV.
func (c *Commander) playThing(ctx context.Context, players []*thing, what string) (string, bool) {
	p := players[0]
	if p.isTV() {
		return c.playOn(ctx, players, "play "+what)
	}
	favs, err := c.house.Favorites(ctx, p.id)
	if err != nil {
		return sayError(err), false
	}
	want := nameWords(what)
	var best *devices.Favorite
	for i, f := range favs {
		fw := nameWords(f.Title)
		if slices.Equal(fw, want) {
			best = &favs[i]
			break
		}
		if best == nil && index(fw, want...) >= 0 {
			best = &favs[i]
		}
	}
	if best == nil {
		titles := make([]string, len(favs))
		for i, f := range favs {
			titles[i] = f.Title
		}
		return fmt.Sprintf("%s has no favourite called %q; it has %s.", p.name, what, wording.JoinWords(titles, "and")), false
	}
	if _, err := c.house.PlayFavorite(ctx, p.id, best.ID); err != nil {
		return sayError(err), false
	}
	return fmt.Sprintf("Playing %s on %s.", best.Title, p.name), true
}
