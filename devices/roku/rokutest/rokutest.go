// Package rokutest is a fake Roku for tests: an HTTP server on loopback
// that speaks ECP (PROTOCOLS.md §4.3) and changes its state as a device
// does. It answers device-info, apps, active-app, media-player and icon
// queries, takes key presses (keypress, keydown, keyup), launches and
// searches, records every request exactly as it was sent, can be stopped
// and started again on the same port (a TV in deep standby), and can be
// put in Roku OS's "Limited" network-access mode.
package rokutest

import (
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// App ids of the fake's apps, and the HDMI input of a fake TV.
const (
	Netflix    = "12"
	PrimeVideo = "13"
	YouTube    = "837"
	Hulu       = "2285"
	DisneyPlus = "291097"
	Plex       = "13535"
	HDMI1      = "tvinput.hdmi1"
)

// Home and Search are what ActiveApp reports on the home screen and on
// the search screen (both answer active-app as the home screen).
const (
	Home   = ""
	Search = "search"
)

// LimitedBody is the body of a command refused in Limited mode.
const LimitedBody = "ECP command not allowed in Limited mode."

// app is one of the fake's apps or inputs.
type app struct {
	ID, Type, Name string
}

var apps = []app{
	{Netflix, "appl", "Netflix"},
	{PrimeVideo, "appl", "Prime Video"},
	{YouTube, "appl", "YouTube"},
	{Hulu, "appl", "Hulu"},
	{DisneyPlus, "appl", "Disney+"},
	{Plex, "appl", "Plex"},
}

var hdmi1 = app{HDMI1, "tvin", "HDMI 1"}

// Options describe the fake device; zero fields take the defaults of a
// Roku Ultra on Wi-Fi (or, with IsTV, a TCL Roku TV on Ethernet).
type Options struct {
	Serial       string // "X0040000A001"
	Name         string // user-device-name; "" when the user gave none
	FriendlyName string // friendly-device-name
	Vendor       string // "Roku" / "TCL"
	Model        string // "Roku Ultra" / "55R615"
	IsTV         bool
	WifiMAC      string
	EthernetMAC  string
	NetworkType  string // "wifi" / "ethernet"
	PowerMode    string // "PowerOn" at start unless given
	// Addr is the address to listen on ("127.0.0.1:0").
	Addr string
}

func (o Options) withDefaults() Options {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Serial, "X0040000A001")
	def(&o.PowerMode, "PowerOn")
	def(&o.Addr, "127.0.0.1:0")
	def(&o.WifiMAC, "d8:31:34:aa:bb:01")
	if o.IsTV {
		def(&o.Vendor, "TCL")
		def(&o.Model, "55R615")
		def(&o.FriendlyName, `55" TCL Roku TV`)
		def(&o.EthernetMAC, "a4:5e:60:c2:11:09")
		def(&o.NetworkType, "ethernet")
	} else {
		def(&o.Vendor, "Roku")
		def(&o.Model, "Roku Ultra")
		def(&o.FriendlyName, "Roku Ultra")
		def(&o.NetworkType, "wifi")
	}
	return o
}

// Request is a request as the fake received it.
type Request struct {
	Method   string
	Path     string // as sent, still percent-encoded ("/keypress/Lit_%20")
	RawQuery string // as sent ("keyword=the%20office")
	Body     string
	At       time.Time
}

// Target is Path with the query, as it was sent.
func (r Request) Target() string {
	if r.RawQuery == "" {
		return r.Path
	}
	return r.Path + "?" + r.RawQuery
}

func (r Request) String() string { return r.Method + " " + r.Target() }

// Is matches a request by method and target (path and query, exactly as
// sent: "/launch/12?contentId=80&mediaType=movie").
func Is(method, target string) func(Request) bool {
	return func(r Request) bool { return r.Method == method && r.Target() == target }
}

// Launch is a launch the fake took.
type Launch struct {
	App, ContentID, MediaType string
}

// Browse is a search/browse the fake took.
type Browse struct {
	Keyword, Provider string
	Launch            bool
}

// Roku is the fake device.
type Roku struct {
	opts Options
	addr string // the port it listens on, kept across Stop and Start

	srvMu sync.Mutex
	srv   *http.Server
	done  chan struct{} // closed when srv's Serve returns

	mu        sync.Mutex // guards the fields below
	power     string
	front     string // app id in front; Home, Search
	player    string
	typed     []rune
	held      []string
	limited   bool
	failures  map[string]int // path prefix → status to answer
	requests  []Request
	launches  []Launch
	browses   []Browse
	requested chan struct{} // closed and replaced at every request
}

