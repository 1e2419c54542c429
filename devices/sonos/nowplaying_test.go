package sonos_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sonos"
)

// trackDIDL is a track's metadata as a player gives it, with its art at
// art (XML-escaped inside the DIDL-Lite, as players write it).
func trackDIDL(title, art string) string {
	return `<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/">` +
		`<item id="-1" parentID="-1" restricted="true"><res protocolInfo="sonos.com-spotify:*:audio/x-spotify:*" duration="0:03:45">x-sonos-spotify:spotify%3atrack%3a4vLYewWIvqHfKtJDk8c8tq?sid=12&amp;flags=8224&amp;sn=1</res>` +
		`<r:streamContent></r:streamContent><upnp:albumArtURI>` + esc.Replace(art) + `</upnp:albumArtURI><dc:title>` + title + `</dc:title><upnp:class>object.item.audioItem.musicTrack</upnp:class>` +
		`<dc:creator>Miles Davis</dc:creator><upnp:album>Kind of Blue</upnp:album></item></DIDL-Lite>`
}

const relativeArt = "/getaa?s=1&u=x-sonos-spotify%3aspotify%253atrack%253a4vLYewWIvqHfKtJDk8c8tq%3fsid%3d12%26flags%3d8224%26sn%3d1"

// polledState waits until the polled state satisfies ok (the adapter
// serves a poll for a second before reading again).
func polledState(t *testing.T, s *sonos.Speaker, what string, ok func(devices.MediaState) bool) devices.MediaState {
	t.Helper()
	var st devices.MediaState
	eventually(t, 10*time.Second, what, func() bool {
		st = state(t, s)
		return ok(st)
	})
	return st
}

func TestPositionAndArtFromGetPositionInfo(t *testing.T) {
	_, living, _ := home(t)
	living.set(func(p *player) {
		p.uri, p.transport = "x-rincon-queue:"+livingUUID+"#0", "PLAYING"
		p.trackMeta, p.duration, p.relTime = trackDIDL("So What", relativeArt), "0:03:45", "0:01:23"
	})
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}})
	l := r.speaker(t, livingID)
	before := time.Now()
	st := polledState(t, l, "the track's position", func(st devices.MediaState) bool {
		return st.NowPlaying != nil && st.NowPlaying.Progress != nil
	})
	np := st.NowPlaying
	if np.Title != "So What" || np.Progress.Position != 83*time.Second || np.Progress.Duration != 225*time.Second {
		t.Fatalf("now playing %+v, progress %+v; want So What at 1:23 of 3:45", np, np.Progress)
	}
	if at := np.Progress.At; at.Before(before.Add(-time.Second)) || at.After(time.Now()) {
		t.Errorf("position read at %v; want the time of the read", at)
	}
	// The relative art is the player's own, at http://host:1400.
	if want := living.srv.URL + relativeArt; np.ArtworkURL != want {
		t.Fatalf("artwork %q; want %q", np.ArtworkURL, want)
	}
	img, ct, err := devices.HTTPArtwork{}.FetchArtwork(context.Background(), np.ArtworkURL, 1<<20)
	if err != nil || ct != "image/jpeg" || !bytes.Equal(img, coverArt("x-sonos-spotify:spotify%3atrack%3a4vLYewWIvqHfKtJDk8c8tq?sid=12&flags=8224&sn=1")) {
		t.Fatalf("fetching the player's art: %d bytes of %q, %v", len(img), ct, err)
	}

	// Art from a music service is an absolute URL, kept as it is.
	const abs = "https://i.scdn.co/image/ab67616d0000b2737ab89c25093ea3787b1995b4?size=large&format=jpg"
	living.set(func(p *player) { p.trackMeta, p.relTime = trackDIDL("Freddie Freeloader", abs), "0:00:07" })
	st = polledState(t, l, "the next track", func(st devices.MediaState) bool {
		return st.NowPlaying != nil && st.NowPlaying.Title == "Freddie Freeloader"
	})
	if st.NowPlaying.ArtworkURL != abs || st.NowPlaying.Progress.Position != 7*time.Second {
		t.Fatalf("artwork %q at %v; want %q at 7s", st.NowPlaying.ArtworkURL, st.NowPlaying.Progress.Position, abs)
	}

	// A radio stream has no duration: a position and no length, or no
	// position at all when the player gives none.
	living.set(func(p *player) {
		p.uri, p.uriMeta = radioURI, radioMeta
		p.trackMeta = `<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/"><item id="-1" parentID="-1" restricted="true"><res protocolInfo="x-rincon-mp3radio:*:*:*">x-rincon-mp3radio://stream.example.com/live</res><r:streamContent>TYPE=SNG|TITLE Blue in Green|ARTIST Miles Davis|ALBUM </r:streamContent><upnp:albumArtURI>/getaa?s=1&amp;u=x-sonosapi-stream%3as24940%3fsid%3d254%26flags%3d8224%26sn%3d0</upnp:albumArtURI><dc:title>x-sonosapi-stream:s24940?sid=254&amp;flags=8224&amp;sn=0</dc:title><upnp:class>object.item</upnp:class></item></DIDL-Lite>`
		p.duration, p.relTime = "NOT_IMPLEMENTED", "0:12:34"
	})
	st = polledState(t, l, "the station", func(st devices.MediaState) bool {
		return st.NowPlaying != nil && st.NowPlaying.Title == "Blue in Green"
	})
	if p := st.NowPlaying.Progress; p == nil || p.Position != 754*time.Second || p.Duration != 0 {
		t.Fatalf("radio progress %+v; want 12:34 and no duration", p)
	}
	if st.NowPlaying.ArtworkURL != living.srv.URL+"/getaa?s=1&u=x-sonosapi-stream%3as24940%3fsid%3d254%26flags%3d8224%26sn%3d0" {
		t.Fatalf("station art %q", st.NowPlaying.ArtworkURL)
	}
	living.set(func(p *player) { p.relTime = "NOT_IMPLEMENTED" })
	polledState(t, l, "no position", func(st devices.MediaState) bool {
		return st.NowPlaying != nil && st.NowPlaying.Progress == nil
	})

	// An input has neither art nor a position.
	living.set(func(p *player) { p.uri, p.relTime = "x-rincon-stream:"+livingUUID, "0:00:05" })
	st = polledState(t, l, "line-in", func(st devices.MediaState) bool { return st.Source == sonos.SourceLineIn })
	if st.NowPlaying == nil || st.NowPlaying.ArtworkURL != "" || st.NowPlaying.Progress != nil {
		t.Fatalf("line-in now playing %+v", st.NowPlaying)
	}
}

