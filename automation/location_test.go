package automation_test

import (
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

// A hub placed in Settings (SetLocation), not by the configuration, takes
// sun rules from then on and times them from where it is.
func TestLocationFromSettings(t *testing.T) {
	h := newHouse(t)
	day := time.Date(2026, 6, 21, 12, 0, 0, 0, zone)
	h.clock.Set(day)
	eng := h.start()
	dusk := automation.Rule{
		Name: "Dusk", Enabled: true,
		Trigger: automation.Trigger{Type: automation.TriggerSun, Event: automation.Sunset},
		Actions: []automation.Action{{Type: automation.ActPower, Device: "Porch Switch", State: state(`{"on": true}`)}},
	}
	if _, err := eng.Create(h.ctx, dusk); service.ErrorCode(err) != service.EINVALID {
		t.Fatalf("a sun rule without a location: %v; want it refused", err)
	}
	lat, lon := berlinLat, berlinLon
	eng.SetLocation(&lat, &lon)
	r := h.create(dusk)
	_, set, _ := automation.SunTimes(day, berlinLat, berlinLon)
	h.at(set.Add(-time.Second))
	h.stillKinds(r.ID)
	h.at(set.Add(time.Second))
	h.waitKinds(r.ID, automation.Fired)
}
