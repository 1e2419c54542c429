package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
	"github.com/bifrost-hub/bifrost/devices/wol"
	"github.com/bifrost-hub/bifrost/service"
)

// TestTVs runs the hub's binary against a fake Android TV (TLS, polo
// pairing, the remote session) and a fake Roku TV (ECP over HTTP), both
// configured by address, with Wake-on-LAN packets sent to a listener of
// the test: pairing through /api/v1, then keys, apps, play_on, text and
// power through /api/v1 and through the official MCP TypeScript SDK.
func TestTVs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node; skipped with -short")
	}
	bin := buildBinary(t)
	atv := atvtest.Start(t, atvtest.Options{Name: "Bedroom TV", PairFile: filepath.Join(t.TempDir(), "pairings")})
	rk := rokutest.New(rokutest.Options{IsTV: true, Name: "Den TV"})
	t.Cleanup(rk.Close)
	wake, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wake.Close() })
	data := t.TempDir()
	args := []string{"--androidtv-hosts", atv.Addr(), "--roku-hosts", rk.Addr(),
		"--wol-targets", wake.LocalAddr().String(), "--device-timeout", "10s"}
	h := startHub(t, bin, data, args...)
	out, _ := bifrost(t, bin, "keys", "create", "--name", "tvs", "--data", data)
	api := client{tb: t, hub: h, key: strings.TrimSpace(out)}
	const atvID, rokuID = "androidtv:aabbccddeeff", "roku:x0040000a001"

	pairTheAndroidTV(t, api, atv, atvID)
	androidTVThroughV1(t, api, atv)
	rokuThroughV1(t, api, rk)
	throughMCP(t, api, atv, rk)
	wakeAddress(t, api, rokuID)
	wakeOnLAN(t, api, atv, rk, wake, atvID, rokuID)

	// The pairing outlives the hub: after a restart the TV takes commands
	// without showing a second code.
	shown := atv.CodesShown()
	h.stop(syscall.SIGTERM, 15*time.Second)
	h = startHub(t, bin, data, args...)
	api.hub = h
	waitDevice(t, api, atvID, "online and paired after a restart", func(d service.DeviceView) bool {
		return d.Online && d.Pairing == service.PairingPaired
	})
	atv.Reset()
	api.must(http.StatusOK, "POST", "/api/v1/remote/devices/Bedroom%20TV/command", map[string]any{"key": "home"}, nil)
	atv.WaitKey(t, atvwire.KeyHome)
	// So does the Wake-on-LAN address the user gave.
	waitDevice(t, api, rokuID, "the Roku with the address the user gave", func(d service.DeviceView) bool { return d.MAC == userMAC })
	if n := atv.CodesShown(); n != shown {
		t.Fatalf("the TV showed %d more codes after the restart", n-shown)
	}
}

// pairTheAndroidTV pairs through /api/v1 as the Devices page does: before
// pairing a command says how; a typo in the code is caught; the right
// code pairs.
func pairTheAndroidTV(t *testing.T, api client, atv *atvtest.TV, id string) {
	t.Helper()
	waitDevice(t, api, id, "listed as needing pairing", func(d service.DeviceView) bool {
		return d.Name == "Bedroom TV" && d.Pairing == service.PairingNeeded && d.MAC == "aa:bb:cc:dd:ee:ff"
	})
	status, body, err := api.send("POST", "/api/v1/remote/devices/Bedroom%20TV/command", map[string]any{"key": "home"})
	if err != nil || status != http.StatusConflict || !strings.Contains(string(body), "needs pairing") || !strings.Contains(string(body), "/pair") {
		t.Fatalf("a command before pairing = %d %s (%v); want 409 saying how to pair", status, body, err)
	}
	var res service.PairResult
	api.must(http.StatusOK, "POST", "/api/v1/devices/"+id+"/pair", map[string]any{}, &res)
	if res.Paired || !strings.Contains(res.Message, "code") {
		t.Fatalf("starting to pair answered %+v", res)
	}
	code := atv.WaitCode(t)
	typo := flipFirst(code)
	status, body, err = api.send("POST", "/api/v1/devices/"+id+"/pair", map[string]any{"code": typo})
	if err != nil || status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "cannot be right") {
		t.Fatalf("pairing with the typo %s = %d %s (%v); want 422 saying it cannot be right", typo, status, body, err)
	}
	if atv.Paired() != 0 {
		t.Fatal("the TV took the typo")
	}
	// The attempt is still open (a code the TV itself refused would have
	// ended it), so the typo never reached the TV.
	api.must(http.StatusOK, "POST", "/api/v1/devices/"+id+"/pair", map[string]any{"code": strings.ToLower(code)}, &res)
	if !res.Paired {
		t.Fatalf("pairing with the code answered %+v", res)
	}
	waitDevice(t, api, id, "online and paired", func(d service.DeviceView) bool {
		return d.Online && d.Pairing == service.PairingPaired
	})
}

