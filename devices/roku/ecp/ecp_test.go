package ecp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

func fake(t *testing.T, opts rokutest.Options) *rokutest.Roku {
	t.Helper()
	r := rokutest.New(opts)
	t.Cleanup(r.Close)
	return r
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

// The vectors of PROTOCOLS.md §4.3, as the device receives them.
func TestVectors(t *testing.T) {
	r := fake(t, rokutest.Options{})
	var c ecp.Client
	if err := c.Keypress(ctx(t), r.Addr(), "Select"); err != nil {
		t.Fatal(err)
	}
	if err := c.Launch(ctx(t), r.Addr(), "12", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := c.SearchBrowse(ctx(t), r.Addr(), ecp.Browse{Keyword: "the office"}); err != nil {
		t.Fatal(err)
	}
	want := []rokutest.Request{
		{Method: "POST", Path: "/keypress/Select"},
		{Method: "POST", Path: "/launch/12"},
		{Method: "POST", Path: "/search/browse", RawQuery: "keyword=the%20office"},
	}
	got := r.Requests()
	if len(got) != len(want) {
		t.Fatalf("requests %v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Method != w.Method || g.Path != w.Path || g.RawQuery != w.RawQuery || g.Body != "" {
			t.Errorf("request %d = %s %q %q body %q, want %s", i, g.Method, g.Path, g.RawQuery, g.Body, w)
		}
	}
}

func TestQueriesEncoding(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "a"}, {" ", "%20"}, {"é", "%C3%A9"}, {"€", "%E2%82%AC"}, {"/", "%2F"},
		{"&", "%26"}, {"+", "%2B"}, {"%", "%25"}, {"?", "%3F"}, {"_", "_"},
	} {
		if got := ecp.Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	b := ecp.Browse{Keyword: "tom & jerry", Type: "tv-show", Launch: true, ProviderID: "13"}
	if got, want := b.Query(), "keyword=tom%20%26%20jerry&type=tv-show&launch=true&provider-id=13"; got != want {
		t.Errorf("query %q, want %q", got, want)
	}
	r := fake(t, rokutest.Options{})
	var c ecp.Client
	for _, ch := range "a /é" {
		if err := c.Keypress(ctx(t), r.Addr(), ecp.Literal(ch)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Launch(ctx(t), r.Addr(), "12", "80057281", "movie"); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, q := range r.Requests() {
		paths = append(paths, q.Target())
	}
	want := []string{"/keypress/Lit_a", "/keypress/Lit_%20", "/keypress/Lit_%2F", "/keypress/Lit_%C3%A9", "/launch/12?contentId=80057281&mediaType=movie"}
	if len(paths) != len(want) {
		t.Fatalf("sent %q", paths)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("sent %q, want %q", paths[i], want[i])
		}
	}
	if r.Typed() != "a /é" {
		t.Errorf("typed %q", r.Typed())
	}
}

const tvInfo = `<?xml version="1.0" encoding="UTF-8" ?>
<device-info>
	<udn>29a40005-5c03-10a3-80a4-a45e60c21109</udn>
	<serial-number>YN00H5555555</serial-number>
	<device-id>S0A000000000</device-id>
	<vendor-name>TCL</vendor-name>
	<model-name>55R615</model-name>
	<model-number>7120X</model-number>
	<is-tv>true</is-tv>
	<wifi-mac>d8:31:34:11:22:33</wifi-mac>
	<ethernet-mac>a4:5e:60:c2:11:09</ethernet-mac>
	<network-type>ethernet</network-type>
	<friendly-device-name>55" TCL Roku TV</friendly-device-name>
	<power-mode>DisplayOff</power-mode>
</device-info>`

func TestParseDeviceInfo(t *testing.T) {
	d, err := ecp.ParseDeviceInfo([]byte(tvInfo))
	if err != nil {
		t.Fatal(err)
	}
	if d.SerialNumber != "YN00H5555555" || !d.IsTV || d.PowerMode != ecp.DisplayOff {
		t.Fatalf("%+v", d)
	}
	if d.Name() != `55" TCL Roku TV` || d.Model() != "TCL 55R615" || d.MAC() != "a4:5e:60:c2:11:09" {
		t.Errorf("name %q model %q mac %q", d.Name(), d.Model(), d.MAC())
	}
	d.NetworkType, d.UserDeviceName = "wifi", "Living room"
	if d.MAC() != "d8:31:34:11:22:33" || d.Name() != "Living room" {
		t.Errorf("wifi: name %q mac %q", d.Name(), d.MAC())
	}
	p := ecp.DeviceInfo{VendorName: "Roku", ModelName: "Roku Ultra", IsTV: false}
	if p.Model() != "Roku Ultra" || p.Name() != "Roku Ultra" {
		t.Errorf("player model %q name %q", p.Model(), p.Name())
	}
	if _, err := ecp.ParseDeviceInfo([]byte("<device-info>")); err == nil {
		t.Error("a broken answer parsed")
	}
}

func TestParseAppsAndPlayer(t *testing.T) {
	apps, err := ecp.ParseApps([]byte(`<apps>
	<app id="tvinput.hdmi1" type="tvin" version="1.0.0">Game console</app>
	<app id="12" type="appl" version="5.2.81179021">Netflix</app>
	<app id="837" type="appl" version="2.21.100035190">YouTube</app>
</apps>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 3 || apps[0] != (ecp.App{ID: "tvinput.hdmi1", Type: "tvin", Version: "1.0.0", Name: "Game console"}) || apps[1].Name != "Netflix" {
		t.Fatalf("apps %+v", apps)
	}
	home, err := ecp.ParseActiveApp([]byte("<active-app>\n\t<app>Roku</app>\n</active-app>"))
	if err != nil || !home.Home() || home.App.Name != "Roku" {
		t.Fatalf("home %+v %v", home, err)
	}
	a, err := ecp.ParseActiveApp([]byte(`<active-app><app id="12" type="appl" version="5.2">Netflix</app><screensaver id="55545" type="ssvr" version="2.0.1">Default screensaver</screensaver></active-app>`))
	if err != nil || a.Home() || a.App.ID != "12" || a.Screensaver == nil || a.Screensaver.ID != "55545" {
		t.Fatalf("active %+v %v", a, err)
	}
	p, err := ecp.ParsePlayer([]byte(`<player error="false" state="pause"><plugin bandwidth="1 bps" id="12" name="Netflix"/><position>61000 ms</position><duration>3600000 ms</duration><is_live>false</is_live></player>`))
	if err != nil || p.State != ecp.StatePause || p.PluginID != "12" || p.Position != 61*time.Second || p.Duration != time.Hour {
		t.Fatalf("player %+v %v", p, err)
	}
}

func TestErrors(t *testing.T) {
	r := fake(t, rokutest.Options{})
	var c ecp.Client
	r.SetLimited(true)
	err := c.Keypress(ctx(t), r.Addr(), "Home")
	var e *ecp.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || !e.Limited() || e.Body != ecp.LimitedBody {
		t.Fatalf("limited: %#v", err)
	}
	if _, err := c.DeviceInfo(ctx(t), r.Addr()); err != nil {
		t.Fatalf("queries stay allowed in Limited mode: %v", err)
	}
	r.SetLimited(false)
	r.Fail("/query/apps", http.StatusServiceUnavailable)
	if _, err := c.Apps(ctx(t), r.Addr()); !errors.As(err, &e) || e.Status != 503 || e.Limited() {
		t.Fatalf("503: %v", err)
	}
	addr := r.Addr()
	r.Stop()
	if _, err := c.DeviceInfo(ctx(t), addr); !errors.As(err, &e) || e.Status != 0 || e.Err == nil {
		t.Fatalf("stopped: %v", err)
	}
}

func TestWithPort(t *testing.T) {
	for in, want := range map[string]string{
		"192.168.1.40":              "192.168.1.40:8060",
		" 192.168.1.40:8061 ":       "192.168.1.40:8061",
		"http://192.168.1.40:8060/": "192.168.1.40:8060",
		"roku.lan":                  "roku.lan:8060",
		"fe80::1":                   "[fe80::1]:8060",
		"[fe80::1]:8060":            "[fe80::1]:8060",
	} {
		if got := ecp.WithPort(in); got != want {
			t.Errorf("WithPort(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSSDP(t *testing.T) {
	want := "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\nST: roku:ecp\r\n\r\n"
	if got := string(ecp.SearchRequest(1)); got != want {
		t.Fatalf("M-SEARCH %q", got)
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 1024)
		n, from, err := pc.ReadFrom(buf)
		if err != nil || string(buf[:n]) != want {
			return
		}
		pc.WriteTo([]byte("HTTP/1.1 200 OK\r\nLOCATION: http://10.0.0.9:80/desc.xml\r\nST: upnp:rootdevice\r\nUSN: uuid:x\r\n\r\n"), from)
		pc.WriteTo([]byte("HTTP/1.1 200 OK\r\nCache-Control: max-age=3600\r\nST: roku:ecp\r\nLocation: http://192.168.1.40:8060/\r\nUSN: uuid:roku:ecp:YN00H5555555\r\n\r\n"), from)
	}()
	// The search ends at the first Roku answer; the other device's,
	// sent before it, must not have been reported.
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var all []ecp.Answer
	if err := ecp.Search(c, []string{pc.LocalAddr().String()}, func(a ecp.Answer) { all = append(all, a); cancel() }); err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Addr() != "192.168.1.40:8060" || all[0].Serial() != "YN00H5555555" {
		t.Fatalf("found %+v", all)
	}
}
