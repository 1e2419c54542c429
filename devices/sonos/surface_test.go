package sonos_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos"
	"github.com/bifrost-hub/bifrost/service"
)

// The hub as its clients meet it: the real service over SQLite with the
// adapter's players on a fake household, behind the real HTTP server, driven
// through /api/v1 with plain requests and through /mcp with mcp-go's client.

// surface is a running hub's HTTP side and a control key for it.
type surface struct {
	*apitest.Hub
}

func newSurface(t *testing.T, r *rig, ids ...devices.ID) *surface {
	t.Helper()
	for _, id := range ids {
		r.speaker(t, id)
	}
	h := apitest.Start(t, r.reg, deviceTimeout)
	return &surface{Hub: h}
}

// mcpMedia is a media player as the MCP tools answer it.
type mcpMedia struct {
	ID        string `json:"id"`
	Offline   bool   `json:"offline"`
	Volume    *int   `json:"volume"`
	Source    string `json:"source"`
	Transport string `json:"transport"`
	Playing   string `json:"playing"`
	Following string `json:"following"`
}

// writes lists the actions that change the player, in order: all it
// received but the reads (Get…) and Browse.
func (p *player) writes() []string {
	return slices.DeleteFunc(p.actions(), func(a string) bool { return strings.HasPrefix(a, "Get") || a == "Browse" })
}

// calledExactly fails the test unless the player received this exact
// envelope.
func (p *player) calledExactly(t *testing.T, service, action, args string) {
	t.Helper()
	if !p.called(service, action, args) {
		t.Fatalf("%s did not receive %s %s; it received %v", p.name, soapAction(service, action), body(service, action, args), p.actions())
	}
}

// The station favourite as the player must receive it: its URI and its
// metadata, each escaped once, as the transport URI.
var playStation = "<InstanceID>0</InstanceID><CurrentURI>x-sonosapi-stream:s24940?sid=254&amp;flags=8224&amp;sn=0</CurrentURI><CurrentURIMetaData>" + esc.Replace(radioMeta) + "</CurrentURIMetaData>"

const (
	play      = "<InstanceID>0</InstanceID><Speed>1</Speed>"
	joinLiv   = "<InstanceID>0</InstanceID><CurrentURI>x-rincon:" + livingUUID + "</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>"
	browseFav = "<ObjectID>FV:2</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter><StartingIndex>0</StartingIndex><RequestedCount>100</RequestedCount><SortCriteria></SortCriteria>"
)

func setVolume(v string) string {
	return "<InstanceID>0</InstanceID><Channel>Master</Channel><DesiredVolume>" + v + "</DesiredVolume>"
}

func TestAPIPlaysAFavouriteByNameAndGroups(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	s := newSurface(t, r, livingID, kitchenID)
	living.forget()
	kitchen.forget()

	// Part of a title names the station; the player is sent exactly the
	// station's URI and metadata, then Play, and nothing else changes.
	var m service.Media
	s.V1(t, http.MethodPost, "/media/devices/Living%20Room/favorites/play", `{"favorite": "radio"}`, http.StatusOK, &m)
	living.calledExactly(t, "ContentDirectory", "Browse", browseFav)
	living.calledExactly(t, "AVTransport", "SetAVTransportURI", playStation)
	living.calledExactly(t, "AVTransport", "Play", play)
	if got := strings.Join(living.writes(), ","); got != "SetAVTransportURI,Play" {
		t.Fatalf("the living room was sent %s", got)
	}
	if m.ID != livingID || m.State == nil || m.State.Transport != devices.TransportPlaying || m.State.NowPlaying == nil || m.State.NowPlaying.Title != "Example Radio" {
		t.Fatalf("answer %+v, state %+v", m, m.State)
	}

	// Grouping sends the kitchen, and only the kitchen, to the living
	// room's group.
	living.forget()
	var counts struct {
		Results service.FanoutResult `json:"results"`
	}
	s.V1(t, http.MethodPost, "/media/devices/Living%20Room/group", `{"members": ["Kitchen"]}`, http.StatusOK, &counts)
	if res := counts.Results; len(res.Applied) != 1 || res.Applied[0].ID != kitchenID || len(res.Failed) != 0 {
		t.Fatalf("group %+v", counts)
	}
	kitchen.calledExactly(t, "AVTransport", "SetAVTransportURI", joinLiv)
	if got := strings.Join(kitchen.writes(), ","); got != "SetAVTransportURI" {
		t.Fatalf("the kitchen was sent %s", got)
	}
	if w := living.writes(); len(w) != 0 {
		t.Fatalf("the coordinator was sent %v", w)
	}
	var k service.Media
	s.V1(t, http.MethodGet, "/media/devices/Kitchen", "", http.StatusOK, &k)
	if k.State == nil || k.State.GroupCoordinator != livingID || k.State.NowPlaying == nil || k.State.NowPlaying.Title != "Example Radio" {
		t.Fatalf("the kitchen after grouping: %+v", k.State)
	}
}

