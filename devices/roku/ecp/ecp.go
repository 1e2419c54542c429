// Package ecp speaks Roku's External Control Protocol: plain HTTP on TCP
// port 8060 (PROTOCOLS.md §4.3). Queries are GETs answered with XML
// (query/device-info, query/apps, query/active-app, query/media-player);
// commands are POSTs with an empty body (keypress, keydown, keyup, launch,
// search/browse). A Client is stateless: every call names the device's
// address.
package ecp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// DefaultPort is the port ECP listens on.
const DefaultPort = 8060

// LimitedBody is what a Roku in the "Limited" network-access mode (the
// default since Roku OS 14.1) answers, with HTTP 403, to a command.
const LimitedBody = "ECP command not allowed in Limited mode."

// maxBody bounds what is read of an answer.
const maxBody = 1 << 20

// Client sends ECP requests.
type Client struct {
	// HTTP is the client requests go through; http.DefaultClient when nil.
	HTTP *http.Client
}

// Error is a request that failed: the device did not answer (Status 0,
// Err says why) or answered with a status other than 2xx.
type Error struct {
	Method string
	Path   string // as sent, without the query
	Status int
	Body   string // the answer's body, trimmed
	Err    error
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err)
	}
	s := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.Path, e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Limited reports whether the device refused the request because its
// network access is set to "Limited".
func (e *Error) Limited() bool {
	return e.Status == http.StatusForbidden && (e.Method == http.MethodPost || strings.Contains(e.Body, "Limited mode"))
}

// WithPort normalises a device address given as "host", "host:port" or a
// URL ("http://192.168.1.40:8060/") to "host:port", with DefaultPort when
// none is given.
func WithPort(addr string) string {
	addr = strings.TrimSpace(addr)
	if u, err := url.Parse(addr); err == nil && u.Scheme != "" && u.Host != "" {
		addr = u.Host
	}
	addr = strings.TrimSuffix(addr, "/")
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(strings.Trim(addr, "[]"), strconv.Itoa(DefaultPort))
}

// Escape percent-encodes s for a path segment or a query value the way
// ECP expects: UTF-8 bytes, a space as %20 (never '+').
func Escape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// get fetches path and returns the answer's body.
func (c *Client) get(ctx context.Context, addr, path string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, addr, path, "")
}

// post sends a command with an empty body.
func (c *Client) post(ctx context.Context, addr, path, query string) error {
	_, err := c.do(ctx, http.MethodPost, addr, path, query)
	return err
}

// do sends one request; path and query are already escaped.
func (c *Client) do(ctx context.Context, method, addr, path, query string) ([]byte, error) {
	fail := func(status int, body string, err error) error {
		return &Error{Method: method, Path: path, Status: status, Body: body, Err: err}
	}
	host, err := resolve(ctx, addr)
	if err != nil {
		return nil, fail(0, "", err)
	}
	target := "http://" + host + path
	if query != "" {
		target += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, method, target, nil)
	if err != nil {
		return nil, fail(0, "", err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fail(0, "", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail(resp.StatusCode, strings.TrimSpace(string(body)), nil)
	}
	if err != nil {
		return nil, fail(0, "", err)
	}
	return body, nil
}

// resolve turns a host name into an address: a Roku refuses (HTTP 403) a
// request whose Host header is a name rather than an IP address, its
// defence against DNS rebinding.
func resolve(ctx context.Context, addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if net.ParseIP(host) != nil {
		return addr, nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", err
	}
	if len(ips) == 0 {
		return "", fmt.Errorf("%s has no address", host)
	}
	best := ips[0]
	for _, ip := range ips {
		if ip.Unmap().Is4() {
			best = ip
			break
		}
	}
	return net.JoinHostPort(best.Unmap().String(), port), nil
}

// DeviceInfo asks the device who it is and how it is (GET
// /query/device-info).
func (c *Client) DeviceInfo(ctx context.Context, addr string) (DeviceInfo, error) {
	b, err := c.get(ctx, addr, "/query/device-info")
	if err != nil {
		return DeviceInfo{}, err
	}
	return ParseDeviceInfo(b)
}

// Apps lists the installed apps, and a TV's inputs (GET /query/apps).
func (c *Client) Apps(ctx context.Context, addr string) ([]App, error) {
	b, err := c.get(ctx, addr, "/query/apps")
	if err != nil {
		return nil, err
	}
	return ParseApps(b)
}

// ActiveApp asks which app is in front (GET /query/active-app).
func (c *Client) ActiveApp(ctx context.Context, addr string) (ActiveApp, error) {
	b, err := c.get(ctx, addr, "/query/active-app")
	if err != nil {
		return ActiveApp{}, err
	}
	return ParseActiveApp(b)
}

// MediaPlayer asks for the state of the media player (GET
// /query/media-player).
func (c *Client) MediaPlayer(ctx context.Context, addr string) (Player, error) {
	b, err := c.get(ctx, addr, "/query/media-player")
	if err != nil {
		return Player{}, err
	}
	return ParsePlayer(b)
}

// Keypress presses and releases key ("Select", "Home", a Literal).
func (c *Client) Keypress(ctx context.Context, addr, key string) error {
	return c.post(ctx, addr, "/keypress/"+Escape(key), "")
}

// Keydown presses key and holds it until Keyup.
func (c *Client) Keydown(ctx context.Context, addr, key string) error {
	return c.post(ctx, addr, "/keydown/"+Escape(key), "")
}

// Keyup releases a key held with Keydown.
func (c *Client) Keyup(ctx context.Context, addr, key string) error {
	return c.post(ctx, addr, "/keyup/"+Escape(key), "")
}

// Literal is the key that types r into a text field: "Lit_" and the
// character, which Keypress percent-encodes ("Lit_%20" for a space).
func Literal(r rune) string { return "Lit_" + string(r) }

// Launch opens app id; contentID and mediaType (one of MediaTypes), when
// given, ask the app to play that title (deep linking).
func (c *Client) Launch(ctx context.Context, addr, id, contentID, mediaType string) error {
	var q []string
	if contentID != "" {
		q = append(q, "contentId="+Escape(contentID))
	}
	if mediaType != "" {
		q = append(q, "mediaType="+Escape(mediaType))
	}
	return c.post(ctx, addr, "/launch/"+Escape(id), strings.Join(q, "&"))
}

// MediaTypes are the mediaType values a deep link takes.
var MediaTypes = []string{"movie", "episode", "series", "season", "shortFormVideo", "tvSpecial", "live"}

// Browse is a search/browse request: the device's own search for a
// title, optionally launching the first match (in ProviderID's app when
// set).
type Browse struct {
	Keyword    string
	Type       string // "movie", "tv-show", "person", "channel", "game"; "" for any
	Launch     bool
	ProviderID string
}

// Query is the request's query string, in ECP's order and encoding.
func (s Browse) Query() string {
	q := []string{"keyword=" + Escape(s.Keyword)}
	if s.Type != "" {
		q = append(q, "type="+Escape(s.Type))
	}
	if s.Launch {
		q = append(q, "launch=true")
	}
	if s.ProviderID != "" {
		q = append(q, "provider-id="+Escape(s.ProviderID))
	}
	return strings.Join(q, "&")
}

// SearchBrowse opens the device's search for s (POST /search/browse).
func (c *Client) SearchBrowse(ctx context.Context, addr string, s Browse) error {
	return c.post(ctx, addr, "/search/browse", s.Query())
}
