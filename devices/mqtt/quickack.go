package mqtt

import (
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

// quickAckSchemes are the broker URLs dialled over a connection that
// acknowledges at once; websockets are left to the library.
var quickAckSchemes = map[string]bool{"mqtt": true, "tcp": true, "mqtts": true, "ssl": true, "tls": true}

// openConn dials the broker for paho over TCP (and TLS) on a connection
// that acknowledges at once.
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
			return conn, nil
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
