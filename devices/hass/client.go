// Package hass speaks Home Assistant's WebSocket API
// (https://developers.home-assistant.io/docs/api/websocket): one
// authenticated connection, commands matched to their results by id, the
// state_changed subscription, a ping keepalive, and reconnection with a
// capped backoff. It knows nothing of Bifrost's devices; the bridge adapter
// built on it maps entities to devices.
package hass

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Config configures a Client. BaseURL and Token are required.
type Config struct {
	BaseURL string // http(s)://host:8123; ws(s)://…/api/websocket is derived
	Token   string // a long-lived access token
	// TLS configures wss:// (an https BaseURL); nil uses the system's CAs.
	TLS *tls.Config

	PingInterval time.Duration // keepalive period; 0 means 30s
	MinBackoff   time.Duration // first reconnect delay; 0 means 1s
	MaxBackoff   time.Duration // cap; 0 means 1 minute

	// OnStateChanged receives every state_changed event, in order, from one
	// goroutine. It may call the Client.
	OnStateChanged func(StateChanged)
	// OnConnect runs after every successful (re)connect, once the
	// state_changed subscription is active: the place to resync (get_states,
	// registries). Its ctx ends when that connection does.
	OnConnect func(ctx context.Context)
	// OnError reports why a connection failed or was lost. The same error
	// text is reported once until a connection succeeds again, so a refused
	// token (ErrAuth) or a host that is down does not flood the log.
	OnError func(error)
}

// Client is a connection to Home Assistant kept open by Run.
type Client struct {
	cfg   Config
	wsURL string

	mu  sync.Mutex
	cur *conn // nil while disconnected

	closing   chan struct{}
	closeOnce sync.Once
	running   chan struct{} // closed when Run returns
	runOnce   sync.Once

	events *queue[StateChanged]

	// after waits for a backoff; tests replace it.
	after func(ctx context.Context, d time.Duration) error

	web *http.Client // for what HA serves over plain HTTP (pictures)
}

// New checks cfg and returns a Client; nothing happens until Run.
func New(cfg Config) (*Client, error) {
	u, err := wsURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		return nil, errors.New("no access token")
	}
	setDefault(&cfg.PingInterval, 30*time.Second)
	setDefault(&cfg.MinBackoff, time.Second)
	setDefault(&cfg.MaxBackoff, time.Minute)
	return &Client{
		cfg: cfg, wsURL: u,
		closing: make(chan struct{}), running: make(chan struct{}),
		events: newQueue[StateChanged](), after: sleep,
		web: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: cfg.TLS, Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second,
		}},
	}, nil
}

