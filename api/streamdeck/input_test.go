package streamdeck_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/streamdeck"
)

// TestUserAgentGate: without the plugin's User-Agent every path, known or
// not, is a 401 with an empty body, and nothing is written.
func TestUserAgentGate(t *testing.T) {
	h := newHub(t)
	before := h.light(t, keyID).State.On
	for _, c := range []struct{ method, path, ua string }{
		{http.MethodGet, "/listLights", ""},
		{http.MethodGet, "/listLights", "curl/8.0"},
		{http.MethodGet, "/ping", ""},
		{http.MethodGet, "/listLights", "NeewerLite.sdPlugin/0.1.3.0"}, // the case counts
		{http.MethodPost, "/switch", "Mozilla/5.0 neewerlite.sdPlugin/0.1"},
		{http.MethodGet, "/nowhere", ""},
		{http.MethodGet, "/mcp", ""},
	} {
		status, body := h.do(t, c.method, c.path, c.ua, "application/json", `{"lights":["`+keyID+`"],"state":`+fmt.Sprint(!before)+`}`)
		if status != http.StatusUnauthorized || len(body) != 0 {
			t.Errorf("%s %s with UA %q: %d %q; want 401 with an empty body", c.method, c.path, c.ua, status, body)
		}
	}
	if h.light(t, keyID).State.On != before {
		t.Error("a refused request switched the light")
	}
	if status, _ := h.do(t, http.MethodGet, "/ping", "neewerlite.sdPlugin/2.0", "", ""); status != http.StatusOK {
		t.Errorf("/ping with the plugin's UA: %d", status)
	}
}

// TestBadInputIsRefusedAndChangesNothing: wrong types, missing fields,
// broken JSON, huge bodies, unknown routes and wrong methods are 4xx, never
// a 5xx, and reach no light.
func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	h := newHub(t)
	key := `["` + keyID + `"]`
	cases := []struct {
		name, method, path, ctype, body string
		status                          int
		says                            string
	}{
		{"not json", "POST", "/switch", "application/json", "not json", 400, "invalid JSON"},
		{"no content type", "POST", "/switch", "", `{"lights":` + key + `,"state":true}`, 400, "Content-Type"},
		{"text content type", "POST", "/switch", "text/plain", `{"lights":` + key + `,"state":true}`, 400, "Content-Type"},
		{"state as a string", "POST", "/switch", "application/json", `{"lights":` + key + `,"state":"true"}`, 400, "state"},
		{"state missing", "POST", "/switch", "application/json", `{"lights":` + key + `}`, 400, "state"},
		{"lights missing", "POST", "/brightness", "application/json", `{"brightness":50}`, 400, "lights"},
		{"lights not strings", "POST", "/brightness", "application/json", `{"lights":[1,2],"brightness":50}`, 400, "lights"},
		{"lights an object", "POST", "/brightness", "application/json", `{"lights":{"a":1},"brightness":50}`, 400, "lights"},
		{"brightness a string", "POST", "/brightness", "application/json", `{"lights":` + key + `,"brightness":"50"}`, 400, "brightness"},
		{"brightness null", "POST", "/brightness", "application/json", `{"lights":` + key + `,"brightness":null}`, 400, "brightness"},
		{"saturation null (an unset HST key)", "POST", "/hst", "application/json", `{"lights":` + key + `,"brightness":50,"saturation":null,"hex_color":"#ff0000"}`, 400, "saturation"},
		{"bad hex", "POST", "/hst", "application/json", `{"lights":` + key + `,"brightness":50,"saturation":50,"hex_color":"#zz0000"}`, 400, "FF0000"},
		{"temperature neither unit", "POST", "/temperature", "application/json", `{"lights":` + key + `,"temperature":560}`, 400, "neither"},
		{"temperature zero", "POST", "/cct", "application/json", `{"lights":` + key + `,"brightness":50,"temperature":0}`, 400, "temperature"},
		{"fx id a fraction", "POST", "/fx", "application/json", `{"lights":` + key + `,"fx9":1.5}`, 400, "fx9"},
		{"an array body", "POST", "/fx", "application/json", `[1,2]`, 400, "invalid JSON"},
		{"trailing garbage", "POST", "/sat", "application/json", `{"lights":` + key + `,"saturation":5}}`, 400, "invalid JSON"},
		{"huge body", "POST", "/switch", "application/json", `{"lights":["` + strings.Repeat("x", 64<<10) + `"],"state":true}`, 413, "too large"},
		{"unknown route", "POST", "/disco", "application/json", `{}`, 404, ""},
		{"wrong method", "GET", "/switch", "", "", 405, ""},
		{"wrong method on a read", "POST", "/listLights", "application/json", `{}`, 405, ""},
	}
	before := h.light(t, keyID).State
	commands := len(h.radio[keyMAC].Commands())
	for _, c := range cases {
		status, body := h.do(t, c.method, c.path, pluginUA, c.ctype, c.body)
		if status != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%s: %d %.200s; want %d saying %q", c.name, status, body, c.status, c.says)
		}
		if status == http.StatusBadRequest {
			var e map[string]string
			if json.Unmarshal(body, &e) != nil || e["error"] == "" {
				t.Errorf("%s: body %s is not {\"error\":…}", c.name, body)
			}
		}
	}
	if got := h.light(t, keyID).State; *got != *before {
		t.Errorf("refused requests changed the light: %+v → %+v", before, got)
	}
	if got := len(h.radio[keyMAC].Commands()); got != commands {
		t.Errorf("refused requests reached the light (%d commands)", got-commands)
	}
	// The plugin's own values at the edges are taken: a decimal brightness
	// is truncated, a hue dial past 100 stays at 360°.
	h.post(t, "/brightness", map[string]any{"lights": []string{keyID}, "brightness": 80.9})
	if b := h.list(t)[keyID].Brightness; b != "80" {
		t.Errorf("brightness 80.9 lists %q; want 80", b)
	}
	h.post(t, "/hue", map[string]any{"lights": []string{keyID}, "hue": 256})
	if c := h.light(t, keyID).State.Color; c == nil || c.Hex != "FF0000" {
		t.Errorf("hue 256 gave %+v; want 360° (red)", c)
	}
}

