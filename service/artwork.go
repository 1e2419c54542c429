package service

import (
	"context"
	"math"
	"net/url"
	"time"

	"github.com/bifrost-hub/bifrost/artwork"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/wording"
)

// Cover art: package artwork fetches, checks and holds each player's
// image; the service tells it every address a player reports, publishes
// the player's view again when an image is kept, and names the image in
// the player's media view (artwork_url).

// newArtwork is the service's cache of cover art.
func (s *Service) newArtwork(fetcher devices.ArtworkFetcher) *artwork.Cache {
	return artwork.New(artwork.Config{
		Fetcher: fetcher, Players: s.reg, Logger: s.log, Now: s.now,
		Changed: func() { s.model.gen.Add(1) }, // a view that showed the old image no longer does
		Fetched: s.publishDevice,
	})
}

// noteArtwork is called whenever the model records a player's media state.
func (s *Service) noteArtwork(id devices.ID, st *devices.MediaState) {
	url := ""
	if st != nil && st.NowPlaying != nil {
		url = st.NowPlaying.ArtworkURL
	}
	s.art.Note(id, url)
}

// artworkOf is the image the view of rec shows for now playing np: the one
// held for the member of rec (itself, or a companion) that reports np's
// address.
func (s *Service) artworkOf(inv inventory, rec DeviceRecord, np *devices.NowPlaying) *artwork.Image {
	if np == nil || np.ArtworkURL == "" {
		return nil
	}
	for _, m := range members(inv, rec) {
		if img := s.art.Image(m.ID, np.ArtworkURL); img != nil {
			return img
		}
	}
	return nil
}

// withPlayback fills a media view's artwork and progress from its state.
func (s *Service) withPlayback(inv inventory, rec DeviceRecord, m Media) Media {
	if m.State == nil || m.State.NowPlaying == nil {
		return m
	}
	np := m.State.NowPlaying
	if img := s.artworkOf(inv, rec, np); img != nil {
		m.ArtworkURL = ArtworkPath(rec.ID, img.Version)
	}
	if p := np.Progress; p != nil {
		pos, at := secs(p.Position), p.At.UTC()
		m.PositionSecs, m.PositionAt = &pos, &at
		if p.Duration > 0 {
			d := secs(p.Duration)
			m.DurationSecs = &d
		}
	}
	return m
}

// ArtworkPath is where /api/v1 serves a player's artwork, version naming
// the image.
func ArtworkPath(id devices.ID, version string) string {
	return "/api/v1/media/devices/" + url.PathEscape(string(id)) + "/artwork?v=" + version
}

// secs is d in seconds, to a tenth.
func secs(d time.Duration) float64 { return math.Round(d.Seconds()*10) / 10 }

// GetArtwork returns a player's current cover art, from memory: a player
// that has none the hub holds is ENOTFOUND, and so is a version (from an
// artwork URL) that is not the current image's, so an URL never answers
// another image. An empty version asks for the current image.
func (s *Service) GetArtwork(ctx context.Context, ref, version string) (artwork.Image, error) {
	inv, rec, err := findFor(ctx, s, ScopeRead, ref, inventory.playerToRead)
	if err != nil {
		return artwork.Image{}, err
	}
	m := s.mediaView(inv, rec)
	if m.State == nil || m.State.NowPlaying == nil {
		return artwork.Image{}, aboutf(ENOTFOUND, "%s is playing nothing with cover art", rec.Name)
	}
	img := s.artworkOf(inv, rec, m.State.NowPlaying)
	if img == nil {
		return artwork.Image{}, aboutf(ENOTFOUND, "%s has no cover art for what it plays", rec.Name)
	}
	if version != "" && version != img.Version {
		return artwork.Image{}, Errorf(ENOTFOUND, "The cover art version %q is no longer what %s plays; its media view's artwork_url names the current one", wording.Clip(version), rec.Name)
	}
	return *img, nil
}
