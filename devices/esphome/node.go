// Package esphome reaches ESPHome nodes over their native API: one Node
// per configured node keeps a connection (Noise-encrypted when a key is
// given and the node takes it, plaintext otherwise), learns the node's
// entities, follows their states and sends them commands, and reconnects
// with backoff when the node goes away. The Adapter makes the entities
// hub devices, "esphome:<MAC>/<object_id>". The wire format lives in
// package espwire.
package esphome

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// Errors a connection ends with that a person can act on.
var (
	// ErrNeedsKey: the node requires encryption and no key was given.
	ErrNeedsKey = errors.New("this node needs the API encryption key (BIFROST_ESPHOME_KEY)")
	// ErrKeyMismatch: the node refused the key.
	ErrKeyMismatch = espwire.ErrKeyMismatch
	// ErrPassword: the node (firmware before 2026.1) wants an API
	// password, which the hub does not send.
	ErrPassword = errors.New("the node wants an API password; set an encryption key on it instead")
	// ErrNoPong: the node stopped answering pings.
	ErrNoPong = errors.New("the node stopped answering pings")
	// ErrClosedByNode: the node asked to close the connection.
	ErrClosedByNode = errors.New("the node closed the connection")
)

// Config describes one node.
type Config struct {
	// Addr is "host" or "host:port"; the port is 6053 when left out.
	Addr string
	// Key is the node's API encryption key in base64, or "" for a node
	// without encryption. With a key the node is tried encrypted first;
	// one that answers only in plaintext is used in plaintext.
	Key string
	// ClientInfo is how the hub introduces itself ("Bifrost").
	ClientInfo string
	// KeepAlive is how long the connection may stay silent before the hub
	// pings (20 s); after 4.5 times that without a word it is dropped.
	KeepAlive time.Duration
	// Backoff paces reconnection (1 s doubling to 1 min, with jitter).
	Backoff devices.Backoff
	// Dialer opens the TCP connection (a net.Dialer when nil).
	Dialer interface {
		DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	}
	// Logf logs a connection's end and a fallback to plaintext; nil for
	// none.
	Logf func(format string, args ...any)
}

// handshakeTimeout bounds dialling and the hello exchange.
const handshakeTimeout = 10 * time.Second

// maxEntities bounds what one node may list.
const maxEntities = 4096

// Node is one ESPHome node as the hub knows it: its connection, what it
// said about itself, its entities and their last states.
type Node struct {
	cfg Config
	psk []byte

	mu        sync.Mutex
	plain     bool // the node answered in plaintext: use plaintext from now on
	sess      *session
	connected bool
	err       error
	info      espwire.DeviceInfoResponse
	entities  []espwire.Entity
	states    map[uint32]espwire.State
	stateAt   map[uint32]time.Time
	changed   chan struct{}
	listeners map[*Listener]bool
}

// A Listener follows a node's connection for a client of its own, such
// as a Bluetooth proxy transport. Up is called when a connection is
// ready (the entities listed, Send works), Message with each message
// the node sends that the hub does not handle itself, and Down when the
// connection ends, whether or not it was ready. They are called on the
// connection's goroutine, one at a time (but for the Up that Listen
// itself calls), and must not block for long.
type Listener struct {
	Up      func()
	Message func(espwire.Message)
	Down    func()
}

// Listen starts calling l; when the node is connected, Up is called at
// once. The returned func stops the calls.
func (n *Node) Listen(l *Listener) (stop func()) {
	n.mu.Lock()
	n.listeners[l] = true
	up := n.connected
	n.mu.Unlock()
	if up && l.Up != nil {
		l.Up()
	}
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		delete(n.listeners, l)
	}
}

// listening is the listeners now; n.mu is held.
func (n *Node) listening() []*Listener {
	ls := make([]*Listener, 0, len(n.listeners))
	for l := range n.listeners {
		ls = append(ls, l)
	}
	return ls
}

func (n *Node) tell(m espwire.Message) {
	n.mu.Lock()
	ls := n.listening()
	n.mu.Unlock()
	for _, l := range ls {
		if l.Message != nil {
			l.Message(m)
		}
	}
}

