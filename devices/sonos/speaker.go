package sonos

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

var (
	_ devices.MediaPlayer    = (*Speaker)(nil)
	_ devices.FavoritePlayer = (*Speaker)(nil)
	_ devices.Grouper        = (*Speaker)(nil)
	_ devices.Caster         = (*Speaker)(nil)
)

// Sources a player may offer.
const (
	SourceQueue  = "Queue"
	SourceLineIn = "Line-In"
	SourceTV     = "TV"
)

// Speaker is one Sonos player.
type Speaker struct {
	a       *Adapter
	uuid    string
	info    devices.Info
	sources []string

	mu       sync.Mutex // guards the fields below
	base     string
	online   bool
	heard    time.Time // last answer or event
	polledAt time.Time // last full read by polling
	volume   int
	muted    bool
	av       avState
	progress *devices.Progress        // the position GetPositionInfo last gave; nil when it gave none
	reading  bool                     // a position read after an event is under way
	subs     map[string]*subscription // by service name
}

// avState is what a player's AVTransport reports (a group's, on its
// coordinator).
type avState struct {
	transport string    // CurrentTransportState
	uri       string    // AVTransportURI: the source
	station   string    // title in the AVTransportURI metadata
	track     upnp.Item // the current track's metadata
}

func newSpeaker(a *Adapter, uuid, base, name string, desc upnp.Description) *Speaker {
	s := &Speaker{
		a: a, uuid: uuid, base: base, online: true, heard: time.Now(),
		info: devices.Info{
			ID: deviceID(uuid), Adapter: AdapterName, Kind: devices.KindMedia,
			Name: name, Model: desc.ModelName, Room: name,
		},
		sources: []string{SourceQueue},
		subs:    map[string]*subscription{},
	}
	if desc.HasService("AudioIn") {
		s.sources = append(s.sources, SourceLineIn)
	}
	if desc.HasService("HTControl") {
		s.sources = append(s.sources, SourceTV)
	}
	return s
}

// Info describes the player.
func (s *Speaker) Info() devices.Info { return s.info }

// Online reports whether the player answered its last exchange.
func (s *Speaker) Online() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.online
}

// UUID is the player's own id, "RINCON_…".
func (s *Speaker) UUID() string { return s.uuid }

func (s *Speaker) baseURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base
}

// moveTo points the player at a new address (DHCP gave it another one).
func (s *Speaker) moveTo(base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base != base {
		s.base = base
		s.subs = map[string]*subscription{}
	}
}

// call invokes an action on the player. It gives up a little before ctx's
// deadline, so the caller's bound sees the adapter's own error. A player
// that does not answer is marked offline.
func (s *Speaker) call(ctx context.Context, svc upnp.Service, action string, args ...upnp.Arg) (upnp.Values, error) {
	cctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	v, err := s.a.client.Call(cctx, s.baseURL(), svc, action, args...)
	if err == nil {
		s.answered()
		return v, nil
	}
	return nil, s.classify(ctx, action, err)
}

// classify turns a call's error into the devices vocabulary: a UPnP fault
// is a refusal (ErrInvalid, with the *upnp.Fault in the chain, its code
// and description said), silence or a broken connection makes the player
// unreachable.
func (s *Speaker) classify(ctx context.Context, action string, err error) error {
	var fault *upnp.Fault
	var status *upnp.StatusError
	switch {
	case errors.As(err, &fault):
		s.answered()
		return devices.Invalid(err, "refused %s: %v", action, fault)
	case errors.As(err, &status):
		s.answered()
		return fmt.Errorf("%s: %w", action, err)
	case errors.Is(ctx.Err(), context.Canceled):
		return devices.Unreachable(ctx.Err(), "%s cancelled", action)
	}
	s.setOnline(false)
	return devices.Unreachable(err, "did not answer %s", action)
}

// answered records that the player answered.
func (s *Speaker) answered() {
	s.mu.Lock()
	s.heard = time.Now()
	s.mu.Unlock()
	s.setOnline(true)
}

// setOnline records the player's availability and reports a change.
func (s *Speaker) setOnline(on bool) {
	s.mu.Lock()
	changed := s.online != on
	s.online = on
	if !on {
		s.subs = map[string]*subscription{}
	}
	s.mu.Unlock()
	if changed {
		s.a.log.Info("player availability", "player", s.info.Name, "online", on)
		s.a.cfg.Registry.Changed(s.info.ID)
	}
}

// errOffline is the error of a player the adapter knows is offline; the
// hub names the player in front of it.
var errOffline = devices.Unreachable(nil, "offline")

