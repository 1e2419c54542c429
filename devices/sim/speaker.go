package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

var (
	_ devices.MediaPlayer    = (*Speaker)(nil)
	_ devices.FavoritePlayer = (*Speaker)(nil)
	_ devices.Grouper        = (*Speaker)(nil)
	_ devices.Caster         = (*Speaker)(nil)
	_ devices.ArtworkFetcher = (*Speaker)(nil)
)

// Speaker sources.
const (
	SourceQueue  = "Queue"
	SourceRadio  = "Radio"
	SourceLineIn = "Line-In"
	SourceTV     = "TV"
)

// speakerSources are the sources of every simulated speaker.
var speakerSources = []string{SourceQueue, SourceRadio, SourceLineIn, SourceTV}

// sonosFavorites are a household's favourites unless it is given others.
// Each has the second line a Sonos player gives it, but the mix the
// household made itself.
var sonosFavorites = []devices.Favorite{
	{ID: "FV:2/3", Title: "Radio Paradise", Kind: "radio", Subtitle: "TuneIn Station"},
	{ID: "FV:2/5", Title: "BBC Radio 6 Music", Kind: "radio", Subtitle: "TuneIn Station"},
	{ID: "FV:2/7", Title: "FIP", Kind: "radio", Subtitle: "TuneIn Station"},
	{ID: "FV:2/8", Title: "KEXP 90.3 FM", Kind: "radio", Subtitle: "TuneIn Station"},
	{ID: "FV:2/11", Title: "NTS Radio 1", Kind: "radio", Subtitle: "TuneIn Station"},
	{ID: "FV:2/14", Title: "Morning Coffee", Kind: "playlist", Subtitle: "Spotify Playlist"},
	{ID: "FV:2/15", Title: "Deep Focus", Kind: "playlist", Subtitle: "Spotify Playlist"},
	{ID: "FV:2/17", Title: "Dinner Jazz", Kind: "playlist", Subtitle: "Spotify Playlist"},
	{ID: "FV:2/20", Title: "Kind of Blue", Kind: "album", Subtitle: "Apple Music Album"},
	{ID: "FV:2/22", Title: "Sunday Cleaning Mix", Kind: "playlist"},
	{ID: "FV:2/25", Title: "So What", Kind: "track", Subtitle: "Spotify Track"},
}

// Household is a set of speakers that share one list of favourites and can
// play in sync with each other, like the speakers of one Sonos system.
type Household struct {
	favorites []devices.Favorite

	mu      sync.Mutex // guards every member's volume, mute, playback and group
	members []*Speaker
}

// NewHousehold makes an empty household with these favourites (a list of
// radio stations and playlists when favorites is nil).
func NewHousehold(favorites []devices.Favorite) *Household {
	if favorites == nil {
		favorites = sonosFavorites
	}
	return &Household{favorites: slices.Clone(favorites)}
}

// NewSpeaker makes a speaker in the household, idle on an empty queue at
// volume 20. Its id is "sim:" + id (or the slug of name when id is empty).
func (hh *Household) NewSpeaker(id, name, room string, opts Options) *Speaker {
	s := &Speaker{
		link:    newLink(id, name, room, "Simulated speaker", devices.KindMedia, opts),
		hh:      hh,
		sources: slices.Clone(speakerSources),
		volume:  20,
		play:    playback{source: SourceQueue, transport: devices.TransportStopped},
	}
	hh.mu.Lock()
	hh.members = append(hh.members, s)
	hh.mu.Unlock()
	return s
}

// NewSpeaker makes a speaker in a household of its own (with the default
// favourites), so it can group with no other. Use a Household's NewSpeaker
// for speakers that group.
func NewSpeaker(id, name, room string, opts Options) *Speaker {
	return NewHousehold(nil).NewSpeaker(id, name, room, opts)
}

// favorite finds a favourite by id.
func (hh *Household) favorite(id string) (devices.Favorite, bool) {
	i := slices.IndexFunc(hh.favorites, func(f devices.Favorite) bool { return f.ID == id })
	if i < 0 {
		return devices.Favorite{}, false
	}
	return hh.favorites[i], true
}

// firstStation is the title of the first radio favourite, "" when none.
func (hh *Household) firstStation() string {
	for _, f := range hh.favorites {
		if f.Kind == "radio" {
			return f.Title
		}
	}
	return ""
}

// memberLocked finds a speaker by id. hh.mu must be held.
func (hh *Household) memberLocked(id devices.ID) *Speaker {
	for _, s := range hh.members {
		if s.info.ID == id {
			return s
		}
	}
	return nil
}

