package sonos_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// household is a Sonos household on loopback: players answering real SOAP
// envelopes, sharing their topology and favourites.
type household struct {
	t       *testing.T
	mu      sync.Mutex
	players []*player
}

// player is one fake Sonos player.
type player struct {
	hh       *household
	uuid     string
	name     string
	model    string
	services []string // extra service types in its description
	hidden   bool     // an invisible member (a bridge)
	srv      *httptest.Server

	// Guarded by hh.mu.
	volume    int
	muted     bool
	transport string
	uri       string
	uriMeta   string
	trackMeta string
	duration  string // TrackDuration; "0:00:00" until set
	relTime   string // RelTime; "NOT_IMPLEMENTED" until set
	queue     []string
	leader    string // uuid it follows; "" alone
	calls     []soapCall
	subs      []subRequest
	hang      chan struct{}  // non-nil: requests wait until it closes
	refuse    map[string]int // action → the UPnP error it answers with
	sid       int
}

type soapCall struct {
	Action string // SOAPACTION header
	Body   string
}

type subRequest struct {
	Method   string
	Path     string
	Callback string
	SID      string
	Timeout  string
}

func newHousehold(t *testing.T) *household { return &household{t: t} }

func (hh *household) add(uuid, name, model string, services ...string) *player {
	p := &player{hh: hh, uuid: uuid, name: name, model: model, services: services, volume: 20, transport: "STOPPED"}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	hh.t.Cleanup(func() {
		p.release()
		p.srv.Close()
	})
	hh.mu.Lock()
	hh.players = append(hh.players, p)
	hh.mu.Unlock()
	return p
}

// host is the player's "host:port".
func (p *player) host() string { return strings.TrimPrefix(p.srv.URL, "http://") }

