package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/service"
)

// nodeKey is the fake node's own API encryption key; otherKey is not it.
const (
	nodeKey  = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	otherKey = "HxweHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE="
)

// apiError is an error answer of the API.
type apiError struct {
	Error, Message, Field string
}

func decodeError(t *testing.T, b []byte) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return e
}

// esphomeHub runs a hub with no configured ESPHome node and no demo home,
// with secret as BIFROST_SECRET.
func esphomeHub(t *testing.T, data, secret string) *inProcessHub {
	return runHub(t, data, func(c *Config) { c.Demo, c.Secret = false, secret })
}

// onlineESPHome reports whether the session lists the fake node's light
// online.
func onlineESPHome(s *uiSession) bool {
	var list []struct {
		ID     string
		Online bool
	}
	s.must(http.StatusOK, "GET", "/api/devices", nil, &list)
	for _, d := range list {
		if d.ID == "esphome:AC:BC:32:89:0E:A9/ceiling" {
			return d.Online
		}
	}
	return false
}

// TestAddESPHomeWithKey adds, through the session API, a node that wants
// its own key: a wrong key is a 422 naming the field key and saves
// nothing; the right one adds its entities, is kept only sealed (its
// text and its bytes are in no database file, nor in the log); a
// restarted hub opens it and reaches the node again.
func TestAddESPHomeWithKey(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey})
	data := t.TempDir()
	h := esphomeHub(t, data, hubSecret)
	s := signIn(t, h)

	var adapters []adapterInfo
	s.must(http.StatusOK, "GET", "/api/adapters", nil, &adapters)
	if !slices.ContainsFunc(adapters, func(a adapterInfo) bool { return a.Name == "esphome" && a.CanAdd && a.TakesKey }) {
		t.Fatalf("esphome is not offered with a key: %+v", adapters)
	}

	for _, body := range []map[string]string{
		{"adapter": "esphome", "address": fake.Addr(), "key": otherKey},
		{"adapter": "esphome", "address": fake.Addr()},
		{"adapter": "esphome", "address": fake.Addr(), "key": "not a key"},
	} {
		status, b := s.send("POST", "/api/devices", body)
		e := decodeError(t, b)
		if status != http.StatusUnprocessableEntity || e.Field != "key" || !strings.Contains(e.Message, "key") {
			t.Errorf("key %q: %d %s", body["key"], status, b)
		}
	}
	if onlineESPHome(s) {
		t.Fatal("a refused add left the node's devices behind")
	}

	var found []struct{ ID string }
	s.must(http.StatusCreated, "POST", "/api/devices", map[string]string{"adapter": "esphome", "address": fake.Addr(), "key": nodeKey}, &found)
	if len(found) != 4 {
		t.Fatalf("added %+v", found)
	}
	waitFor(t, "the node's light online", func() bool { return onlineESPHome(s) })
	raw, _ := base64.StdEncoding.DecodeString(nodeKey)
	assertNoPlaintext(t, data, nodeKey)
	assertNoPlaintext(t, data, string(raw))
	if strings.Contains(h.log.String(), nodeKey) {
		t.Error("the log holds the key")
	}

	h.stop()
	h = esphomeHub(t, data, hubSecret)
	s = signIn(t, h)
	waitFor(t, "the node's light online after a restart", func() bool { return onlineESPHome(s) })
}

// adapterInfo is an entry of GET /api/adapters.
type adapterInfo struct {
	Name     string
	CanAdd   bool `json:"can_add"`
	TakesKey bool `json:"takes_key"`
}

// TestAddESPHomeKeyNeedsSecret: without BIFROST_SECRET a node's key is
// refused before the node is reached, with a 422 naming the field key
// that says how to set BIFROST_SECRET; without a key the node is added.
func TestAddESPHomeKeyNeedsSecret(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey})
	plain := esphometest.Start(t, esphometest.Config{MAC: "AC:BC:32:00:00:01"})
	h := esphomeHub(t, t.TempDir(), "")
	s := signIn(t, h)

	status, b := s.send("POST", "/api/devices", map[string]string{"adapter": "esphome", "address": fake.Addr(), "key": nodeKey})
	e := decodeError(t, b)
	if status != http.StatusUnprocessableEntity || e.Field != "key" || !strings.Contains(e.Message, "set BIFROST_SECRET") {
		t.Fatalf("%d %s", status, b)
	}
	if fake.Attempts() != 0 {
		t.Errorf("the node was reached %d times for a key that cannot be saved", fake.Attempts())
	}
	var found []struct{ ID string }
	s.must(http.StatusCreated, "POST", "/api/devices", map[string]string{"adapter": "esphome", "address": plain.Addr()}, &found)
	if len(found) != 4 || !strings.HasPrefix(found[0].ID, "esphome:AC:BC:32:00:00:01/") {
		t.Fatalf("added %+v", found)
	}
}

// TestScanFindsESPHomeNode: a scan from the session API finds, by mDNS, a
// node announcing _esphomelib._tcp, and reaches it with the house's key:
// its entities become devices, online.
func TestScanFindsESPHomeNode(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey, MAC: "AC:BC:32:00:00:02"})
	fake.Announce(t, "cmd-scan-test", "acbc32000002")
	h := runHub(t, t.TempDir(), func(c *Config) { c.Demo, c.ESPHome.Key = false, nodeKey })
	s := signIn(t, h)

	var res struct{ Adapters []string }
	s.must(http.StatusOK, "POST", "/api/devices/scan", nil, &res)
	if !slices.Contains(res.Adapters, "esphome") {
		t.Fatalf("scanning with %v", res.Adapters)
	}
	waitFor(t, "the found node's light online", func() bool {
		var list []struct {
			ID     string
			Online bool
		}
		s.must(http.StatusOK, "GET", "/api/devices", nil, &list)
		return slices.ContainsFunc(list, func(d struct {
			ID     string
			Online bool
		}) bool {
			return d.ID == "esphome:AC:BC:32:00:00:02/ceiling" && d.Online
		})
	})
}

