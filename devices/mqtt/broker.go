package mqtt

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
)

// broker is the MQTT broker the hub runs for homes without one
// (BIFROST_MQTT_EMBEDDED). With a RetainStore its retained messages
// (discovery configs, availability, retained states) outlive a restart of
// the hub; without one they are kept in memory, and devices announce
// themselves again when they reconnect.
type broker struct {
	srv      *mochi.Server
	listener *tcpListener
	retain   *retainHook // nil without a RetainStore
}

// startBroker listens on addr. With a username, clients must log in with
// it and password; without one, any client may connect.
func startBroker(addr, username, password string, retained RetainStore, log *slog.Logger) (*broker, error) {
	caps := mochi.NewDefaultServerCapabilities()
	// Retained messages stay until replaced or cleared, as with mosquitto
	// (mochi's default drops them after a day: discovery configs with them).
	// An MQTT 5 message's own expiry still applies.
	caps.MaximumMessageExpiryInterval = 0
	srv := mochi.New(&mochi.Options{
		Logger:                 log.With("component", "embedded broker"),
		SysTopicResendInterval: 60,
		Capabilities:           caps,
	})
	var err error
	if username != "" {
		ledger := &auth.Ledger{
			Auth: auth.AuthRules{{Username: auth.RString(username), Password: auth.RString(password), Allow: true}},
			ACL:  auth.ACLRules{{}},
		}
		err = srv.AddHook(new(auth.Hook), &auth.Options{Ledger: ledger})
	} else {
		log.Warn("the embedded MQTT broker lets any client in; set BIFROST_MQTT_USER and BIFROST_MQTT_PASSWORD to require a login", "addr", addr)
		err = srv.AddHook(new(auth.AllowHook), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	b := &broker{srv: srv}
	if retained != nil {
		b.retain = newRetainHook(retained, log.With("component", "embedded broker"))
		if err := srv.AddHook(b.retain, nil); err != nil {
			b.retain.close()
			return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
		}
	}
	b.listener = &tcpListener{id: "bifrost", address: addr, srv: srv}
	if err := srv.AddListener(b.listener); err != nil {
		b.close()
		return nil, fmt.Errorf("mqtt: embedded broker on %s: %w", addr, err)
	}
	if err := srv.Serve(); err != nil {
		b.close()
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	return b, nil
}

// tcpListener is the embedded broker's TCP listener. mochi v2.7.9's own
// (listeners.TCP) fails at shutdown: its Close gathers the clients through
// Clients.GetByListener, which takes the clients' read lock twice, so a
// client leaving at that moment (its Delete waiting for the write lock)
// hangs Server.Close, and with it the hub's shutdown; a connection accepted
// while the broker closes races its wait for the clients (a data race, or
// a panic of its WaitGroup); and its connection goroutines share one error
// variable. This one disconnects its clients from a copy of the client
// list, and its Close returns only when every connection it accepted has
// ended, so none starts while the broker waits.
type tcpListener struct {
	id, address string
	srv         *mochi.Server
	tls         *tls.Config // nil: plain TCP

	mu     sync.Mutex
	ln     net.Listener
	closed bool
	conns  map[net.Conn]struct{} // accepted, not yet ended
	live   sync.WaitGroup        // their broker sessions
	log    *slog.Logger
}

var _ listeners.Listener = (*tcpListener)(nil)

func (l *tcpListener) ID() string       { return l.id }
func (l *tcpListener) Protocol() string { return "tcp" }

// Address is where the listener listens, once it does.
func (l *tcpListener) Address() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		return l.ln.Addr().String()
	}
	return l.address
}

// Init opens the address.
func (l *tcpListener) Init(log *slog.Logger) error {
	ln, err := net.Listen("tcp", l.address)
	if err != nil {
		return err
	}
	if l.tls != nil {
		ln = tls.NewListener(ln, l.tls)
	}
	l.mu.Lock()
	l.ln, l.log, l.conns = ln, log, map[net.Conn]struct{}{}
	l.mu.Unlock()
	return nil
}

// Serve hands each accepted connection to the broker until Close.
func (l *tcpListener) Serve(establish listeners.EstablishFn) {
	l.mu.Lock()
	ln := l.ln
	l.mu.Unlock()
	pause := 10 * time.Millisecond
	for {
		conn, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of file descriptors, say: wait, then go on
			l.log.Warn("the embedded MQTT broker cannot accept a connection", "err", err)
			time.Sleep(pause)
			pause = min(pause*2, time.Second)
			continue
		}
		pause = 10 * time.Millisecond
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			_ = conn.Close()
			return
		}
		l.conns[conn] = struct{}{}
		l.live.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.live.Done()
			if err := establish(l.id, conn); err != nil {
				l.log.Debug("an MQTT client left", "err", err)
			}
			l.mu.Lock()
			delete(l.conns, conn)
			l.mu.Unlock()
		}()
	}
}

// Close stops accepting, disconnects the listener's clients, closes the
// connections not yet clients, and waits for all of them to end.
func (l *tcpListener) Close(listeners.CloseFn) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	ln := l.ln
	conns := make([]net.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	// A client that reads nothing cannot hold up its goodbye for long.
	for _, c := range conns {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	}
	disconnectClients(l.srv, l.id)
	for _, c := range conns {
		_ = c.Close()
	}
	l.live.Wait()
}

// disconnectClients disconnects the broker's clients of listener id, from
// a copy of its client list (see tcpListener).
func disconnectClients(srv *mochi.Server, id string) {
	for _, cl := range srv.Clients.GetAll() {
		if cl.Net.Listener == id && !cl.Closed() {
			_ = srv.DisconnectClient(cl, packets.ErrServerShuttingDown)
		}
	}
}

// addr is the address the broker listens on.
func (b *broker) addr() string { return b.listener.Address() }

// url is how the hub reaches its own broker: over loopback when it
// listens on every interface.
func (b *broker) url() string {
	host, port, err := net.SplitHostPort(b.addr())
	if err != nil {
		return "mqtt://" + b.addr()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return "mqtt://" + net.JoinHostPort(host, port)
}

// close stops the broker and saves the retained messages still queued.
func (b *broker) close() {
	_ = b.srv.Close()
	if b.retain != nil {
		b.retain.close()
	}
}
