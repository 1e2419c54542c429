package mcp

import (
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// The guard runs before any MCP processing: it refuses a Host this hub
// does not answer to and a browser origin that is not allowed (403), and
// a missing, malformed, unknown or revoked key (401, answered by the
// server's one error renderer with WWW-Authenticate), and puts the key's
// principal in the request context.
//
// The Host check defends against DNS rebinding: a page on
// evil.example.com whose name the attacker points at the hub's address
// makes same-origin requests, with a Host and an Origin that agree, so
// comparing the two proves nothing. The page cannot choose the Host,
// though: it is the attacker's name, which the hub does not answer to.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !s.hosts.allows(req.Host, "") {
			return service.Errorf(service.EFORBIDDEN, "Host %s is not one this hub answers to; add it to BIFROST_ALLOWED_HOSTS", wording.Clip(req.Host))
		}
		if origin := req.Header.Get(echo.HeaderOrigin); origin != "" && !s.origins.allows(origin) {
			return service.Errorf(service.EFORBIDDEN, "Requests from origin %q are not allowed: add its host to BIFROST_ALLOWED_HOSTS, or the origin to BIFROST_ALLOWED_ORIGINS", wording.Clip(origin))
		}
		if err := keyauth.Authenticate(c, s.keys); err != nil {
			return err
		}
		return next(c)
	}
}

// noOAuth answers the OAuth discovery and registration probes MCP clients
// send after a 401 with a quick JSON 404, so a client with a bad key fails
// at once instead of waiting in an authorization flow.
func noOAuth(echo.Context) error {
	return service.Errorf(service.ENOTFOUND, "this hub does not use OAuth: send an API key as Authorization: Bearer bfr_…")
}

// hostPolicy decides which host names the hub answers to: loopback names
// and addresses, the addresses of this machine's interfaces and its host
// name, mDNS names (x.local, which only the home network resolves), and
// the names configured (each with any port, or with the port given).
type hostPolicy struct {
	names map[string]bool // "name" (any port) or "name:port", normalised
	local *localHost
}

func newHostPolicy(hosts []string) *hostPolicy {
	p := &hostPolicy{names: map[string]bool{}, local: newLocalHost()}
	for _, h := range hosts {
		if name, port := splitHost(strings.TrimSpace(h)); name != "" {
			p.names[joinHost(name, port)] = true
		}
	}
	return p
}

// allows reports whether the hub answers to hostport, a Host header or an
// origin's host; defaultPort is the port it means when it names none
// ("" when unknown: a Host header does not say its scheme). An empty Host
// (HTTP/1.0, never a browser) is allowed.
func (p *hostPolicy) allows(hostport, defaultPort string) bool {
	if hostport == "" {
		return true
	}
	name, port := splitHost(hostport)
	if name == "" {
		return false
	}
	if isLoopback(name) || strings.HasSuffix(name, ".local") || p.names[name] || p.configuredPort(name, port, defaultPort) {
		return true
	}
	return p.local.is(name)
}

// configuredPort reports whether name is configured with port, or, when
// hostport named no port, with the port it means.
func (p *hostPolicy) configuredPort(name, port, defaultPort string) bool {
	switch {
	case port != "":
		return p.names[joinHost(name, port)]
	case defaultPort != "":
		return p.names[joinHost(name, defaultPort)]
	}
	return p.names[joinHost(name, "80")] || p.names[joinHost(name, "443")]
}

// splitHost splits host[:port] into a lower-case name (an IPv6 address
// without brackets, no trailing dot) and its port ("" when none).
func splitHost(hostport string) (name, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		name, port = h, p
	} else {
		name = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	return strings.TrimSuffix(strings.ToLower(name), "."), port
}

func joinHost(name, port string) string {
	if port == "" {
		return name
	}
	return net.JoinHostPort(name, port)
}

// relookAfter is how old the interface addresses may be before a Host
// that is not among them has them looked up again: an address the machine
// gains (from DHCP, say) is answered to within it, and a stream of
// refused requests costs at most one lookup per interval.
const relookAfter = 5 * time.Second

// localHost is this machine's host names and interface addresses.
type localHost struct {
	names map[string]bool // the host name
	addrs func() ([]net.Addr, error)

	mu     sync.Mutex
	ips    map[netip.Addr]bool
	looked time.Time
}

func newLocalHost() *localHost {
	l := &localHost{names: map[string]bool{}, addrs: net.InterfaceAddrs}
	if h, err := os.Hostname(); err == nil && h != "" {
		l.names[strings.TrimSuffix(strings.ToLower(h), ".")] = true
	}
	return l
}

// is reports whether name is this machine's host name or the address of
// one of its interfaces.
func (l *localHost) is(name string) bool {
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return l.names[name]
	}
	ip = ip.WithZone("").Unmap()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ips[ip] {
		return true
	}
	if l.ips != nil && time.Since(l.looked) < relookAfter {
		return false
	}
	l.lookup()
	return l.ips[ip]
}

// lookup reads the interface addresses; l.mu is held.
func (l *localHost) lookup() {
	l.looked = time.Now()
	addrs, err := l.addrs()
	if err != nil {
		l.ips = map[netip.Addr]bool{}
		return
	}
	ips := make(map[netip.Addr]bool, len(addrs))
	for _, a := range addrs {
		var raw net.IP
		switch a := a.(type) {
		case *net.IPNet:
			raw = a.IP
		case *net.IPAddr:
			raw = a.IP
		}
		if ip, ok := netip.AddrFromSlice(raw); ok {
			ips[ip.Unmap()] = true
		}
	}
	l.ips = ips
}

// originPolicy decides which browser origins may call. An empty list
// allows the origins whose host the hub answers to (see hostPolicy).
type originPolicy struct {
	allowed map[string]bool // normalised origins; empty: the allowed hosts'
	hosts   *hostPolicy
}

func newOriginPolicy(origins []string, hosts *hostPolicy) originPolicy {
	p := originPolicy{allowed: map[string]bool{}, hosts: hosts}
	for _, o := range origins {
		if n, ok := normalOrigin(o); ok {
			p.allowed[n] = true
		}
	}
	return p
}

// allows reports whether a request may come from origin.
func (p originPolicy) allows(origin string) bool {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // includes "null", sent by sandboxed and file:// pages
	}
	if len(p.allowed) > 0 {
		n, _ := normalOrigin(origin)
		return p.allowed[n]
	}
	return p.hosts.allows(u.Host, defaultPort(u.Scheme))
}

// normalOrigin is scheme://host[:port] in lower case, without a default
// port.
func normalOrigin(origin string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme + "://" + strings.ToLower(withoutDefaultPort(scheme, u.Host)), true
}

func defaultPort(scheme string) string {
	if strings.EqualFold(scheme, "https") {
		return "443"
	}
	return "80"
}

func withoutDefaultPort(scheme, host string) string {
	switch {
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		return strings.TrimSuffix(host, ":80")
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		return strings.TrimSuffix(host, ":443")
	}
	return host
}

func isLoopback(hostname string) bool {
	if strings.EqualFold(hostname, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(hostname)
	return err == nil && ip.Unmap().IsLoopback()
}
