package upnp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

const envStart = `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>`
const envEnd = `</s:Body></s:Envelope>`

var instance = upnp.Arg{Name: "InstanceID", Value: "0"}

// The compact envelopes of PROTOCOLS.md §2.7.
func TestEnvelopes(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{string(upnp.Envelope(upnp.AVTransport, "Play", instance, upnp.Arg{Name: "Speed", Value: "1"})),
			envStart + `<u:Play xmlns:u="urn:schemas-upnp-org:service:AVTransport:1"><InstanceID>0</InstanceID><Speed>1</Speed></u:Play>` + envEnd},
		{string(upnp.Envelope(upnp.RenderingControl, "SetVolume", instance, upnp.Arg{Name: "Channel", Value: "Master"}, upnp.Arg{Name: "DesiredVolume", Value: "25"})),
			envStart + `<u:SetVolume xmlns:u="urn:schemas-upnp-org:service:RenderingControl:1"><InstanceID>0</InstanceID><Channel>Master</Channel><DesiredVolume>25</DesiredVolume></u:SetVolume>` + envEnd},
		{string(upnp.Envelope(upnp.ZoneGroupTopology, "GetZoneGroupState")),
			envStart + `<u:GetZoneGroupState xmlns:u="urn:schemas-upnp-org:service:ZoneGroupTopology:1"></u:GetZoneGroupState>` + envEnd},
		{string(upnp.Envelope(upnp.AVTransport, "SetAVTransportURI", instance,
			upnp.Arg{Name: "CurrentURI", Value: "x-sonosapi-stream:s24940?sid=254&flags=8224&sn=0"},
			upnp.Arg{Name: "CurrentURIMetaData", Value: upnp.Metadata("Example Radio", upnp.ClassBroadcast)})),
			envStart + `<u:SetAVTransportURI xmlns:u="urn:schemas-upnp-org:service:AVTransport:1"><InstanceID>0</InstanceID><CurrentURI>x-sonosapi-stream:s24940?sid=254&amp;flags=8224&amp;sn=0</CurrentURI><CurrentURIMetaData>&lt;DIDL-Lite xmlns:dc=&quot;http://purl.org/dc/elements/1.1/&quot; xmlns:upnp=&quot;urn:schemas-upnp-org:metadata-1-0/upnp/&quot; xmlns:r=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot; xmlns=&quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&quot;&gt;&lt;item id=&quot;R:0/0/0&quot; parentID=&quot;R:0/0&quot; restricted=&quot;true&quot;&gt;&lt;dc:title&gt;Example Radio&lt;/dc:title&gt;&lt;upnp:class&gt;object.item.audioItem.audioBroadcast&lt;/upnp:class&gt;&lt;desc id=&quot;cdudn&quot; nameSpace=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot;&gt;SA_RINCON65031_&lt;/desc&gt;&lt;/item&gt;&lt;/DIDL-Lite&gt;</CurrentURIMetaData></u:SetAVTransportURI>` + envEnd},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("envelope\n got %s\nwant %s", c.got, c.want)
		}
	}
	if got := upnp.AVTransport.SOAPAction("Play"); got != `"urn:schemas-upnp-org:service:AVTransport:1#Play"` {
		t.Errorf("SOAPAction %s", got)
	}
}

const positionInfo = `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>` +
	`<u:GetPositionInfoResponse xmlns:u="urn:schemas-upnp-org:service:AVTransport:1"><Track>3</Track><TrackDuration>0:09:22</TrackDuration>` +
	`<TrackMetaData>&lt;DIDL-Lite xmlns:dc=&quot;http://purl.org/dc/elements/1.1/&quot; xmlns:upnp=&quot;urn:schemas-upnp-org:metadata-1-0/upnp/&quot; xmlns:r=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot; xmlns=&quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&quot;&gt;&lt;item id=&quot;-1&quot; parentID=&quot;-1&quot; restricted=&quot;true&quot;&gt;&lt;res protocolInfo=&quot;sonos.com-spotify:*:audio/x-spotify:*&quot; duration=&quot;0:09:22&quot;&gt;x-sonos-spotify:spotify%3atrack%3a4vLYewWIvqHfKtJDk8c8tq?sid=12&amp;amp;flags=8224&amp;amp;sn=1&lt;/res&gt;&lt;upnp:albumArtURI&gt;/getaa?s=1&amp;amp;u=x-sonos-spotify%3a&lt;/upnp:albumArtURI&gt;&lt;dc:title&gt;So What&lt;/dc:title&gt;&lt;upnp:class&gt;object.item.audioItem.musicTrack&lt;/upnp:class&gt;&lt;dc:creator&gt;Miles Davis&lt;/dc:creator&gt;&lt;upnp:album&gt;Kind of Blue&lt;/upnp:album&gt;&lt;/item&gt;&lt;/DIDL-Lite&gt;</TrackMetaData>` +
	`<TrackURI>x-sonos-spotify:spotify%3atrack%3a4vLYewWIvqHfKtJDk8c8tq?sid=12&amp;flags=8224&amp;sn=1</TrackURI><RelTime>0:01:02</RelTime><AbsTime>NOT_IMPLEMENTED</AbsTime><RelCount>2147483647</RelCount><AbsCount>2147483647</AbsCount>` +
	`</u:GetPositionInfoResponse></s:Body></s:Envelope>`

