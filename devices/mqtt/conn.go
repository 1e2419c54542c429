package mqtt

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices"
)

// Connection timing. The reconnect delay doubles from minBackoff to
// maxBackoff, each wait drawn at random from its upper half, so a house full
// of hubs and devices does not hammer a broker that just came back.
const (
	minBackoff     = 250 * time.Millisecond
	maxBackoff     = 30 * time.Second
	connectTimeout = 10 * time.Second
	keepAlive      = 30 * time.Second
	qos            = 1
)

// errNotConnected is the error of anything that needs the broker while the
// hub is not connected to it.
var errNotConnected = devices.Unreachable(nil, "MQTT broker not connected")

// conn is the hub's connection to the broker. It runs its own reconnect
// loop (a fresh client per session, paho's auto-reconnect off), so a
// publish while disconnected fails at once instead of being queued to fire
// after the reconnection.
type conn struct {
	brokerURL string
	cfg       Config
	tls       *tls.Config
	log       *slog.Logger
	onMessage func(topic string, payload []byte)
	onLink    func(up bool)

	mu       sync.Mutex
	client   paho.Client // the current session's client; nil between sessions
	live     bool        // connected and subscribed
	lastErr  error       // why the last attempt to connect failed; nil once connected
	sessions uint64      // sessions begun, counting the current one
	filters  []string
	dynamic  map[string]int // filters added at run time, reference-counted

	runMu   sync.Mutex
	started bool
	stop    chan struct{}
	done    chan struct{}
}

