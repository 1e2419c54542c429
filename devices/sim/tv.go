package sim

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

var (
	_ devices.MediaPlayer    = (*TV)(nil)
	_ devices.Remote         = (*TV)(nil)
	_ devices.Caster         = (*TV)(nil)
	_ devices.ArtworkFetcher = (*TV)(nil)
)

// Package ids of the TV's system apps.
const (
	// LauncherApp is the home screen.
	LauncherApp = "com.google.android.tvlauncher"
	// InputsApp shows the HDMI inputs.
	InputsApp = "com.google.android.tv"
	// CastApp plays what is cast to the TV that no installed app claims.
	CastApp = "com.google.android.apps.mediashell"
)

// tvApp is an app in the TV's catalogue and the web domains whose links it
// opens.
type tvApp struct {
	devices.App
	domains []string
}

var tvApps = []tvApp{
	{devices.App{ID: "com.netflix.ninja", Name: "Netflix"}, []string{"netflix.com"}},
	{devices.App{ID: "com.google.android.youtube.tv", Name: "YouTube"}, []string{"youtube.com", "youtu.be"}},
	{devices.App{ID: "com.plexapp.android", Name: "Plex"}, []string{"plex.tv"}},
	{devices.App{ID: "com.disney.disneyplus", Name: "Disney+"}, []string{"disneyplus.com"}},
	{devices.App{ID: "com.amazon.amazonvideo.livingroom", Name: "Prime Video"}, []string{"primevideo.com", "amazon.com"}},
	{devices.App{ID: "com.spotify.tv.android", Name: "Spotify"}, []string{"spotify.com"}},
}

// tvInputs are the TV's HDMI inputs.
var tvInputs = []string{"HDMI 1", "HDMI 2", "HDMI 3"}

// tvSources are the TV's media sources: its inputs, then its apps by name.
var tvSources = func() []string {
	out := slices.Clone(tvInputs)
	for _, a := range tvApps {
		out = append(out, a.Name)
	}
	return out
}()

// TV is a simulated Google TV: a media player (power, volume, inputs and
// apps as sources, transport), a remote (keys, text, apps, deep links) and a
// cast target.
type TV struct {
	*link

	mu        sync.Mutex // guards the fields below
	power     bool
	volume    int
	muted     bool
	front     string // package id of the app in front
	input     string // the HDMI input shown when front is InputsApp
	transport string
	now       *devices.NowPlaying
	head      playhead // the position in the title now playing
	presses   int
	lastKey   string
	typed     string
}

// NewTV makes a TV, off, at volume 18. Its id is "sim:" + id (or the slug
// of name when id is empty).
func NewTV(id, name, room string, opts Options) *TV {
	return &TV{
		link:   newLink(id, name, room, "Simulated Google TV", devices.KindMedia, opts),
		volume: 18,
		front:  LauncherApp,
	}
}

// MediaState reads the TV's state. Its source is the HDMI input or the app
// in front ("" on the home screen); off, it reports no source.
func (t *TV) MediaState(ctx context.Context) (devices.MediaState, error) {
	if err := t.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stateLocked(), nil
}

func (t *TV) stateLocked() devices.MediaState {
	st := devices.MediaState{Power: t.power, Volume: t.volume, Muted: t.muted, Sources: slices.Clone(tvSources)}
	if !t.power {
		return st
	}
	st.Source, st.Transport = t.sourceLocked(), t.transport
	if t.now != nil {
		now := *t.now
		if now.Title != "" {
			now.ArtworkURL = artworkURL(now.Title)
			now.Progress = t.head.progress(titleLength(now.Title), time.Now())
		}
		st.NowPlaying = &now
	}
	return st
}

// retimeLocked makes the position follow what the TV plays now; every
// change calls it.
func (t *TV) retimeLocked() {
	item := ""
	if t.power && t.now != nil {
		item = t.now.App + "\x00" + t.now.Title
	}
	t.head = t.head.retimed(item, t.transport, time.Now())
}

// FetchArtwork draws the poster of what the TV plays, from the address
// its now playing gives.
func (t *TV) FetchArtwork(ctx context.Context, url string, max int64) ([]byte, string, error) {
	return artworkFetcher(t.link, ctx, url, max)
}