func TestAPIReportsAStalledPlayerUnreachable(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	s := newSurface(t, r, livingID, kitchenID)
	// Read once, so the command (not a read of stale state) is what
	// meets the silence, as it mostly will in use.
	s.V1(t, http.MethodGet, "/media/devices/Kitchen", "", http.StatusOK, nil)
	kitchen.stall()
	start := time.Now()
	var e apitest.Error
	s.V1(t, http.MethodPut, "/media/devices/Kitchen/state", `{"volume": 10}`, http.StatusBadGateway, &e)
	d := time.Since(start)
	if d > reportedWithin {
		t.Fatalf("502 after %v; the device timeout is %v", d, deviceTimeout)
	}
	if e.Error != service.EUNREACHABLE || !saysSilent(e.Message, "Kitchen", "SetVolume") {
		t.Fatalf("error %+v", e)
	}
	t.Logf("502 after %v: %s", d, e.Message)
	// The other player answers as before.
	living.forget()
	var m service.Media
	s.V1(t, http.MethodPut, "/media/devices/Living%20Room/state", `{"volume": 12}`, http.StatusOK, &m)
	living.calledExactly(t, "RenderingControl", "SetVolume", setVolume("12"))
	if !m.Online || m.State == nil || m.State.Volume != 12 {
		t.Fatalf("the other player: %+v", m)
	}
	// The stalled one is listed offline, without holding the list up.
	var list []service.Media
	s.V1(t, http.MethodGet, "/media/devices", "", http.StatusOK, &list)
	for _, p := range list {
		if p.ID == kitchenID && (p.Online || p.State == nil || p.State.Power) {
			t.Fatalf("the stalled player listed as %+v", p)
		}
		if p.ID == livingID && (!p.Online || p.State == nil || p.State.Volume != 12) {
			t.Fatalf("the other player listed as %+v", p)
		}
	}
}

