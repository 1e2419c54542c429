package neewerlite_test

import (
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/neewerlite"
	"github.com/bifrost-hub/bifrost/service"
)

func TestTargetsAreConnectedLights(t *testing.T) {
	key := light("neewer:F1:2B:3C:4D:5E:6F", "Key Light", "Neewer RGB660 PRO", devices.LightCaps{Color: true}, &devices.LightState{On: true})
	key.Adapter = "neewer"
	hall := light("hass:light.hall", "Hall", "", devices.LightCaps{KelvinMin: 2700, KelvinMax: 6500}, &devices.LightState{})
	gone := light("sim:gone", "Gone", "", devices.LightCaps{}, nil)
	gone.Online = false
	merged := light("sim:merged", "Merged", "", devices.LightCaps{}, &devices.LightState{})
	merged.CompanionOf = "sim:other"
	all := []service.Light{key, hall, gone, merged}

	for _, c := range []struct {
		entries []string
		want    string
	}{
		{[]string{"ALL"}, "Key Light,Hall"},
		{[]string{"gone", "all"}, "Key Light,Hall"},
		{[]string{"gone", "hall", "merged"}, "Hall"},
		{[]string{"nobody"}, ""},
	} {
		if got := strings.Join(neewerlite.Names(neewerlite.Targets(all, c.entries)), ","); got != c.want {
			t.Errorf("Targets(%q) = %q; want %q", c.entries, got, c.want)
		}
	}
	if l, ok := neewerlite.Find(all, "GONE"); !ok || l.Name != "Gone" {
		t.Errorf("Find(GONE) = %s, %v; want the light though it is not connected", l.Name, ok)
	}
	if _, ok := neewerlite.Find(all, "Merged"); ok {
		t.Error("Find found a light merged into another")
	}
	if got := neewerlite.MAC(key); got != "F1:2B:3C:4D:5E:6F" {
		t.Errorf("MAC(key) = %q", got)
	}
	if got := neewerlite.MAC(hall); got != "" {
		t.Errorf("MAC(hall) = %q; want none for a light of another adapter", got)
	}
	if neewerlite.Model(hall) != "light" || neewerlite.Model(key) != "Neewer RGB660 PRO" {
		t.Errorf("Model: %q, %q", neewerlite.Model(hall), neewerlite.Model(key))
	}
	if !neewerlite.TakesSources(hall) || neewerlite.TakesGels(hall) || !neewerlite.TakesGels(key) || neewerlite.TakesSources(gone) {
		t.Error("sources go to lights with a temperature or a colour, gels to colour lights")
	}
}
