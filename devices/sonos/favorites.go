package sonos

import (
	"context"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// favoritesPage is how many favourites one Browse asks for.
const favoritesPage = 100

// Favorites lists the household's Sonos favourites (FV:2).
func (s *Speaker) Favorites(ctx context.Context) ([]devices.Favorite, error) {
	items, err := s.browseFavorites(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]devices.Favorite, len(items))
	for i, it := range items {
		out[i] = devices.Favorite{ID: it.ID, Title: it.Title, Kind: favoriteKind(it), Subtitle: it.Description}
	}
	return out, nil
}

// browseFavorites reads every page of FV:2.
func (s *Speaker) browseFavorites(ctx context.Context) ([]upnp.Item, error) {
	var all []upnp.Item
	for {
		v, err := s.call(ctx, upnp.ContentDirectory, "Browse",
			upnp.Arg{Name: "ObjectID", Value: "FV:2"}, upnp.Arg{Name: "BrowseFlag", Value: "BrowseDirectChildren"},
			upnp.Arg{Name: "Filter", Value: "*"}, upnp.Arg{Name: "StartingIndex", Value: strconv.Itoa(len(all))},
			upnp.Arg{Name: "RequestedCount", Value: strconv.Itoa(favoritesPage)}, upnp.Arg{Name: "SortCriteria"})
		if err != nil {
			return nil, err
		}
		items, err := upnp.ParseDIDL(v["Result"])
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if len(items) == 0 || len(all) >= v.Int("TotalMatches") {
			return all, nil
		}
	}
}

// favoriteKind says what a favourite is, from the class of what it refers
// to, or from its URI.
func favoriteKind(it upnp.Item) string {
	ref, _ := upnp.ParseItem(it.ResMD)
	class := ref.Class
	switch {
	case strings.Contains(class, "audioBroadcast"):
		return "radio"
	case strings.Contains(class, "playlistContainer"):
		return "playlist"
	case strings.Contains(class, "musicAlbum"):
		return "album"
	case strings.Contains(class, "musicArtist"):
		return "artist"
	case strings.Contains(class, "audioBook"):
		return "audiobook"
	case strings.Contains(class, "musicTrack"):
		return "track"
	case upnp.KindOf(it.Res) == upnp.URIRadio:
		return "radio"
	}
	return ""
}

// PlayFavorite plays a favourite on the player's group: a station or a
// line-in (or an audiobook) as the transport URI, anything else (albums,
// playlists, service containers, tracks) through the queue. An unknown id
// is an error wrapping devices.ErrInvalid.
func (s *Speaker) PlayFavorite(ctx context.Context, id string) error {
	items, err := s.browseFavorites(ctx)
	if err != nil {
		return err
	}
	var fav *upnp.Item
	for i := range items {
		if items[i].ID == id {
			fav = &items[i]
		}
	}
	if fav == nil {
		return devices.Invalid(nil, "no favourite has id %q", id)
	}
	if fav.Res == "" {
		return devices.Unsupported(nil, "the favourite %q is a shortcut it cannot play", fav.Title)
	}
	coord := s.coordinator()
	if upnp.PlaysDirectly(fav.Res) || favoriteKind(*fav) == "audiobook" {
		meta := fav.ResMD
		if meta == "" {
			meta = upnp.Metadata(fav.Title, upnp.ClassBroadcast)
		}
		return coord.playDirect(ctx, fav.Res, meta)
	}
	return coord.playQueued(ctx, fav.Res, fav.ResMD)
}