// mirrorsLocked lists the speakers that show leader's playback (leader and
// its followers), except one. hh.mu must be held.
func (hh *Household) mirrorsLocked(leader, except *Speaker) []*Speaker {
	var out []*Speaker
	for _, s := range hh.members {
		if (s == leader || s.leader == leader) && s != except {
			out = append(out, s)
		}
	}
	return out
}

// Speaker is a simulated network speaker: a media player with favourites
// that can group with the other speakers of its household and play what it
// is cast. It has no power switch.
type Speaker struct {
	*link
	hh      *Household
	sources []string

	// Guarded by hh.mu.
	volume int
	muted  bool
	play   playback
	leader *Speaker    // the coordinator it follows; nil when alone or leading
	end    *time.Timer // moves on at the end of the track playing
}

// FetchArtwork draws the cover of what the speaker plays, from the
// address its now playing gives.
func (s *Speaker) FetchArtwork(ctx context.Context, url string, max int64) ([]byte, string, error) {
	return artworkFetcher(s.link, ctx, url, max)
}

// MediaState reads the speaker's state. A follower reports its
// coordinator's source, transport and now playing, and its own volume.
func (s *Speaker) MediaState(ctx context.Context) (devices.MediaState, error) {
	if err := s.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	s.hh.mu.Lock()
	defer s.hh.mu.Unlock()
	return s.stateLocked(), nil
}

func (s *Speaker) stateLocked() devices.MediaState {
	p, coordinator := s.play, devices.ID("")
	if s.leader != nil {
		p, coordinator = s.leader.play, s.leader.info.ID
	}
	return devices.MediaState{
		Power:            true,
		Volume:           s.volume,
		Muted:            s.muted,
		Source:           p.source,
		Sources:          slices.Clone(s.sources),
		Transport:        p.transport,
		NowPlaying:       p.nowPlaying(time.Now()),
		GroupCoordinator: coordinator,
	}
}

// SetMedia applies a sparse change. Volume and mute are the speaker's own.
// Transport commands act on the whole group (a follower passes them to its
// coordinator); choosing a source makes a follower leave its group first.
// Next and previous need a queue. Switching the speaker off is not
// supported; switching it on does nothing.
func (s *Speaker) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	c, err := checkMediaChange(c, s.sources)
	if err != nil {
		return devices.MediaState{}, err
	}
	if c.Power != nil && !*c.Power {
		return devices.MediaState{}, devices.Unsupported(nil, "a speaker has no power switch; pause it instead")
	}
	if err := s.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	s.hh.mu.Lock()
	changed, err := s.setMediaLocked(c)
	st := s.stateLocked()
	s.hh.mu.Unlock()
	if err != nil {
		return devices.MediaState{}, err
	}
	s.applied()
	notifyAll(changed)
	return st, nil
}

// setMediaLocked applies a checked change and returns the other speakers
// whose state it changed. Nothing changes when it fails.
func (s *Speaker) setMediaLocked(c devices.MediaChange) ([]*Speaker, error) {
	target := s.leaderLocked()
	p := target.play
	if c.Source != nil {
		target = s
		p = p.withSource(*c.Source, s.hh.firstStation())
	}
	if c.Transport != nil {
		var err error
		if p, err = p.withTransport(*c.Transport); err != nil {
			return nil, err
		}
	}
	var changed []*Speaker
	if c.Source != nil || c.Transport != nil {
		if c.Source != nil {
			s.leader = nil
		}
		target.setPlayLocked(p)
		changed = s.hh.mirrorsLocked(target, s)
	}
	if c.Volume != nil {
		s.volume = *c.Volume
	}
	if c.Mute != nil {
		s.muted = *c.Mute
	}
	return changed, nil
}

// leaderLocked is the speaker whose playback this one shows: its
// coordinator, or itself.
func (s *Speaker) leaderLocked() *Speaker {
	if s.leader != nil {
		return s.leader
	}
	return s
}

// Favorites lists the household's favourites.
func (s *Speaker) Favorites(ctx context.Context) ([]devices.Favorite, error) {
	if err := s.io(ctx); err != nil {
		return nil, err
	}
	return slices.Clone(s.hh.favorites), nil
}

// PlayFavorite plays a favourite on the speaker's group: a station on the
// Radio source, anything else through the queue. An unknown id is an error
// wrapping devices.ErrInvalid.
func (s *Speaker) PlayFavorite(ctx context.Context, id string) error {
	fav, ok := s.hh.favorite(id)
	if !ok {
		return devices.Invalid(nil, "no favourite has id %q", id)
	}
	if err := s.io(ctx); err != nil {
		return err
	}
	s.playOnGroup(func(p playback) playback { return p.withFavorite(fav) })
	return nil
}