// New starts a fake Roku listening on opts.Addr. It panics if it cannot
// listen, as httptest.NewServer does; Close it when done.
func New(opts Options) *Roku {
	opts = opts.withDefaults()
	r := &Roku{
		opts: opts, addr: opts.Addr, power: opts.PowerMode, front: Home, player: "close",
		failures: map[string]int{}, requested: make(chan struct{}),
	}
	if err := r.Start(); err != nil {
		panic("rokutest: " + err.Error())
	}
	return r
}

// Addr is the fake's "host:port".
func (r *Roku) Addr() string {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	return r.addr
}

// URL is the fake's base URL, as SSDP answers give it ("http://…/").
func (r *Roku) URL() string { return "http://" + r.Addr() + "/" }

// Serial is the fake's serial number.
func (r *Roku) Serial() string { return r.opts.Serial }

// Options are the fake's options, defaults filled in.
func (r *Roku) Options() Options { return r.opts }

// Start listens again (on the same port after a Stop).
func (r *Roku) Start() error {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.srv != nil {
		return nil
	}
	var l net.Listener
	var err error
	for range 50 { // the port may linger for a moment after Stop
		if l, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	r.addr = l.Addr().String()
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	r.srv, r.done = srv, done
	return nil
}

// Stop closes the listener and every connection: the device stops
// answering, as a TV in deep standby does. Start brings it back.
func (r *Roku) Stop() {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.srv == nil {
		return
	}
	r.srv.Close()
	<-r.done
	r.srv, r.done = nil, nil
}

// Close stops the fake for good.
func (r *Roku) Close() { r.Stop() }

// SetLimited switches Roku OS's "Limited" network access on or off: on,
// commands (keypress, keydown, keyup, launch, search) get HTTP 403 with
// LimitedBody, while queries still answer.
func (r *Roku) SetLimited(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limited = on
}

// Fail makes requests whose path starts with prefix answer status (0
// takes it back).
func (r *Roku) Fail(prefix string, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if status == 0 {
		delete(r.failures, prefix)
		return
	}
	r.failures[prefix] = status
}

// PowerMode is what device-info reports as power-mode.
func (r *Roku) PowerMode() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.power
}

// SetPowerMode changes the power mode ("PowerOn", "DisplayOff", …), as the
// TV's own remote would.
func (r *Roku) SetPowerMode(mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.power = mode
}

// ActiveApp is the id of the app in front, Home or Search.
func (r *Roku) ActiveApp() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.front
}

// PlayerState is the media player's state ("play", "pause", "stop",
// "close").
func (r *Roku) PlayerState() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.player
}

// SetPlayerState changes the media player's state, as the app would.
func (r *Roku) SetPlayerState(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.player = s
}

// Typed is the text typed with Lit_ keys (less what Backspace took).
func (r *Roku) Typed() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.typed)
}

// Held are the keys pressed with keydown and not yet released.
func (r *Roku) Held() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.held)
}

// Launches are the launches taken, oldest first.
func (r *Roku) Launches() []Launch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.launches)
}

// Browses are the searches taken, oldest first.
func (r *Roku) Browses() []Browse {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.browses)
}

// Requests are the requests received, oldest first.
func (r *Roku) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Commands are the POSTs received (the polls left out), oldest first.
func (r *Roku) Commands() []Request {
	var out []Request
	for _, q := range r.Requests() {
		if q.Method == http.MethodPost {
			out = append(out, q)
		}
	}
	return out
}

// Count is how many requests received match.
func (r *Roku) Count(match func(Request) bool) int {
	n := 0
	for _, q := range r.Requests() {
		if match(q) {
			n++
		}
	}
	return n
}

// Reset forgets the requests, launches, searches and typed text.
func (r *Roku) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests, r.launches, r.browses, r.typed = nil, nil, nil, nil
}

// Wait waits up to timeout for a request that matches (one already
// received counts) and returns the first; the error lists what came.
func (r *Roku) Wait(timeout time.Duration, match func(Request) bool) (Request, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for _, q := range r.requests {
			if match(q) {
				r.mu.Unlock()
				return q, nil
			}
		}
		next := r.requested
		seen := len(r.requests)
		r.mu.Unlock()
		select {
		case <-next:
		case <-deadline.C:
			return Request{}, fmt.Errorf("rokutest: no matching request within %v (%d received: %v)", timeout, seen, r.lastCommands(10))
		}
	}
}