func TestParsePositionInfo(t *testing.T) {
	v, err := upnp.ParseResponse([]byte(positionInfo))
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("Track") != 3 || v["TrackURI"] != "x-sonos-spotify:spotify%3atrack%3a4vLYewWIvqHfKtJDk8c8tq?sid=12&flags=8224&sn=1" {
		t.Fatalf("values %v", v)
	}
	it, err := upnp.ParseItem(v["TrackMetaData"])
	if err != nil {
		t.Fatal(err)
	}
	if it.Title != "So What" || it.Creator != "Miles Davis" || it.Album != "Kind of Blue" || it.Class != upnp.ClassTrack {
		t.Errorf("item %+v", it)
	}
	if it.AlbumArtURI != "/getaa?s=1&u=x-sonos-spotify%3a" || !strings.HasSuffix(it.Res, "sid=12&flags=8224&sn=1") {
		t.Errorf("art %q res %q", it.AlbumArtURI, it.Res)
	}
}

// A Browse FV:2 answer: Result is escaped DIDL-Lite, and each favourite's
// r:resMD is DIDL-Lite escaped once more inside it.
const browseFavorites = `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>` +
	`<u:BrowseResponse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><Result>` +
	`&lt;DIDL-Lite xmlns:dc=&quot;http://purl.org/dc/elements/1.1/&quot; xmlns:upnp=&quot;urn:schemas-upnp-org:metadata-1-0/upnp/&quot; xmlns:r=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot; xmlns=&quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&quot;&gt;` +
	`&lt;item id=&quot;FV:2/3&quot; parentID=&quot;FV:2&quot; restricted=&quot;false&quot;&gt;&lt;dc:title&gt;Example Radio&lt;/dc:title&gt;&lt;upnp:class&gt;object.itemobject.item.sonos-favorite&lt;/upnp:class&gt;&lt;r:ordinal&gt;0&lt;/r:ordinal&gt;` +
	`&lt;res protocolInfo=&quot;x-sonosapi-stream:*:*:*&quot;&gt;x-sonosapi-stream:s24940?sid=254&amp;amp;flags=8224&amp;amp;sn=0&lt;/res&gt;&lt;r:type&gt;instantPlay&lt;/r:type&gt;&lt;r:description&gt;TuneIn Station&lt;/r:description&gt;` +
	`&lt;r:resMD&gt;&amp;lt;DIDL-Lite xmlns:dc=&amp;quot;http://purl.org/dc/elements/1.1/&amp;quot; xmlns:upnp=&amp;quot;urn:schemas-upnp-org:metadata-1-0/upnp/&amp;quot; xmlns:r=&amp;quot;urn:schemas-rinconnetworks-com:metadata-1-0/&amp;quot; xmlns=&amp;quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&amp;quot;&amp;gt;&amp;lt;item id=&amp;quot;R:0/0/0&amp;quot; parentID=&amp;quot;R:0/0&amp;quot; restricted=&amp;quot;true&amp;quot;&amp;gt;&amp;lt;dc:title&amp;gt;Example Radio&amp;lt;/dc:title&amp;gt;&amp;lt;upnp:class&amp;gt;object.item.audioItem.audioBroadcast&amp;lt;/upnp:class&amp;gt;&amp;lt;desc id=&amp;quot;cdudn&amp;quot; nameSpace=&amp;quot;urn:schemas-rinconnetworks-com:metadata-1-0/&amp;quot;&amp;gt;SA_RINCON65031_&amp;lt;/desc&amp;gt;&amp;lt;/item&amp;gt;&amp;lt;/DIDL-Lite&amp;gt;&lt;/r:resMD&gt;&lt;/item&gt;` +
	`&lt;item id=&quot;FV:2/20&quot; parentID=&quot;FV:2&quot; restricted=&quot;false&quot;&gt;&lt;dc:title&gt;Kind of Blue&lt;/dc:title&gt;&lt;upnp:class&gt;object.itemobject.item.sonos-favorite&lt;/upnp:class&gt;` +
	`&lt;res protocolInfo=&quot;x-rincon-cpcontainer:*:*:*&quot;&gt;x-rincon-cpcontainer:1004206calbum%3a1499378108?sid=204&amp;amp;flags=8300&amp;amp;sn=2&lt;/res&gt;&lt;r:type&gt;instantPlay&lt;/r:type&gt;&lt;r:description&gt;Apple Music Album&lt;/r:description&gt;` +
	`&lt;r:resMD&gt;&amp;lt;DIDL-Lite xmlns:dc=&amp;quot;http://purl.org/dc/elements/1.1/&amp;quot; xmlns:upnp=&amp;quot;urn:schemas-upnp-org:metadata-1-0/upnp/&amp;quot; xmlns:r=&amp;quot;urn:schemas-rinconnetworks-com:metadata-1-0/&amp;quot; xmlns=&amp;quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&amp;quot;&amp;gt;&amp;lt;item id=&amp;quot;1004206calbum%3a1499378108&amp;quot; parentID=&amp;quot;&amp;quot; restricted=&amp;quot;true&amp;quot;&amp;gt;&amp;lt;dc:title&amp;gt;Kind of Blue&amp;lt;/dc:title&amp;gt;&amp;lt;upnp:class&amp;gt;object.container.album.musicAlbum&amp;lt;/upnp:class&amp;gt;&amp;lt;desc id=&amp;quot;cdudn&amp;quot; nameSpace=&amp;quot;urn:schemas-rinconnetworks-com:metadata-1-0/&amp;quot;&amp;gt;SA_RINCON52231_X_#Svc52231-0-Token&amp;lt;/desc&amp;gt;&amp;lt;/item&amp;gt;&amp;lt;/DIDL-Lite&amp;gt;&lt;/r:resMD&gt;&lt;/item&gt;` +
	`&lt;/DIDL-Lite&gt;</Result><NumberReturned>2</NumberReturned><TotalMatches>2</TotalMatches><UpdateID>7</UpdateID></u:BrowseResponse></s:Body></s:Envelope>`