// New makes a node from its configuration; a key that is not 32 bytes of
// base64 is an error.
func New(cfg Config) (*Node, error) {
	n := &Node{
		cfg: cfg, states: map[uint32]espwire.State{}, stateAt: map[uint32]time.Time{},
		changed: make(chan struct{}), listeners: map[*Listener]bool{},
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		n.cfg.Addr = net.JoinHostPort(cfg.Addr, strconv.Itoa(espwire.Port))
	}
	if cfg.Key != "" {
		psk, err := espwire.ParseKey(cfg.Key)
		if err != nil {
			return nil, err
		}
		n.psk = psk
	}
	if n.cfg.ClientInfo == "" {
		n.cfg.ClientInfo = "Bifrost"
	}
	if n.cfg.KeepAlive <= 0 {
		n.cfg.KeepAlive = 20 * time.Second
	}
	if n.cfg.Backoff.Min <= 0 {
		n.cfg.Backoff = devices.Backoff{Min: time.Second, Max: time.Minute, Jitter: true}
	}
	if n.cfg.Dialer == nil {
		n.cfg.Dialer = &net.Dialer{}
	}
	return n, nil
}

// Addr is the node's host:port.
func (n *Node) Addr() string { return n.cfg.Addr }

// Run keeps the node connected until ctx ends, then says goodbye to it.
func (n *Node) Run(ctx context.Context) {
	wait := n.cfg.Backoff.Min
	for ctx.Err() == nil {
		reached, err := n.connect(ctx)
		if ctx.Err() != nil {
			err = nil
		}
		n.down(err)
		if err != nil {
			n.logf("esphome %s: %v", n.cfg.Addr, err)
		}
		if reached {
			wait = n.cfg.Backoff.Min
		}
		pause := wait
		if n.cfg.Backoff.Jitter {
			pause = devices.Jitter(wait)
		}
		if !devices.Sleep(ctx, pause) {
			return
		}
		wait = min(2*wait, n.cfg.Backoff.Max)
	}
}

func (n *Node) logf(format string, args ...any) {
	if n.cfg.Logf != nil {
		n.cfg.Logf(format, args...)
	}
}

// Changed is closed at the next change of the node: its connection, its
// entities, a state. Take it before reading what it guards.
func (n *Node) Changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.changed
}

// notify wakes those waiting on Changed; n.mu is held.
func (n *Node) notify() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// Status is whether the node is connected (its entities listed) and the
// error the last connection or attempt ended with: nil before any ended,
// and still the last one's while a new connection is up, so a watcher
// that wakes late still sees why the node went away.
func (n *Node) Status() (connected bool, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.connected, n.err
}

// Encrypted reports whether the node is reached with encryption: it has
// a key and has not shown itself a plaintext node.
func (n *Node) Encrypted() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.psk != nil && !n.plain
}

// Info is what the node last said about itself.
func (n *Node) Info() espwire.DeviceInfoResponse {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.info
}

// Entities are the node's entities as it last listed them.
func (n *Node) Entities() []espwire.Entity {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.entities
}

// State is the last state the node sent for the entity key, nil when it
// sent none.
func (n *Node) State(key uint32) espwire.State {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.states[key]
}

// StateTime is when the node sent the entity's last state.
func (n *Node) StateTime(key uint32) time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stateAt[key]
}

// Send sends a command (a LightCommandRequest, …) to the node. The node
// does not acknowledge commands; the state it sends back is the answer.
func (n *Node) Send(ctx context.Context, m espwire.Message) error {
	n.mu.Lock()
	s, ok := n.sess, n.connected
	n.mu.Unlock()
	if s == nil || !ok {
		return devices.Unreachable(nil, "not connected")
	}
	if err := s.send(ctx, m); err != nil {
		return devices.Unreachable(err, "did not take the command")
	}
	return nil
}

// up marks the node connected and tells the listeners, which it takes
// under the same lock so that one registering meanwhile is told once.
func (n *Node) up(s *session) {
	n.mu.Lock()
	n.sess, n.connected = s, true
	n.notify()
	ls := n.listening()
	n.mu.Unlock()
	for _, l := range ls {
		if l.Up != nil {
			l.Up()
		}
	}
}

func (n *Node) down(err error) {
	n.mu.Lock()
	n.sess, n.connected, n.err = nil, false, err
	n.notify()
	ls := n.listening()
	n.mu.Unlock()
	for _, l := range ls {
		if l.Down != nil {
			l.Down()
		}
	}
}

func (n *Node) setInfo(info espwire.DeviceInfoResponse) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.info = info
	n.notify()
}

func (n *Node) setEntities(es []espwire.Entity) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.entities = es
	n.notify()
}

func (n *Node) setState(st espwire.State) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.states[st.StateKey()] = st
	n.stateAt[st.StateKey()] = time.Now()
	n.notify()
}

func (n *Node) usePlain(plain bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.plain = plain
}