// titleLength is how long a title played on the TV is: between 20
// minutes and two hours, the same for the same title.
func titleLength(title string) time.Duration {
	return 20*time.Minute + (trackLength(title, 0)-150*time.Second)*30
}

func (t *TV) sourceLocked() string {
	if t.front == InputsApp {
		return t.input
	}
	if a, ok := appByID(t.front); ok {
		return a.Name
	}
	return ""
}

// SetMedia applies a sparse change, power first. Off, the TV takes nothing
// but power (ErrInvalid). A source is an HDMI input or an app name; an
// unknown one is ErrInvalid. Transport needs an input or an app in front
// (ErrUnsupported on the home screen).
func (t *TV) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	c, err := checkMediaChange(c, tvSources)
	if err != nil {
		return devices.MediaState{}, err
	}
	if err := t.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.checkLocked(c); err != nil {
		return devices.MediaState{}, err
	}
	t.applyLocked(c)
	t.retimeLocked()
	t.applied()
	return t.stateLocked(), nil
}

// checkLocked refuses what the TV cannot do in its state.
func (t *TV) checkLocked(c devices.MediaChange) error {
	on, home := t.power, t.front == LauncherApp || !t.power
	if c.Power != nil {
		on = *c.Power
	}
	if c.Source != nil {
		home = false
	}
	if !on && touchesMore(c) {
		return devices.Invalid(nil, "it is off: turn it on first")
	}
	if c.Transport != nil && home {
		return devices.Unsupported(nil, "the home screen has no transport controls")
	}
	return nil
}

func (t *TV) applyLocked(c devices.MediaChange) {
	if c.Power != nil {
		t.setPowerLocked(*c.Power)
	}
	if c.Volume != nil {
		t.volume = *c.Volume
	}
	if c.Mute != nil {
		t.muted = *c.Mute
	}
	if c.Source != nil {
		t.selectLocked(*c.Source)
	}
	if c.Transport != nil {
		t.transportLocked(*c.Transport)
	}
}

// setPowerLocked switches the TV on (to the home screen) or off.
func (t *TV) setPowerLocked(on bool) {
	if on && !t.power {
		t.goHomeLocked()
	}
	t.power = on
}

func (t *TV) goHomeLocked() {
	t.front, t.input, t.transport, t.now = LauncherApp, "", "", nil
}

// selectLocked shows an HDMI input or opens an app, by source name.
func (t *TV) selectLocked(source string) {
	if slices.Contains(tvInputs, source) {
		t.front, t.input, t.transport, t.now = InputsApp, source, "", nil
		return
	}
	for _, a := range tvApps {
		if a.Name == source {
			t.openLocked(a, "")
		}
	}
}

// openLocked brings an app to the front, playing link when given.
func (t *TV) openLocked(a tvApp, link string) {
	t.front, t.input = a.ID, ""
	if link == "" {
		t.transport, t.now = devices.TransportStopped, &devices.NowPlaying{App: a.Name}
		return
	}
	t.transport, t.now = devices.TransportPlaying, &devices.NowPlaying{Title: link, App: a.Name}
}

func (t *TV) transportLocked(cmd string) {
	switch cmd {
	case "pause":
		t.transport = devices.TransportPaused
	case "stop":
		t.transport = devices.TransportStopped
	default:
		t.transport = devices.TransportPlaying
	}
}