func TestParseFavoritesDoublyEscaped(t *testing.T) {
	v, err := upnp.ParseResponse([]byte(browseFavorites))
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("TotalMatches") != 2 {
		t.Fatalf("values %v", v)
	}
	items, err := upnp.ParseDIDL(v["Result"])
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("%d items", len(items))
	}
	radio := items[0]
	if radio.ID != "FV:2/3" || radio.Title != "Example Radio" || radio.Type != "instantPlay" || radio.Description != "TuneIn Station" ||
		radio.Res != "x-sonosapi-stream:s24940?sid=254&flags=8224&sn=0" {
		t.Errorf("radio %+v", radio)
	}
	if radio.ResMD != upnp.Metadata("Example Radio", upnp.ClassBroadcast) {
		t.Errorf("resMD unescaped to %s", radio.ResMD)
	}
	ref, err := upnp.ParseItem(items[1].ResMD)
	if err != nil || ref.Class != "object.container.album.musicAlbum" || ref.Title != "Kind of Blue" {
		t.Errorf("album's resMD %+v %v", ref, err)
	}
	if !upnp.PlaysDirectly(radio.Res) || upnp.PlaysDirectly(items[1].Res) {
		t.Error("favourite routing: radio plays directly, a container through the queue")
	}
}

func TestParseFault(t *testing.T) {
	body := `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>701</errorCode></UPnPError></detail></s:Fault></s:Body></s:Envelope>`
	f, err := upnp.ParseFault([]byte(body))
	if err != nil || f.Code != 701 {
		t.Fatalf("%v %v", f, err)
	}
	if upnp.FaultCode(errors.Join(errors.New("x"), f)) != 701 {
		t.Error("FaultCode through a chain")
	}
}

