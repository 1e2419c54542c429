package hass_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass"
	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

// The hub as its clients meet it over a house in Home Assistant: the real
// service over SQLite, the bridge connected to a fake HA that answers as HA
// does, behind the real HTTP server, driven through /api/v1 and /mcp.

const haToken = "long-lived-token"

type haHub struct {
	*apitest.Hub
	srv *hasstest.Server
	ad  *hass.Adapter
}

func haHouse() []hasstest.State {
	return []hasstest.State{
		{EntityID: "light.kitchen", State: "off", Attributes: map[string]any{
			"friendly_name": "Kitchen Ceiling", "supported_color_modes": []string{"color_temp", "xy"},
			"min_color_temp_kelvin": 2202, "max_color_temp_kelvin": 6535, "effect_list": []string{"colorloop"}}},
		{EntityID: "switch.coffee", State: "off", Attributes: map[string]any{"friendly_name": "Coffee Machine", "device_class": "outlet"}},
		{EntityID: "media_player.living_room", State: "idle", Attributes: map[string]any{
			"friendly_name": "Living Room Sonos", "device_class": "speaker", "volume_level": 0.2, "is_volume_muted": false,
			"source_list": []string{"TV", "Line-in"}, "supported_features": 1 | 4 | 8 | 16 | 32 | 512 | 2048 | 4096 | 16384}},
		{EntityID: "fan.bedroom", State: "off", Attributes: map[string]any{"friendly_name": "Bedroom Fan", "percentage": 0,
			"percentage_step": 25, "supported_features": 1 | 16 | 32}},
		{EntityID: "binary_sensor.hall_motion", State: "off", Attributes: map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}},
		{EntityID: "sensor.hall_temperature", State: "70.7", Attributes: map[string]any{"friendly_name": "Hall Temperature",
			"device_class": "temperature", "unit_of_measurement": "°F"}},
		{EntityID: "cover.garage", State: "closed", Attributes: map[string]any{"friendly_name": "Garage Door"}},
		{EntityID: "remote.bedroom_tv", State: "on", Attributes: map[string]any{"friendly_name": "Bedroom TV",
			"activity_list": []string{"com.netflix.ninja"}, "current_activity": "com.netflix.ninja"}},
	}
}