func TestPositionIsReadAfterATrackEvent(t *testing.T) {
	_, living, _ := home(t)
	r := startRig(t, sonos.Config{Hosts: []string{living.host()}, EventAddr: "127.0.0.1:0", PollInterval: time.Hour})
	l := r.speaker(t, livingID)
	eventually(t, 10*time.Second, "subscriptions", func() bool { return len(living.subscriptions()) >= 3 })
	living.set(func(p *player) {
		p.uri, p.transport = "x-rincon-queue:"+livingUUID+"#0", "PLAYING"
		p.trackMeta, p.duration, p.relTime = trackDIDL("So What", relativeArt), "0:03:45", "0:00:02"
	})
	living.forget()
	before := r.changes.count(livingID)
	avt := `<Event xmlns="urn:schemas-upnp-org:metadata-1-0/AVT/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/"><InstanceID val="0"><TransportState val="PLAYING"/><CurrentTrackDuration val="0:03:45"/>` +
		`<AVTransportURI val="x-rincon-queue:` + livingUUID + `#0"/><CurrentTrackMetaData val="` + esc.Replace(trackDIDL("So What", relativeArt)) + `"/></InstanceID></Event>`
	living.notify(t, "AVTransport", map[string]string{"LastChange": avt})
	eventually(t, 5*time.Second, "the position read after the event", func() bool {
		np := state(t, l).NowPlaying
		return np != nil && np.Progress != nil && np.Progress.Position == 2*time.Second
	})
	if np := state(t, l).NowPlaying; np.ArtworkURL != living.srv.URL+relativeArt || np.Progress.Duration != 225*time.Second {
		t.Fatalf("now playing from the event %+v, %+v", np, np.Progress)
	}
	if r.changes.count(livingID) <= before {
		t.Error("the event was not reported")
	}
	if acts := living.actions(); len(acts) != 1 || acts[0] != "GetPositionInfo" {
		t.Errorf("the event led to %v; want one GetPositionInfo", acts)
	}
}
