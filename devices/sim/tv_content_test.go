package sim_test

import (
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestTVSearch(t *testing.T) {
	tv := homeTV(t)
	var cs devices.ContentSearcher = tv
	found, err := cs.Search(bg, "play the expanse")
	mustOK(t, err)
	if len(found) != 1 || found[0].Title != "The Expanse" || found[0].App != "com.plexapp.android" {
		t.Fatalf("found %+v", found)
	}
	found, err = cs.Search(bg, "THE")
	mustOK(t, err)
	if len(found) < 4 {
		t.Errorf("\"THE\" found %d titles", len(found))
	}
	found, err = cs.Search(bg, "nothing like this")
	mustOK(t, err)
	if len(found) != 0 {
		t.Errorf("found %+v", found)
	}
	_, err = cs.Search(bg, "  ")
	wantErr(t, err, devices.ErrInvalid)
}

func TestTVPlayContent(t *testing.T) {
	tv := homeTV(t)
	found, err := tv.Search(bg, "Stranger Things")
	mustOK(t, err)
	mustOK(t, tv.PlayContent(bg, found[0]))
	st := mediaState(t, tv)
	if !st.Power || st.Source != "Netflix" || st.Transport != devices.TransportPlaying || st.NowPlaying.Title != "Stranger Things" {
		t.Errorf("after PlayContent: %+v %+v", st, st.NowPlaying)
	}
	mustOK(t, tv.PlayContent(bg, devices.Content{ID: "https://youtu.be/abc"}))
	if st := mediaState(t, tv); st.Source != "YouTube" || st.NowPlaying.Title != "https://youtu.be/abc" {
		t.Errorf("a YouTube link: %+v", st)
	}
	mustOK(t, tv.PlayContent(bg, devices.Content{ID: "show-42", Title: "Andor", App: "com.disney.disneyplus"}))
	if st := mediaState(t, tv); st.Source != "Disney+" {
		t.Errorf("by app: %+v", st)
	}
	wantErr(t, tv.PlayContent(bg, devices.Content{ID: "x", App: "com.example"}), devices.ErrInvalid)
}