const zoneGroupState = `<ZoneGroupState><ZoneGroups>` +
	`<ZoneGroup Coordinator="RINCON_000E58AAAAAA01400" ID="RINCON_000E58AAAAAA01400:46">` +
	`<ZoneGroupMember UUID="RINCON_000E58AAAAAA01400" Location="http://192.168.1.20:1400/xml/device_description.xml" ZoneName="Living Room" SoftwareVersion="79.1-56030" BootSeq="52">` +
	`<Satellite UUID="RINCON_000E58CCCCCC01400" Location="http://192.168.1.22:1400/xml/device_description.xml" ZoneName="Living Room" Invisible="1"/></ZoneGroupMember>` +
	`<ZoneGroupMember UUID="RINCON_000E58BBBBBB01400" Location="http://192.168.1.21:1400/xml/device_description.xml" ZoneName="Kitchen"/>` +
	`</ZoneGroup>` +
	`<ZoneGroup Coordinator="RINCON_000E58DDDDDD01400" ID="RINCON_000E58DDDDDD01400:3">` +
	`<ZoneGroupMember UUID="RINCON_000E58DDDDDD01400" Location="http://192.168.1.23:1400/xml/device_description.xml" ZoneName="BOOST" Invisible="1" IsZoneBridge="1"/></ZoneGroup>` +
	`</ZoneGroups><VanishedDevices/></ZoneGroupState>`

func TestParseZoneGroupState(t *testing.T) {
	groups, err := upnp.ParseZoneGroupState(zoneGroupState)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].Coordinator != "RINCON_000E58AAAAAA01400" || len(groups[0].Members) != 2 {
		t.Fatalf("groups %+v", groups)
	}
	k := groups[0].Members[1]
	if k.ZoneName != "Kitchen" || k.Invisible || k.BaseURL() != "http://192.168.1.21:1400" {
		t.Errorf("kitchen %+v", k)
	}
	if !groups[1].Members[0].Invisible {
		t.Error("the bridge is invisible")
	}
	// Firmware before 10.1: no ZoneGroups level.
	old := strings.NewReplacer("<ZoneGroups>", "", "</ZoneGroups>", "").Replace(zoneGroupState)
	if g, err := upnp.ParseZoneGroupState(old); err != nil || len(g) != 2 {
		t.Fatalf("old firmware: %v %v", g, err)
	}
}

const description = `<?xml version="1.0" encoding="utf-8" ?><root xmlns="urn:schemas-upnp-org:device-1-0"><specVersion><major>1</major><minor>0</minor></specVersion>` +
	`<device><deviceType>urn:schemas-upnp-org:device:ZonePlayer:1</deviceType><friendlyName>192.168.1.20 - Sonos Five</friendlyName><manufacturer>Sonos, Inc.</manufacturer>` +
	`<modelNumber>S6</modelNumber><modelName>Sonos Five</modelName><softwareVersion>79.1-56030</softwareVersion><serialNum>48-A6-B8-AA-AA-AA:E</serialNum>` +
	`<UDN>uuid:RINCON_000E58AAAAAA01400</UDN><roomName>Living Room</roomName>` +
	`<serviceList><service><serviceType>urn:schemas-upnp-org:service:AudioIn:1</serviceType><serviceId>urn:upnp-org:serviceId:AudioIn</serviceId><controlURL>/AudioIn/Control</controlURL></service></serviceList>` +
	`<deviceList><device><deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType><serviceList><service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType></service></serviceList></device></deviceList>` +
	`</device></root>`

func TestParseDescription(t *testing.T) {
	d, err := upnp.ParseDescription([]byte(description))
	if err != nil {
		t.Fatal(err)
	}
	if d.UUID() != "RINCON_000E58AAAAAA01400" || d.RoomName != "Living Room" || d.ModelName != "Sonos Five" || d.ModelNumber != "S6" {
		t.Errorf("%+v", d)
	}
	if !d.HasService("AudioIn") || !d.HasService("AVTransport") || d.HasService("HTControl") {
		t.Errorf("services %v", d.Services)
	}
}