func (p *player) serve(w http.ResponseWriter, r *http.Request) {
	p.hh.mu.Lock()
	hang := p.hang
	p.hh.mu.Unlock()
	if hang != nil {
		select {
		case <-hang:
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == upnp.DescriptionPath:
		io.WriteString(w, p.description())
	case r.Method == http.MethodGet && r.URL.Path == "/getaa":
		// The player's own cover art, for the track named by u.
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(coverArt(r.URL.Query().Get("u")))
	case r.Method == "SUBSCRIBE" || r.Method == "UNSUBSCRIBE":
		p.subscription(w, r)
	case r.Method == http.MethodPost:
		p.control(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (p *player) description() string {
	var svcs strings.Builder
	for _, s := range append([]string{"AlarmClock", "DeviceProperties", "ZoneGroupTopology"}, p.services...) {
		fmt.Fprintf(&svcs, `<service><serviceType>urn:schemas-upnp-org:service:%s:1</serviceType><serviceId>urn:upnp-org:serviceId:%s</serviceId><controlURL>/%s/Control</controlURL><eventSubURL>/%s/Event</eventSubURL><SCPDURL>/xml/%s1.xml</SCPDURL></service>`, s, s, s, s, s)
	}
	return `<?xml version="1.0" encoding="utf-8" ?><root xmlns="urn:schemas-upnp-org:device-1-0"><specVersion><major>1</major><minor>0</minor></specVersion><device>` +
		`<deviceType>urn:schemas-upnp-org:device:ZonePlayer:1</deviceType><friendlyName>127.0.0.1 - ` + p.model + `</friendlyName><manufacturer>Sonos, Inc.</manufacturer>` +
		`<modelNumber>S18</modelNumber><modelName>` + p.model + `</modelName><softwareVersion>79.1-56030</softwareVersion><serialNum>48-A6-B8-00-00-01:E</serialNum>` +
		`<UDN>uuid:` + p.uuid + `</UDN><roomName>` + p.name + `</roomName><serviceList>` + svcs.String() + `</serviceList>` +
		`<deviceList><device><deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType><serviceList><service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType></service><service><serviceType>urn:schemas-upnp-org:service:RenderingControl:1</serviceType></service></serviceList></device></deviceList>` +
		`</device></root>`
}

func (p *player) subscription(w http.ResponseWriter, r *http.Request) {
	p.hh.mu.Lock()
	defer p.hh.mu.Unlock()
	req := subRequest{Method: r.Method, Path: r.URL.Path, Callback: r.Header.Get("CALLBACK"), SID: r.Header.Get("SID"), Timeout: r.Header.Get("TIMEOUT")}
	p.subs = append(p.subs, req)
	if r.Method == "UNSUBSCRIBE" {
		return
	}
	sid := req.SID
	if sid == "" {
		p.sid++
		sid = fmt.Sprintf("uuid:%s_sub%010d", p.uuid, p.sid)
	}
	w.Header()["SID"] = []string{sid}
	w.Header()["TIMEOUT"] = []string{req.Timeout}
	w.Header().Set("Server", "Linux UPnP/1.0 Sonos/79.1-56030 (ZPS18)")
}

var actionRE = regexp.MustCompile(`^"urn:schemas-upnp-org:service:(\w+):1#(\w+)"$`)

func (p *player) control(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	soapAction := r.Header.Get("SOAPACTION")
	m := actionRE.FindStringSubmatch(soapAction)
	if m == nil || r.Header.Get("Content-Type") != `text/xml; charset="utf-8"` {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	args, _ := upnp.ParseResponse(b) // the request's arguments, read the same way
	p.hh.mu.Lock()
	p.calls = append(p.calls, soapCall{Action: soapAction, Body: string(b)})
	out, fault := p.hh.handleLocked(p, m[2], args)
	p.hh.mu.Unlock()
	if fault != 0 {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `%s<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>%d</errorCode></UPnPError></detail></s:Fault>%s`, envStart, fault, envEnd)
		return
	}
	fmt.Fprintf(w, `%s<u:%sResponse xmlns:u="urn:schemas-upnp-org:service:%s:1">%s</u:%sResponse>%s`, envStart, m[2], m[1], out, m[2], envEnd)
}

const (
	envStart = `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>`
	envEnd   = `</s:Body></s:Envelope>`
)

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// handleLocked answers one action the way a player does.
func (hh *household) handleLocked(p *player, action string, a upnp.Values) (string, int) {
	if code := p.refuse[action]; code != 0 {
		return "", code
	}
	lead := p.leaderLocked()
	switch action {
	case "GetVolume":
		return fmt.Sprintf("<CurrentVolume>%d</CurrentVolume>", p.volume), 0
	case "SetVolume":
		fmt.Sscan(a["DesiredVolume"], &p.volume)
	case "GetMute":
		return fmt.Sprintf("<CurrentMute>%d</CurrentMute>", map[bool]int{false: 0, true: 1}[p.muted]), 0
	case "SetMute":
		p.muted = a["DesiredMute"] == "1"
	case "GetTransportInfo":
		return "<CurrentTransportState>" + lead.transport + "</CurrentTransportState><CurrentTransportStatus>OK</CurrentTransportStatus><CurrentSpeed>1</CurrentSpeed>", 0
	case "GetPositionInfo":
		return "<Track>1</Track><TrackDuration>" + firstOf(lead.duration, "0:00:00") + "</TrackDuration><TrackMetaData>" + esc.Replace(lead.trackMeta) + "</TrackMetaData><TrackURI></TrackURI><RelTime>" + firstOf(lead.relTime, "NOT_IMPLEMENTED") + "</RelTime><AbsTime>NOT_IMPLEMENTED</AbsTime><RelCount>2147483647</RelCount><AbsCount>2147483647</AbsCount>", 0
	case "GetMediaInfo":
		uri := p.uri
		if p.leader != "" {
			uri = upnp.GroupURI(p.leader)
		}
		return "<NrTracks>1</NrTracks><MediaDuration>NOT_IMPLEMENTED</MediaDuration><CurrentURI>" + esc.Replace(uri) + "</CurrentURI><CurrentURIMetaData>" + esc.Replace(p.uriMeta) + "</CurrentURIMetaData><NextURI></NextURI><NextURIMetaData></NextURIMetaData><PlayMedium>NETWORK</PlayMedium><RecordMedium>NOT_IMPLEMENTED</RecordMedium><WriteStatus>NOT_IMPLEMENTED</WriteStatus>", 0
	case "Play":
		if p.leader != "" {
			return "", 701
		}
		if p.uri == "" {
			return "", 701
		}
		p.transport = "PLAYING"
	case "Pause":
		if upnp.KindOf(p.uri) == upnp.URIRadio && strings.HasPrefix(p.uri, "x-rincon-mp3radio") {
			return "", 701
		}
		p.transport = "PAUSED_PLAYBACK"
	case "Stop":
		p.transport = "STOPPED"
	case "Next", "Previous":
		if upnp.KindOf(p.uri) != upnp.URIQueue {
			return "", 701
		}
	case "SetAVTransportURI":
		if target := upnp.GroupTarget(a["CurrentURI"]); target != "" {
			p.leader = target
			return "", 0
		}
		p.leader, p.uri, p.uriMeta, p.transport = "", a["CurrentURI"], a["CurrentURIMetaData"], "STOPPED"
	case "RemoveAllTracksFromQueue":
		p.queue = nil
	case "AddURIToQueue":
		p.queue = append(p.queue, a["EnqueuedURI"])
		return fmt.Sprintf("<FirstTrackNumberEnqueued>1</FirstTrackNumberEnqueued><NumTracksAdded>1</NumTracksAdded><NewQueueLength>%d</NewQueueLength>", len(p.queue)), 0
	case "Seek":
	case "BecomeCoordinatorOfStandaloneGroup":
		p.leader = ""
		return "<DelegatedGroupCoordinatorID></DelegatedGroupCoordinatorID><NewGroupID>" + p.uuid + ":1</NewGroupID>", 0
	case "Browse":
		return browseResult(a["StartingIndex"]), 0
	case "GetZoneGroupState":
		return "<ZoneGroupState>" + esc.Replace(hh.zoneGroupStateLocked()) + "</ZoneGroupState>", 0
	default:
		return "", 401
	}
	return "", 0
}

func firstOf(v, otherwise string) string {
	if v == "" {
		return otherwise
	}
	return v
}

// coverArt is the JPEG a player answers /getaa with for track uri.
func coverArt(uri string) []byte {
	return append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), uri...)
}

func (p *player) leaderLocked() *player {
	for _, o := range p.hh.players {
		if o.uuid == p.leader {
			return o
		}
	}
	return p
}

// zoneGroupStateLocked is the household's topology document.
func (hh *household) zoneGroupStateLocked() string {
	var b strings.Builder
	b.WriteString("<ZoneGroupState><ZoneGroups>")
	for _, c := range hh.players {
		if c.leader != "" {
			continue
		}
		fmt.Fprintf(&b, `<ZoneGroup Coordinator="%s" ID="%s:7">`, c.uuid, c.uuid)
		for _, m := range hh.players {
			if m == c || m.leader == c.uuid {
				inv := ""
				if m.hidden {
					inv = ` Invisible="1" IsZoneBridge="1"`
				}
				fmt.Fprintf(&b, `<ZoneGroupMember UUID="%s" Location="%s/xml/device_description.xml" ZoneName="%s" SoftwareVersion="79.1-56030" BootSeq="12"%s/>`, m.uuid, m.srv.URL, m.name, inv)
			}
		}
		b.WriteString("</ZoneGroup>")
	}
	b.WriteString("</ZoneGroups><VanishedDevices/></ZoneGroupState>")
	return b.String()
}

// The household's favourites: a TuneIn station and an album, each with
// its metadata escaped once more inside the escaped Result.
var (
	radioMeta    = upnp.Metadata("Example Radio", upnp.ClassBroadcast)
	albumMeta    = `<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/"><item id="1004206calbum%3a1499378108" parentID="" restricted="true"><dc:title>Kind of Blue</dc:title><upnp:class>object.container.album.musicAlbum</upnp:class><desc id="cdudn" nameSpace="urn:schemas-rinconnetworks-com:metadata-1-0/">SA_RINCON52231_X_#Svc52231-0-Token</desc></item></DIDL-Lite>`
	radioURI     = "x-sonosapi-stream:s24940?sid=254&flags=8224&sn=0"
	albumURI     = "x-rincon-cpcontainer:1004206calbum%3a1499378108?sid=204&flags=8300&sn=2"
	favoriteDIDL = `<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/">` +
		`<item id="FV:2/3" parentID="FV:2" restricted="false"><dc:title>Example Radio</dc:title><upnp:class>object.itemobject.item.sonos-favorite</upnp:class><r:ordinal>0</r:ordinal><res protocolInfo="x-sonosapi-stream:*:*:*">` + esc.Replace(radioURI) + `</res><r:type>instantPlay</r:type><r:description>TuneIn Station</r:description><r:resMD>` + esc.Replace(radioMeta) + `</r:resMD></item>` +
		`<item id="FV:2/20" parentID="FV:2" restricted="false"><dc:title>Kind of Blue</dc:title><upnp:class>object.itemobject.item.sonos-favorite</upnp:class><r:ordinal>1</r:ordinal><res protocolInfo="x-rincon-cpcontainer:*:*:*">` + esc.Replace(albumURI) + `</res><r:type>instantPlay</r:type><r:description>Apple Music Album</r:description><r:resMD>` + esc.Replace(albumMeta) + `</r:resMD></item>` +
		`</DIDL-Lite>`
)

func browseResult(start string) string {
	if start != "0" {
		return "<Result></Result><NumberReturned>0</NumberReturned><TotalMatches>2</TotalMatches><UpdateID>7</UpdateID>"
	}
	return "<Result>" + esc.Replace(favoriteDIDL) + "</Result><NumberReturned>2</NumberReturned><TotalMatches>2</TotalMatches><UpdateID>7</UpdateID>"
}

// body is the compact envelope of an action, as a test expects it.
func body(service, action, args string) string {
	return fmt.Sprintf(`%s<u:%s xmlns:u="urn:schemas-upnp-org:service:%s:1">%s</u:%s>%s`, envStart, action, service, args, action, envEnd)
}

func soapAction(service, action string) string {
	return `"urn:schemas-upnp-org:service:` + service + `:1#` + action + `"`
}

// called reports whether the player received exactly this call.
func (p *player) called(service, action, args string) bool {
	want := soapCall{Action: soapAction(service, action), Body: body(service, action, args)}
	p.hh.mu.Lock()
	defer p.hh.mu.Unlock()
	for _, c := range p.calls {
		if c == want {
			return true
		}
	}
	return false
}

// actions lists the actions received, in order.
func (p *player) actions() []string {
	p.hh.mu.Lock()
	defer p.hh.mu.Unlock()
	var out []string
	for _, c := range p.calls {
		if m := actionRE.FindStringSubmatch(c.Action); m != nil {
			out = append(out, m[2])
		}
	}
	return out
}

func (p *player) forget() {
	p.hh.mu.Lock()
	p.calls = nil
	p.hh.mu.Unlock()
}

func (p *player) subscriptions() []subRequest {
	p.hh.mu.Lock()
	defer p.hh.mu.Unlock()
	return append([]subRequest(nil), p.subs...)
}

// stall makes the player stop answering until release.
func (p *player) stall() {
	p.hh.mu.Lock()
	if p.hang == nil {
		p.hang = make(chan struct{})
	}
	p.hh.mu.Unlock()
}

func (p *player) release() {
	p.hh.mu.Lock()
	if p.hang != nil {
		close(p.hang)
		p.hang = nil
	}
	p.hh.mu.Unlock()
}

func (p *player) set(fn func(p *player)) {
	p.hh.mu.Lock()
	fn(p)
	p.hh.mu.Unlock()
}

// notify sends an event to the adapter's subscription for service, as the
// player does when its state changes.
func (p *player) notify(t *testing.T, service string, vars map[string]string) {
	t.Helper()
	var sub subRequest
	for _, s := range p.subscriptions() {
		if s.Method == "SUBSCRIBE" && s.Callback != "" && strings.Contains(s.Path, service) {
			sub = s
		}
	}
	if sub.Callback == "" {
		t.Fatalf("%s has no subscription to %s", p.name, service)
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><e:propertyset xmlns:e="urn:schemas-upnp-org:event-1-0">`)
	for k, v := range vars {
		fmt.Fprintf(&b, "<e:property><%s>%s</%s></e:property>", k, esc.Replace(v), k)
	}
	b.WriteString("</e:propertyset>")
	req, _ := http.NewRequestWithContext(context.Background(), "NOTIFY", strings.Trim(sub.Callback, "<>"), &b)
	req.Header.Set("Content-Type", `text/xml; charset="utf-8"`)
	req.Header["NT"] = []string{"upnp:event"}
	req.Header["NTS"] = []string{"upnp:propchange"}
	req.Header["SID"] = []string{fmt.Sprintf("uuid:%s_sub%010d", p.uuid, 1)}
	req.Header["SEQ"] = []string{"0"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("NOTIFY answered %d", resp.StatusCode)
	}
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
