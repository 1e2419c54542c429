package hass

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

var jpeg = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")

func TestMediaPictureAndPosition(t *testing.T) {
	b := started(t)
	const id = "media_player.living_room"
	picture := b.srv.SetPicture(id, "image/jpeg", jpeg)
	st, _ := b.srv.State(id)
	attrs := map[string]any{}
	for k, v := range st.Attributes {
		attrs[k] = v
	}
	attrs["entity_picture"] = picture
	attrs["media_position"] = 83.4
	attrs["media_duration"] = 225
	attrs["media_position_updated_at"] = "2025-05-01T12:00:00.123456+00:00"
	b.srv.SetState(hasstest.State{EntityID: id, State: "playing", Attributes: attrs})

	lr := get[castingGroupingMedia](t, b, id)
	var np *devices.NowPlaying
	b.until(t, "the picture and position", func() bool {
		ms, _ := lr.MediaState(tctx(t))
		np = ms.NowPlaying
		return np != nil && np.ArtworkURL != "" && np.Progress != nil
	})
	if np.ArtworkURL != picture || !strings.HasPrefix(picture, "/api/media_player_proxy/"+id+"?token=") {
		t.Fatalf("artwork %q; want HA's proxy path %q", np.ArtworkURL, picture)
	}
	at := time.Date(2025, 5, 1, 12, 0, 0, 123456000, time.UTC)
	if p := np.Progress; p.Position != 83400*time.Millisecond || p.Duration != 225*time.Second || !p.At.Equal(at) {
		t.Fatalf("progress %+v; want 83.4 s of 225 s at %v", p, at)
	}

	// The picture is fetched from HA with the bridge's token (not the
	// entity's own token, which the URL carries too: the fake takes
	// either; a path without it proves the bearer).
	img, ct, err := lr.FetchArtwork(tctx(t), "/api/media_player_proxy/"+id, 1<<20)
	if err != nil || ct != "image/jpeg" || !bytes.Equal(img, jpeg) {
		t.Fatalf("fetching the picture: %d bytes of %q, %v", len(img), ct, err)
	}
	if _, _, err := lr.FetchArtwork(tctx(t), picture, 4); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("a picture over the limit: %v; want ErrInvalid", err)
	}
	if n := b.srv.PictureFetches(id); n != 2 {
		t.Fatalf("HA served the picture %d times; want 2", n)
	}
	if _, _, err := lr.FetchArtwork(tctx(t), "/api/media_player_proxy/media_player.kitchen", 1<<20); !errors.Is(err, devices.ErrUnreachable) || strings.Contains(err.Error(), "token") {
		t.Fatalf("an entity without a picture: %v; want an unreachable error without the token", err)
	}

	// A live stream has a position and no duration; no position, no
	// progress.
	delete(attrs, "media_duration")
	b.srv.SetState(hasstest.State{EntityID: id, State: "playing", Attributes: attrs})
	b.until(t, "no duration", func() bool {
		ms, _ := lr.MediaState(tctx(t))
		return ms.NowPlaying != nil && ms.NowPlaying.Progress != nil && ms.NowPlaying.Progress.Duration == 0
	})
	delete(attrs, "media_position")
	b.srv.SetState(hasstest.State{EntityID: id, State: "playing", Attributes: attrs})
	b.until(t, "no position", func() bool {
		ms, _ := lr.MediaState(tctx(t))
		return ms.NowPlaying != nil && ms.NowPlaying.Progress == nil
	})
}

func TestThePictureProxyRefusesStrangers(t *testing.T) {
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	srv.SetPicture("media_player.x", "image/jpeg", jpeg)
	art := devices.HTTPArtwork{}
	if _, _, err := art.FetchArtwork(tctx(t), srv.URL()+"/api/media_player_proxy/media_player.x", 1<<20); !errors.Is(err, devices.ErrRefused) {
		t.Fatalf("without a token: %v; want a refusal", err)
	}
	if srv.PictureFetches("media_player.x") != 0 {
		t.Fatal("the picture was served without a token")
	}
}