func TestMCPPlaysAFavouriteByNameAndGroups(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	c := newSurface(t, r, livingID, kitchenID).MCP(t)
	living.forget()
	kitchen.forget()

	// An album goes through the queue: cleared, the album added exactly,
	// the queue made the transport URI, its first track, Play.
	var m mcpMedia
	apitest.ToolOK(t, c, "play_media_favorite", map[string]any{"device": "Living Room", "favorite": "blue"}, &m)
	living.calledExactly(t, "ContentDirectory", "Browse", browseFav)
	living.calledExactly(t, "AVTransport", "RemoveAllTracksFromQueue", "<InstanceID>0</InstanceID>")
	living.calledExactly(t, "AVTransport", "AddURIToQueue", "<InstanceID>0</InstanceID><EnqueuedURI>x-rincon-cpcontainer:1004206calbum%3a1499378108?sid=204&amp;flags=8300&amp;sn=2</EnqueuedURI><EnqueuedURIMetaData>"+esc.Replace(albumMeta)+"</EnqueuedURIMetaData><DesiredFirstTrackNumberEnqueued>0</DesiredFirstTrackNumberEnqueued><EnqueueAsNext>0</EnqueueAsNext>")
	living.calledExactly(t, "AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>x-rincon-queue:"+livingUUID+"#0</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>")
	living.calledExactly(t, "AVTransport", "Seek", "<InstanceID>0</InstanceID><Unit>TRACK_NR</Unit><Target>1</Target>")
	living.calledExactly(t, "AVTransport", "Play", play)
	if got := strings.Join(living.writes(), ","); got != "RemoveAllTracksFromQueue,AddURIToQueue,SetAVTransportURI,Seek,Play" {
		t.Fatalf("the living room was sent %s", got)
	}
	if m.ID != string(livingID) || m.Transport != devices.TransportPlaying || m.Source != "Queue" {
		t.Fatalf("answer %+v", m)
	}

	// And the station, by its name.
	living.forget()
	apitest.ToolOK(t, c, "play_media_favorite", map[string]any{"device": "Living Room", "favorite": "Example Radio"}, &m)
	living.calledExactly(t, "AVTransport", "SetAVTransportURI", playStation)
	if got := strings.Join(living.writes(), ","); got != "SetAVTransportURI,Play" {
		t.Fatalf("the living room was sent %s", got)
	}
	if m.Transport != devices.TransportPlaying || m.Playing != "Example Radio" {
		t.Fatalf("answer %+v", m)
	}

	living.forget()
	var g struct {
		Applied []string `json:"applied"`
		Failed  []any    `json:"failed"`
	}
	apitest.ToolOK(t, c, "group_speakers", map[string]any{"speaker": "Living Room", "members": []string{"Kitchen"}}, &g)
	if len(g.Applied) != 1 || g.Applied[0] != "Kitchen" || len(g.Failed) != 0 {
		t.Fatalf("group %+v", g)
	}
	kitchen.calledExactly(t, "AVTransport", "SetAVTransportURI", joinLiv)
	if got := strings.Join(kitchen.writes(), ","); got != "SetAVTransportURI" {
		t.Fatalf("the kitchen was sent %s", got)
	}
	if w := living.writes(); len(w) != 0 {
		t.Fatalf("the coordinator was sent %v", w)
	}
	var k mcpMedia
	apitest.ToolOK(t, c, "get_media_state", map[string]any{"device": "Kitchen"}, &k)
	if k.Following != string(livingID) || k.Playing != "Example Radio" {
		t.Fatalf("the kitchen after grouping: %+v", k)
	}
}

func TestMCPReportsAStalledPlayerUnreachable(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	c := newSurface(t, r, livingID, kitchenID).MCP(t)
	var k mcpMedia
	apitest.ToolOK(t, c, "get_media_state", map[string]any{"device": "Kitchen"}, &k)
	kitchen.stall()
	start := time.Now()
	res := apitest.Tool(t, c, "set_media", map[string]any{"device": "Kitchen", "volume": 10})
	d := time.Since(start)
	if d > reportedWithin {
		t.Fatalf("answered after %v; the device timeout is %v", d, deviceTimeout)
	}
	if !res.IsError || !saysSilent(apitest.ToolText(res), "Kitchen", "SetVolume") {
		t.Fatalf("isError %v, text %q", res.IsError, apitest.ToolText(res))
	}
	t.Logf("tool error after %v: %s", d, apitest.ToolText(res))
	living.forget()
	var m mcpMedia
	apitest.ToolOK(t, c, "set_media", map[string]any{"device": "Living Room", "volume": 12}, &m)
	living.calledExactly(t, "RenderingControl", "SetVolume", setVolume("12"))
	if m.Offline || m.Volume == nil || *m.Volume != 12 {
		t.Fatalf("the other player: %+v", m)
	}
}

// saysSilent reports whether msg is what people read when name left cmd
// unanswered: the adapter's words, or the worker's when its deadline
// passed first.
func saysSilent(msg, name, cmd string) bool {
	return msg == name+" is unreachable: did not answer "+cmd || msg == name+" is unreachable: device did not answer in time"
}
