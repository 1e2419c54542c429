package streamdeck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/streamdeck"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// The plugin's User-Agent, as its httpHelpers.ts builds it.
const pluginUA = "neewerlite.sdPlugin/0.1.3.0 streamDeck/6.7"

// Two real Neewer lights on the fake radio, beside the demo home (whose
// lights are Hue bulbs, a Govee rope, simulated panels).
const (
	keyMAC  = "DF:24:3A:B4:46:5D" // RGB660 PRO: nine effects
	backMAC = "C4:10:00:00:00:03" // RGB62: seventeen
	keyID   = "neewer:" + keyMAC
	backID  = "neewer:" + backMAC
)

// hub is a real service over SQLite, with the demo home and the Neewer
// adapter on a fake radio, and the Stream Deck API on a loopback port.
type hub struct {
	svc    *service.Service
	home   *sim.Home
	radio  map[string]*neewertest.Light
	url    string
	ctx    context.Context
	client *http.Client
}

func newHub(t testing.TB) *hub {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(2 * time.Second)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	radio := neewertest.NewRadio()
	h := &hub{home: home, radio: map[string]*neewertest.Light{}, client: &http.Client{Timeout: 20 * time.Second}}
	var cfgs []neewer.LightConfig
	for _, l := range []struct{ mac, adv, name string }{{keyMAC, "NEEWER-RGB660 PRO", "Studio Key"}, {backMAC, "NEEWER-RGB62", "Studio Back"}} {
		cfg, err := neewer.ParseLights(l.mac + ",name=" + l.name + ",room=Studio")
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg...)
		h.radio[l.mac] = radio.Add(l.mac, l.adv)
	}
	ad := neewer.New(neewer.Config{Transport: radio, Registry: reg, Lights: cfgs, ScanFor: 100 * time.Millisecond, Rescan: -1,
		Timing: neewer.Timing{ConnectTimeout: 500 * time.Millisecond, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond, ProbeInterval: time.Hour, Pace: time.Millisecond}})
	h.svc = service.New(service.Config{Store: db, Registry: reg, Scanners: []devices.Scanner{ad, home}})
	ln, err := streamdeck.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	h.url = "http://" + ln.Addr().String()
	done := make(chan struct{}, 4)
	for _, run := range []func(context.Context) error{h.svc.Run, home.Run, func(ctx context.Context) error { ad.Run(ctx); return nil },
		func(ctx context.Context) error { return streamdeck.New(h.svc, nil).Serve(ctx, ln) }} {
		go func() { _ = run(ctx); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		ad.Close()
		for range 4 {
			<-done
		}
		reg.Close()
		db.Close()
	})
	h.ctx = service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})
	// The plugin starts once its lights are there and the Neewer ones
	// connected.
	for _, l := range h.radio {
		eventually(t, "the Neewer lights to connect and be asked their state", func() bool { return l.Connected() && len(l.Frames()) >= 2 })
	}
	eventually(t, "the lights to be listed as reachable", func() bool {
		ls := h.list(t)
		return ls[keyID].State == "0" && ls[backID].State == "0" && ls["sim:desk-lamp"].State != ""
	})
	return h
}

// listed is one light of /listLights, decoded strictly as strings.
type listed struct {
	ID, Name, CCTRange, Brightness, Temperature, SupportRGB, MaxChannel, State string
}

// list asks /listLights as the plugin's heartbeat does and checks its
// shape: exactly the eight keys, every value a string.
func (h *hub) list(t testing.TB) map[string]listed {
	t.Helper()
	status, body := h.do(t, http.MethodGet, "/listLights", pluginUA, "", "")
	if status != http.StatusOK {
		t.Fatalf("/listLights: %d %s", status, body)
	}
	var raw struct {
		Lights []map[string]any `json:"lights"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("/listLights body %s: %v", body, err)
	}
	out := map[string]listed{}
	for _, l := range raw.Lights {
		if len(l) != 8 {
			t.Fatalf("a light has %d keys, want NeewerLite's eight: %v", len(l), l)
		}
		s := map[string]string{}
		for k, v := range l {
			str, ok := v.(string)
			if !ok {
				t.Fatalf("%s of %v is %T, want a string", k, l["name"], v)
			}
			s[k] = str
		}
		out[s["id"]] = listed{s["id"], s["name"], s["cctRange"], s["brightness"], s["temperature"], s["supportRGB"], s["maxChannel"], s["state"]}
	}
	return out
}

// do sends one request as the plugin's http.request does.
func (h *hub) do(t testing.TB, method, path, ua, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	} else {
		req.Header["User-Agent"] = []string{""} // Go would send its own
	}
	res, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// post sends an action's body and wants NeewerLite's success, echoing
// the lights as sent.
func (h *hub) post(t *testing.T, path string, body map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	status, got := h.do(t, http.MethodPost, path, pluginUA, "application/json", string(b))
	lights, _ := json.Marshal(body["lights"])
	want := `{"success":true,"switched":` + string(lights) + "}"
	if status != http.StatusOK || string(bytes.TrimSpace(got)) != want {
		t.Fatalf("POST %s %s: %d %s; want 200 %s", path, b, status, got, want)
	}
}

// light reads a light back through the service.
func (h *hub) light(t *testing.T, ref string) service.Light {
	t.Helper()
	l, err := h.svc.GetLight(h.ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func eventually(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func hexes(frames [][]byte) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = fmt.Sprintf("% X", f)
	}
	return out
}
