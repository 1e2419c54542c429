package mqtt

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"syscall"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// A broker that runs with Nagle's algorithm on (mosquitto's default,
// set_tcp_nodelay false) holds a small packet back until the hub has
// acknowledged the one before it. The hub sends no data after most of
// what the broker sends it (the PUBACK of its own command, its command
// echoed back through a wildcard subscription), so its kernel delays that
// acknowledgement, by 40 ms on Linux, and the device's state message,
// already at the broker, waits that long behind it: a write to a light
// that answers at once took 44 ms. Acknowledging at once
// (TCP_QUICKACK, re-armed after every read, as the kernel drops it on
// its own) lets the broker send the state as it arrives.

// The library reads a packet a few bytes at a time: its type, its length
// a byte at a time, then its body. On a bare socket each of those is a
// system call (and each re-arms TCP_QUICKACK, another), so a burst of 50
// state messages, a room's lights answering together, cost some 400
// system calls read one after another. The hub reads plain TCP through a
// buffer (readBuffer), so a burst costs one read. A TLS connection
// buffers its records already.

// readBuffer is the size of the read buffer of a plain TCP connection to
// the broker: a burst of state messages fits.
const readBuffer = 16 << 10

// quickAckSchemes are the broker URLs dialled over a connection that
// acknowledges at once; websockets are left to the library.
var quickAckSchemes = map[string]bool{"mqtt": true, "tcp": true, "mqtts": true, "ssl": true, "tls": true}

// openConn dials the broker for paho over TCP (and TLS) on a connection
// that acknowledges at once; plain TCP is read through a buffer.
func openConn(tlsConf *tls.Config) paho.OpenConnectionFunc {
	return func(u *url.URL, o paho.ClientOptions) (net.Conn, error) {
		if !quickAckSchemes[u.Scheme] {
			return nil, fmt.Errorf("mqtt: cannot dial %s:// over TCP", u.Scheme)
		}
		d := net.Dialer{Timeout: o.ConnectTimeout}
		if o.Dialer != nil {
			d = *o.Dialer
		}
		c, err := d.DialContext(context.Background(), "tcp", u.Host)
		if err != nil {
			return nil, err
		}
		conn := quickAck(c)
		if u.Scheme == "mqtt" || u.Scheme == "tcp" {
			return buffered(conn), nil
		}
		cfg := tlsConf.Clone()
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		t := tls.Client(conn, cfg)
		if err := t.HandshakeContext(context.Background()); err != nil {
			_ = c.Close()
			return nil, err
		}
		return t, nil
	}
}

// quickAckConn acknowledges what it reads at once.
type quickAckConn struct {
	net.Conn
	raw syscall.RawConn
}

// quickAck wraps c to acknowledge at once where the platform can; c as it
// is elsewhere.
func quickAck(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok || !quickAckSupported {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	q := &quickAckConn{Conn: c, raw: raw}
	q.arm()
	return q
}

func (q *quickAckConn) Read(p []byte) (int, error) {
	n, err := q.Conn.Read(p)
	if n > 0 {
		q.arm()
	}
	return n, err
}

// arm asks the kernel to acknowledge the next segments at once.
func (q *quickAckConn) arm() {
	_ = q.raw.Control(func(fd uintptr) { setQuickAck(fd) })
}

// bufferedConn is a connection read through a buffer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func buffered(c net.Conn) *bufferedConn {
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBuffer)}
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