func startHA(t testing.TB, opts ...apitest.Option) *haHub {
	t.Helper()
	srv := hasstest.New(haToken)
	t.Cleanup(srv.Close)
	srv.SetStates(haHouse()...)
	srv.SetRegistries([]map[string]any{{"area_id": "hall", "name": "Hall"}, {"area_id": "kitchen", "name": "Kitchen"}},
		nil,
		[]map[string]any{
			{"entity_id": "light.kitchen", "area_id": "kitchen", "platform": "hue"},
			{"entity_id": "binary_sensor.hall_motion", "area_id": "hall", "platform": "zha"},
			{"entity_id": "sensor.hall_temperature", "area_id": "hall", "platform": "zha"},
		})
	srv.ServeLikeHA()
	reg := devices.NewRegistry(2 * time.Second)
	t.Cleanup(reg.Close)
	ad, err := hass.NewAdapter(reg, hass.AdapterConfig{URL: srv.URL(), Token: haToken, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := apitest.Start(t, reg, 2*time.Second, opts...)
	done := make(chan error, 1)
	go func() { done <- ad.Run(context.Background()) }()
	t.Cleanup(func() { ad.Close(); <-done })
	hh := &haHub{Hub: h, srv: srv, ad: ad}
	hh.until(t, "the HA devices to be listed online", func() bool {
		var ds []struct {
			ID     string `json:"id"`
			Online bool   `json:"online"`
		}
		h.V1(t, http.MethodGet, "/devices", "", http.StatusOK, &ds)
		online := 0
		for _, d := range ds {
			if strings.HasPrefix(d.ID, "hass:") && d.Online {
				online++
			}
		}
		return online == 8
	})
	return hh
}

// until polls cond until it holds, failing the test at the deadline.
func (h *haHub) until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastCall is the last call_service the fake received.
func (h *haHub) lastCall(t *testing.T) map[string]any {
	t.Helper()
	calls := h.srv.Calls()
	if len(calls) == 0 {
		t.Fatal("HA received no call_service")
	}
	var m map[string]any
	if err := json.Unmarshal(calls[len(calls)-1], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (h *haHub) wantService(t *testing.T, domain, service, data string) {
	t.Helper()
	m := h.lastCall(t)
	got, _ := json.Marshal(m["service_data"])
	if m["domain"] != domain || m["service"] != service || (data != "" && string(got) != data) {
		t.Fatalf("HA got %v.%v %s, want %s.%s %s", m["domain"], m["service"], got, domain, service, data)
	}
}

func TestHADevicesThroughTheAPI(t *testing.T) {
	h := startHA(t)

	// Rooms from HA's areas.
	var rooms []struct {
		Name     string   `json:"name"`
		LightIDs []string `json:"light_ids"`
	}
	h.V1(t, http.MethodGet, "/rooms", "", http.StatusOK, &rooms)
	found := map[string][]string{}
	for _, r := range rooms {
		found[r.Name] = r.LightIDs
	}
	if ids, ok := found["Kitchen"]; !ok || len(ids) != 1 || ids[0] != "hass:light.kitchen" {
		t.Errorf("rooms = %+v, want Kitchen with the HA light", rooms)
	}
	if _, ok := found["Hall"]; !ok {
		t.Errorf("no Hall room: %+v", rooms)
	}

	// A light, in the Rust hub's shape, written by name.
	var l struct {
		ID           string `json:"id"`
		Provider     string `json:"provider"`
		Capabilities struct {
			ColorTemperature bool `json:"color_temperature"`
			MirekMin         int  `json:"mirek_min"`
		} `json:"capabilities"`
		State struct {
			On        bool `json:"on"`
			Reachable bool `json:"reachable"`
		} `json:"state"`
	}
	h.V1(t, http.MethodGet, "/lights/hass:light.kitchen", "", http.StatusOK, &l)
	if l.Provider != "hass" || !l.Capabilities.ColorTemperature || l.Capabilities.MirekMin != 153 || l.State.On || !l.State.Reachable {
		t.Errorf("light = %+v", l)
	}
	var res struct {
		State struct {
			On         bool `json:"on"`
			Brightness int  `json:"brightness"`
			Kelvin     int  `json:"kelvin"`
		} `json:"state"`
	}
	h.V1(t, http.MethodPut, "/lights/Kitchen%20Ceiling/state", `{"brightness": 60, "kelvin": 3000}`, http.StatusOK, &res)
	h.wantService(t, "light", "turn_on", `{"brightness_pct":60,"color_temp_kelvin":3000}`)
	if !res.State.On || res.State.Brightness != 60 || res.State.Kelvin != 3000 {
		t.Errorf("the write answered %+v", res.State)
	}
	if st, _ := h.srv.State("light.kitchen"); st.State != "on" || st.Attributes["brightness"] != 153.0 {
		t.Errorf("HA's light: %+v", st)
	}

	// A switch.
	h.V1(t, http.MethodPut, "/power/devices/Coffee%20Machine/state", `{"on": true}`, http.StatusOK, nil)
	h.wantService(t, "switch", "turn_on", "null")
	var p struct {
		Kind  string `json:"kind"`
		State struct {
			On bool `json:"on"`
		} `json:"state"`
	}
	h.V1(t, http.MethodGet, "/power/devices/hass:switch.coffee", "", http.StatusOK, &p)
	if !p.State.On {
		t.Errorf("switch = %+v", p)
	}
	// A fan's speed.
	var fan struct {
		SpeedControl bool `json:"speed_control"`
		Speed        *int `json:"speed"`
	}
	h.V1(t, http.MethodPut, "/power/devices/Bedroom%20Fan/state", `{"speed": 75}`, http.StatusOK, &fan)
	h.wantService(t, "fan", "set_percentage", `{"percentage":75}`)
	if !fan.SpeedControl || fan.Speed == nil || *fan.Speed != 75 {
		t.Errorf("fan = %+v", fan)
	}
	var e apitest.Error
	h.V1(t, http.MethodPut, "/power/devices/Coffee%20Machine/state", `{"speed": 50}`, http.StatusUnprocessableEntity, &e)
	if !strings.Contains(e.Message, "has no speed") {
		t.Errorf("a speed for a switch: %+v", e)
	}

	// A media player: volume, source, and a cast.
	h.V1(t, http.MethodPut, "/media/devices/Living%20Room%20Sonos/state", `{"volume": 35, "source": "Line-in"}`, http.StatusOK, nil)
	h.wantService(t, "media_player", "volume_set", `{"volume_level":0.35}`)
	if st, _ := h.srv.State("media_player.living_room"); st.Attributes["source"] != "Line-in" {
		t.Errorf("source not selected: %+v", st.Attributes)
	}
	h.V1(t, http.MethodPost, "/media/devices/Living%20Room%20Sonos/cast",
		`{"content_id": "https://example.org/stream.mp3", "content_type": "music"}`, http.StatusOK, nil)
	h.wantService(t, "media_player", "play_media", `{"media_content_id":"https://example.org/stream.mp3","media_content_type":"music"}`)

	// A remote: a key in the Rust hub's tagged form, and its power.
	h.V1(t, http.MethodPost, "/remote/devices/Bedroom%20TV/command", `{"key": {"key": "home"}}`, http.StatusOK, nil)
	h.wantService(t, "remote", "send_command", `{"command":"home"}`)
	h.V1(t, http.MethodPost, "/remote/devices/Bedroom%20TV/command", `{"power": {"on": false}}`, http.StatusOK, nil)
	h.wantService(t, "remote", "turn_off", "null")
	var rm struct {
		On *bool `json:"on"`
	}
	h.V1(t, http.MethodGet, "/remote/devices/hass:remote.bedroom_tv", "", http.StatusOK, &rm)
	if rm.On == nil || *rm.On {
		t.Errorf("the remote reads on=%v after turning off", rm.On)
	}

	// The motion sensor and the temperature, converted.
	var s struct {
		Readings []devices.Reading `json:"readings"`
	}
	h.V1(t, http.MethodGet, "/sensors/devices/hass:sensor.hall_temperature", "", http.StatusOK, &s)
	if len(s.Readings) != 1 || s.Readings[0].Value != 21.5 || s.Readings[0].Unit != "°C" {
		t.Errorf("temperature = %+v", s.Readings)
	}

	// What the hub does not control is listed, with its state.
	var ds []struct {
		ID    string `json:"id"`
		Kind  string `json:"kind"`
		State string `json:"state_text"`
	}
	h.V1(t, http.MethodGet, "/devices", "", http.StatusOK, &ds)
	var cover bool
	for _, d := range ds {
		if d.ID == "hass:cover.garage" {
			cover = d.Kind == "other" && d.State == "closed"
		}
	}
	if !cover {
		t.Errorf("the cover is not listed as other, closed: %+v", ds)
	}

	// A service HA refuses is a 502 with HA's message.
	h.srv.HandleService("light", "turn_on", func(map[string]any) ([]hasstest.State, string, string) {
		return nil, "home_assistant_error", "Failed to call the Hue bridge"
	})
	h.V1(t, http.MethodPut, "/lights/hass:light.kitchen/state", `{"brightness": 20}`, http.StatusBadGateway, &e)
	if e.Error != "device_error" || !strings.Contains(e.Message, "Failed to call the Hue bridge") {
		t.Errorf("error = %+v", e)
	}
}

func TestAChangeInHAReachesTheEventStream(t *testing.T) {
	h := startHA(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	start := time.Now()
	h.srv.SetState(hasstest.State{EntityID: "binary_sensor.hall_motion", State: "on",
		Attributes: map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}})
	r := bufio.NewReader(resp.Body)
	var typ string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			typ = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && typ == "sensor" && strings.Contains(v, "hass:binary_sensor.hall_motion") && strings.Contains(v, `"bool":true`) {
			break
		}
	}
	t.Logf("HA state change → hub event stream: %v", time.Since(start).Round(time.Microsecond))

	// The motion sensor is in the Hall (its HA area): the room is occupied.
	var room struct {
		Occupied *bool `json:"occupied"`
	}
	h.V1(t, http.MethodGet, "/rooms/Hall", "", http.StatusOK, &room)
	if room.Occupied == nil || !*room.Occupied {
		t.Errorf("the Hall reads occupied=%v with its HA motion sensor on", room.Occupied)
	}
}

func TestHADevicesThroughMCP(t *testing.T) {
	h := startHA(t)
	c := h.MCP(t)
	res := apitest.Tool(t, c, "set_light", map[string]any{"light": "Kitchen Ceiling", "brightness": 40})
	if res.IsError {
		t.Fatalf("set_light: %s", apitest.ToolText(res))
	}
	h.wantService(t, "light", "turn_on", `{"brightness_pct":40}`)
	res = apitest.Tool(t, c, "set_power", map[string]any{"device": "Coffee Machine", "on": true})
	if res.IsError {
		t.Fatalf("set_power: %s", apitest.ToolText(res))
	}
	h.wantService(t, "switch", "turn_on", "null")
	res = apitest.Tool(t, c, "set_power", map[string]any{"device": "Bedroom Fan", "speed": 50})
	if text := apitest.ToolText(res); res.IsError || !strings.Contains(text, "speed 50 %") {
		t.Fatalf("set_power speed: %s", text)
	}
	h.wantService(t, "fan", "set_percentage", `{"percentage":50}`)
	res = apitest.Tool(t, c, "set_media", map[string]any{"device": "Living Room Sonos", "volume": 50})
	if res.IsError {
		t.Fatalf("set_media: %s", apitest.ToolText(res))
	}
	h.wantService(t, "media_player", "volume_set", `{"volume_level":0.5}`)
	res = apitest.Tool(t, c, "list_sensors", map[string]any{})
	if text := apitest.ToolText(res); res.IsError || !strings.Contains(text, "Hall Motion") || !strings.Contains(text, "21.5") {
		t.Fatalf("list_sensors: %s", text)
	}
	h.srv.HandleService("media_player", "volume_set", func(map[string]any) ([]hasstest.State, string, string) {
		return nil, "home_assistant_error", "Sonos speaker is not responding"
	})
	res = apitest.Tool(t, c, "set_media", map[string]any{"device": "Living Room Sonos", "volume": 10})
	if !res.IsError || !strings.Contains(apitest.ToolText(res), "Sonos speaker is not responding") {
		t.Fatalf("a refused service: %v %s", res.IsError, apitest.ToolText(res))
	}
}

func TestAnHAMotionSensorTriggersAnAutomation(t *testing.T) {
	h := startHA(t, apitest.WithAutomations(automation.Config{}))
	var v automation.View
	h.V1(t, http.MethodPost, "/automations", `{
		"name": "Hall light on motion",
		"trigger": {"type": "sensor", "device": "Hall Motion", "to": "detected"},
		"actions": [{"type": "light", "lights": ["Kitchen Ceiling"], "state": {"on": true, "brightness": 70}}]
	}`, http.StatusCreated, &v)
	if v.Trigger.Device != "hass:binary_sensor.hall_motion" {
		t.Fatalf("trigger = %+v", v.Trigger)
	}
	h.srv.SetState(hasstest.State{EntityID: "binary_sensor.hall_motion", State: "on",
		Attributes: map[string]any{"friendly_name": "Hall Motion", "device_class": "motion"}})
	h.until(t, "the automation to light the kitchen", func() bool {
		st, _ := h.srv.State("light.kitchen")
		return st.State == "on" && st.Attributes["brightness"] == 179.0
	})
	h.wantService(t, "light", "turn_on", `{"brightness_pct":70}`)
}