// MediaState reads the player's state: its own volume and mute, and its
// group's transport, source and now playing. With events flowing the
// state is the one they reported; otherwise it is polled.
func (s *Speaker) MediaState(ctx context.Context) (devices.MediaState, error) {
	if !s.Online() {
		return devices.MediaState{}, errOffline
	}
	if err := s.ensureFresh(ctx); err != nil {
		return devices.MediaState{}, err
	}
	if err := s.a.ensureTopology(ctx, s); err != nil {
		return devices.MediaState{}, err
	}
	coord := s.coordinator()
	if coord != s {
		// A coordinator that does not answer leaves its followers
		// showing what they last knew of the group.
		_ = coord.ensureFresh(ctx)
	}
	return s.state(), nil
}

// coordinator is the player whose transport this one shows.
func (s *Speaker) coordinator() *Speaker {
	if c := s.a.speaker(s.a.coordinatorOf(s.uuid)); c != nil {
		return c
	}
	return s
}

// fresh reports whether the cached state can be served: events keep it
// current, or it was polled a moment ago.
func (s *Speaker) fresh() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subscribedLocked(upnp.AVTransport) && s.subscribedLocked(upnp.RenderingControl) {
		return true
	}
	return time.Since(s.polledAt) < cacheTTL
}

func (s *Speaker) ensureFresh(ctx context.Context) error {
	if s.fresh() {
		return nil
	}
	return s.poll(ctx)
}

