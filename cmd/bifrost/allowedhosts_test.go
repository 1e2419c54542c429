package main

import (
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestAllowedHosts(t *testing.T) {
	cfg, err := parseServe(t, nil, env{"BIFROST_ALLOWED_HOSTS": "Home.Example.com, tablet.lan:8443,192.168.1.20,[fd00::20]:3000"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"home.example.com", "tablet.lan:8443", "192.168.1.20", "[fd00::20]:3000"}
	if !reflect.DeepEqual([]string(cfg.AllowedHosts), want) {
		t.Fatalf("hosts %v, want %v", cfg.AllowedHosts, want)
	}
	cfg, err = parseServe(t, []string{"--allowed-hosts", "hub.example"}, env{"BIFROST_ALLOWED_HOSTS": "other.example"})
	if err != nil || !reflect.DeepEqual([]string(cfg.AllowedHosts), []string{"hub.example"}) {
		t.Fatalf("the flag does not win: %v %v", cfg.AllowedHosts, err)
	}
	for _, bad := range []string{"https://hub.example", "hub.example/mcp", "hub.example:99999", "hub.example:x", ":3000"} {
		if _, err := parseServe(t, []string{"--allowed-hosts", bad}, env{}); err == nil {
			t.Errorf("%q accepted as a host", bad)
		}
	}
}

// The setting reaches /mcp: the hub answers to the name configured and to
// its own address, and refuses a rebinding page's name, saying what to
// set.
func TestServeAllowedHosts(t *testing.T) {
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = t.TempDir()
	m.Config.Neewer.BLE = "off"
	m.Config.AllowedHosts = hostNameList{"home.example.com"}
	m.Logger = slog.New(slog.DiscardHandler)
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	defer m.Close()
	for host, want := range map[string]int{
		"home.example.com":    http.StatusUnauthorized, // past the Host check, no key
		m.Addr().String():     http.StatusUnauthorized,
		"evil.example.com":    http.StatusForbidden,
		"evil.example.com:80": http.StatusForbidden,
	} {
		req, err := http.NewRequest(http.MethodPost, "http://"+m.Addr().String()+"/mcp", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d: %s", host, resp.StatusCode, want, body)
		}
		if want == http.StatusForbidden && !strings.Contains(string(body), "add it to BIFROST_ALLOWED_HOSTS") {
			t.Errorf("Host %s: %s", host, body)
		}
	}
}