// flipFirst changes the first digit of a code, which the code's own check
// (the secret's first byte) catches.
func flipFirst(code string) string {
	c := "0"
	if code[0] == '0' {
		c = "1"
	}
	return c + code[1:]
}

func androidTVThroughV1(t *testing.T, api client, atv *atvtest.TV) {
	t.Helper()
	const cmd = "/api/v1/remote/devices/Bedroom%20TV/command"
	for key, code := range map[string]atvwire.KeyCode{"home": atvwire.KeyHome, "back": atvwire.KeyBack, "volume_up": atvwire.KeyVolumeUp} {
		api.must(http.StatusOK, "POST", cmd, map[string]any{"key": key}, nil)
		if k := atv.WaitKey(t, code); k.Direction != atvwire.Short {
			t.Errorf("%s arrived as %+v", key, k)
		}
	}
	api.must(http.StatusOK, "POST", cmd, map[string]any{"app": "YouTube"}, nil)
	atv.WaitLink(t, "https://www.youtube.com")

	var res service.PlayOnResult
	api.must(http.StatusOK, "POST", "/api/v1/media/play-on", map[string]any{"device": "Bedroom TV", "query": "open Netflix"}, &res)
	if res.Action != "opened_app" || res.App != "com.netflix.ninja" {
		t.Errorf("open Netflix: %+v", res)
	}
	atv.WaitLink(t, "https://www.netflix.com/title")
	api.must(http.StatusOK, "POST", "/api/v1/media/play-on", map[string]any{"device": "Bedroom TV", "query": "play The Office on Netflix"}, &res)
	if res.Action != "searched" || res.App != "com.netflix.ninja" || !strings.Contains(res.Message, "Netflix") {
		t.Errorf("play The Office on Netflix: %+v", res)
	}
	atv.WaitLink(t, "https://www.netflix.com/search?q=The+Office")
	// An app with no search link of its own is opened, not another app's
	// search.
	api.must(http.StatusOK, "POST", "/api/v1/media/play-on", map[string]any{"device": "Bedroom TV", "query": "play The Mandalorian on Disney+"}, &res)
	if res.Action != "opened_app" || res.App != "com.disney.disneyplus" {
		t.Errorf("play The Mandalorian on Disney+: %+v", res)
	}
	atv.WaitLink(t, "https://www.disneyplus.com")
	// A package the catalogue does not list, and a link in an app's own
	// scheme, reach the TV as they are.
	api.must(http.StatusOK, "POST", cmd, map[string]any{"app": "com.example.tvapp"}, nil)
	atv.WaitLink(t, "market://launch?id=com.example.tvapp")
	api.must(http.StatusOK, "POST", cmd, map[string]any{"app": "spotify:search:jazz"}, nil)
	atv.WaitLink(t, "spotify:search:jazz")
	// Keys beyond the canonical ones, as the TV lists them.
	var r service.RemoteView
	api.must(http.StatusOK, "GET", "/api/v1/remote/devices/Bedroom%20TV", nil, &r)
	if !slices.Contains(r.Keys, "channel_up") || !slices.Contains(r.Keys, "home") {
		t.Errorf("the TV's keys: %v", r.Keys)
	}
	api.must(http.StatusOK, "POST", cmd, map[string]any{"key": "channel_up"}, nil)
	atv.WaitKey(t, atvwire.KeyChannelUp)

	typeOnce(t, api, atv, "the office")
}

