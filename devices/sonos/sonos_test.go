package sonos_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos"
	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

const (
	livingUUID  = "RINCON_000E58AAAAAA01400"
	kitchenUUID = "RINCON_000E58BBBBBB01400"
	bridgeUUID  = "RINCON_000E58DDDDDD01400"
	livingID    = devices.ID("sonos:" + livingUUID)
	kitchenID   = devices.ID("sonos:" + kitchenUUID)
)

func ptr[T any](v T) *T { return &v }

// home is a household of two players (a Five with line-in and a Beam with
// a TV input) and an invisible bridge.
func home(t *testing.T) (*household, *player, *player) {
	hh := newHousehold(t)
	living := hh.add(livingUUID, "Living Room", "Sonos Five", "AudioIn")
	kitchen := hh.add(kitchenUUID, "Kitchen", "Sonos Beam", "HTControl")
	bridge := hh.add(bridgeUUID, "BOOST", "Sonos Boost")
	hh.mu.Lock() // its server already answers
	bridge.hidden = true
	hh.mu.Unlock()
	return hh, living, kitchen
}

type rig struct {
	reg     *devices.Registry
	adapter *sonos.Adapter
	changes *changeLog
}

// deviceTimeout bounds one command to one player (the rig's registry).
const deviceTimeout = time.Second

// reportedWithin bounds how long a stalled player takes to be reported
// unreachable: the device timeout, the round trip through the hub, and
// room for a busy machine. It stays far below what a caller would wait
// without the timeout (the HTTP or TCP stall itself never ends).
const reportedWithin = deviceTimeout + 2*time.Second

func startRig(t *testing.T, cfg sonos.Config) *rig {
	t.Helper()
	reg := devices.NewRegistry(deviceTimeout)
	cfg.Registry = reg
	a := sonos.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	changes := watch(reg) // before the adapter adds anything
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; reg.Close() })
	return &rig{reg: reg, adapter: a, changes: changes}
}

func (r *rig) speaker(t *testing.T, id devices.ID) *sonos.Speaker {
	t.Helper()
	var d devices.Device
	eventually(t, 10*time.Second, string(id), func() bool {
		var ok bool
		d, ok = r.reg.Get(id)
		return ok && d.Online()
	})
	return d.(*sonos.Speaker)
}

// do runs fn on the device's worker, as the service does.
func (r *rig) do(id devices.ID, fn func(ctx context.Context) error) error {
	return r.reg.Do(context.Background(), id, "", fn)
}

func (r *rig) set(id devices.ID, c devices.MediaChange) error {
	d, _ := r.reg.Get(id)
	return r.do(id, func(ctx context.Context) error {
		_, err := d.(devices.MediaPlayer).SetMedia(ctx, c)
		return err
	})
}

type changeLog struct {
	mu  sync.Mutex
	ids map[devices.ID]int
}

func watch(reg *devices.Registry) *changeLog {
	c := &changeLog{ids: map[devices.ID]int{}}
	reg.Subscribe(func(ch devices.Change) {
		c.mu.Lock()
		c.ids[ch.ID]++
		c.mu.Unlock()
	})
	return c
}

func (c *changeLog) count(id devices.ID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

func state(t *testing.T, s *sonos.Speaker) devices.MediaState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := s.MediaState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v; want one wrapping %v", err, target)
	}
}

func TestOnePlayerFindsItsHousehold(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	k := r.speaker(t, kitchenID)
	if _, ok := r.reg.Get("sonos:" + bridgeUUID); ok {
		t.Error("the invisible bridge was registered")
	}
	info := k.Info()
	if info.Name != "Kitchen" || info.Model != "Sonos Beam" || info.Room != "Kitchen" || info.Adapter != "sonos" || info.Kind != devices.KindMedia {
		t.Errorf("info %+v", info)
	}
	if got := strings.Join(state(t, l).Sources, ","); got != "Queue,Line-In" {
		t.Errorf("living room sources %s", got)
	}
	if got := strings.Join(state(t, k).Sources, ","); got != "Queue,TV" {
		t.Errorf("kitchen sources %s", got)
	}
}

