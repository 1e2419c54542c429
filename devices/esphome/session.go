package esphome

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// The API version the hub speaks, sent in its hello.
const (
	apiMajor = 1
	apiMinor = 12
)

// writeTimeout bounds one write to a node.
const writeTimeout = 5 * time.Second

// errClosedOnHello: the node closed the connection at a Noise hello, as
// firmware without encryption did before it learned to say so.
var errClosedOnHello = errors.New("the node closed the connection at the encrypted hello")

// session is one connection to a node.
type session struct {
	conn     net.Conn
	codec    espwire.Codec
	wmu      sync.Mutex
	lastRecv atomic.Int64 // UnixNano of the last frame from the node
	noPong   atomic.Bool
}

func (s *session) send(ctx context.Context, ms ...espwire.Message) error {
	fs := make([]espwire.Frame, len(ms))
	for i, m := range ms {
		fs[i] = espwire.Encode(m)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	d := time.Now().Add(writeTimeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	_ = s.conn.SetWriteDeadline(d)
	return s.codec.WriteFrames(fs...)
}

// connect makes one connection and serves it until it ends; reached says
// whether the node listed its entities on it.
func (n *Node) connect(ctx context.Context) (reached bool, err error) {
	s, hello, err := n.open(ctx)
	if err != nil {
		return false, err
	}
	defer s.conn.Close()
	stop := context.AfterFunc(ctx, func() { s.goodbye() })
	defer stop()
	done := make(chan struct{})
	defer close(done)
	go s.keepAlive(done, n.cfg.KeepAlive)
	return n.serve(ctx, s, hello)
}

// open dials the node and says hello in the framing it takes: encrypted
// when there is a key, unless the node showed itself a plaintext node;
// plaintext otherwise, falling back (or forward) once when the node
// answers in the other framing.
func (n *Node) open(ctx context.Context) (*session, *espwire.HelloResponse, error) {
	if n.Encrypted() {
		s, h, err := n.hello(ctx, true)
		if errors.Is(err, ErrKeyMismatch) {
			return nil, nil, ErrKeyMismatch // said plainly; the node's reason adds nothing
		}
		if !errors.Is(err, espwire.ErrPlaintextNode) && !errors.Is(err, errClosedOnHello) {
			return s, h, err
		}
		s, h, err2 := n.hello(ctx, false)
		if err2 != nil {
			return nil, nil, fmt.Errorf("%w; in plaintext: %w", err, err2)
		}
		n.logf("esphome %s: the node has no encryption; using plaintext", n.cfg.Addr)
		n.usePlain(true)
		return s, h, nil
	}
	s, h, err := n.hello(ctx, false)
	if !errors.Is(err, espwire.ErrNeedsEncryption) {
		return s, h, err
	}
	if n.psk == nil {
		return nil, nil, ErrNeedsKey
	}
	n.usePlain(false)
	s, h, err = n.hello(ctx, true)
	if errors.Is(err, ErrKeyMismatch) {
		err = ErrKeyMismatch
	}
	return s, h, err
}

// hello dials, runs the Noise handshake when encrypted, and exchanges
// hellos, all within handshakeTimeout.
func (n *Node) hello(ctx context.Context, encrypted bool) (*session, *espwire.HelloResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	conn, err := n.cfg.Dialer.DialContext(ctx, "tcp", n.cfg.Addr)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	s, h, err := n.greet(ctx, conn, encrypted)
	if !stop() && err == nil {
		err = ctx.Err() // the deadline is cut: the hello came too late to use
	}
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			err = fmt.Errorf("no hello from the node: %w", ctx.Err())
		}
		return nil, nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return s, h, nil
}

func (n *Node) greet(ctx context.Context, conn net.Conn, encrypted bool) (*session, *espwire.HelloResponse, error) {
	r := bufio.NewReader(conn)
	s := &session{conn: conn, codec: &espwire.Plain{R: r, W: conn}}
	if encrypted {
		c, _, err := espwire.ClientHandshake(r, conn, n.psk, nil)
		if closedEarly(err) {
			err = errClosedOnHello
		}
		if err != nil {
			return nil, nil, err
		}
		s.codec = c
	}
	hello := &espwire.HelloRequest{ClientInfo: n.cfg.ClientInfo, APIVersionMajor: apiMajor, APIVersionMinor: apiMinor}
	if err := s.send(ctx, hello); err != nil {
		return nil, nil, err
	}
	for {
		f, err := s.codec.ReadFrame()
		if err != nil {
			return nil, nil, err
		}
		m, err := espwire.Decode(f)
		if err != nil {
			return nil, nil, err
		}
		if h, ok := m.(*espwire.HelloResponse); ok {
			if h.APIVersionMajor != apiMajor {
				return nil, nil, fmt.Errorf("the node speaks API %d.%d, the hub %d.x", h.APIVersionMajor, h.APIVersionMinor, apiMajor)
			}
			s.lastRecv.Store(time.Now().UnixNano())
			return s, h, nil
		}
	}
}

// closedEarly: the peer closed or reset the connection before a frame.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// serve asks for the node's description and entities, subscribes to
// their states once they are listed, and answers the node until the
// connection ends.
func (n *Node) serve(ctx context.Context, s *session, hello *espwire.HelloResponse) (reached bool, err error) {
	first := []espwire.Message{&espwire.DeviceInfoRequest{}, &espwire.ListEntitiesRequest{}}
	if !hello.AtLeast(1, 12) {
		// Before 1.12 the node lists nothing until it is connected; it
		// answers, but nothing waits for that answer.
		first = append([]espwire.Message{&espwire.ConnectRequest{}}, first...)
	}
	if err := s.send(ctx, first...); err != nil {
		return false, err
	}
	var listed []espwire.Entity
	for {
		f, err := s.codec.ReadFrame()
		if err != nil {
			if s.noPong.Load() {
				err = ErrNoPong
			}
			return reached, err
		}
		s.lastRecv.Store(time.Now().UnixNano())
		if err := espwire.FromNode(f); err != nil {
			return reached, err
		}
		m, err := espwire.Decode(f)
		if err != nil {
			return reached, err
		}
		switch m := m.(type) {
		case espwire.Entity:
			if len(listed) >= maxEntities {
				return reached, fmt.Errorf("the node lists more than %d entities", maxEntities)
			}
			listed = append(listed, m)
		case *espwire.ListEntitiesDoneResponse:
			n.setEntities(listed)
			listed = nil
			if !reached {
				reached = true
				if err := s.send(ctx, &espwire.SubscribeStatesRequest{}); err != nil {
					return reached, err
				}
				n.up(s)
			}
		default:
			if err := n.handle(ctx, s, m); err != nil {
				return reached, err
			}
		}
	}
}

// handle takes one message other than an entity's description.
func (n *Node) handle(ctx context.Context, s *session, m espwire.Message) error {
	switch m := m.(type) {
	case espwire.State:
		n.setState(m)
	case *espwire.DeviceInfoResponse:
		n.setInfo(*m)
	case *espwire.PingRequest:
		return s.send(ctx, &espwire.PingResponse{})
	case *espwire.GetTimeRequest:
		return s.send(ctx, &espwire.GetTimeResponse{EpochSeconds: uint32(time.Now().Unix())})
	case *espwire.DisconnectRequest:
		_ = s.send(ctx, &espwire.DisconnectResponse{})
		return ErrClosedByNode
	case *espwire.DisconnectResponse:
		return ErrClosedByNode
	case *espwire.ConnectResponse:
		if m.InvalidPassword {
			return ErrPassword
		}
	default:
		n.tell(m)
	}
	return nil
}

// keepAlive pings a silent node and drops one silent for 4.5 times every.
func (s *session) keepAlive(done <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		idle := time.Since(time.Unix(0, s.lastRecv.Load()))
		switch {
		case idle >= every*9/2:
			s.noPong.Store(true)
			s.conn.Close()
			return
		case idle >= every:
			_ = s.send(context.Background(), &espwire.PingRequest{})
		}
	}
}

// goodbye asks the node to close and gives it a second to answer.
func (s *session) goodbye() {
	_ = s.send(context.Background(), &espwire.DisconnectRequest{})
	_ = s.conn.SetReadDeadline(time.Now().Add(time.Second))
}
