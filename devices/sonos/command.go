package sonos

import (
	"context"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// AVTransport faults that mean something to a user.
const (
	faultTransition = 701 // e.g. Next on radio, Play with nothing to play
	faultNoContents = 702
)

var transportCommands = []string{"play", "pause", "stop", "next", "previous"}

// SetMedia applies a sparse change. Volume and mute are the player's own.
// Power is play (on) and pause (off); power and transport commands act on
// the player's group, through its coordinator. Choosing a source makes a
// follower leave its group first, as on the Sonos app.
func (s *Speaker) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	if err := s.checkChange(c); err != nil {
		return devices.MediaState{}, err
	}
	if !s.Online() {
		return devices.MediaState{}, errOffline
	}
	if err := s.applyRendering(ctx, c); err != nil {
		return devices.MediaState{}, err
	}
	target := s.coordinator()
	if c.Source != nil {
		if err := s.selectSource(ctx, *c.Source); err != nil {
			return devices.MediaState{}, err
		}
		target = s
	}
	if c.Power != nil {
		cmd := map[bool]string{true: "play", false: "pause"}[*c.Power]
		if err := target.transport(ctx, cmd); err != nil {
			return devices.MediaState{}, err
		}
	}
	if c.Transport != nil {
		if err := target.transport(ctx, strings.ToLower(*c.Transport)); err != nil {
			return devices.MediaState{}, err
		}
	}
	return s.state(), nil
}

func (s *Speaker) checkChange(c devices.MediaChange) error {
	if c.Volume != nil && (*c.Volume < 0 || *c.Volume > 100) {
		return devices.Invalid(nil, "volume %d is outside 0–100", *c.Volume)
	}
	if c.Transport != nil && !slices.Contains(transportCommands, strings.ToLower(*c.Transport)) {
		return devices.Invalid(nil, "transport %q is not one of %s", *c.Transport, strings.Join(transportCommands, ", "))
	}
	if c.Source != nil && s.source(*c.Source) == "" {
		return devices.Invalid(nil, "source %q is not one of %s", *c.Source, strings.Join(s.sources, ", "))
	}
	return nil
}

// source finds one of the player's sources by name, in any case.
func (s *Speaker) source(name string) string {
	for _, src := range s.sources {
		if strings.EqualFold(src, strings.TrimSpace(name)) {
			return src
		}
	}
	return ""
}

// applyRendering sets the player's own volume and mute.
func (s *Speaker) applyRendering(ctx context.Context, c devices.MediaChange) error {
	master := upnp.Arg{Name: "Channel", Value: "Master"}
	if c.Volume != nil {
		v := strconv.Itoa(*c.Volume)
		if _, err := s.call(ctx, upnp.RenderingControl, "SetVolume", instance, master, upnp.Arg{Name: "DesiredVolume", Value: v}); err != nil {
			return err
		}
		s.mu.Lock()
		s.volume = *c.Volume
		s.mu.Unlock()
	}
	if c.Mute != nil {
		v := map[bool]string{true: "1", false: "0"}[*c.Mute]
		if _, err := s.call(ctx, upnp.RenderingControl, "SetMute", instance, master, upnp.Arg{Name: "DesiredMute", Value: v}); err != nil {
			return err
		}
		s.mu.Lock()
		s.muted = *c.Mute
		s.mu.Unlock()
	}
	return nil
}

// selectSource plays one of the player's own sources; a follower leaves
// its group by doing so.
func (s *Speaker) selectSource(ctx context.Context, name string) error {
	var uri string
	switch s.source(name) {
	case SourceQueue:
		uri = upnp.QueueURI(s.uuid)
	case SourceLineIn:
		uri = upnp.LineInURI(s.uuid)
	case SourceTV:
		uri = upnp.TVURI(s.uuid)
	}
	if err := s.setURI(ctx, uri, ""); err != nil {
		return err
	}
	s.a.setCoordinator(s.uuid, s.uuid)
	return s.transport(ctx, "play")
}

// setURI sets the transport URI (and its metadata) of the player.
func (s *Speaker) setURI(ctx context.Context, uri, meta string) error {
	_, err := s.call(ctx, upnp.AVTransport, "SetAVTransportURI", instance,
		upnp.Arg{Name: "CurrentURI", Value: uri}, upnp.Arg{Name: "CurrentURIMetaData", Value: meta})
	if err != nil {
		return err
	}
	station := ""
	if it, err := upnp.ParseItem(meta); err == nil {
		station = it.Title
	}
	s.mu.Lock()
	s.av.uri, s.av.station, s.av.track = uri, station, upnp.Item{}
	s.mu.Unlock()
	s.stale()
	return nil
}

// transport sends a transport command to the player (a coordinator).
// Pausing what cannot pause (a live stream) stops it; pausing or stopping
// what is not playing is no error.
func (s *Speaker) transport(ctx context.Context, cmd string) error {
	args := []upnp.Arg{instance}
	action := strings.ToUpper(cmd[:1]) + cmd[1:]
	if cmd == "play" {
		args = append(args, upnp.Arg{Name: "Speed", Value: "1"})
	}
	_, err := s.call(ctx, upnp.AVTransport, action, args...)
	code := upnp.FaultCode(err)
	switch {
	case code == faultTransition && cmd == "pause":
		_, err = s.call(ctx, upnp.AVTransport, "Stop", instance)
		if upnp.FaultCode(err) == faultTransition {
			err = nil
		}
	case code == faultTransition && cmd == "stop":
		err = nil
	case (code == faultTransition || code == faultNoContents) && cmd == "play":
		return devices.Invalid(nil, "there is nothing to play")
	case code == faultTransition:
		return devices.Unsupported(nil, "what it plays has no tracks to skip")
	}
	if err != nil {
		return err
	}
	s.expect(cmd)
	return nil
}

