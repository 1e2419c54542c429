package hass_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass"
	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// bigHouse is n entities over 50 areas: lights, switches, sensors and
// covers, a quarter each.
func bigHouse(n int) ([]hasstest.State, []map[string]any, []map[string]any) {
	var states []hasstest.State
	var areas, ents []map[string]any
	for a := range 50 {
		areas = append(areas, map[string]any{"area_id": fmt.Sprintf("area_%d", a), "name": fmt.Sprintf("Room %d", a)})
	}
	for i := range n {
		var st hasstest.State
		switch i % 4 {
		case 0:
			st = hasstest.State{EntityID: fmt.Sprintf("light.l%d", i), State: "on", Attributes: map[string]any{
				"friendly_name": fmt.Sprintf("Light %d", i), "supported_color_modes": []string{"color_temp", "xy"},
				"color_mode": "color_temp", "brightness": 200, "color_temp_kelvin": 3000,
				"min_color_temp_kelvin": 2000, "max_color_temp_kelvin": 6500}}
		case 1:
			st = hasstest.State{EntityID: fmt.Sprintf("switch.s%d", i), State: "off", Attributes: map[string]any{"friendly_name": fmt.Sprintf("Switch %d", i)}}
		case 2:
			st = hasstest.State{EntityID: fmt.Sprintf("sensor.t%d", i), State: "21.5", Attributes: map[string]any{
				"friendly_name": fmt.Sprintf("Temperature %d", i), "device_class": "temperature", "unit_of_measurement": "°C"}}
		default:
			st = hasstest.State{EntityID: fmt.Sprintf("cover.c%d", i), State: "closed", Attributes: map[string]any{"friendly_name": fmt.Sprintf("Cover %d", i)}}
		}
		states = append(states, st)
		ents = append(ents, map[string]any{"entity_id": st.EntityID, "area_id": fmt.Sprintf("area_%d", i%50), "platform": "demo"})
	}
	return states, areas, ents
}

// BenchmarkStartupSync1000 is a hub's start-up over an HA house of 1,000
// entities: from the bridge's Run to every entity recorded in the hub's
// SQLite inventory (with its room, 50 rooms made from the areas) and
// listed online, on a fresh database.
func BenchmarkStartupSync1000(b *testing.B) {
	states, areas, ents := bigHouse(1000)
	srv := hasstest.New(haToken)
	defer srv.Close()
	srv.SetStates(states...)
	srv.SetRegistries(areas, nil, ents)
	ctx := service.WithPrincipal(context.Background(), service.System)
	for b.Loop() {
		b.StopTimer()
		reg := devices.NewRegistry(0)
		svc := servicetest.New(b, reg, 0)
		ad, err := hass.NewAdapter(reg, hass.AdapterConfig{URL: srv.URL(), Token: haToken})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		done := make(chan error, 1)
		go func() { done <- ad.Run(context.Background()) }()
		for {
			ds, err := svc.ListDevices(ctx)
			if err != nil {
				b.Fatal(err)
			}
			online := 0
			for _, d := range ds {
				if d.Online {
					online++
				}
			}
			if online == 1000 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		ad.Close()
		<-done
		reg.Close()
		b.StartTimer()
	}
}

// BenchmarkStateChangeToEvent is an HA state change (a motion sensor
// turning on and off) to the hub's /api/v1/events stream, on loopback.
func BenchmarkStateChangeToEvent(b *testing.B) {
	h := startHA(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	on := false
	for b.Loop() {
		on = !on
		state, want := "off", `"bool":false`
		if on {
			state, want = "on", `"bool":true`
		}
		h.srv.SetState(hasstest.State{EntityID: "binary_sensor.hall_motion", State: state,
			Attributes: map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}})
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasPrefix(line, "data: ") && strings.Contains(line, "hass:binary_sensor.hall_motion") && strings.Contains(line, want) {
				break
			}
		}
	}
}