// Cast plays a stream (a URL) on the speaker's group through the queue.
// Video and images are not supported.
func (s *Speaker) Cast(ctx context.Context, contentID, contentType string) error {
	if err := checkCast(contentID, contentType, false); err != nil {
		return err
	}
	if err := s.io(ctx); err != nil {
		return err
	}
	s.playOnGroup(func(p playback) playback { return p.withQueue(titleOf(contentID), 1) })
	return nil
}

// playOnGroup changes the playback of the speaker's group and tells the
// registry about the other members.
func (s *Speaker) playOnGroup(change func(playback) playback) {
	s.hh.mu.Lock()
	target := s.leaderLocked()
	target.setPlayLocked(change(target.play))
	changed := s.hh.mirrorsLocked(target, s)
	s.hh.mu.Unlock()
	s.applied()
	notifyAll(changed)
}

// JoinGroup makes the speaker follow coordinator, another speaker of its
// household that is not itself following one. Speakers that were following
// this one are left playing alone, stopped.
func (s *Speaker) JoinGroup(ctx context.Context, coordinator devices.ID) error {
	if coordinator == s.info.ID {
		return devices.Invalid(nil, "a speaker cannot follow itself")
	}
	if err := s.io(ctx); err != nil {
		return err
	}
	s.hh.mu.Lock()
	released, err := s.joinLocked(coordinator)
	s.hh.mu.Unlock()
	if err != nil {
		return err
	}
	s.applied()
	notifyAll(released)
	return nil
}

func (s *Speaker) joinLocked(coordinator devices.ID) ([]*Speaker, error) {
	c := s.hh.memberLocked(coordinator)
	switch {
	case c == nil:
		return nil, devices.Invalid(nil, "%s is not a speaker it can group with", coordinator)
	case c.leader != nil:
		return nil, devices.Invalid(nil, "%s is following %s: join %s instead", c.info.Name, c.leader.info.Name, c.leader.info.ID)
	case !c.Online():
		return nil, devices.Unreachable(nil, "its coordinator %s does not answer", c.info.Name)
	case s.leader == c:
		return nil, nil
	}
	released := s.releaseFollowersLocked()
	s.leader = c
	return released, nil
}

// LeaveGroup makes the speaker play alone again. A follower keeps what the
// group was playing, stopped; a coordinator keeps playing and its followers
// are left alone, stopped.
func (s *Speaker) LeaveGroup(ctx context.Context) error {
	if err := s.io(ctx); err != nil {
		return err
	}
	s.hh.mu.Lock()
	var released []*Speaker
	if s.leader != nil {
		s.setPlayLocked(s.leader.play.stopped())
		s.leader = nil
	} else {
		released = s.releaseFollowersLocked()
	}
	s.hh.mu.Unlock()
	s.applied()
	notifyAll(released)
	return nil
}

// releaseFollowersLocked leaves the speaker's followers alone, each with a
// stopped copy of its playback, and returns them.
func (s *Speaker) releaseFollowersLocked() []*Speaker {
	var out []*Speaker
	for _, f := range s.hh.members {
		if f.leader == s {
			f.leader = nil
			f.setPlayLocked(s.play.stopped())
			out = append(out, f)
		}
	}
	return out
}

// setPlayback replaces what the speaker plays, for building the home.
func (s *Speaker) setPlayback(volume int, p playback) {
	s.hh.mu.Lock()
	s.volume = volume
	s.setPlayLocked(p)
	s.hh.mu.Unlock()
}

// setPlayLocked replaces what the speaker plays: the position follows
// (a new item starts at 0, a pause holds it), and the end of the track
// playing is timed. hh.mu must be held.
func (s *Speaker) setPlayLocked(p playback) {
	p.head = p.head.retimed(p.item(), p.transport, time.Now())
	s.play = p
	if s.end != nil {
		s.end.Stop()
		s.end = nil
	}
	if length := p.length(); p.transport == devices.TransportPlaying && length > 0 {
		s.end = time.AfterFunc(max(length-p.head.at(time.Now()), 0), s.trackEnded)
	}
}

// trackEnded moves the queue on to its next track (past the last one,
// playback stops), unless what plays changed meanwhile.
func (s *Speaker) trackEnded() {
	s.hh.mu.Lock()
	p := s.play
	if s.leader != nil || p.transport != devices.TransportPlaying || p.length() == 0 || p.head.at(time.Now()) < p.length() {
		s.hh.mu.Unlock()
		return
	}
	next, _ := p.skip(true) // the queue has tracks: skip does not fail
	s.setPlayLocked(next)
	changed := s.hh.mirrorsLocked(s, nil)
	s.hh.mu.Unlock()
	notifyAll(changed)
}