func TestSSDP(t *testing.T) {
	want := "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\nST: urn:schemas-upnp-org:device:ZonePlayer:1\r\n\r\n"
	if got := string(upnp.SearchRequest(upnp.ZonePlayerType, 1)); got != want {
		t.Fatalf("M-SEARCH %q", got)
	}
	// A player answering on loopback, with another UPnP device's answer
	// that must be ignored.
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
		pc.WriteTo([]byte("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age = 1800\r\nLOCATION: http://10.0.0.9:80/desc.xml\r\nSERVER: Linux UPnP/1.0 Router/1\r\nST: upnp:rootdevice\r\nUSN: uuid:x\r\n\r\n"), from)
		pc.WriteTo([]byte("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age = 1800\r\nEXT:\r\nLOCATION: http://192.168.1.20:1400/xml/device_description.xml\r\nSERVER: Linux UPnP/1.0 Sonos/79.1-56030 (ZPS6)\r\nST: urn:schemas-upnp-org:device:ZonePlayer:1\r\nUSN: uuid:RINCON_000E58AAAAAA01400::urn:schemas-upnp-org:device:ZonePlayer:1\r\nX-RINCON-HOUSEHOLD: Sonos_abc\r\n\r\n"), from)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var found []upnp.SearchResponse
	if err := upnp.Search(ctx, []string{pc.LocalAddr().String()}, func(r upnp.SearchResponse) { found = append(found, r) }); err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Location != "http://192.168.1.20:1400/xml/device_description.xml" || found[0].Household != "Sonos_abc" {
		t.Fatalf("found %+v", found)
	}
}

func TestEvents(t *testing.T) {
	body := `<?xml version="1.0"?><e:propertyset xmlns:e="urn:schemas-upnp-org:event-1-0"><e:property><LastChange>` +
		`&lt;Event xmlns=&quot;urn:schemas-upnp-org:metadata-1-0/RCS/&quot;&gt;&lt;InstanceID val=&quot;0&quot;&gt;` +
		`&lt;Volume channel=&quot;Master&quot; val=&quot;31&quot;/&gt;&lt;Volume channel=&quot;LF&quot; val=&quot;100&quot;/&gt;&lt;Mute channel=&quot;Master&quot; val=&quot;1&quot;/&gt;` +
		`&lt;/InstanceID&gt;&lt;/Event&gt;</LastChange></e:property></e:propertyset>`
	vars, err := upnp.ParsePropertySet(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	lc, err := upnp.ParseLastChange(vars["LastChange"])
	if err != nil {
		t.Fatal(err)
	}
	if lc["Volume"] != "31" || lc["Mute"] != "1" {
		t.Fatalf("last change %v", lc)
	}
}

func TestSubscriptions(t *testing.T) {
	var got []http.Header
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods = append(methods, r.Method+" "+r.URL.Path)
		got = append(got, r.Header.Clone())
		if r.Method == "SUBSCRIBE" && r.Header.Get("SID") == "uuid:gone" {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		w.Header()["SID"] = []string{"uuid:RINCON_000E58AAAAAA01400_sub0000000001"}
		w.Header()["TIMEOUT"] = []string{"Second-600"}
	}))
	defer srv.Close()
	c := upnp.Client{}
	ctx := context.Background()
	sub, err := c.Subscribe(ctx, srv.URL, upnp.AVTransport, "http://10.0.0.2:1400/sonos/x/AVTransport", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if sub.SID != "uuid:RINCON_000E58AAAAAA01400_sub0000000001" || sub.Timeout != 10*time.Minute {
		t.Errorf("granted %+v", sub)
	}
	h := got[0]
	if methods[0] != "SUBSCRIBE /MediaRenderer/AVTransport/Event" || h.Get("CALLBACK") != "<http://10.0.0.2:1400/sonos/x/AVTransport>" ||
		h.Get("NT") != "upnp:event" || h.Get("TIMEOUT") != "Second-3600" {
		t.Errorf("subscribe %s %v", methods[0], h)
	}
	if _, err := c.Renew(ctx, srv.URL, upnp.AVTransport, sub.SID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if h := got[1]; h.Get("SID") != sub.SID || h.Get("CALLBACK") != "" || h.Get("NT") != "" {
		t.Errorf("renew %v", h)
	}
	var status *upnp.StatusError
	if _, err := c.Renew(ctx, srv.URL, upnp.AVTransport, "uuid:gone", time.Hour); !errors.As(err, &status) || status.Status != 412 {
		t.Errorf("renewing a forgotten subscription: %v", err)
	}
	if err := c.Unsubscribe(ctx, srv.URL, upnp.AVTransport, sub.SID); err != nil || methods[3] != "UNSUBSCRIBE /MediaRenderer/AVTransport/Event" {
		t.Errorf("unsubscribe %v %v", methods, err)
	}
}

func TestCallSendsHeadersAndReadsFaults(t *testing.T) {
	var action, ctype, agent, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		action, ctype, agent = r.Header.Get("SOAPACTION"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		if strings.Contains(action, "#Next") {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, envStart+`<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>701</errorCode></UPnPError></detail></s:Fault>`+envEnd)
			return
		}
		io.WriteString(w, envStart+`<u:BrowseResponse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><Result></Result><NumberReturned>0</NumberReturned><TotalMatches>0</TotalMatches><UpdateID>1</UpdateID></u:BrowseResponse>`+envEnd)
	}))
	defer srv.Close()
	c := upnp.Client{}
	v, err := c.Call(context.Background(), srv.URL, upnp.ContentDirectory, "Browse",
		upnp.Arg{Name: "ObjectID", Value: "FV:2"}, upnp.Arg{Name: "BrowseFlag", Value: "BrowseDirectChildren"},
		upnp.Arg{Name: "Filter", Value: "*"}, upnp.Arg{Name: "StartingIndex", Value: "0"},
		upnp.Arg{Name: "RequestedCount", Value: "100"}, upnp.Arg{Name: "SortCriteria"})
	if err != nil {
		t.Fatal(err)
	}
	if v["UpdateID"] != "1" || action != `"urn:schemas-upnp-org:service:ContentDirectory:1#Browse"` ||
		ctype != `text/xml; charset="utf-8"` || agent != upnp.ContentDirectoryUserAgent {
		t.Errorf("values %v action %s type %s agent %s", v, action, ctype, agent)
	}
	want := envStart + `<u:Browse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><ObjectID>FV:2</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter><StartingIndex>0</StartingIndex><RequestedCount>100</RequestedCount><SortCriteria></SortCriteria></u:Browse>` + envEnd
	if body != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	_, err = c.Call(context.Background(), srv.URL, upnp.AVTransport, "Next", instance)
	if upnp.FaultCode(err) != 701 {
		t.Errorf("fault: %v", err)
	}
}

