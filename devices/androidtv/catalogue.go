package androidtv

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// CatalogueApp is an app the adapter knows how to open and, where the
// app takes one, how to search.
type CatalogueApp struct {
	Name    string // as people call it: "Netflix"
	Package string // its package id on Android TV
	// Link opens the app: a deep link the app claims, or the
	// market://launch form the TV resolves to the installed package.
	Link string
	// SearchLink opens the app's search for {query} (escaped as a query
	// parameter); "" when the app has none.
	SearchLink string
}

// SearchFor is the app's search link for query, "" when it has none.
func (c CatalogueApp) SearchFor(query string) string {
	if c.SearchLink == "" {
		return ""
	}
	return strings.ReplaceAll(c.SearchLink, "{query}", url.QueryEscape(query))
}

// marketLink opens an installed app by package id: what the TV does with
// a bare package id (PROTOCOLS.md §4.2, app_link_launch_request).
func marketLink(pkg string) string { return "market://launch?id=" + pkg }

// catalogue is the apps the adapter knows. Sources:
//   - package ids of YouTube, Netflix, Prime Video, Disney+, Plex, Kodi and
//     Twitch, and the deep links of YouTube, Netflix, Prime Video, Disney+,
//     Plex and Twitch: Home Assistant's Android TV Remote documentation
//     (home-assistant.io, source/_integrations/androidtv_remote.markdown,
//     "Launching apps" and "Launching activities");
//   - the package ids of Spotify, Max, Hulu and Apple TV: their Google Play
//     listings (play.google.com/store/apps/details?id=…) for Android TV;
//     with no documented deep link they open by market://launch;
//   - the search links of YouTube and Netflix are the search pages of
//     their web sites (youtube.com/results?search_query=…,
//     netflix.com/search?q=…), which their TV apps claim as app links;
//     Spotify's is its own URI scheme (spotify:search:…), which its
//     clients open. Other apps have no search link known to work.
var catalogue = []CatalogueApp{
	{Name: "Netflix", Package: "com.netflix.ninja", Link: "https://www.netflix.com/title",
		SearchLink: "https://www.netflix.com/search?q={query}"},
	{Name: "YouTube", Package: "com.google.android.youtube.tv", Link: "https://www.youtube.com",
		SearchLink: "https://www.youtube.com/results?search_query={query}"},
	{Name: "Prime Video", Package: "com.amazon.amazonvideo.livingroom", Link: "https://app.primevideo.com"},
	{Name: "Disney+", Package: "com.disney.disneyplus", Link: "https://www.disneyplus.com"},
	{Name: "Plex", Package: "com.plexapp.android", Link: "plex://"},
	{Name: "Spotify", Package: "com.spotify.tv.android", Link: marketLink("com.spotify.tv.android"),
		SearchLink: "spotify:search:{query}"},
	{Name: "Max", Package: "com.wbd.stream", Link: marketLink("com.wbd.stream")},
	{Name: "Hulu", Package: "com.hulu.livingroomplus", Link: marketLink("com.hulu.livingroomplus")},
	{Name: "Apple TV", Package: "com.apple.atve.androidtv.appletv", Link: marketLink("com.apple.atve.androidtv.appletv")},
	{Name: "Twitch", Package: "tv.twitch.android.app", Link: "twitch://home"},
	{Name: "Kodi", Package: "org.xbmc.kodi", Link: marketLink("org.xbmc.kodi")},
}

// Catalogue returns the apps the adapter knows, in display order.
func Catalogue() []CatalogueApp { return slices.Clone(catalogue) }

// findApp finds a catalogue app by name (any case) or package id.
func findApp(s string) (CatalogueApp, bool) {
	s = strings.TrimSpace(s)
	for _, a := range catalogue {
		if strings.EqualFold(a.Name, s) || a.Package == s {
			return a, true
		}
	}
	return CatalogueApp{}, false
}

// appName is the catalogue name of pkg, or pkg itself.
func appName(pkg string) string {
	if a, ok := findApp(pkg); ok && a.Package == pkg {
		return a.Name
	}
	return pkg
}

func appNames() []string {
	out := make([]string, len(catalogue))
	for i, a := range catalogue {
		out[i] = a.Name
	}
	return out
}

// packageID matches an Android package id ("com.example.app").
var packageID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$`)
})

// isLink reports whether s is a link the TV can open: a URL with a
// scheme ("https://…", "plex://", "spotify:search:…").
func isLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || strings.Contains(s, "://"))
}

// linkFor is the app link that opens appOrLink: a link as it is, a
// catalogue app (by name or package id) by its link, any other package id
// by market://launch.
func linkFor(appOrLink string) (string, error) {
	s := strings.TrimSpace(appOrLink)
	switch {
	case s == "":
		return "", devices.Invalid(nil, "no app or link given")
	case isLink(s):
		return s, nil
	}
	if a, ok := findApp(s); ok {
		return a.Link, nil
	}
	if packageID().MatchString(s) {
		return marketLink(s), nil
	}
	return "", devices.Invalid(nil, "%q is neither a link nor an app: give a package id (com.example.app), a link, or one of %s",
		s, strings.Join(appNames(), ", "))
}

// Apps are the catalogue's apps.
func (t *TV) Apps(ctx context.Context) ([]devices.App, error) {
	t.mu.Lock()
	err := t.availableLocked()
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make([]devices.App, len(catalogue))
	for i, a := range catalogue {
		out[i] = devices.App{ID: a.Package, Name: a.Name}
	}
	return out, nil
}

// CurrentApp is the package id of the app in front, as the TV last said.
func (t *TV) CurrentApp(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.availableLocked(); err != nil {
		return "", err
	}
	return t.app, nil
}

// LaunchApp opens an app (a catalogue name, or a package id) or a deep
// link (a URL).
func (t *TV) LaunchApp(ctx context.Context, appOrLink string) error {
	link, err := linkFor(appOrLink)
	if err != nil {
		return err
	}
	return t.openLink(ctx, link)
}

func (t *TV) openLink(ctx context.Context, link string) error {
	return t.send(ctx, atvwire.NewAppLink(link))
}

// Search offers, for each catalogue app that has a search link, that
// app's search for query: the app in front first, then the catalogue's
// order. It does no I/O; PlayContent opens one.
func (t *TV) Search(ctx context.Context, query string) ([]devices.Content, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, devices.Invalid(nil, "nothing to search for")
	}
	t.mu.Lock()
	front := t.app
	t.mu.Unlock()
	var out []devices.Content
	for _, a := range catalogue {
		if a.SearchLink == "" {
			continue
		}
		c := devices.Content{ID: a.SearchFor(query), Title: query, App: a.Package, Kind: "search"}
		if a.Package == front {
			out = append([]devices.Content{c}, out...)
		} else {
			out = append(out, c)
		}
	}
	return out, nil
}

// PlayContent opens a title Search found: its id is an app link.
func (t *TV) PlayContent(ctx context.Context, c devices.Content) error {
	if !isLink(c.ID) {
		return devices.Invalid(nil, "%q is not a link the TV can open", c.ID)
	}
	return t.openLink(ctx, c.ID)
}

// Cast opens a URL (a web link an app claims, or an app's own link) on
// the TV; the content type does not matter to it.
func (t *TV) Cast(ctx context.Context, contentID, contentType string) error {
	contentID = strings.TrimSpace(contentID)
	if !isLink(contentID) {
		return devices.Invalid(nil, "an Android TV is cast a URL (https://…, or an app's own link), not %q", contentID)
	}
	return t.openLink(ctx, contentID)
}
