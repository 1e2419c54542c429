package session_test

import (
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// TestTheWebUIGetsTheWholeOfALargeHouse: the web UI draws every device,
// so its snapshot is never a summary, whatever the size of the house; the
// filters still narrow it.
func TestTheWebUIGetsTheWholeOfALargeHouse(t *testing.T) {
	large := servicetest.LargeHouse(t, 200, 200)
	// The admin is set up in the demo hub's store; the house served is the large one.
	h := newHub(t, func(c *api.Config) { c.Service = large.Service })
	b := h.Login(t, "admin", sessiontest.Password)
	var home service.Home
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/home", Session: b}).Decode(t, &home)
	if len(home.Lights) != 200 || len(home.Power) != 200 || len(home.Rooms) != 4 {
		t.Fatalf("/api/home: %d lights, %d power, %d rooms", len(home.Lights), len(home.Power), len(home.Rooms))
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/home?room=attic&kind=light", Session: b}).Decode(t, &home)
	if len(home.Lights) != 50 || len(home.Power) != 0 {
		t.Fatalf("/api/home?room=attic&kind=light: %d lights, %d power", len(home.Lights), len(home.Power))
	}
	h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "GET", Path: "/api/home?kind=lamp", Session: b})
}