func TestURIKinds(t *testing.T) {
	for uri, want := range map[string]string{
		"":                                 upnp.URINone,
		"x-rincon-queue:RINCON_1#0":        upnp.URIQueue,
		"x-sonosapi-stream:s24940?sid=254": upnp.URIRadio,
		"x-rincon-mp3radio://example.com/live.mp3": upnp.URIRadio,
		"x-rincon-stream:RINCON_1":                 upnp.URILineIn,
		"x-sonos-htastream:RINCON_1:spdif":         upnp.URITV,
		"x-rincon:RINCON_2":                        upnp.URIGroup,
		"x-sonos-vli:RINCON_1:1,airplay:abc":       upnp.URIAirPlay,
		"https://example.com/a.mp3":                upnp.URIWeb,
		"x-rincon-cpcontainer:1004206calbum":       upnp.URIOther,
	} {
		if got := upnp.KindOf(uri); got != want {
			t.Errorf("KindOf(%q) = %q; want %q", uri, got, want)
		}
	}
	if upnp.GroupTarget("x-rincon:RINCON_2") != "RINCON_2" || upnp.QueueURI("R") != "x-rincon-queue:R#0" || upnp.TVURI("R") != "x-sonos-htastream:R:spdif" {
		t.Error("URI builders")
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0:01:02": 62 * time.Second, "0:09:22": 9*time.Minute + 22*time.Second, "12:00:00": 12 * time.Hour,
		"0:00:01.500": 1500 * time.Millisecond, "0:00:00": 0,
	} {
		if got, ok := upnp.ParseTime(in); !ok || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"NOT_IMPLEMENTED", "", "1:02", "0:61:00", "0:00:60", "-1:00:00", "a:b:c"} {
		if _, ok := upnp.ParseTime(in); ok {
			t.Errorf("ParseTime(%q) read as a time", in)
		}
	}
}