// poll reads the player's whole state.
func (s *Speaker) poll(ctx context.Context) error {
	rc := upnp.Arg{Name: "Channel", Value: "Master"}
	vol, err := s.call(ctx, upnp.RenderingControl, "GetVolume", instance, rc)
	if err != nil {
		return err
	}
	mute, err := s.call(ctx, upnp.RenderingControl, "GetMute", instance, rc)
	if err != nil {
		return err
	}
	av, prog, err := s.pollAV(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	changed := s.volume != vol.Int("CurrentVolume") || s.muted != (mute["CurrentMute"] == "1") || s.av != av || !s.progress.Equal(prog)
	s.volume, s.muted, s.av, s.progress = vol.Int("CurrentVolume"), mute["CurrentMute"] == "1", av, prog
	s.polledAt = time.Now()
	s.mu.Unlock()
	if changed {
		s.a.avChanged(s)
	}
	return nil
}

var instance = upnp.Arg{Name: "InstanceID", Value: "0"}

// pollAV reads transport state, source, current track and position.
func (s *Speaker) pollAV(ctx context.Context) (avState, *devices.Progress, error) {
	ti, err := s.call(ctx, upnp.AVTransport, "GetTransportInfo", instance)
	if err != nil {
		return avState{}, nil, err
	}
	pi, err := s.call(ctx, upnp.AVTransport, "GetPositionInfo", instance)
	if err != nil {
		return avState{}, nil, err
	}
	mi, err := s.call(ctx, upnp.AVTransport, "GetMediaInfo", instance)
	if err != nil {
		return avState{}, nil, err
	}
	av := avState{transport: ti["CurrentTransportState"], uri: mi["CurrentURI"]}
	av.track, _ = upnp.ParseItem(pi["TrackMetaData"])
	if station, err := upnp.ParseItem(mi["CurrentURIMetaData"]); err == nil {
		av.station = station.Title
	}
	return av, positionOf(pi, time.Now()), nil
}

// positionOf reads a GetPositionInfo answer's position, read at at: nil
// when the player gives none (RelTime NOT_IMPLEMENTED); a stream without
// an end (TrackDuration NOT_IMPLEMENTED or 0:00:00) has no duration.
func positionOf(pi upnp.Values, at time.Time) *devices.Progress {
	rel, ok := upnp.ParseTime(pi["RelTime"])
	if !ok {
		return nil
	}
	dur, _ := upnp.ParseTime(pi["TrackDuration"])
	return &devices.Progress{Position: rel, Duration: dur, At: at}
}

// readPosition reads the position again, after an event said the track or
// the transport changed (players do not send the position in events), and
// reports a change.
func (s *Speaker) readPosition(ctx context.Context) {
	pi, err := s.call(ctx, upnp.AVTransport, "GetPositionInfo", instance)
	s.mu.Lock()
	s.reading = false
	if err != nil {
		s.mu.Unlock()
		return
	}
	prog := positionOf(pi, time.Now())
	changed := !s.progress.Equal(prog)
	s.progress = prog
	s.mu.Unlock()
	if changed {
		s.a.avChanged(s)
	}
}

// readPositionSoon starts readPosition, unless one is under way.
func (s *Speaker) readPositionSoon() {
	ctx, err := s.a.life.Running()
	if err != nil {
		return
	}
	s.mu.Lock()
	busy := s.reading
	s.reading = true
	s.mu.Unlock()
	if busy {
		return
	}
	started := s.a.life.Go(func() {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		s.readPosition(ctx)
	})
	if !started {
		s.mu.Lock()
		s.reading = false
		s.mu.Unlock()
	}
}

// avChanged tells the registry that s changed, with every player that
// shows s's transport.
func (a *Adapter) avChanged(s *Speaker) {
	a.cfg.Registry.Changed(s.info.ID)
	for _, f := range a.followers(s.uuid) {
		a.cfg.Registry.Changed(f.info.ID)
	}
}

// state builds the media state from the cache.
func (s *Speaker) state() devices.MediaState {
	coord := s.coordinator()
	s.mu.Lock()
	st := devices.MediaState{Volume: s.volume, Muted: s.muted, Sources: slices.Clone(s.sources)}
	av, prog := s.av, s.progress
	s.mu.Unlock()
	if coord != s {
		coord.mu.Lock()
		av, prog = coord.av, coord.progress
		coord.mu.Unlock()
		st.GroupCoordinator = coord.info.ID
	}
	st.Transport = transportOf(av.transport)
	st.Power = st.Transport == devices.TransportPlaying
	st.Source = sourceOf(av.uri)
	st.NowPlaying = nowPlaying(av, st.Source)
	if np := st.NowPlaying; np != nil && hasTracks(av.uri) {
		np.ArtworkURL = artworkURL(coord.baseURL(), av.track.AlbumArtURI)
		if prog != nil {
			p := *prog
			np.Progress = &p
		}
	}
	return st
}

// hasTracks reports whether what a transport URI plays has tracks, with
// art and a position (an input has neither).
func hasTracks(uri string) bool {
	switch upnp.KindOf(uri) {
	case upnp.URINone, upnp.URILineIn, upnp.URITV:
		return false
	}
	return true
}

// artworkURL is a track's albumArtURI as an absolute URL: the player
// gives its own art relative to itself (/getaa?…), other art as a full
// http(s) URL. "" when there is none or it is neither.
func artworkURL(base, art string) string {
	art = strings.TrimSpace(art)
	if art == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	u, err := b.Parse(art)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

func transportOf(upnpState string) string {
	switch upnpState {
	case "PLAYING", "TRANSITIONING":
		return devices.TransportPlaying
	case "PAUSED_PLAYBACK":
		return devices.TransportPaused
	case "STOPPED", "NO_MEDIA_PRESENT":
		return devices.TransportStopped
	}
	return ""
}

// sourceOf names what a transport URI plays.
func sourceOf(uri string) string {
	switch upnp.KindOf(uri) {
	case upnp.URINone:
		return ""
	case upnp.URIQueue:
		return SourceQueue
	case upnp.URILineIn:
		return SourceLineIn
	case upnp.URITV:
		return SourceTV
	case upnp.URIRadio:
		return "Radio"
	case upnp.URIAirPlay:
		return "AirPlay"
	case upnp.URISpotify:
		return "Spotify Connect"
	case upnp.URILibrary:
		return "Music Library"
	case upnp.URIWeb:
		return "Stream"
	}
	return "Other"
}

// nowPlaying describes the current item: the track, or for radio the
// song the station announces (the station as the app) or the station
// itself.
func nowPlaying(av avState, source string) *devices.NowPlaying {
	t := av.track
	switch upnp.KindOf(av.uri) {
	case upnp.URILineIn, upnp.URITV:
		return &devices.NowPlaying{Title: source}
	case upnp.URIRadio:
		title, artist := splitStream(t.StreamContent)
		if title == "" {
			return nonEmpty(devices.NowPlaying{Title: firstOf(av.station, t.Title)})
		}
		return &devices.NowPlaying{Title: title, Artist: artist, App: av.station}
	}
	return nonEmpty(devices.NowPlaying{Title: t.Title, Artist: t.Creator, Album: t.Album})
}

func nonEmpty(np devices.NowPlaying) *devices.NowPlaying {
	if np == (devices.NowPlaying{}) {
		return nil
	}
	return &np
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// splitStream reads a station's now-playing text: "TYPE=SNG|TITLE x|ARTIST
// y|ALBUM z", or "ARTIST - TITLE".
func splitStream(s string) (title, artist string) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "|") {
		for _, f := range strings.Split(s, "|") {
			switch k, v, _ := strings.Cut(f, " "); k {
			case "TITLE":
				title = v
			case "ARTIST":
				artist = v
			}
		}
		return title, artist
	}
	if a, t, ok := strings.Cut(s, " - "); ok {
		return t, a
	}
	return s, ""
}