// typeOnce opens a text field on the Android TV and types text into it
// through /api/v1. The TV tells the hub on the remote session that the
// field is open, with the counters an edit must carry; an edit sent before
// the hub has heard of the new field (the hub says to open one, or the TV
// drops an edit with the old field's counters) is sent again, until the
// field holds the text.
func typeOnce(t *testing.T, api client, atv *atvtest.TV, text string) {
	t.Helper()
	atv.OpenTextField("Search")
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, body, err := api.send("POST", "/api/v1/remote/devices/Bedroom%20TV/command", map[string]any{"text": text})
		if err != nil || (status != http.StatusOK && !strings.Contains(string(body), "no text field")) {
			t.Fatalf("typing %q = %d %s (%v)", text, status, body, err)
		}
		if v, _ := atv.TextField(); v == text {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("typing %q: the field holds %q after 10 s", text, func() string { v, _ := atv.TextField(); return v }())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func rokuThroughV1(t *testing.T, api client, rk *rokutest.Roku) {
	t.Helper()
	const cmd = "/api/v1/remote/devices/Den%20TV/command"
	waitDevice(t, api, "roku:x0040000a001", "the Roku online", func(d service.DeviceView) bool { return d.Online })
	rk.SetLimited(true)
	status, body, err := api.send("POST", cmd, map[string]any{"key": "select"})
	if err != nil || status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "Network access") ||
		!strings.Contains(string(body), "Den TV") {
		t.Fatalf("a key in limited mode = %d %s (%v); want 422 naming the setting", status, body, err)
	}
	rk.SetLimited(false)
	for key, path := range map[string]string{"home": "/keypress/Home", "back": "/keypress/Back", "volume_up": "/keypress/VolumeUp", "select": "/keypress/Select"} {
		api.must(http.StatusOK, "POST", cmd, map[string]any{"key": key}, nil)
		if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, path)); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	api.must(http.StatusOK, "POST", cmd, map[string]any{"app": "Netflix"}, nil)
	if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, "/launch/12")); err != nil {
		t.Fatal(err)
	}
	var res service.PlayOnResult
	api.must(http.StatusOK, "POST", "/api/v1/media/play-on", map[string]any{"device": "Den TV", "query": "play the office"}, &res)
	if res.Action != "searched" {
		t.Errorf("play the office on the Roku: %+v", res)
	}
	if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, "/search/browse?keyword=the%20office&launch=true")); err != nil {
		t.Fatal(err)
	}
	// Named, the app is the search's provider.
	api.must(http.StatusOK, "POST", "/api/v1/media/play-on", map[string]any{"device": "Den TV", "query": "play the office on Netflix"}, &res)
	if res.Action != "searched" || res.App != "12" {
		t.Errorf("play the office on Netflix on the Roku: %+v", res)
	}
	if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, "/search/browse?keyword=the%20office&launch=true&provider-id=12")); err != nil {
		t.Fatal(err)
	}
	// A Roku does not report its volume: a volume key leaves nothing to
	// undo, rather than an undo that changes nothing.
	api.must(http.StatusOK, "POST", cmd, map[string]any{"key": "volume_down"}, nil)
	if a := mcpCalls(t, api, []map[string]any{{"name": "undo"}})[0]; !a.IsError || !strings.Contains(a.Text, "Nothing to undo") {
		t.Errorf("undo after a Roku volume key: %+v; want nothing to undo", a)
	}
	// Text the Roku would take too long to type is refused whole.
	if status, body, _ := api.send("POST", cmd, map[string]any{"text": strings.Repeat("a", 101)}); status != http.StatusUnprocessableEntity {
		t.Errorf("101 characters of text = %d %s; want 422", status, body)
	}
	api.must(http.StatusOK, "POST", cmd, map[string]any{"text": "hi you"}, nil)
	for _, p := range []string{"/keypress/Lit_h", "/keypress/Lit_i", "/keypress/Lit_%20", "/keypress/Lit_y"} {
		if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, p)); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpAnswer is what calls.mjs prints for one tool call.
