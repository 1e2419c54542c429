package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/streamdeck"
)

// TestStreamDeckIsOffUnlessAsked: unset, nothing listens and Settings says
// it is off; set, the demo home's lights answer the plugin on their own
// port (never on the main one), and Settings says where.
func TestStreamDeckIsOffUnlessAsked(t *testing.T) {
	off := runHub(t, t.TempDir(), func(*Config) {})
	if off.StreamDeckAddr() != nil {
		t.Fatalf("the Stream Deck API listens at %v with the option unset", off.StreamDeckAddr())
	}
	var status struct {
		On   bool   `json:"on"`
		Addr string `json:"addr"`
	}
	signIn(t, off).must(http.StatusOK, "GET", "/api/streamdeck", nil, &status)
	if status.On || status.Addr != "" {
		t.Errorf("Settings says %+v with the Stream Deck API off", status)
	}

	on := runHub(t, t.TempDir(), func(c *Config) { c.StreamDeck.Addr = "127.0.0.1:0" })
	addr := on.StreamDeckAddr()
	if addr == nil {
		t.Fatal("the Stream Deck API is not listening")
	}
	signIn(t, on).must(http.StatusOK, "GET", "/api/streamdeck", nil, &status)
	if !status.On || status.Addr != addr.String() {
		t.Errorf("Settings says %+v; want on at %s", status, addr)
	}
	get := func(url string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("User-Agent", streamdeck.UserAgentPrefix+"0.1.3.0")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get("http://" + addr.String() + "/listLights")
	var listed struct {
		Lights []map[string]string `json:"lights"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &listed) != nil || len(listed.Lights) < 5 {
		t.Fatalf("/listLights on the Stream Deck port: %d %.300s", code, body)
	}
	if code, _ := get(on.URL("/listLights")); code != http.StatusNotFound {
		t.Errorf("/listLights on the main port: %d; want 404 (the routes are on their own listener)", code)
	}
}

// TestStreamDeckRefusesTheNetworkUnlessAsked: a non-loopback address
// stops the start with a message saying how to allow it.
func TestStreamDeckRefusesTheNetworkUnlessAsked(t *testing.T) {
	h := &inProcessHub{log: newLineLog()}
	h.Main = NewMain(CLI{Stdout: io.Discard, Stderr: h.log, Getenv: env{}.lookup})
	c := &h.Config
	c.Addr, c.DataDir, c.Demo, c.Neewer.BLE = "127.0.0.1:0", t.TempDir(), true, "off"
	c.Media.SonosEventAddr = "127.0.0.1:0"
	c.StreamDeck.Addr = "0.0.0.0:0"
	err := h.Run(t.Context())
	h.Close()
	if err == nil || !strings.Contains(err.Error(), "streamdeck-addr") || !strings.Contains(err.Error(), "BIFROST_STREAMDECK_NETWORK") {
		t.Fatalf("start on 0.0.0.0: %v; want a refusal naming the option that allows it", err)
	}
	open := runHub(t, t.TempDir(), func(c *Config) { c.StreamDeck = StreamDeckConfig{Addr: "0.0.0.0:0", Network: true} })
	if open.StreamDeckAddr() == nil {
		t.Fatal("asked explicitly, the Stream Deck API did not listen on every interface")
	}
	if !strings.Contains(open.log.String(), "takes no key") {
		t.Errorf("no warning that it listens beyond loopback:\n%s", open.log)
	}
}