func TestCommandsSendExactEnvelopes(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	if err := r.set(livingID, devices.MediaChange{Volume: ptr(25), Mute: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if !living.called("RenderingControl", "SetVolume", "<InstanceID>0</InstanceID><Channel>Master</Channel><DesiredVolume>25</DesiredVolume>") ||
		!living.called("RenderingControl", "SetMute", "<InstanceID>0</InstanceID><Channel>Master</Channel><DesiredMute>1</DesiredMute>") {
		t.Fatalf("calls %v", living.actions())
	}
	if err := r.set(livingID, devices.MediaChange{Source: ptr("line-in")}); err != nil {
		t.Fatal(err)
	}
	if !living.called("AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>x-rincon-stream:"+livingUUID+"</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>") ||
		!living.called("AVTransport", "Play", "<InstanceID>0</InstanceID><Speed>1</Speed>") {
		t.Fatalf("line-in: calls %v", living.actions())
	}
	st := state(t, l)
	if st.Source != "Line-In" || st.Transport != devices.TransportPlaying || !st.Power || st.Volume != 25 || !st.Muted {
		t.Fatalf("state %+v", st)
	}
	if err := r.set(livingID, devices.MediaChange{Power: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if !living.called("AVTransport", "Pause", "<InstanceID>0</InstanceID>") || state(t, l).Power {
		t.Fatalf("power off is pause: %v", living.actions())
	}
	err := r.set(livingID, devices.MediaChange{Transport: ptr("next")})
	wantErr(t, err, devices.ErrUnsupported) // line-in has no tracks
	err = r.set(livingID, devices.MediaChange{Source: ptr("Laserdisc")})
	wantErr(t, err, devices.ErrInvalid)
}

func TestFavouritesPlayAsSonosRequires(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	favs, err := l.Favorites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []devices.Favorite{
		{ID: "FV:2/3", Title: "Example Radio", Kind: "radio", Subtitle: "TuneIn Station"},
		{ID: "FV:2/20", Title: "Kind of Blue", Kind: "album", Subtitle: "Apple Music Album"},
	}
	if len(favs) != 2 || favs[0] != want[0] || favs[1] != want[1] {
		t.Fatalf("favourites %+v", favs)
	}
	if !living.called("ContentDirectory", "Browse", "<ObjectID>FV:2</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter><StartingIndex>0</StartingIndex><RequestedCount>100</RequestedCount><SortCriteria></SortCriteria>") {
		t.Fatal("Browse envelope")
	}
	// A station: its URI and metadata as the transport URI, then Play.
	living.forget()
	if err := r.do(livingID, func(ctx context.Context) error { return l.PlayFavorite(ctx, "FV:2/3") }); err != nil {
		t.Fatal(err)
	}
	radioArgs := "<InstanceID>0</InstanceID><CurrentURI>x-sonosapi-stream:s24940?sid=254&amp;flags=8224&amp;sn=0</CurrentURI><CurrentURIMetaData>&lt;DIDL-Lite xmlns:dc=&quot;http://purl.org/dc/elements/1.1/&quot; xmlns:upnp=&quot;urn:schemas-upnp-org:metadata-1-0/upnp/&quot; xmlns:r=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot; xmlns=&quot;urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/&quot;&gt;&lt;item id=&quot;R:0/0/0&quot; parentID=&quot;R:0/0&quot; restricted=&quot;true&quot;&gt;&lt;dc:title&gt;Example Radio&lt;/dc:title&gt;&lt;upnp:class&gt;object.item.audioItem.audioBroadcast&lt;/upnp:class&gt;&lt;desc id=&quot;cdudn&quot; nameSpace=&quot;urn:schemas-rinconnetworks-com:metadata-1-0/&quot;&gt;SA_RINCON65031_&lt;/desc&gt;&lt;/item&gt;&lt;/DIDL-Lite&gt;</CurrentURIMetaData>"
	if !living.called("AVTransport", "SetAVTransportURI", radioArgs) {
		t.Fatalf("radio favourite: calls %v", living.actions())
	}
	if got := strings.Join(living.actions(), ","); got != "Browse,SetAVTransportURI,Play" {
		t.Errorf("radio favourite: %s", got)
	}
	st := state(t, l)
	if st.Source != "Radio" || st.NowPlaying == nil || st.NowPlaying.Title != "Example Radio" || st.Transport != devices.TransportPlaying {
		t.Fatalf("after the station: %+v %+v", st, st.NowPlaying)
	}
	// An album: through the queue.
	living.forget()
	if err := r.do(livingID, func(ctx context.Context) error { return l.PlayFavorite(ctx, "FV:2/20") }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(living.actions(), ","); got != "Browse,RemoveAllTracksFromQueue,AddURIToQueue,SetAVTransportURI,Seek,Play" {
		t.Fatalf("album favourite: %s", got)
	}
	if !living.called("AVTransport", "AddURIToQueue", "<InstanceID>0</InstanceID><EnqueuedURI>x-rincon-cpcontainer:1004206calbum%3a1499378108?sid=204&amp;flags=8300&amp;sn=2</EnqueuedURI><EnqueuedURIMetaData>"+upnp.Escape(albumMeta)+"</EnqueuedURIMetaData><DesiredFirstTrackNumberEnqueued>0</DesiredFirstTrackNumberEnqueued><EnqueueAsNext>0</EnqueueAsNext>") ||
		!living.called("AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>x-rincon-queue:"+livingUUID+"#0</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>") ||
		!living.called("AVTransport", "Seek", "<InstanceID>0</InstanceID><Unit>TRACK_NR</Unit><Target>1</Target>") {
		t.Fatal("album favourite envelopes")
	}
	err = r.do(livingID, func(ctx context.Context) error { return l.PlayFavorite(ctx, "FV:2/99") })
	wantErr(t, err, devices.ErrInvalid)
}

func TestGrouping(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	k := r.speaker(t, kitchenID)
	if err := r.do(kitchenID, func(ctx context.Context) error { return k.JoinGroup(ctx, livingID) }); err != nil {
		t.Fatal(err)
	}
	if !kitchen.called("AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>x-rincon:"+livingUUID+"</CurrentURI><CurrentURIMetaData></CurrentURIMetaData>") {
		t.Fatalf("join: %v", kitchen.actions())
	}
	if st := state(t, k); st.GroupCoordinator != livingID {
		t.Fatalf("kitchen follows %q", st.GroupCoordinator)
	}
	// Transport on a follower goes to its coordinator.
	living.set(func(p *player) { p.uri = upnp.QueueURI(livingUUID) })
	if err := r.set(kitchenID, devices.MediaChange{Power: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if !living.called("AVTransport", "Play", "<InstanceID>0</InstanceID><Speed>1</Speed>") {
		t.Fatal("play on a follower did not reach the coordinator")
	}
	if st := state(t, k); st.Transport != devices.TransportPlaying {
		t.Errorf("follower shows %+v", st)
	}
	if err := r.do(livingID, func(ctx context.Context) error { return l.JoinGroup(ctx, kitchenID) }); !errors.Is(err, devices.ErrInvalid) {
		t.Errorf("a coordinator joining its own follower: %v", err)
	}
	if err := r.do(kitchenID, func(ctx context.Context) error { return k.LeaveGroup(ctx) }); err != nil {
		t.Fatal(err)
	}
	if !kitchen.called("AVTransport", "BecomeCoordinatorOfStandaloneGroup", "<InstanceID>0</InstanceID>") || state(t, k).GroupCoordinator != "" {
		t.Fatal("leave")
	}
	err := r.do(kitchenID, func(ctx context.Context) error { return k.JoinGroup(ctx, "sonos:RINCON_UNKNOWN") })
	wantErr(t, err, devices.ErrInvalid)
}

func TestCast(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	err := r.do(livingID, func(ctx context.Context) error { return l.Cast(ctx, "https://radio.example/stream.mp3", "music") })
	if err != nil {
		t.Fatal(err)
	}
	meta := upnp.Escape(upnp.Metadata("stream.mp3", upnp.ClassTrack))
	if !living.called("AVTransport", "SetAVTransportURI", "<InstanceID>0</InstanceID><CurrentURI>https://radio.example/stream.mp3</CurrentURI><CurrentURIMetaData>"+meta+"</CurrentURIMetaData>") {
		t.Fatalf("cast: %v", living.actions())
	}
	err = r.do(livingID, func(ctx context.Context) error { return l.Cast(ctx, "https://example.com/film.mp4", "video") })
	wantErr(t, err, devices.ErrUnsupported)
}

func TestEventsKeepStateAndSubscriptionsAreRenewed(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{
		Hosts: []string{living.host()}, EventAddr: "127.0.0.1:0",
		// Long enough that a busy machine renews in time; the renewal
		// itself comes at half of it, within the wait below.
		SubscriptionTimeout: 6 * time.Second, PollInterval: time.Hour,
	})
	l := r.speaker(t, livingID)
	r.speaker(t, kitchenID)
	eventually(t, 10*time.Second, "three subscriptions", func() bool { return len(living.subscriptions()) >= 3 })
	sub := living.subscriptions()[0]
	if !strings.HasPrefix(sub.Callback, "<http://127.0.0.1:") || sub.Timeout != "Second-6" {
		t.Fatalf("subscription %+v", sub)
	}
	living.forget()
	before := r.changes.count(livingID)
	track := `<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/"><item id="-1" parentID="-1" restricted="true"><dc:title>So What</dc:title><dc:creator>Miles Davis</dc:creator><upnp:album>Kind of Blue</upnp:album><upnp:class>object.item.audioItem.musicTrack</upnp:class></item></DIDL-Lite>`
	avt := `<Event xmlns="urn:schemas-upnp-org:metadata-1-0/AVT/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/"><InstanceID val="0"><TransportState val="PLAYING"/><CurrentPlayMode val="NORMAL"/><NumberOfTracks val="9"/><CurrentTrack val="1"/>` +
		`<AVTransportURI val="x-rincon-queue:` + livingUUID + `#0"/><CurrentTrackMetaData val="` + esc.Replace(track) + `"/></InstanceID></Event>`
	living.notify(t, "AVTransport", map[string]string{"LastChange": avt})
	rc := `<Event xmlns="urn:schemas-upnp-org:metadata-1-0/RCS/"><InstanceID val="0"><Volume channel="Master" val="33"/><Volume channel="LF" val="100"/><Mute channel="Master" val="0"/></InstanceID></Event>`
	living.notify(t, "RenderingControl", map[string]string{"LastChange": rc})
	st := state(t, l)
	want := devices.NowPlaying{Title: "So What", Artist: "Miles Davis", Album: "Kind of Blue"}
	if st.Transport != devices.TransportPlaying || st.Volume != 33 || st.Source != "Queue" || st.NowPlaying == nil || *st.NowPlaying != want {
		t.Fatalf("state from events %+v", st)
	}
	if r.changes.count(livingID) <= before {
		t.Error("events were not reported to the registry")
	}
	// Players do not send the position in events: a track or transport
	// change reads it, and nothing else.
	eventually(t, 5*time.Second, "the position read after the event", func() bool { return len(living.actions()) > 0 })
	if acts := living.actions(); len(acts) != 1 || acts[0] != "GetPositionInfo" {
		t.Errorf("with events flowing the state was polled: %v", acts)
	}
	// The topology event groups the kitchen with the living room.
	kitchen.set(func(p *player) { p.leader = livingUUID })
	var zgs string
	living.set(func(p *player) { zgs = p.hh.zoneGroupStateLocked() })
	living.notify(t, "ZoneGroupTopology", map[string]string{"ZoneGroupState": zgs})
	k := r.speaker(t, kitchenID)
	if st := state(t, k); st.GroupCoordinator != livingID || st.Transport != devices.TransportPlaying || st.NowPlaying == nil {
		t.Fatalf("kitchen after the topology event %+v", st)
	}
	eventually(t, 15*time.Second, "a renewal", func() bool {
		for _, s := range living.subscriptions() {
			if s.Method == "SUBSCRIBE" && s.SID != "" && s.Callback == "" {
				return true
			}
		}
		return false
	})
}

func TestSilentPlayerIsPolled(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}, EventAddr: "127.0.0.1:0", PollInterval: 100 * time.Millisecond})
	l := r.speaker(t, livingID)
	eventually(t, 10*time.Second, "subscriptions", func() bool { return len(living.subscriptions()) >= 3 })
	// The player changes but its events never arrive: the slow poll
	// finds out and tells the registry.
	before := r.changes.count(livingID)
	living.set(func(p *player) { p.volume = 61 })
	eventually(t, 10*time.Second, "the polled volume", func() bool { return r.changes.count(livingID) > before && state(t, l).Volume == 61 })
}

func TestStalledPlayerIsUnreachableAndComesBack(t *testing.T) {
	_, living, kitchen := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}, PollInterval: 100 * time.Millisecond})
	l := r.speaker(t, livingID)
	r.speaker(t, kitchenID)
	kitchen.stall()
	start := time.Now()
	err := r.set(kitchenID, devices.MediaChange{Volume: ptr(10)})
	wantErr(t, err, devices.ErrUnreachable)
	if d := time.Since(start); d > reportedWithin {
		t.Fatalf("unreachable after %v; the timeout is %v", d, deviceTimeout)
	}
	if err := r.set(livingID, devices.MediaChange{Volume: ptr(11)}); err != nil {
		t.Fatalf("the other player: %v", err)
	}
	k, _ := r.reg.Get(kitchenID)
	eventually(t, 10*time.Second, "offline", func() bool { return !k.Online() })
	_, err = k.(devices.MediaPlayer).MediaState(context.Background())
	wantErr(t, err, devices.ErrUnreachable)
	kitchen.release()
	r.speaker(t, kitchenID)
	if st := state(t, l); st.Volume != 11 {
		t.Errorf("living room %+v", st)
	}
}

