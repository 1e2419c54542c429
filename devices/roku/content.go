package roku

import (
	"context"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
)

// KindSearch is the kind of the content Search returns: the query itself,
// for the Roku's own search to find.
const KindSearch = "search"

// Search returns the query as the one title to play: ECP cannot list a
// search's results, but PlayContent has the Roku search for it and open
// the first match.
func (d *Device) Search(ctx context.Context, query string) ([]devices.Content, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, devices.Invalid(nil, "nothing to search for")
	}
	return []devices.Content{{ID: q, Title: q, Kind: KindSearch}}, nil
}

// PlayContent plays a title. A content id with an ECP media type (movie,
// episode, series, season, shortFormVideo, tvSpecial, live) and an app is
// a deep link: launch/<app>?contentId=…&mediaType=…. Anything else is
// searched for by title (search/browse, launching the first match, in
// c.App when it is set).
func (d *Device) PlayContent(ctx context.Context, c devices.Content) error {
	provider := ""
	if strings.TrimSpace(c.App) != "" {
		var err error
		if provider, err = d.findApp(c.App, false); err != nil {
			return err
		}
	}
	var req request
	if id := strings.TrimSpace(c.ID); provider != "" && id != "" && slices.Contains(ecp.MediaTypes, c.Kind) {
		req = launch(provider, id, c.Kind)
	} else {
		kw := strings.TrimSpace(c.Title)
		if kw == "" {
			kw = strings.TrimSpace(c.ID)
		}
		if kw == "" {
			return devices.Invalid(nil, "no title to search for")
		}
		b := ecp.Browse{Keyword: kw, Launch: true, ProviderID: provider}
		req = func(ctx context.Context, c *ecp.Client, addr string) error { return c.SearchBrowse(ctx, addr, b) }
	}
	if err := d.send(ctx, req); err != nil {
		return err
	}
	d.poke()
	return nil
}