func notifyAll(ss []*Speaker) {
	for _, s := range ss {
		s.notify()
	}
}

// queueTracks is how many tracks a playlist or an album puts in the queue.
const queueTracks = 12

// playback is what a speaker (or its group) plays. Its methods return
// changed copies.
type playback struct {
	source    string
	transport string
	queue     string // title of what is in the queue; "" when empty
	queueLen  int    // tracks in the queue
	track     int    // position in the queue, from 0
	station   string // the radio station last tuned
	head      playhead
}

// item names what plays, for the playhead: a change of item starts it
// again.
func (p playback) item() string {
	switch p.source {
	case SourceQueue:
		return fmt.Sprintf("queue\x00%s\x00%d", p.queue, p.track)
	case SourceRadio:
		return "radio\x00" + p.station
	}
	return p.source
}

// length is how long the current item is: a queue's track has a length, a
// station or an input has none.
func (p playback) length() time.Duration {
	if p.source == SourceQueue && p.queue != "" {
		return trackLength(p.queue, p.track)
	}
	return 0
}

// nowPlaying describes the current item at now, nil when there is none:
// a queue's track and a station have cover art and a position.
func (p playback) nowPlaying(now time.Time) *devices.NowPlaying {
	switch p.source {
	case SourceQueue:
		if p.queue == "" {
			return nil
		}
		np := &devices.NowPlaying{Title: p.queue, ArtworkURL: artworkURL(p.queue), Progress: p.head.progress(p.length(), now)}
		if p.track > 0 {
			np.Title, np.Album = fmt.Sprintf("%s (track %d)", p.queue, p.track+1), p.queue
		}
		return np
	case SourceRadio:
		if p.station == "" {
			return nil
		}
		return &devices.NowPlaying{Title: p.station, ArtworkURL: artworkURL(p.station), Progress: p.head.progress(0, now)}
	}
	return &devices.NowPlaying{Title: p.source}
}

// hasItem reports whether the source has something to play.
func (p playback) hasItem() bool {
	switch p.source {
	case SourceQueue:
		return p.queue != ""
	case SourceRadio:
		return p.station != ""
	}
	return true
}

// withSource switches to src and plays it, tuning station on the Radio
// source when none was tuned before.
func (p playback) withSource(src, station string) playback {
	p.source = src
	if src == SourceRadio && p.station == "" {
		p.station = station
	}
	p.transport = devices.TransportStopped
	if p.hasItem() {
		p.transport = devices.TransportPlaying
	}
	return p
}

// withTransport applies a transport command.
func (p playback) withTransport(cmd string) (playback, error) {
	switch cmd {
	case "play":
		if !p.hasItem() {
			return p, devices.Invalid(nil, "there is nothing to play on %s", p.source)
		}
		p.transport = devices.TransportPlaying
	case "pause":
		p.transport = devices.TransportPaused
	case "stop":
		p.transport = devices.TransportStopped
	default:
		return p.skip(cmd == "next")
	}
	return p, nil
}

// skip moves to the next or previous track of the queue; past the last
// track, playback stops.
func (p playback) skip(forward bool) (playback, error) {
	if p.source != SourceQueue || p.queue == "" {
		return p, devices.Unsupported(nil, "only a queue has tracks to skip, and the source is %s", p.source)
	}
	switch {
	case forward && p.track+1 >= p.queueLen:
		p.transport = devices.TransportStopped
		return p, nil
	case forward:
		p.track++
	case p.track > 0:
		p.track--
	}
	p.transport = devices.TransportPlaying
	return p, nil
}

// withFavorite plays a favourite: a station on the Radio source, anything
// else through the queue.
func (p playback) withFavorite(f devices.Favorite) playback {
	switch f.Kind {
	case "radio":
		p.source, p.station, p.transport = SourceRadio, f.Title, devices.TransportPlaying
		return p
	case "playlist", "album":
		return p.withQueue(f.Title, queueTracks)
	}
	return p.withQueue(f.Title, 1)
}

// withQueue replaces the queue with n tracks of title and plays it.
func (p playback) withQueue(title string, n int) playback {
	p.source, p.queue, p.queueLen, p.track = SourceQueue, title, n, 0
	p.transport = devices.TransportPlaying
	return p
}

// stopped is p with transport stopped.
func (p playback) stopped() playback {
	p.transport = devices.TransportStopped
	return p
}
