package hass

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// media_player supported_features bits (MediaPlayerEntityFeature).
const (
	mpPause        = 1 << 0
	mpVolumeSet    = 1 << 2
	mpVolumeMute   = 1 << 3
	mpPrevious     = 1 << 4
	mpNext         = 1 << 5
	mpTurnOn       = 1 << 7
	mpTurnOff      = 1 << 8
	mpPlayMedia    = 1 << 9
	mpVolumeStep   = 1 << 10
	mpSelectSource = 1 << 11
	mpStop         = 1 << 12
	mpPlay         = 1 << 14
	mpGrouping     = 1 << 19
)

var _ devices.ArtworkFetcher = (*media)(nil)

// media is a media_player entity. Whether it casts or groups depends on
// its supported features, so it comes as one of four types (newMedia):
// the hub learns what a device can do from the interfaces it implements.
type media struct {
	*entity
	features int
}

type castingMedia struct{ *media }
type groupingMedia struct{ *media }
type castingGroupingMedia struct{ *media }

func (m castingMedia) Cast(ctx context.Context, id, typ string) error { return m.cast(ctx, id, typ) }
func (m castingGroupingMedia) Cast(ctx context.Context, id, typ string) error {
	return m.cast(ctx, id, typ)
}
func (m groupingMedia) JoinGroup(ctx context.Context, c devices.ID) error { return m.join(ctx, c) }
func (m groupingMedia) LeaveGroup(ctx context.Context) error              { return m.leave(ctx) }
func (m castingGroupingMedia) JoinGroup(ctx context.Context, c devices.ID) error {
	return m.join(ctx, c)
}
func (m castingGroupingMedia) LeaveGroup(ctx context.Context) error { return m.leave(ctx) }

func newMedia(e *entity, st State) devices.Device {
	m := &media{entity: e, features: features(st)}
	cast, group := m.features&mpPlayMedia != 0, m.features&mpGrouping != 0
	switch {
	case cast && group:
		return castingGroupingMedia{m}
	case cast:
		return castingMedia{m}
	case group:
		return groupingMedia{m}
	}
	return m
}

func (m *media) Info() devices.Info { return m.info(devices.KindMedia) }
func (m *media) shape() string      { return fmt.Sprint(m.features, m.MediaClass()) }

// MediaClass is HA's device class: tv, speaker or receiver.
func (m *media) MediaClass() string {
	switch attrString(m.state(), "device_class") {
	case "tv":
		return devices.MediaTV
	case "receiver":
		return devices.MediaReceiver
	}
	return devices.MediaSpeaker
}

func (m *media) MediaState(context.Context) (devices.MediaState, error) {
	return mediaStateOf(m.state()), nil
}

func mediaStateOf(st State) devices.MediaState {
	var ms devices.MediaState
	switch st.State {
	case "off", "standby", "unavailable", "unknown":
	default: // on, idle, playing, paused, buffering
		ms.Power = true
	}
	if v, ok := attrNumber(st, "volume_level"); ok {
		ms.Volume = max(0, min(100, int(math.Round(v*100))))
	}
	ms.Muted, _ = attrBool(st, "is_volume_muted")
	ms.Source = attrString(st, "source")
	ms.Sources = attrStrings(st, "source_list")
	switch st.State {
	case "playing", "buffering":
		ms.Transport = devices.TransportPlaying
	case "paused":
		ms.Transport = devices.TransportPaused
	case "idle", "on":
		ms.Transport = devices.TransportStopped
	}
	np := devices.NowPlaying{Title: attrString(st, "media_title"), Artist: attrString(st, "media_artist"),
		Album: attrString(st, "media_album_name"), App: attrString(st, "app_name")}
	if np != (devices.NowPlaying{}) && ms.Power {
		np.ArtworkURL, np.Progress = attrString(st, "entity_picture"), progressOf(st)
		ms.NowPlaying = &np
	}
	if members := attrStrings(st, "group_members"); len(members) > 1 && members[0] != st.EntityID && slices.Contains(members, st.EntityID) {
		ms.GroupCoordinator = devices.ID(AdapterName + ":" + members[0])
	}
	return ms
}

// progressOf reads media_position (seconds, valid at
// media_position_updated_at) and media_duration; nil without a position.
func progressOf(st State) *devices.Progress {
	pos, ok := attrNumber(st, "media_position")
	if !ok || pos < 0 || math.IsInf(pos, 0) {
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, attrString(st, "media_position_updated_at"))
	if err != nil {
		if at, err = time.Parse(time.RFC3339Nano, st.LastUpdated); err != nil {
			return nil
		}
	}
	p := &devices.Progress{Position: secs(pos), At: at}
	if d, ok := attrNumber(st, "media_duration"); ok && d > 0 && !math.IsInf(d, 0) {
		p.Duration = secs(d)
	}
	return p
}

func secs(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Second))) }

// FetchArtwork reads the entity's picture: a path on HA (its media
// proxy) with the bridge's token, or an absolute URL an integration gave,
// without it, so the token goes to HA only.
func (m *media) FetchArtwork(ctx context.Context, raw string, max int64) ([]byte, string, error) {
	if !strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "//") {
		return devices.HTTPArtwork{Client: m.a.client.web}.FetchArtwork(ctx, raw, max)
	}
	resp, err := m.a.client.Get(ctx, raw)
	if err != nil {
		return nil, "", devices.Unreachable(err, "fetching the picture")
	}
	defer resp.Body.Close()
	return devices.ReadArtwork(resp.Body, resp.Header.Get("Content-Type"), max)
}

