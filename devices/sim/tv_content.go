package sim

import (
	"context"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

var _ devices.ContentSearcher = (*TV)(nil)

// tvLibrary is what the TV's apps offer to search. Each title's id is the
// deep link that plays it.
var tvLibrary = []devices.Content{
	{ID: "https://www.netflix.com/title/80057281", Title: "Stranger Things", App: "com.netflix.ninja", Kind: "show"},
	{ID: "https://www.netflix.com/title/80025678", Title: "The Crown", App: "com.netflix.ninja", Kind: "show"},
	{ID: "https://www.netflix.com/title/81458416", Title: "Glass Onion", App: "com.netflix.ninja", Kind: "movie"},
	{ID: "https://www.youtube.com/watch?v=jfKfPfyJRdk", Title: "Lofi Girl Radio", App: "com.google.android.youtube.tv", Kind: "video"},
	{ID: "https://www.youtube.com/watch?v=aqz-KE-bpKQ", Title: "Big Buck Bunny", App: "com.google.android.youtube.tv", Kind: "video"},
	{ID: "https://app.plex.tv/desktop#!/movie/blade-runner-2049", Title: "Blade Runner 2049", App: "com.plexapp.android", Kind: "movie"},
	{ID: "https://app.plex.tv/desktop#!/show/the-expanse", Title: "The Expanse", App: "com.plexapp.android", Kind: "show"},
	{ID: "https://www.disneyplus.com/series/the-mandalorian", Title: "The Mandalorian", App: "com.disney.disneyplus", Kind: "show"},
	{ID: "https://www.disneyplus.com/series/andor", Title: "Andor", App: "com.disney.disneyplus", Kind: "show"},
	{ID: "https://www.disneyplus.com/movies/inside-out", Title: "Inside Out", App: "com.disney.disneyplus", Kind: "movie"},
	{ID: "https://www.primevideo.com/detail/the-boys", Title: "The Boys", App: "com.amazon.amazonvideo.livingroom", Kind: "show"},
	{ID: "https://www.primevideo.com/detail/reacher", Title: "Reacher", App: "com.amazon.amazonvideo.livingroom", Kind: "show"},
	{ID: "https://open.spotify.com/album/1weenld61qoidwYuZ1GESA", Title: "Kind of Blue", App: "com.spotify.tv.android", Kind: "album"},
}

// Search finds titles in the TV's apps whose name contains the query, or
// that the query names ("play the expanse" finds "The Expanse"), ignoring
// case, in catalogue order. A blank query is ErrInvalid.
func (t *TV) Search(ctx context.Context, query string) ([]devices.Content, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, devices.Invalid(nil, "there is nothing to search for")
	}
	if err := t.io(ctx); err != nil {
		return nil, err
	}
	var out []devices.Content
	for _, c := range tvLibrary {
		title := strings.ToLower(c.Title)
		if strings.Contains(title, q) || strings.Contains(q, title) {
			out = append(out, c)
		}
	}
	return out, nil
}

// PlayContent plays a title, waking the TV: one Search returned, or any
// content whose id is an installed app's id or a link one of them opens,
// or whose App is an installed app. Anything else is ErrInvalid.
func (t *TV) PlayContent(ctx context.Context, c devices.Content) error {
	app, ok := contentApp(c)
	if !ok {
		return devices.Invalid(nil, "no installed app plays %q", c.ID)
	}
	if err := t.io(ctx); err != nil {
		return err
	}
	title := c.Title
	if title == "" {
		title = c.ID
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setPowerLocked(true)
	t.front, t.input, t.transport = app.ID, "", devices.TransportPlaying
	t.now = &devices.NowPlaying{Title: title, App: app.Name}
	t.retimeLocked()
	t.applied()
	return nil
}

// contentApp is the app that plays c.
func contentApp(c devices.Content) (tvApp, bool) {
	for _, l := range tvLibrary {
		if l.ID == c.ID {
			return appByID(l.App)
		}
	}
	if a, _, ok := resolveApp(c.ID); ok {
		return a, true
	}
	return appByID(c.App)
}
