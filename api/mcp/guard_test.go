package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
)

// askAs posts tools/list with key to handler as a browser at host (the
// Host header) with origin ("" for none) would.
func askAs(t *testing.T, handler http.Handler, key, host, origin string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(rpc(1, "tools/list", nil)))
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// refused checks an answer is the 403 that says what to change.
func refused(t *testing.T, what string, code int, body string, says ...string) {
	t.Helper()
	var e struct{ Error, Message string }
	decodeJSON(t, []byte(body), &e)
	if code != http.StatusForbidden || e.Error != "forbidden" {
		t.Errorf("%s: %d %s, want 403 forbidden", what, code, body)
	}
	for _, s := range says {
		if !strings.Contains(e.Message, s) {
			t.Errorf("%s: message %q does not say %q", what, e.Message, s)
		}
	}
}

// localIP returns an address of one of this machine's interfaces that is
// not loopback (nor link-local, which needs a zone), or "" if it has none.
func localIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && !n.IP.IsLinkLocalMulticast() {
			return n.IP.String()
		}
	}
	return ""
}

// A DNS-rebinding page: evil.example.com now resolves to the hub, so the
// browser sends the attacker's name as Host and as Origin, which agree.
// The hub does not answer to that name.
func TestRebindingIsRefused(t *testing.T) {
	h := newHub(t)
	code, body := askAs(t, h.handler, h.control, "evil.example.com", "http://evil.example.com")
	refused(t, "rebinding", code, body,
		"Host evil.example.com is not one this hub answers to; add it to BIFROST_ALLOWED_HOSTS")
	code, body = askAs(t, h.handler, h.control, "evil.example.com:3000", "")
	refused(t, "rebinding, no Origin", code, body, "evil.example.com:3000", "BIFROST_ALLOWED_HOSTS")

	// The legacy SSE transport is guarded the same way. (Were it not, the
	// stream it opened would end at the deadline.)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/sse", nil)
	req.Host = "evil.example.com"
	req.Header.Set("Authorization", "Bearer "+h.control)
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	refused(t, "GET /sse", rec.Code, rec.Body.String(), "BIFROST_ALLOWED_HOSTS")
}

// Loopback, this machine's own addresses and name, and mDNS names, with
// or without a same-host Origin, need no configuration: a phone on the
// LAN reaching the hub at http://192.168.1.20:3000 or
// http://bifrost.local:3000 works out of the box.
func TestLocalHostsAreAccepted(t *testing.T) {
	h := newHub(t)
	hosts := []string{"127.0.0.1:3000", "localhost:3000", "LOCALHOST", "[::1]:3000", "127.0.0.1", "",
		"bifrost.local:3000", "Bifrost.Local."}
	if ip := localIP(t); ip != "" {
		hosts = append(hosts, net.JoinHostPort(ip, "3000"), ip)
	} else {
		t.Log("this machine has no address besides loopback: not asking as a LAN client")
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, name+":3000")
	}
	for _, host := range hosts {
		if code, body := askAs(t, h.handler, h.control, host, ""); code != http.StatusOK {
			t.Errorf("Host %q: %d %.200s", host, code, body)
		}
		if host == "" {
			continue
		}
		if code, body := askAs(t, h.handler, h.control, host, "http://"+host); code != http.StatusOK {
			t.Errorf("Host %q with its own Origin: %d %.200s", host, code, body)
		}
	}
}

// A name set in BIFROST_ALLOWED_HOSTS (a reverse proxy's, say) is
// answered to: without a port at any port, with one at that port only.
func TestConfiguredHostsAreAccepted(t *testing.T) {
	h := newHub(t)
	a := api.New(api.Config{Service: h.svc, Keys: h.keys, Accounts: h.acc, AllowedHosts: []string{"home.example.com", "Tablet.LAN:8443"}})
	t.Cleanup(a.CloseStreams)
	for host, want := range map[string]int{
		"home.example.com":       http.StatusOK,
		"HOME.example.com:443":   http.StatusOK,
		"home.example.com.:3000": http.StatusOK,
		"tablet.lan:8443":        http.StatusOK,
		"tablet.lan:3000":        http.StatusForbidden,
		"tablet.lan":             http.StatusForbidden,
		"evil.example.com":       http.StatusForbidden,
		"home.example.com.evil":  http.StatusForbidden,
		"127.0.0.1:3000":         http.StatusOK,
	} {
		if code, body := askAs(t, a.Handler(), h.control, host, ""); code != want {
			t.Errorf("Host %q: %d, want %d: %.200s", host, code, want, body)
		}
	}
	for origin, want := range map[string]int{
		"https://home.example.com":      http.StatusOK,
		"http://home.example.com:8080":  http.StatusOK,
		"https://tablet.lan:8443":       http.StatusOK,
		"https://tablet.lan":            http.StatusForbidden,
		"http://localhost:5173":         http.StatusOK,
		"https://evil.example.com":      http.StatusForbidden,
		"https://home.example.com.evil": http.StatusForbidden,
	} {
		code, body := askAs(t, a.Handler(), h.control, "home.example.com", origin)
		if code != want {
			t.Errorf("Origin %q: %d, want %d: %.200s", origin, code, want, body)
		}
		if want == http.StatusForbidden {
			refused(t, "Origin "+origin, code, body, "BIFROST_ALLOWED_HOSTS")
		}
	}
}

// The Host is one the hub answers to but the Origin is not: a page on
// another site calling the hub is refused.
func TestOriginMismatchIsRefused(t *testing.T) {
	h := newHub(t)
	hosts := []string{"127.0.0.1:3000", "localhost:3000"}
	if ip := localIP(t); ip != "" {
		hosts = append(hosts, net.JoinHostPort(ip, "3000"))
	}
	for _, host := range hosts {
		for _, origin := range []string{"http://evil.example.com", "https://evil.example.com:3000", "null", "http://localhost.evil.com"} {
			code, body := askAs(t, h.handler, h.control, host, origin)
			refused(t, "Host "+host+", Origin "+origin, code, body)
		}
	}
}