func (r *Roku) lastCommands(n int) []string {
	var out []string
	for _, q := range r.Commands() {
		out = append(out, q.String())
	}
	return out[max(0, len(out)-n):]
}

// ServeHTTP answers one ECP request.
func (r *Roku) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<16))
	path, query, _ := strings.Cut(req.RequestURI, "?")
	r.record(Request{Method: req.Method, Path: path, RawQuery: query, Body: string(body), At: time.Now()})
	if status := r.failure(path); status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	seg := strings.Split(strings.TrimPrefix(req.URL.Path, "/"), "/")
	switch {
	case req.Method == http.MethodGet && len(seg) >= 2 && seg[0] == "query":
		r.query(w, seg[1], seg[2:])
	case req.Method == http.MethodPost:
		r.command(w, req, seg)
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func (r *Roku) record(q Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, q)
	close(r.requested)
	r.requested = make(chan struct{})
}

func (r *Roku) failure(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for prefix, status := range r.failures {
		if strings.HasPrefix(path, prefix) {
			return status
		}
	}
	return 0
}

func (r *Roku) query(w http.ResponseWriter, what string, rest []string) {
	var body string
	switch what {
	case "device-info":
		body = r.deviceInfoXML()
	case "apps":
		body = r.appsXML()
	case "active-app":
		body = r.activeAppXML()
	case "media-player":
		body = r.playerXML()
	case "icon":
		if len(rest) == 0 || !r.knownApp(rest[0]) {
			http.Error(w, "no such app", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(icon)
		return
	default:
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	io.WriteString(w, xml.Header+body)
}

// icon is the start of a PNG file, which is all a test needs.
var icon = []byte("\x89PNG\r\n\x1a\n")

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func (r *Roku) deviceInfoXML() string {
	o := r.opts
	var b strings.Builder
	b.WriteString("<device-info>\n")
	field := func(name, v string) { fmt.Fprintf(&b, "\t<%s>%s</%s>\n", name, esc(v), name) }
	field("udn", "28001240-0000-1000-8000-"+strings.ToLower(strings.ReplaceAll(o.WifiMAC, ":", "")))
	field("serial-number", o.Serial)
	field("device-id", "S00"+o.Serial)
	field("vendor-name", o.Vendor)
	field("model-name", o.Model)
	field("model-number", "4800X")
	field("is-tv", fmt.Sprint(o.IsTV))
	field("is-stick", "false")
	field("supports-ethernet", fmt.Sprint(o.EthernetMAC != ""))
	field("wifi-mac", o.WifiMAC)
	if o.EthernetMAC != "" {
		field("ethernet-mac", o.EthernetMAC)
	}
	field("network-type", o.NetworkType)
	if o.Name != "" {
		field("user-device-name", o.Name)
	}
	field("friendly-device-name", o.FriendlyName)
	field("friendly-model-name", o.Model)
	field("software-version", "14.1.4")
	field("power-mode", r.PowerMode())
	field("supports-wake-on-wlan", "true")
	field("developer-enabled", "false")
	b.WriteString("</device-info>\n")
	return b.String()
}

func (r *Roku) appList() []app {
	if r.opts.IsTV {
		return append([]app{hdmi1}, apps...)
	}
	return apps
}

func (r *Roku) findApp(id string) (app, bool) {
	for _, a := range r.appList() {
		if a.ID == id {
			return a, true
		}
	}
	return app{}, false
}

func (r *Roku) knownApp(id string) bool { _, ok := r.findApp(id); return ok }

func (r *Roku) appsXML() string {
	var b strings.Builder
	b.WriteString("<apps>\n")
	for _, a := range r.appList() {
		fmt.Fprintf(&b, "\t<app id=%q type=%q version=\"1.0.0\">%s</app>\n", a.ID, a.Type, esc(a.Name))
	}
	b.WriteString("</apps>\n")
	return b.String()
}

func (r *Roku) activeAppXML() string {
	r.mu.Lock()
	front := r.front
	r.mu.Unlock()
	if a, ok := r.findApp(front); ok {
		return fmt.Sprintf("<active-app>\n\t<app id=%q type=%q version=\"1.0.0\">%s</app>\n</active-app>\n", a.ID, a.Type, esc(a.Name))
	}
	return "<active-app>\n\t<app>Roku</app>\n</active-app>\n"
}

func (r *Roku) playerXML() string {
	r.mu.Lock()
	front, state := r.front, r.player
	r.mu.Unlock()
	a, ok := r.findApp(front)
	if !ok || a.Type != "appl" {
		return "<player error=\"false\" state=\"close\"/>\n"
	}
	return fmt.Sprintf("<player error=\"false\" state=%q>\n\t<plugin bandwidth=\"12000000 bps\" id=%q name=%q/>\n"+
		"\t<format audio=\"eac3\" captions=\"none\" container=\"mp4\" drm=\"widevine\" video=\"hevc\" videoRes=\"3840x2160\"/>\n"+
		"\t<position>61000 ms</position>\n\t<duration>3600000 ms</duration>\n\t<is_live>false</is_live>\n</player>\n",
		state, a.ID, a.Name)
}

// command takes a POST.
func (r *Roku) command(w http.ResponseWriter, req *http.Request, seg []string) {
	r.mu.Lock()
	limited := r.limited
	r.mu.Unlock()
	kind := seg[0]
	if limited && slices.Contains([]string{"keypress", "keydown", "keyup", "launch", "search", "input"}, kind) {
		http.Error(w, LimitedBody, http.StatusForbidden)
		return
	}
	arg := strings.Join(seg[1:], "/")
	var status int
	switch kind {
	case "keypress":
		status = r.press(arg)
	case "keydown":
		status = r.keyDown(arg)
	case "keyup":
		status = r.keyUp(arg)
	case "launch":
		status = r.launch(arg, req.URL.Query())
	case "search":
		status = r.browse(arg, req.URL.Query())
	default:
		status = http.StatusNotFound
	}
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (r *Roku) keyDown(key string) int {
	if key == "" {
		return http.StatusBadRequest
	}
	r.mu.Lock()
	r.held = append(r.held, key)
	r.mu.Unlock()
	return r.press(key)
}

func (r *Roku) keyUp(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.held, key)
	if i < 0 {
		return http.StatusOK
	}
	r.held = slices.Delete(r.held, i, i+1)
	return http.StatusOK
}

// press applies a key as the device would.
func (r *Roku) press(key string) int {
	if key == "" {
		return http.StatusBadRequest
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	tv, on := r.opts.IsTV, r.power == "PowerOn"
	switch {
	case strings.HasPrefix(key, "Lit_"):
		r.typed = append(r.typed, []rune(strings.TrimPrefix(key, "Lit_"))...)
	case key == "Backspace" && len(r.typed) > 0:
		r.typed = r.typed[:len(r.typed)-1]
	case key == "PowerOff" && tv, key == "Power" && tv && on:
		r.power, r.front, r.player = "DisplayOff", Home, "close"
	case key == "PowerOn" && tv, key == "Power" && tv && !on:
		r.power = "PowerOn"
	case key == "Home":
		r.front, r.player = Home, "close"
		if tv {
			r.power = "PowerOn"
		}
	case key == "Play" && r.front != Home && r.front != Search:
		if r.player == "play" {
			r.player = "pause"
		} else {
			r.player = "play"
		}
	case key == "InputHDMI1" && tv:
		r.front, r.player = HDMI1, "close"
	}
	return http.StatusOK
}

func (r *Roku) launch(id string, q url.Values) int {
	a, ok := r.findApp(id)
	if !ok {
		return http.StatusNotFound
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := Launch{App: id, ContentID: q.Get("contentId"), MediaType: q.Get("mediaType")}
	r.launches = append(r.launches, l)
	r.front, r.player = a.ID, "stop"
	if l.ContentID != "" {
		r.player = "play"
	}
	if r.opts.IsTV {
		r.power = "PowerOn"
	}
	return http.StatusOK
}

func (r *Roku) browse(what string, q url.Values) int {
	if what != "browse" || q.Get("keyword") == "" {
		return http.StatusBadRequest
	}
	b := Browse{Keyword: q.Get("keyword"), Provider: q.Get("provider-id"), Launch: q.Get("launch") == "true"}
	_, known := r.findApp(b.Provider)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.browses = append(r.browses, b)
	if b.Launch && known {
		r.front, r.player = b.Provider, "play"
	} else {
		r.front, r.player = Search, "close"
	}
	if r.opts.IsTV {
		r.power = "PowerOn"
	}
	return http.StatusOK
}