// TestRestoreSaysWhetherDeviceKeysOpen: `bifrost restore` of a backup
// holding a node's sealed key says the hub's secret opens it, and that
// another secret does not, naming the device to add again; the backup
// holds the key nowhere in plain text.
func TestRestoreSaysWhetherDeviceKeysOpen(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey})
	data := t.TempDir()
	h := esphomeHub(t, data, hubSecret)
	s := signIn(t, h)
	s.must(http.StatusCreated, "POST", "/api/devices", map[string]string{"adapter": "esphome", "address": fake.Addr(), "key": nodeKey}, nil)
	backup := backupOf(t, data)
	h.stop()
	assertHoldsNone(t, backup, nodeKey)

	code, _, errOut := runCLI("restore", backup, "--data", t.TempDir(), "--secret", hubSecret)
	if code != 0 || !strings.Contains(errOut, "BIFROST_SECRET opens the keys of the devices added by address") || strings.Contains(errOut, "WARN") {
		t.Errorf("restore with the hub's own secret: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI("restore", backup, "--data", t.TempDir(), "--secret", otherSecret)
	want := "the key of a device added by address does not open (the key was encrypted with another BIFROST_SECRET); add it again with its key"
	if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "device=esphome:"+fake.Addr()) {
		t.Errorf("restore with another secret: exit %d: %s", code, errOut)
	}
	assertSaysNone(t, errOut, nodeKey)
}

// TestAddESPHomeThroughV1: /api/v1 adds a node with its key as the
// session API does: a wrong key is a 422 naming the field key, the right
// one a 201 with the node's devices.
func TestAddESPHomeThroughV1(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey})
	h := esphomeHub(t, t.TempDir(), hubSecret)
	k, err := h.keys.CreateKey(service.WithPrincipal(t.Context(), service.System), "script", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	post := func(key string) (int, []byte) {
		body, _ := json.Marshal(map[string]string{"adapter": "esphome", "address": fake.Addr(), "key": key})
		req, _ := http.NewRequest("POST", h.URL("/api/v1/devices"), bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+k.Key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if status, b := post(otherKey); status != http.StatusUnprocessableEntity || decodeError(t, b).Field != "key" {
		t.Errorf("a wrong key: %d %s", status, b)
	}
	status, b := post(nodeKey)
	var found []struct{ ID string }
	if err := json.Unmarshal(b, &found); status != http.StatusCreated || err != nil || len(found) != 4 {
		t.Errorf("the right key: %d %s", status, b)
	}
}

// TestScanListsESPHomeNodeWantingKey: a node a scan finds that refuses
// the house's key is listed, by GET /api/adapters as the Devices page
// reads it, as waiting for its key, with its name, address and MAC
// address, and none of its devices; added at that address with its key
// it leaves the list and its light comes online.
func TestScanListsESPHomeNodeWantingKey(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Key: nodeKey, MAC: "AC:BC:32:00:00:03"})
	instance := fake.Announce(t, "cmd-key-test", "acbc32000003")
	h := runHub(t, t.TempDir(), func(c *Config) { c.Demo, c.Secret, c.ESPHome.Key = false, hubSecret, otherKey })
	s := signIn(t, h)

	s.must(http.StatusOK, "POST", "/api/devices/scan", nil, nil)
	var w keyWanted
	waitFor(t, "the node listed as waiting for its key", func() bool {
		var ok bool
		w, ok = wantedAt(s, fake.Addr())
		return ok
	})
	if want := (keyWanted{Address: fake.Addr(), Name: instance, MAC: "AC:BC:32:00:00:03", Refused: true}); w != want {
		t.Errorf("listed %+v, want %+v", w, want)
	}
	light := "esphome:AC:BC:32:00:00:03/ceiling"
	if online, known := onlineDevice(s, light); known {
		t.Errorf("the node waiting for its key has devices (online: %v)", online)
	}

	s.must(http.StatusCreated, "POST", "/api/devices", map[string]string{"adapter": "esphome", "address": w.Address, "key": nodeKey}, nil)
	if _, ok := wantedAt(s, fake.Addr()); ok {
		t.Error("the node added with its key is still listed as waiting for it")
	}
	waitFor(t, "the node's light online", func() bool { online, _ := onlineDevice(s, light); return online })
}

// keyWanted is an entry of an adapter's keys_wanted.
type keyWanted struct {
	Address, Name, MAC string
	Refused            bool
}

// wantedAt is the node GET /api/adapters lists as waiting for its key at
// addr, if it does.
func wantedAt(s *uiSession, addr string) (keyWanted, bool) {
	var adapters []struct {
		Name       string
		KeysWanted []keyWanted `json:"keys_wanted"`
	}
	s.must(http.StatusOK, "GET", "/api/adapters", nil, &adapters)
	for _, a := range adapters {
		for _, w := range a.KeysWanted {
			if a.Name == "esphome" && w.Address == addr {
				return w, true
			}
		}
	}
	return keyWanted{}, false
}

// onlineDevice says whether the session lists the device id, and online.
func onlineDevice(s *uiSession, id string) (online, known bool) {
	var list []struct {
		ID     string
		Online bool
	}
	s.must(http.StatusOK, "GET", "/api/devices", nil, &list)
	for _, d := range list {
		if d.ID == id {
			return d.Online, true
		}
	}
	return false, false
}