func newConn(cfg Config, onMessage func(string, []byte), onLink func(bool)) (*conn, error) {
	u, useTLS, err := brokerURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	c := &conn{
		brokerURL: u, cfg: cfg, log: cfg.Logger, onMessage: onMessage, onLink: onLink,
		dynamic: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{}),
	}
	if useTLS || cfg.CAFile != "" {
		if c.tls, err = tlsConfig(cfg.CAFile); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// brokerURL checks a broker URL and fills in the scheme's default port. It
// reports whether the scheme is a TLS one.
func brokerURL(raw string) (string, bool, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false, fmt.Errorf("mqtt: broker URL %q: %w", redactURL(raw), err)
	}
	ports := map[string]string{"mqtt": "1883", "tcp": "1883", "mqtts": "8883", "ssl": "8883", "tls": "8883", "ws": "80", "wss": "443"}
	port, ok := ports[u.Scheme]
	if !ok {
		return "", false, fmt.Errorf("mqtt: broker URL %q: use mqtt://, mqtts://, ws:// or wss://", redactURL(raw))
	}
	if u.Hostname() == "" {
		return "", false, fmt.Errorf("mqtt: broker URL %q has no host", redactURL(raw))
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	u.User = nil // credentials come from Config, never from the URL
	switch u.Scheme {
	case "mqtts", "ssl", "tls", "wss":
		return u.String(), true, nil
	}
	return u.String(), false, nil
}

// redactURL drops any password from a URL before it is logged.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// tlsConfig trusts the CAs in caFile, or the system's when it is empty.
func tlsConfig(caFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("mqtt: reading the broker CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("mqtt: %s holds no PEM certificate", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

func (c *conn) options(lost func(error)) *paho.ClientOptions {
	o := paho.NewClientOptions().
		AddBroker(c.brokerURL).
		SetClientID(c.cfg.ClientID).
		SetCleanSession(true).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetResumeSubs(false).
		SetOrderMatters(true).
		SetKeepAlive(keepAlive).
		SetPingTimeout(10 * time.Second).
		SetConnectTimeout(connectTimeout).
		SetWriteTimeout(10 * time.Second).
		SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { c.onMessage(m.Topic(), m.Payload()) }).
		SetConnectionLostHandler(func(_ paho.Client, err error) { lost(err) })
	if c.cfg.Username != "" {
		o.SetUsername(c.cfg.Username)
		o.SetPassword(c.cfg.Password)
	}
	if c.tls != nil {
		o.SetTLSConfig(c.tls.Clone())
	}
	if u, err := url.Parse(c.brokerURL); err == nil && quickAckSchemes[u.Scheme] && quickAckSupported {
		o.SetCustomOpenConnectionFn(openConn(c.tls))
	}
	return o
}

// setFilters sets the filters subscribed on every connection.
func (c *conn) setFilters(fs []string) {
	c.mu.Lock()
	c.filters = fs
	c.mu.Unlock()
}

// run keeps a session with the broker until ctx ends or close is called.
func (c *conn) run(ctx context.Context) {
	c.runMu.Lock()
	c.started = true
	c.runMu.Unlock()
	defer close(c.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	wait := backoff{min: minBackoff, max: maxBackoff}
	for {
		lost, err := c.session(ctx)
		if err == nil {
			wait.reset()
			select {
			case <-lost:
			case <-ctx.Done():
			}
			c.end()
		} else if ctx.Err() == nil {
			c.log.Warn("cannot connect to the MQTT broker", "url", redactURL(c.brokerURL), "err", err)
			c.mu.Lock()
			c.lastErr = err
			c.mu.Unlock()
		}
		if !devices.Sleep(ctx, wait.next()) {
			return
		}
	}
}

// session connects and subscribes. The channel it returns is closed when
// the connection is lost.
func (c *conn) session(ctx context.Context) (<-chan struct{}, error) {
	lost := make(chan struct{})
	var once sync.Once
	client := paho.NewClient(c.options(func(err error) {
		c.log.Warn("MQTT connection lost", "err", err)
		once.Do(func() { close(lost) })
	}))
	if err := wait(ctx, client.Connect(), connectTimeout); err != nil {
		client.Disconnect(0)
		return nil, err
	}
	c.mu.Lock()
	c.client = client
	c.sessions++
	subs := map[string]byte{}
	for _, f := range c.filters {
		subs[f] = qos
	}
	for f := range c.dynamic {
		subs[f] = qos
	}
	c.mu.Unlock()
	if err := wait(ctx, client.SubscribeMultiple(subs, nil), connectTimeout); err != nil {
		c.mu.Lock()
		c.client = nil
		c.mu.Unlock()
		client.Disconnect(0)
		return nil, fmt.Errorf("subscribing: %w", err)
	}
	c.mu.Lock()
	c.live, c.lastErr = true, nil
	c.mu.Unlock()
	c.onLink(true)
	return lost, nil
}

// end closes the current session.
func (c *conn) end() {
	c.mu.Lock()
	client := c.client
	c.client, c.live = nil, false
	c.mu.Unlock()
	if client != nil {
		client.Disconnect(250)
	}
	c.onLink(false)
}

// close stops run and waits for it.
func (c *conn) close() {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	if c.started {
		<-c.done
	}
}

// sessionNumber numbers the current (or last) session with the broker,
// from 1. A session's number is taken before it subscribes, so whatever
// its messages start already sees it.
func (c *conn) sessionNumber() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions
}

// up reports whether the hub is connected and subscribed.
func (c *conn) up() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// state reports whether the hub is connected and subscribed and, when it
// is not, why the last attempt failed.
func (c *conn) state() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live, c.lastErr
}

// publish sends a message with QoS 1 and waits for the broker to take it.
// It works from the moment the connection is up, before the subscriptions
// are (a retained message that arrives with them may ask a device at
// once). While disconnected it fails at once: nothing is kept to be sent
// later.
func (c *conn) publish(ctx context.Context, topic string, payload []byte, retained bool) error {
	c.mu.Lock()
	client := c.client
	c.mu.Unlock()
	if client == nil || !client.IsConnectionOpen() {
		return errNotConnected
	}
	if err := wait(ctx, client.Publish(topic, qos, retained, payload), connectTimeout); err != nil {
		return devices.Unreachable(err, "publishing to %s", topic)
	}
	return nil
}

// subscribe adds a filter to every session, starting now.
func (c *conn) subscribe(filter string) {
	c.mu.Lock()
	c.dynamic[filter]++
	first := c.dynamic[filter] == 1
	client := c.client
	c.mu.Unlock()
	if first && client != nil {
		c.watch("subscribing to "+filter, client.Subscribe(filter, qos, nil))
	}
}

// unsubscribe drops a filter added by subscribe once nobody needs it.
func (c *conn) unsubscribe(filter string) {
	c.mu.Lock()
	c.dynamic[filter]--
	last := c.dynamic[filter] <= 0
	if last {
		delete(c.dynamic, filter)
	}
	client := c.client
	c.mu.Unlock()
	if last && client != nil {
		c.watch("unsubscribing from "+filter, client.Unsubscribe(filter))
	}
}

// watch logs a token's failure without making anyone wait for it.
func (c *conn) watch(what string, t paho.Token) {
	go func() {
		if t.WaitTimeout(connectTimeout) && t.Error() != nil {
			c.log.Warn(what, "err", t.Error())
		}
	}()
}

// wait waits for a paho token, ctx, or the timeout.
func wait(ctx context.Context, t paho.Token, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.Done():
		return t.Error()
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errors.New("the broker did not answer in time")
	}
}

// backoff is an exponential delay with jitter.
type backoff struct {
	min, max time.Duration
	n        int
}

// next is the next delay: min·2ⁿ capped at max, drawn from its upper half.
func (b *backoff) next() time.Duration {
	d := b.max
	if b.n < 30 {
		d = min(b.min<<b.n, b.max)
	}
	b.n++
	return d/2 + mrand.N(d/2+1)
}

func (b *backoff) reset() { b.n = 0 }

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