type mcpAnswer struct {
	IsError    bool           `json:"isError"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured"`
}

func throughMCP(t *testing.T, api client, atv *atvtest.TV, rk *rokutest.Roku) {
	t.Helper()
	atv.Reset()
	rk.Reset()
	rk.SetLimited(true)
	typeOnce(t, api, atv, "s")
	answers := mcpCalls(t, api, []map[string]any{
		{"name": "type_text", "arguments": map[string]any{"tv": "Bedroom TV", "text": "severance"}},
		{"name": "press_remote_key", "arguments": map[string]any{"tv": "Bedroom TV", "key": "home"}},
		{"name": "press_remote_key", "arguments": map[string]any{"tv": "Bedroom TV", "key": "back"}},
		{"name": "press_remote_key", "arguments": map[string]any{"tv": "Bedroom TV", "key": "volume_down"}},
		{"name": "launch_app", "arguments": map[string]any{"tv": "Bedroom TV", "app": "youtube"}},
		{"name": "play_on", "arguments": map[string]any{"tv": "Bedroom TV", "query": "Netflix"}},
		{"name": "play_on", "arguments": map[string]any{"tv": "Bedroom TV", "query": "play Severance on YouTube"}},
		{"name": "press_remote_key", "arguments": map[string]any{"tv": "Den TV", "key": "home"}},
	})
	for i, a := range answers[:7] {
		if a.IsError {
			t.Errorf("call %d: %s", i, a.Text)
		}
	}
	if a := answers[6]; a.Structured["action"] != "searched" || !strings.Contains(a.Text, "YouTube") {
		t.Errorf("play Severance on YouTube: %+v", a)
	}
	if a := answers[7]; !a.IsError || !strings.Contains(a.Text, "Network access") {
		t.Errorf("a key to the Roku in limited mode: %+v", a)
	}
	for _, code := range []atvwire.KeyCode{atvwire.KeyHome, atvwire.KeyBack, atvwire.KeyVolumeDown} {
		atv.WaitKey(t, code)
	}
	atv.WaitLink(t, "https://www.youtube.com")
	atv.WaitLink(t, "https://www.netflix.com/title")
	atv.WaitLink(t, "https://www.youtube.com/results?search_query=Severance")
	atv.Wait(t, "the typed text", func() bool {
		return slices.ContainsFunc(atv.Texts(), func(x atvtest.Text) bool { return x.Value == "severance" })
	})
	rk.SetLimited(false)
}

// mcpCalls runs calls through the TypeScript SDK (calls.mjs) and returns
// the answers.
func mcpCalls(t *testing.T, api client, calls []map[string]any) []mcpAnswer {
	t.Helper()
	dir, err := filepath.Abs("../../api/mcp/testdata/client")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatalf("the MCP clients are not installed in %s: run `make deps` (npm ci there)", dir)
	}
	js, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "calls.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BIFROST_URL="+api.hub.URL(""), "BIFROST_KEY="+api.key, "BIFROST_CALLS="+string(js))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node calls.mjs: %v\n%s", err, stderr.String())
	}
	var printed struct {
		Answers []mcpAnswer `json:"answers"`
	}
	err = json.Unmarshal(stdout.Bytes(), &printed)
	out := printed.Answers
	if err != nil || len(out) != len(calls) {
		t.Fatalf("calls.mjs printed %s (%v)", stdout.String(), err)
	}
	return out
}