// Get GETs a path HA serves (an entity_picture: "/api/media_player_proxy/…")
// with the client's token. The caller closes the body; an answer other
// than 200 is an error.
func (c *Client) Get(ctx context.Context, path string) (*http.Response, error) {
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return nil, fmt.Errorf("%q is not a path on Home Assistant", path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.cfg.BaseURL, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	resp, err := c.web.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL: its query carries the entity's access token
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s answered %s", strings.SplitN(path, "?", 2)[0], resp.Status)
	}
	return resp, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// wsURL turns http(s)://host[:port][/prefix] into ws(s)://…/api/websocket.
func wsURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("base URL %q: want http:// or https://", base)
	}
	if u.Host == "" {
		return "", fmt.Errorf("base URL %q has no host", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/websocket"
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run keeps a connection open until ctx ends or Close is called, and
// returns then (nil after Close). Call it once.
func (c *Client) Run(ctx context.Context) error {
	started := false
	c.runOnce.Do(func() { started = true })
	if !started {
		return errors.New("Run called twice, or after Close")
	}
	defer close(c.running)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		select {
		case <-c.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() { defer wg.Done(); c.dispatch(ctx) }()
	c.reconnectLoop(ctx)
	cancel()
	wg.Wait()
	select {
	case <-c.closing:
		return nil
	default:
		return ctx.Err()
	}
}

// Close stops Run and waits until every goroutine of the client has ended.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { close(c.closing) })
	started := true
	c.runOnce.Do(func() { started = false; close(c.running) })
	if started {
		<-c.running
	}
	return nil
}

func (c *Client) reconnectLoop(ctx context.Context) {
	backoff := c.cfg.MinBackoff
	var reported string
	for {
		connected, err := c.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if connected {
			backoff, reported = c.cfg.MinBackoff, ""
		}
		if err != nil && err.Error() != reported && c.cfg.OnError != nil {
			reported = err.Error()
			c.cfg.OnError(err)
		}
		if c.after(ctx, backoff) != nil {
			return
		}
		backoff = min(backoff*2, c.cfg.MaxBackoff)
	}
}

// session dials, authenticates, subscribes and serves one connection until
// it drops. connected tells whether authentication succeeded.
func (c *Client) session(ctx context.Context) (connected bool, err error) {
	ws, err := c.dial(ctx)
	if err != nil {
		return false, err
	}
	cn := newConn(ws)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(2)
	go func() { defer wg.Done(); <-sctx.Done(); ws.Close() }()
	go func() { defer wg.Done(); cn.read(c.events); cancel() }()

	if err := c.subscribe(sctx, cn); err != nil {
		return false, err // an HA refusing the subscription keeps backing off
	}
	c.setConn(cn)
	defer c.setConn(nil)
	if c.cfg.OnConnect != nil {
		wg.Add(1)
		go func() { defer wg.Done(); c.cfg.OnConnect(sctx) }()
	}
	c.keepalive(sctx, cn)
	if ctx.Err() != nil {
		return true, nil
	}
	return true, cn.cause()
}

func (c *Client) setConn(cn *conn) {
	c.mu.Lock()
	c.cur = cn
	c.mu.Unlock()
}

func (c *Client) subscribe(ctx context.Context, cn *conn) error {
	if c.cfg.OnStateChanged == nil {
		return nil
	}
	_, err := cn.subscribe(ctx, "state_changed")
	return err
}

// keepalive pings every PingInterval; a ping unanswered within the interval
// ends the connection. It returns when the connection ends.
func (c *Client) keepalive(ctx context.Context, cn *conn) {
	t := time.NewTicker(c.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, c.cfg.PingInterval)
		_, err := cn.command(pctx, map[string]any{"type": "ping"})
		cancel()
		if err != nil && ctx.Err() == nil {
			cn.fail(err) // "ping: context deadline exceeded"
			return
		}
	}
}

func (c *Client) dispatch(ctx context.Context) {
	for {
		ev, ok := c.events.pop(ctx)
		if !ok {
			return
		}
		if c.cfg.OnStateChanged != nil {
			c.cfg.OnStateChanged(ev)
		}
	}
}

// dial opens the socket and runs the auth phase.
func (c *Client) dial(ctx context.Context) (*websocket.Conn, error) {
	d := *websocket.DefaultDialer
	d.TLSClientConfig = c.cfg.TLS
	ws, resp, err := d.DialContext(ctx, c.wsURL, nil)
	if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
		return nil, c.explainHandshake(ctx, resp.StatusCode)
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", c.wsURL, err)
	}
	if err := c.auth(ctx, ws); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

// explainHandshake says why the WebSocket was not opened (the server
// answered status instead), as far as HA's REST API tells: the one call
// the bridge makes over REST, since the WebSocket cannot answer it.
func (c *Client) explainHandshake(ctx context.Context, status int) error {
	api := strings.TrimSuffix(c.cfg.BaseURL, "/") + "/api/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api, nil)
	if err != nil {
		return fmt.Errorf("%s answered HTTP %d, not a WebSocket", c.wsURL, status)
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: c.cfg.TLS, Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s answered HTTP %d, not a WebSocket, and %s did not answer: %w", c.wsURL, status, api, err)
	}
	defer resp.Body.Close()
	var body struct {
		Message string `json:"message"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return &AuthError{Said: api + " answers 401 Unauthorized"}
	case resp.StatusCode == http.StatusOK && body.Message == "API running.":
		return fmt.Errorf("Home Assistant's API answers at %s, but its WebSocket %s answered HTTP %d: "+
			"a reverse proxy in front of Home Assistant must pass WebSocket upgrades", api, c.wsURL, status)
	}
	return fmt.Errorf("%s does not look like Home Assistant: %s answered HTTP %d and %s HTTP %d; "+
		"give the address Home Assistant opens at, such as http://homeassistant.local:8123", c.cfg.BaseURL, c.wsURL, status, api, resp.StatusCode)
}

func (c *Client) auth(ctx context.Context, ws *websocket.Conn) error {
	if dl, ok := ctx.Deadline(); ok {
		ws.SetReadDeadline(dl)
	} else {
		ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	}
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	defer stop()
	var m serverMsg
	if err := ws.ReadJSON(&m); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if m.Type != "auth_required" {
		return fmt.Errorf("auth: got %q, want auth_required", m.Type)
	}
	if err := ws.WriteJSON(map[string]string{"type": "auth", "access_token": c.cfg.Token}); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	m = serverMsg{}
	if err := ws.ReadJSON(&m); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	switch m.Type {
	case "auth_ok":
		ws.SetReadDeadline(time.Time{})
		return nil
	case "auth_invalid":
		return &AuthError{Said: m.Message}
	default:
		return fmt.Errorf("auth: got %q, want auth_ok", m.Type)
	}
}

func (c *Client) conn() (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return nil, ErrNotConnected
	}
	return c.cur, nil
}

// Command sends msg (which must have a "type"; the id is added) and returns
// the raw result. A success:false answer is an *Error.
func (c *Client) Command(ctx context.Context, msg map[string]any) (json.RawMessage, error) {
	cn, err := c.conn()
	if err != nil {
		return nil, err
	}
	return cn.command(ctx, msg)
}

func (c *Client) list(ctx context.Context, typ string, out any) error {
	raw, err := c.Command(ctx, map[string]any{"type": typ})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", typ, err)
	}
	return nil
}

// States returns every entity's state (get_states).
func (c *Client) States(ctx context.Context) ([]State, error) {
	var v []State
	return v, c.list(ctx, "get_states", &v)
}

// Areas returns the area registry (config/area_registry/list).
func (c *Client) Areas(ctx context.Context) ([]Area, error) {
	var v []Area
	return v, c.list(ctx, "config/area_registry/list", &v)
}

// Devices returns the device registry (config/device_registry/list).
func (c *Client) Devices(ctx context.Context) ([]Device, error) {
	var v []Device
	return v, c.list(ctx, "config/device_registry/list", &v)
}

// Entities returns the entity registry (config/entity_registry/list).
func (c *Client) Entities(ctx context.Context) ([]Entity, error) {
	var v []Entity
	return v, c.list(ctx, "config/entity_registry/list", &v)
}

// CallService calls domain.service with data (may be nil) on target. HA
// answers once the action has run; state changes arrive as state_changed.
// A refusal is an *Error carrying HA's code and message.
func (c *Client) CallService(ctx context.Context, domain, service string, data map[string]any, target Target) error {
	msg := map[string]any{"type": "call_service", "domain": domain, "service": service}
	if len(data) > 0 {
		msg["service_data"] = data
	}
	if !target.empty() {
		msg["target"] = target
	}
	_, err := c.Command(ctx, msg)
	return err
}