// expect records the transport state a command leads to, until the
// player's events (or the next poll) say what it really is.
func (s *Speaker) expect(cmd string) {
	next := map[string]string{"play": "PLAYING", "pause": "PAUSED_PLAYBACK", "stop": "STOPPED", "next": "PLAYING", "previous": "PLAYING"}[cmd]
	s.mu.Lock()
	changed := s.av.transport != next
	s.av.transport = next
	s.mu.Unlock()
	s.stale()
	if changed {
		for _, f := range s.a.followers(s.uuid) {
			s.a.cfg.Registry.Changed(f.info.ID)
		}
	}
}

// stale makes the next read poll, unless events keep the state current.
func (s *Speaker) stale() {
	s.mu.Lock()
	s.polledAt = time.Time{}
	s.mu.Unlock()
}

// JoinGroup makes the player follow coordinator, another player of the
// adapter. A coordinator that itself follows a player is followed through
// that player.
func (s *Speaker) JoinGroup(ctx context.Context, coordinator devices.ID) error {
	uuid, ok := strings.CutPrefix(string(coordinator), AdapterName+":")
	target := s.a.speaker(uuid)
	switch {
	case !ok || target == nil:
		return devices.Invalid(nil, "%s is not a Sonos player it can group with", coordinator)
	case target == s:
		return devices.Invalid(nil, "a player cannot follow itself")
	}
	lead := s.a.coordinatorOf(target.uuid)
	if lead == s.uuid {
		return devices.Invalid(nil, "%s already follows it; ungroup %s first", target.info.Name, target.info.Name)
	}
	if _, err := s.call(ctx, upnp.AVTransport, "SetAVTransportURI", instance,
		upnp.Arg{Name: "CurrentURI", Value: upnp.GroupURI(lead)}, upnp.Arg{Name: "CurrentURIMetaData"}); err != nil {
		return err
	}
	s.a.setCoordinator(s.uuid, lead)
	return nil
}

// LeaveGroup makes the player play alone again.
func (s *Speaker) LeaveGroup(ctx context.Context) error {
	if _, err := s.call(ctx, upnp.AVTransport, "BecomeCoordinatorOfStandaloneGroup", instance); err != nil {
		return err
	}
	s.a.setCoordinator(s.uuid, s.uuid)
	s.stale()
	return nil
}

// Cast plays a URL (or a Sonos URI) on the player's group: music and URLs
// directly, a playlist through the queue. A player has no screen, so video
// and images are not supported.
func (s *Speaker) Cast(ctx context.Context, contentID, contentType string) error {
	contentID = strings.TrimSpace(contentID)
	if contentID == "" {
		return devices.Invalid(nil, "nothing to cast: the content id is empty")
	}
	switch strings.ToLower(contentType) {
	case "music", "url":
	case "playlist":
		return s.coordinator().playQueued(ctx, contentID, upnp.Metadata(titleOf(contentID), upnp.ClassTrack))
	default:
		return devices.Unsupported(nil, "a speaker cannot play %s", contentType)
	}
	class := upnp.ClassTrack
	if upnp.KindOf(contentID) == upnp.URIRadio {
		class = upnp.ClassBroadcast
	}
	return s.coordinator().playDirect(ctx, contentID, upnp.Metadata(titleOf(contentID), class))
}

// titleOf is a readable title for a URL: its last path element.
func titleOf(contentID string) string {
	u, err := url.Parse(contentID)
	if err != nil || u.Path == "" {
		return contentID
	}
	if base := path.Base(u.Path); base != "/" && base != "." {
		return base
	}
	return contentID
}

// playDirect plays a URI as the transport URI.
func (s *Speaker) playDirect(ctx context.Context, uri, meta string) error {
	if err := s.setURI(ctx, uri, meta); err != nil {
		return err
	}
	return s.transport(ctx, "play")
}

// playQueued replaces the queue with a URI (a container, a playlist, a
// track) and plays it from the first track.
func (s *Speaker) playQueued(ctx context.Context, uri, meta string) error {
	if _, err := s.call(ctx, upnp.AVTransport, "RemoveAllTracksFromQueue", instance); err != nil {
		return err
	}
	if _, err := s.call(ctx, upnp.AVTransport, "AddURIToQueue", instance,
		upnp.Arg{Name: "EnqueuedURI", Value: uri}, upnp.Arg{Name: "EnqueuedURIMetaData", Value: meta},
		upnp.Arg{Name: "DesiredFirstTrackNumberEnqueued", Value: "0"}, upnp.Arg{Name: "EnqueueAsNext", Value: "0"}); err != nil {
		return err
	}
	if err := s.setURI(ctx, upnp.QueueURI(s.uuid), ""); err != nil {
		return err
	}
	if _, err := s.call(ctx, upnp.AVTransport, "Seek", instance,
		upnp.Arg{Name: "Unit", Value: "TRACK_NR"}, upnp.Arg{Name: "Target", Value: "1"}); err != nil {
		return err
	}
	if it, err := upnp.ParseItem(meta); err == nil {
		s.mu.Lock()
		s.av.track = it
		s.mu.Unlock()
	}
	return s.transport(ctx, "play")
}
