package eiscp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Discover sends the discovery queries (Onkyo/Integra and Pioneer) to each
// target ("host:port", a broadcast address or a receiver's own) and calls
// found with every answer and the address it came from, until ctx ends.
// Receivers answering on several interfaces answer more than once.
func Discover(ctx context.Context, targets []string, found func(Identity, net.IP)) error {
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return fmt.Errorf("eiscp: discovery socket: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	sent := 0
	for _, t := range targets {
		addr, err := net.ResolveUDPAddr("udp4", t)
		if err != nil {
			continue
		}
		for _, unit := range []byte{UnitAny, UnitPioneer} {
			if _, err := conn.WriteTo(DiscoveryQuery(unit), addr); err == nil {
				sent++
			}
		}
	}
	if sent == 0 {
		return fmt.Errorf("eiscp: no discovery query could be sent to %v", targets)
	}
	return readAnswers(ctx, conn, found)
}

func readAnswers(ctx context.Context, conn net.PacketConn, found func(Identity, net.IP)) error {
	buf := make([]byte, 2048)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("eiscp: discovery: %w", err)
		}
		m, err := Decode(buf[:n])
		if err != nil || m.Command != Discovered {
			continue
		}
		id, err := ParseIdentity(m.Param)
		if err != nil {
			continue
		}
		if ua, ok := from.(*net.UDPAddr); ok {
			found(id, ua.IP)
		}
	}
}

// ErrNoAnswer is returned by Identify when the receiver does not answer.
var ErrNoAnswer = errors.New("eiscp: no discovery answer")

// Identify asks one receiver ("host" or "host:port") who it is, by a unicast
// discovery query.
func Identify(ctx context.Context, hostport string) (Identity, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		id  Identity
		got bool
	)
	err := Discover(ctx, []string{WithPort(hostport)}, func(i Identity, _ net.IP) {
		if !got {
			id, got = i, true
			cancel()
		}
	})
	if got {
		return id, nil
	}
	if err == nil {
		err = ErrNoAnswer
	}
	return Identity{}, err
}

// WithPort adds the eISCP port to a host that has none.
func WithPort(host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(Port))
}

// BroadcastTargets are the IPv4 broadcast addresses of this machine's
// interfaces that are up, at the eISCP port; 255.255.255.255 when there is
// none.
func BroadcastTargets() []string {
	var out []string
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 || ifc.Flags&net.FlagBroadcast == 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if b := broadcastOf(a); b != nil {
				out = append(out, net.JoinHostPort(b.String(), strconv.Itoa(Port)))
			}
		}
	}
	if len(out) == 0 {
		out = append(out, net.JoinHostPort(net.IPv4bcast.String(), strconv.Itoa(Port)))
	}
	return out
}

func broadcastOf(a net.Addr) net.IP {
	n, ok := a.(*net.IPNet)
	if !ok {
		return nil
	}
	ip4 := n.IP.To4()
	if ip4 == nil || len(n.Mask) != net.IPv4len {
		return nil
	}
	b := make(net.IP, net.IPv4len)
	for i := range b {
		b[i] = ip4[i] | ^n.Mask[i]
	}
	return b
}
