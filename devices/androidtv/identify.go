package androidtv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// address is a TV's host and control port; its pairing port is the next.
type address struct {
	Host string
	Port int
}

// parseAddress reads "host", "host:port", "[v6]:port" or a bare IPv6
// address; the port is the control port, DefaultPort when left out.
func parseAddress(s string) (address, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return address{}, devices.Invalid(nil, "no TV address given")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if ip := net.ParseIP(strings.Trim(s, "[]")); ip != nil {
			return address{Host: ip.String(), Port: DefaultPort}, nil
		}
		if strings.Contains(s, ":") {
			return address{}, devices.Invalid(nil, "%q is not a TV address such as 192.168.1.40 or 192.168.1.40:6466", s)
		}
		return address{Host: s, Port: DefaultPort}, nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p >= 65535 || host == "" {
		return address{}, devices.Invalid(nil, "%q is not a TV address such as 192.168.1.40 or 192.168.1.40:6466", s)
	}
	return address{Host: host, Port: p}, nil
}

func (a address) control() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }
func (a address) pairing() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port+1)) }

// String is the address as a person would give it: the host alone when
// the port is the usual one.
func (a address) String() string {
	if a.Port == DefaultPort {
		return a.Host
	}
	return a.control()
}

// record is what the hub remembers of a TV (one entry of the state file).
type record struct {
	ID     devices.ID `json:"id"`
	Host   string     `json:"host"`
	Port   int        `json:"port"`
	Name   string     `json:"name"`
	Model  string     `json:"model,omitempty"`
	MAC    string     `json:"mac,omitempty"` // learned from the TV's certificate
	Paired bool       `json:"paired"`        // the TV last took the hub's certificate
}

func (r record) address() address { return address{Host: r.Host, Port: r.Port} }

// idFor is a TV's id: its MAC address when known (12 lower-case hex
// digits), else its address.
func idFor(mac string, addr address) devices.ID {
	if hw, err := devices.ParseMAC(mac); err == nil {
		return devices.ID(AdapterName + ":" + strings.ReplaceAll(hw.String(), ":", ""))
	}
	return devices.ID(AdapterName + ":" + addr.String())
}

// recordFor is the record of a TV whose pairing port presented ident.
func recordFor(ident atvwire.Identity, addr address) record {
	name := ident.Name
	if name == "" {
		name = "Android TV " + addr.Host
	}
	return record{ID: idFor(ident.MAC, addr), Host: addr.Host, Port: addr.Port, Name: name, MAC: ident.MAC}
}

// identify asks the TV at addr who it is, presenting the adapter's
// client certificate.
func (a *Adapter) identify(ctx context.Context, addr address) (record, error) {
	cert, err := a.cert.get()
	if err != nil {
		return record{}, err
	}
	return identify(ctx, addr, cert)
}

// identify asks the TV at addr who it is: a TLS handshake on its pairing
// port, which works before pairing, shows its certificate.
func identify(ctx context.Context, addr address, cert tls.Certificate) (record, error) {
	conn, err := dialTLS(ctx, addr.pairing(), cert)
	if err != nil {
		return record{}, devices.Unreachable(err, "no answer on the pairing port %s", addr.pairing())
	}
	defer conn.Close()
	ident, err := serverIdentity(conn)
	if err != nil {
		return record{}, devices.Unreachable(err, "not an Android TV")
	}
	return recordFor(ident, addr), nil
}

func serverIdentity(conn *tls.Conn) (atvwire.Identity, error) {
	peers := conn.ConnectionState().PeerCertificates
	if len(peers) == 0 {
		return atvwire.Identity{}, errors.New("it presented no certificate")
	}
	return atvwire.ParseIdentity(peers[0]), nil
}

// dialTLS connects to addr presenting cert and completes the handshake.
func dialTLS(ctx context.Context, addr string, cert tls.Certificate) (*tls.Conn, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: dialTimeout}, Config: atvwire.ClientConfig(cert)}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	conn, ok := c.(*tls.Conn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("not a TLS connection")
	}
	return conn, nil
}

// refused reports whether err is the TV refusing the hub's certificate:
// a TLS alert from the TV, in the handshake or (TLS 1.3, where the client
// finishes first) on the first read.
func refused(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "remote error" {
		return true
	}
	var ae tls.AlertError
	return errors.As(err, &ae)
}