// PressKey presses one of devices.RemoteKeys (any case; another key is
// ErrInvalid). Off, the TV only answers "power" (ErrInvalid otherwise).
// "power" toggles power, "home" shows the home screen, the volume keys step
// the volume by 1 and unmute, "mute" toggles mute, "play_pause" toggles
// play and pause; the others move the TV's own UI.
func (t *TV) PressKey(ctx context.Context, key string) error {
	k := choose(key, devices.RemoteKeys)
	if k == "" {
		return devices.Invalid(nil, "key %q is not one of %s", key, strings.Join(devices.RemoteKeys, ", "))
	}
	if err := t.io(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.power && k != "power" {
		return devices.Invalid(nil, "it is off: press power first")
	}
	t.pressLocked(k)
	t.presses, t.lastKey = t.presses+1, k
	t.retimeLocked()
	t.applied()
	return nil
}

func (t *TV) pressLocked(key string) {
	switch key {
	case "power":
		t.setPowerLocked(!t.power)
	case "home":
		t.goHomeLocked()
	case "volume_up":
		t.volume, t.muted = min(t.volume+1, 100), false
	case "volume_down":
		t.volume, t.muted = max(t.volume-1, 0), false
	case "mute":
		t.muted = !t.muted
	case "play_pause":
		if t.front == LauncherApp {
			return
		}
		if t.transport == devices.TransportPlaying {
			t.transport = devices.TransportPaused
		} else {
			t.transport = devices.TransportPlaying
		}
	}
}

// SendText types text into the field in focus. Off, the TV refuses it
// (ErrInvalid); so it does empty text.
func (t *TV) SendText(ctx context.Context, text string) error {
	if text == "" {
		return devices.Invalid(nil, "there is no text to send")
	}
	if err := t.io(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.power {
		return devices.Invalid(nil, "it is off: press power first")
	}
	t.typed = text
	t.retimeLocked()
	t.applied()
	return nil
}

// LaunchApp opens an app of the catalogue by package id, or by a deep link
// (an http(s) URL on the app's web domain, e.g.
// "https://www.netflix.com/title/80057281"), which then plays. It wakes
// the TV. Anything else is ErrInvalid.
func (t *TV) LaunchApp(ctx context.Context, appOrLink string) error {
	app, link, ok := resolveApp(appOrLink)
	if !ok {
		return devices.Invalid(nil, "%q is neither an installed app's id nor a link one of them opens", appOrLink)
	}
	if err := t.io(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setPowerLocked(true)
	t.openLocked(app, link)
	t.retimeLocked()
	t.applied()
	return nil
}

// Apps lists the TV's app catalogue.
func (t *TV) Apps(ctx context.Context) ([]devices.App, error) {
	if err := t.io(ctx); err != nil {
		return nil, err
	}
	out := make([]devices.App, len(tvApps))
	for i, a := range tvApps {
		out[i] = a.App
	}
	return out, nil
}

// CurrentApp is the package id of the app in front: LauncherApp on the
// home screen, InputsApp on an HDMI input, "" when the TV is off.
func (t *TV) CurrentApp(ctx context.Context) (string, error) {
	if err := t.io(ctx); err != nil {
		return "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.power {
		return "", nil
	}
	return t.front, nil
}

// Cast plays content on the TV, waking it: a link one of its apps opens
// plays in that app, anything else in CastApp.
func (t *TV) Cast(ctx context.Context, contentID, contentType string) error {
	if err := checkCast(contentID, contentType, true); err != nil {
		return err
	}
	if err := t.io(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setPowerLocked(true)
	if app, ok := appForLink(contentID); ok {
		t.openLocked(app, contentID)
	} else {
		t.front, t.input, t.transport = CastApp, "", devices.TransportPlaying
		t.now = &devices.NowPlaying{Title: titleOf(contentID), App: "Chromecast built-in"}
	}
	t.retimeLocked()
	t.applied()
	return nil
}

// LastKey is the last key pressed, "" before any.
func (t *TV) LastKey() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastKey
}

// Presses is how many keys were pressed.
func (t *TV) Presses() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.presses
}

// Typed is the last text sent, "" before any.
func (t *TV) Typed() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.typed
}

// resolveApp finds the app for a package id or a deep link; link is
// appOrLink when it was a link.
func resolveApp(appOrLink string) (app tvApp, link string, ok bool) {
	if a, ok := appByID(appOrLink); ok {
		return a, "", true
	}
	if a, ok := appForLink(appOrLink); ok {
		return a, appOrLink, true
	}
	return tvApp{}, "", false
}

func appByID(id string) (tvApp, bool) {
	i := slices.IndexFunc(tvApps, func(a tvApp) bool { return a.ID == id })
	if i < 0 {
		return tvApp{}, false
	}
	return tvApps[i], true
}

// appForLink finds the app whose web domain an http(s) URL is on.
func appForLink(s string) (tvApp, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return tvApp{}, false
	}
	host := strings.ToLower(u.Hostname())
	for _, a := range tvApps {
		for _, d := range a.domains {
			if host == d || strings.HasSuffix(host, "."+d) {
				return a, true
			}
		}
	}
	return tvApp{}, false
}