func TestScanAndAdd(t *testing.T) {
	_, living, _ := home(t)
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 1024)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo([]byte("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age = 1800\r\nEXT:\r\nLOCATION: "+living.srv.URL+"/xml/device_description.xml\r\nSERVER: Linux UPnP/1.0 Sonos/79.1-56030 (ZPS6)\r\nST: urn:schemas-upnp-org:device:ZonePlayer:1\r\nUSN: uuid:"+livingUUID+"::urn:schemas-upnp-org:device:ZonePlayer:1\r\n\r\n"), from)
		}
	}()
	r := startRig(t, sonos.Config{ScanTargets: []string{pc.LocalAddr().String()}, ScanTime: time.Second})
	eventually(t, 10*time.Second, "the adapter to run", func() bool {
		_, err := r.adapter.Scan(context.Background())
		return err == nil
	})
	r.speaker(t, livingID)
	r.speaker(t, kitchenID)

	r2 := startRig(t, sonos.Config{})
	var ids []devices.ID
	eventually(t, 10*time.Second, "the adapter to run", func() bool {
		ids, err = r2.adapter.Add(context.Background(), living.host())
		return err == nil
	})
	if len(ids) != 2 {
		t.Fatalf("added %v", ids)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = r2.adapter.Add(ctx, "127.0.0.1:1")
	wantErr(t, err, devices.ErrUnreachable)
}