// SetMedia applies the change one service call at a time, in the order a
// person would: power, source, volume, mute, transport. Each waits for HA
// to report it.
func (m *media) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	steps, err := m.plan(c)
	if err != nil {
		return devices.MediaState{}, err
	}
	for _, s := range steps {
		if _, err := m.call(ctx, "media_player", s.service, s.data, s.done); err != nil {
			return mediaStateOf(m.state()), err
		}
	}
	return mediaStateOf(m.state()), nil
}

type mediaStep struct {
	service string
	data    map[string]any
	done    func(State) bool
}

// plan checks the change against what the player supports and turns it
// into service calls.
func (m *media) plan(c devices.MediaChange) ([]mediaStep, error) {
	var steps []mediaStep
	need := func(bit int, what string) error {
		if m.features&bit == 0 {
			return devices.Unsupported(nil, "cannot %s through Home Assistant", what)
		}
		return nil
	}
	if c.Power != nil {
		on := *c.Power
		bit, service, what := mpTurnOff, "turn_off", "turn off"
		if on {
			bit, service, what = mpTurnOn, "turn_on", "turn on"
		}
		if err := need(bit, what); err != nil {
			return nil, err
		}
		steps = append(steps, mediaStep{service, nil, func(st State) bool { return mediaStateOf(st).Power == on }})
	}
	if c.Source != nil {
		if err := need(mpSelectSource, "choose a source"); err != nil {
			return nil, err
		}
		src, err := m.source(*c.Source)
		if err != nil {
			return nil, err
		}
		steps = append(steps, mediaStep{"select_source", map[string]any{"source": src}, func(st State) bool { return attrString(st, "source") == src }})
	}
	if c.Volume != nil {
		if err := need(mpVolumeSet, "set the volume"); err != nil {
			return nil, err
		}
		v := *c.Volume
		steps = append(steps, mediaStep{"volume_set", map[string]any{"volume_level": float64(v) / 100},
			func(st State) bool { return abs(mediaStateOf(st).Volume-v) <= 1 }})
	}
	if c.Mute != nil {
		if err := need(mpVolumeMute, "mute"); err != nil {
			return nil, err
		}
		mute := *c.Mute
		steps = append(steps, mediaStep{"volume_mute", map[string]any{"is_volume_muted": mute},
			func(st State) bool { return mediaStateOf(st).Muted == mute }})
	}
	if c.Transport != nil {
		s, err := m.transport(*c.Transport)
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// source finds the source named in source_list, in any case.
func (m *media) source(name string) (string, error) {
	list := attrStrings(m.state(), "source_list")
	for _, s := range list {
		if strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(name)) {
			return s, nil
		}
	}
	return "", devices.Invalid(nil, "no source %q; it has %s", name, strings.Join(list, ", "))
}

func (m *media) transport(t string) (mediaStep, error) {
	type op struct {
		bit          int
		service, why string
		state        string // the state it leads to; "" when none is sure
	}
	ops := map[string]op{
		"play":     {mpPlay, "media_play", "play", "playing"},
		"pause":    {mpPause, "media_pause", "pause", "paused"},
		"stop":     {mpStop, "media_stop", "stop", ""},
		"next":     {mpNext, "media_next_track", "skip to the next track", ""},
		"previous": {mpPrevious, "media_previous_track", "go back a track", ""},
	}
	o, ok := ops[t]
	if !ok {
		return mediaStep{}, devices.Invalid(nil, "no transport command %q", t)
	}
	if m.features&o.bit == 0 {
		return mediaStep{}, devices.Unsupported(nil, "cannot %s through Home Assistant", o.why)
	}
	var done func(State) bool
	if o.state != "" {
		want := o.state
		done = func(st State) bool { return st.State == want }
	}
	return mediaStep{o.service, nil, done}, nil
}

// cast plays content with media_player.play_media; HA answers once the
// player took it.
func (m *media) cast(ctx context.Context, id, typ string) error {
	if typ == "" {
		typ = "music"
	}
	_, err := m.call(ctx, "media_player", "play_media", map[string]any{"media_content_id": id, "media_content_type": typ}, nil)
	return err
}

// join makes this player follow coordinator, another HA player:
// media_player.join on the coordinator with this one as a member.
func (m *media) join(ctx context.Context, coordinator devices.ID) error {
	lead, ok := strings.CutPrefix(string(coordinator), AdapterName+":")
	if !ok || !strings.HasPrefix(lead, "media_player.") {
		return devices.Invalid(nil, "can group only with another Home Assistant player")
	}
	err := m.a.client.CallService(ctx, "media_player", "join", map[string]any{"group_members": []string{m.id}}, Target{EntityID: []string{lead}})
	if err != nil {
		return callError("media_player", "join", err)
	}
	return nil
}

func (m *media) leave(ctx context.Context) error {
	_, err := m.call(ctx, "media_player", "unjoin", nil, func(st State) bool { return len(attrStrings(st, "group_members")) <= 1 })
	return err
}