// wakeOnLAN puts both TVs to sleep off the network and turns them on: the
// hub sends a well-formed magic packet, and once the TV answers again its
// power-on (WAKEUP on the Android TV, through /api/v1; PowerOn on the
// Roku, through MCP's set_media).
func wakeOnLAN(t *testing.T, api client, atv *atvtest.TV, rk *rokutest.Roku, wake *net.UDPConn, atvID, rokuID string) {
	t.Helper()
	atv.SetScreen(false)
	atv.Close()
	waitDevice(t, api, atvID, "the Android TV offline", func(d service.DeviceView) bool { return !d.Online })
	atv.Reset()
	woken := make(chan error, 1)
	go func() { woken <- awaitMagicPacket(wake, "aa:bb:cc:dd:ee:ff", func() error { return atv.Restart() }) }()
	api.must(http.StatusOK, "PUT", "/api/v1/media/devices/"+url.PathEscape(atvID)+"/state", map[string]any{"power": true}, nil)
	if err := <-woken; err != nil {
		t.Fatal(err)
	}
	atv.WaitKey(t, atvwire.KeyWakeup)
	atv.Wait(t, "the screen on", atv.Screen)

	rk.SetPowerMode("DisplayOff")
	rk.Stop()
	waitDevice(t, api, rokuID, "the Roku offline", func(d service.DeviceView) bool { return !d.Online })
	rk.Reset()
	go func() { woken <- awaitMagicPacket(wake, userMAC, rk.Start) }()
	answers := mcpCalls(t, api, []map[string]any{
		{"name": "set_media", "arguments": map[string]any{"device": "Den TV", "power": true}},
	})
	if err := <-woken; err != nil {
		t.Fatal(err)
	}
	if answers[0].IsError {
		t.Fatalf("set_media power on the sleeping Roku: %s", answers[0].Text)
	}
	if _, err := rk.Wait(5*time.Second, rokutest.Is(http.MethodPost, "/keypress/PowerOn")); err != nil {
		t.Fatal(err)
	}
}

// userMAC is the Wake-on-LAN address wakeAddress gives the Roku, which
// wins over the one it reports.
const userMAC = "02:00:00:00:00:01"

// wakeAddress sets the Roku's Wake-on-LAN address as a user would, after a
// wrong one and one given to a device that is not woken that way.
func wakeAddress(t *testing.T, api client, rokuID string) {
	t.Helper()
	for _, c := range []struct {
		device, mac string
		want        int
		says        string
	}{
		{rokuID, "A4:5E:60", http.StatusUnprocessableEntity, "not a MAC address"},
		{"Key Light", "02:00:00:00:00:01", http.StatusUnprocessableEntity, "not woken by Wake-on-LAN"},
	} {
		status, body, err := api.send("PATCH", "/api/v1/devices/"+url.PathEscape(c.device), map[string]any{"mac": c.mac})
		if err != nil || status != c.want || !strings.Contains(string(body), c.says) {
			t.Fatalf("PATCH %s mac %q = %d %s (%v); want %d saying %q", c.device, c.mac, status, body, err, c.want, c.says)
		}
	}
	var d service.DeviceView
	api.must(http.StatusOK, "PATCH", "/api/v1/devices/"+url.PathEscape(rokuID), map[string]any{"mac": "02-00-00-00-00-01"}, &d)
	if d.MAC != userMAC {
		t.Fatalf("the Roku after PATCH mac: %+v", d)
	}
}

// awaitMagicPacket waits for the magic packet of mac, checks it byte for
// byte, and then wakes the TV.
func awaitMagicPacket(l *net.UDPConn, mac string, wakeUp func() error) error {
	hw, err := devices.ParseMAC(mac)
	if err != nil {
		return err
	}
	buf := make([]byte, 1500)
	if err := l.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		return err
	}
	for {
		n, _, err := l.ReadFromUDP(buf)
		if err != nil {
			return err
		}
		if bytes.Equal(buf[:n], wol.Packet(hw)) {
			return wakeUp()
		}
		// A packet for the other TV, sent by a retry: not this one's.
	}
}

