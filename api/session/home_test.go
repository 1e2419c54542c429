package session_test

import (
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/api"
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
	b := h.login(t, "admin", password)
	var home service.Home
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/home", session: b}).decode(t, &home)
	if len(home.Lights) != 200 || len(home.Power) != 200 || len(home.Rooms) != 4 {
		t.Fatalf("/api/home: %d lights, %d power, %d rooms", len(home.Lights), len(home.Power), len(home.Rooms))
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/home?room=attic&kind=light", session: b}).decode(t, &home)
	if len(home.Lights) != 50 || len(home.Power) != 0 {
		t.Fatalf("/api/home?room=attic&kind=light: %d lights, %d power", len(home.Lights), len(home.Power))
	}
	h.must(t, http.StatusUnprocessableEntity, req{method: "GET", path: "/api/home?kind=lamp", session: b})
}
