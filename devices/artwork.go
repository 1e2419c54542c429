package devices

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
)

// HTTPArtwork fetches artwork with a plain GET: how the hub reads the art
// of a player that is not an ArtworkFetcher, and how adapters that are
// read theirs, with Header carrying their credentials.
type HTTPArtwork struct {
	Client *http.Client // http.DefaultClient when nil
	Header http.Header  // sent with the request (an Authorization)
}

// FetchArtwork GETs the image at rawURL, an http or https URL. A body
// larger than max bytes, an answer other than 200, or another scheme is an
// error.
func (a HTTPArtwork) FetchArtwork(ctx context.Context, rawURL string, max int64) ([]byte, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", Invalid(nil, "the artwork address is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	for k, vs := range a.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "image/*")
	hc := a.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL, whose query may carry a token
	}
	if err != nil {
		return nil, "", Unreachable(err, "fetching artwork")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", Refused(nil, "fetching artwork: answered %s", resp.Status)
	}
	return ReadArtwork(resp.Body, resp.Header.Get("Content-Type"), max)
}

// ReadArtwork reads at most max bytes of an image from r; more is an
// error wrapping ErrInvalid.
func ReadArtwork(r io.Reader, contentType string, max int64) ([]byte, string, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, "", Unreachable(err, "reading artwork")
	}
	if int64(len(b)) > max {
		return nil, "", Invalid(nil, "artwork is larger than %d bytes", max)
	}
	return b, contentType, nil
}