// waitDevice waits for the device id in GET /api/v1/devices to satisfy ok.
func waitDevice(t *testing.T, api client, id, what string, ok func(service.DeviceView) bool) service.DeviceView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last []service.DeviceView
	for time.Now().Before(deadline) {
		last = nil
		api.must(http.StatusOK, "GET", "/api/v1/devices", nil, &last)
		for _, d := range last {
			if string(d.ID) == id && ok(d) {
				return d
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not within 20 s; devices: %+v", what, last)
	return service.DeviceView{}
}

// TestPairingOnTheDevicesPage pairs an Android TV in the web UI's dialog,
// as a person would: a mistyped code is said so in the dialog, which stays
// open; the code the TV shows pairs it.
func TestPairingOnTheDevicesPage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	bin := buildBinary(t)
	atv := atvtest.Start(t, atvtest.Options{Name: "Bedroom TV"})
	h := startHub(t, bin, t.TempDir(), "--androidtv-hosts", atv.Addr())
	b := newBrowser(t, browserPath)
	firstAdmin(b, h, setupCode(t, h))
	const item = `[role="listitem"][data-device="androidtv:aabbccddeeff"]`
	b.navigate("#/devices")
	b.waitJS("the TV, needing pairing", `document.querySelector('`+item+` .badge')?.textContent === 'Needs pairing'`)
	b.click(item + ` button[id^="dev-pair-"]`)
	b.waitJS("the dialog asking for the code", `document.querySelector('dialog[open] #pair-status')?.textContent.startsWith('Type the code') && !document.querySelector('#pair-code').disabled`)
	b.shots("pairing-dialog", false)
	b.resetViewport()
	code := atv.WaitCode(t)
	b.typeInto("#pair-code", flipFirst(code))
	b.click("#pair-finish")
	b.waitJS("the typo said so", `document.querySelector('dialog[open] #pair-status.error')?.textContent.includes('cannot be right')`)
	b.typeInto("#pair-code", code)
	b.click("#pair-finish")
	b.waitJS("the dialog closed and the TV paired", `!document.querySelector('dialog[open]') && document.querySelector('`+item+` .pair-row .note')?.textContent.includes('is paired with the hub')`)
	atv.Wait(t, "the hub's session", func() bool { return atv.Connected() > 0 })
	b.checkConsole()
}

// TestPairingOnTheCommandLine pairs with `bifrost androidtv pair HOST`,
// typing the code on standard input; a hub started afterwards on the same
// data directory controls the TV without a code.
func TestPairingOnTheCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBinary(t)
	atv := atvtest.Start(t, atvtest.Options{Name: "Bedroom TV"})
	data := t.TempDir()
	cmd := exec.Command(bin, "androidtv", "pair", atv.Addr(), "--data", data)
	cmd.Env = cleanEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code := atv.WaitCode(t)
	if _, err := stdin.Write([]byte(flipFirst(code) + "\n" + code + "\n")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("androidtv pair: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("androidtv pair did not finish\n%s", out.String())
	}
	if s := out.String(); !strings.Contains(s, "cannot be right") || !strings.Contains(s, "Paired with Bedroom TV") {
		t.Fatalf("the command said:\n%s", s)
	}
	if fi, err := os.Stat(filepath.Join(data, "androidtv-client.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the client certificate: %v %v", fi, err)
	}

	h := startHub(t, bin, data, "--androidtv-hosts", atv.Addr())
	out2, _ := bifrost(t, bin, "keys", "create", "--name", "tv", "--data", data)
	api := client{tb: t, hub: h, key: strings.TrimSpace(out2)}
	waitDevice(t, api, "androidtv:aabbccddeeff", "paired and online", func(d service.DeviceView) bool {
		return d.Online && d.Pairing == service.PairingPaired
	})
	api.must(http.StatusOK, "POST", "/api/v1/remote/devices/Bedroom%20TV/command", map[string]any{"key": "select"}, nil)
	atv.WaitKey(t, atvwire.KeyDpadCenter)
	if n := atv.CodesShown(); n != 1 {
		t.Fatalf("the TV showed %d codes; want the one the command line paired with", n)
	}
}