// TestSlowClientsAreCutOff: a client that sends its headers a byte at a
// time, or never finishes its body, is dropped by the server's timeouts
// and the hub keeps answering others.
func TestSlowClientsAreCutOff(t *testing.T) {
	h := newHub(t)
	// A server of its own, with a short read timeout.
	ln, err := streamdeck.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv := streamdeck.New(h.svc, nil)
	srv.ReadTimeout = 500 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	host := ln.Addr().String()
	slow, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /switch HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", host, pluginUA)
	// Others are served while it hangs.
	h.url = "http://" + host
	if status, _ := h.do(t, http.MethodGet, "/listLights", pluginUA, "", ""); status != http.StatusOK {
		t.Fatalf("another client got %d beside a slow one", status)
	}
	// The server gives up on it: the read ends (an answer or a close)
	// within the read timeout, not never.
	_ = slow.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(slow).ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server held a client that never finished its body for 20 s")
	}
	if strings.Contains(line, " 5") {
		t.Errorf("a slow client got %q", line)
	}
}

// TestListenStaysOnLoopback: a non-loopback address is refused unless
// the network option asks for it.
func TestListenStaysOnLoopback(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "192.0.2.1:18486", "example.invalid:18486"} {
		ln, err := streamdeck.Listen(addr, false)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%q) opened; want a refusal", addr)
			continue
		}
		if !strings.Contains(err.Error(), "BIFROST_STREAMDECK_NETWORK") {
			t.Errorf("Listen(%q): %v; want it to say how to allow it", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		ln, err := streamdeck.Listen(addr, false)
		if err != nil {
			if addr == "[::1]:0" && strings.Contains(err.Error(), "assign") {
				continue // no IPv6 loopback on this machine
			}
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		ln.Close()
	}
	ln, err := streamdeck.Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatalf("Listen on every interface, asked for explicitly: %v", err)
	}
	ln.Close()
	if _, err := streamdeck.Listen("18486", false); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("a bare port: %v", err)
	}
}
