package mqtt

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestTasmotaTopicsFollowFullTopic(t *testing.T) {
	def := newTasmota(nil, DefaultTasmotaFullTopic)
	prefix, key, values, cmd, ok := def.parse("stat/tasmota_1A2B3C/POWER2")
	if !ok || prefix != "stat" || key != "tasmota_1A2B3C" || cmd != "POWER2" {
		t.Fatalf("parse = %q %q %q %v", prefix, key, cmd, ok)
	}
	if got := def.topicFor("cmnd", values, "POWER2"); got != "cmnd/tasmota_1A2B3C/POWER2" {
		t.Errorf("command topic %q", got)
	}
	if f := def.filters(); f[0] != "stat/+/+" || f[1] != "tele/+/+" {
		t.Errorf("filters %v", f)
	}
	for _, bad := range []string{"cmnd/x/POWER", "stat/x", "stat/x/y/z", "tele//LWT"} {
		if _, _, _, _, ok := def.parse(bad); ok {
			t.Errorf("parse(%q) accepted it", bad)
		}
	}

	custom := newTasmota(nil, "%prefix%/home/%topic%/")
	_, key, values, cmd, ok = custom.parse("tele/home/plug/LWT")
	if !ok || key != "plug" || cmd != "LWT" {
		t.Fatalf("custom parse = %q %q %v", key, cmd, ok)
	}
	if got := custom.topicFor("cmnd", values, "POWER"); got != "cmnd/home/plug/POWER" {
		t.Errorf("custom command topic %q", got)
	}
	if _, _, _, _, ok := custom.parse("tele/office/plug/LWT"); ok {
		t.Error("a topic outside the custom FullTopic was accepted")
	}
}

func TestTasmotaReadings(t *testing.T) {
	var m map[string]any
	_ = json.Unmarshal([]byte(`{"Time":"x","AM2301":{"Temperature":70.7,"Humidity":45.1},"BH1750":{"Illuminance":120},"ENERGY":{"Power":35,"Total":12.345,"Voltage":230},"TempUnit":"F"}`), &m)
	rs := tasmotaReadings(m)
	if len(rs) != 5 {
		t.Fatalf("readings %v", rs)
	}
	if p, e := rs[devices.ReadingPower], rs[devices.ReadingEnergy]; p.Value != 35 || p.Unit != "W" || e.Value != 12.345 || e.Unit != "kWh" {
		t.Errorf("metering read as %+v and %+v; want 35 W and 12.345 kWh", p, e)
	}
	if c := rs[devices.ReadingTemperature].Value; c < 21.49 || c > 21.51 {
		t.Errorf("70.7 °F read as %v °C", c)
	}
	if rs[devices.ReadingHumidity].Value != 45.1 || rs[devices.ReadingIlluminance].Value != 120 || rs[devices.ReadingIlluminance].Unit != "lx" {
		t.Errorf("readings %v", rs)
	}
}

func TestAvailabilityPayloads(t *testing.T) {
	for in, want := range map[string]bool{
		"Online": true, "Offline": false, "true": true, "false": false, "online": true,
		`{"state":"online"}`: true, `{"state":"offline"}`: false,
	} {
		if up, ok := availability([]byte(in)); !ok || up != want {
			t.Errorf("availability(%s) = %v, %v", in, up, ok)
		}
	}
	for _, in := range []string{"", "maybe", `{"state":1}`, "{"} {
		if _, ok := availability([]byte(in)); ok {
			t.Errorf("availability(%q) was understood", in)
		}
	}
}

func TestDeviceIDsAreURLSafe(t *testing.T) {
	if id := deviceID("z2m", "0x0017880104e45517", "l1"); id != "mqtt:z2m.0x0017880104e45517.l1" {
		t.Errorf("id %s", id)
	}
	if id := deviceID("shelly", "shellies/kitchen plug", "0"); id != "mqtt:shelly.shellies_kitchen_plug.0" {
		t.Errorf("id %s", id)
	}
}

func TestDiscoveryConfigExpandsAbbreviationsAndBaseTopic(t *testing.T) {
	cfg, err := parseHAConfig([]byte(`{"~":"esp/fan","name":"Fan","uniq_id":"f1","cmd_t":"~/set","stat_t":"~/state",
		"avty":[{"t":"~/status","pl_avail":"up"}],"pl_on":"1","dev":{"ids":"esp","name":"Node","mf":"espressif","mdl":"esp32","sa":"Hall"},"off_dly":30}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.UniqueID != "f1" || cfg.CommandTopic != "esp/fan/set" || cfg.StateTopic != "esp/fan/state" || cfg.PayloadOn != "1" {
		t.Errorf("config %+v", cfg)
	}
	if len(cfg.Availability) != 1 || cfg.Availability[0].Topic != "esp/fan/status" || cfg.Availability[0].PayloadAvailable != "up" {
		t.Errorf("availability %+v", cfg.Availability)
	}
	if cfg.Device.Name != "Node" || cfg.Device.Manufacturer != "espressif" || cfg.Device.SuggestedArea != "Hall" || cfg.OffDelay != 30 {
		t.Errorf("device %+v, off delay %v", cfg.Device, cfg.OffDelay)
	}
	if ids := cfg.Device.identifiers(); len(ids) != 1 || ids[0] != "esp" {
		t.Errorf("identifiers %v", ids)
	}
	if got := expandTilde("state/~", "base"); got != "state/base" {
		t.Errorf("trailing ~ gave %q", got)
	}
}

func TestDiscoveryNamesAndDuplicates(t *testing.T) {
	name := func(n string) *string { return &n }
	dev := haDevice{Name: "Hall node"}
	for _, c := range []struct {
		cfg  haConfig
		want string
	}{
		{haConfig{Name: name("Relay"), Device: dev}, "Hall node Relay"},
		{haConfig{Name: name("Hall node relay"), Device: dev}, "Hall node relay"},
		{haConfig{Device: dev}, "Hall node"},
		{haConfig{Name: name("Relay")}, "Relay"},
		{haConfig{ObjectID: "relay_1"}, "relay_1"},
		{haConfig{}, "plug"},
	} {
		if got := entityName(c.cfg, []string{"node", "plug"}); got != c.want {
			t.Errorf("entityName(%+v) = %q; want %q", c.cfg, got, c.want)
		}
	}
	z2m, _ := parseHAConfig([]byte(`{"name":null,"dev":{"ids":["zigbee2mqtt_0x00158d0001a2b3c4"]},"o":{"name":"Zigbee2MQTT"}}`))
	tas, _ := parseHAConfig([]byte(`{"name":"x","dev":{"ids":["1A2B3C"],"mf":"Tasmota"}}`))
	esp, _ := parseHAConfig([]byte(`{"name":"x","dev":{"ids":["esp"],"mf":"espressif"}}`))
	if !z2m.fromOtherFamily() || !tas.fromOtherFamily() || esp.fromOtherFamily() {
		t.Errorf("duplicates: z2m %v tasmota %v esphome %v", z2m.fromOtherFamily(), tas.fromOtherFamily(), esp.fromOtherFamily())
	}
}

func zigbeeLightFromJSON(t *testing.T, exposes string) *zigbeeLight {
	t.Helper()
	var e zExpose
	if err := json.Unmarshal([]byte(exposes), &e); err != nil {
		t.Fatal(err)
	}
	z := &zigbee{e: &env{}}
	return z.light(&zigbeeNode{}, devices.Info{ID: "mqtt:z2m.x", Name: "x"}, e, nil)
}

func TestZigbeeLightEncodesForTheLamp(t *testing.T) {
	l := zigbeeLightFromJSON(t, `{"type":"light","endpoint":"l1","features":[
		{"type":"binary","name":"state","property":"state_l1","value_on":"ON","value_off":"OFF"},
		{"type":"numeric","name":"brightness","property":"brightness_l1","value_min":0,"value_max":254},
		{"type":"numeric","name":"color_temp","property":"color_temp_l1","value_min":153,"value_max":370},
		{"type":"composite","name":"color_hs","property":"color_l1","features":[]}]}`)
	caps := l.dev.LightCaps()
	if !caps.Dimmable || !caps.Color || caps.KelvinMin != 2702 || caps.KelvinMax != 6535 {
		t.Fatalf("caps %+v", caps)
	}
	on, bri, k := true, 1, 2000
	p := l.encode(devices.LightChange{On: &on, Brightness: &bri, Kelvin: &k})
	if p["state_l1"] != "ON" || p["brightness_l1"] != 3 || p["color_temp_l1"] != 370 {
		t.Errorf("payload %v; want state_l1 ON, brightness_l1 3, color_temp_l1 clamped to 370", p)
	}
	p = l.encode(devices.LightChange{Color: &devices.Color{Hex: "FF0000", X: 0.7006, Y: 0.2993}})
	if c, _ := p["color_l1"].(map[string]any); c["hue"] != 0.0 || c["saturation"] != 100.0 {
		t.Errorf("a hue/saturation lamp got %v for red", p)
	}
}

func TestZigbeeSensorFields(t *testing.T) {
	var exposes []zExpose
	_ = json.Unmarshal([]byte(`[
		{"type":"binary","name":"contact","property":"contact","value_on":false,"value_off":true},
		{"type":"numeric","name":"illuminance","property":"illuminance"},
		{"type":"numeric","name":"illuminance_lux","property":"illuminance_lux"},
		{"type":"numeric","name":"humidity","property":"humidity"},
		{"type":"numeric","name":"linkquality","property":"linkquality"},
		{"type":"numeric","name":"battery","property":"battery"}]`), &exposes)
	fields := sensorFields(exposes)
	if len(fields) != 4 || fields[1].property != "illuminance_lux" || fields[0].reading != devices.ReadingContact || fields[3].reading != devices.ReadingBattery {
		t.Fatalf("fields %+v", fields)
	}
	s := &zigbeeSensor{dev: newSensorDevice(&env{dir: newDirectory(devices.NewRegistry(0))}, devices.Info{ID: "mqtt:z2m.s"}), fields: fields}
	s.apply(map[string]any{"contact": false, "illuminance": 9000.0, "illuminance_lux": 12.0, "humidity": 40.5})
	s.dev.stateMu.Lock()
	defer s.dev.stateMu.Unlock()
	if r := s.dev.readings[devices.ReadingContact]; r.Bool == nil || !*r.Bool {
		t.Errorf("contact false with value_on false should read closed: %+v", r)
	}
	if r := s.dev.readings[devices.ReadingIlluminance]; r.Value != 12 {
		t.Errorf("illuminance %v; want the lux value 12", r.Value)
	}
}

func TestLightReportsMatchChanges(t *testing.T) {
	on, off, bri, k := true, false, 40, 3000
	st := devices.LightState{On: true, Brightness: 41, Mode: devices.ModeTemperature, Kelvin: 2994}
	if !matches(st, devices.LightChange{On: &on, Brightness: &bri, Kelvin: &k}) {
		t.Error("a report one percent and a rounding off did not match")
	}
	if matches(st, devices.LightChange{On: &off}) || matches(st, devices.LightChange{Color: &devices.Color{}}) {
		t.Error("a report that contradicts the change matched")
	}
	// The brightness came, the temperature not yet: the old one is no
	// confirmation.
	old := devices.LightState{On: true, Brightness: 40, Mode: devices.ModeTemperature, Kelvin: 6024}
	if matches(old, devices.LightChange{On: &on, Brightness: &bri, Kelvin: &k}) {
		t.Error("a report still at the old colour temperature matched")
	}
	warm := 6500
	if !matches(devices.LightState{On: true, Brightness: 40, Mode: devices.ModeTemperature, Kelvin: 6536}, devices.LightChange{Kelvin: &warm}) {
		t.Error("6536 K read back for 6500 K (153 mired) did not match")
	}
}

func TestTasmotaLampKinds(t *testing.T) {
	for _, c := range []struct {
		name, state string
		want        tasmotaLamp
		st          devices.LightState
	}{
		{"dimmer only", `{"POWER":"ON","Dimmer":30}`,
			tasmotaLamp{power: "POWER"}, devices.LightState{On: true, Brightness: 30}},
		{"white CT bulb", `{"POWER":"OFF","Dimmer":80,"Color":"CC33","White":80,"CT":400}`,
			tasmotaLamp{power: "POWER", ct: true}, devices.LightState{Brightness: 80, Mode: devices.ModeTemperature, Kelvin: 2500}},
		{"RGB strip, decimal channels", `{"POWER":"ON","Dimmer":100,"Color":"255,0,0","HSBColor":"0,100,100","Channel":[100,0,0]}`,
			tasmotaLamp{power: "POWER", color: true}, devices.LightState{On: true, Brightness: 100, Mode: devices.ModeColor, Color: &devices.Color{Hex: "FF0000", X: 0.7006, Y: 0.2993}}},
		{"RGBCW bulb in white", `{"POWER":"ON","Dimmer":50,"Color":"0000003F40","HSBColor":"0,0,50","White":50,"CT":327}`,
			tasmotaLamp{power: "POWER", ct: true, color: true}, devices.LightState{On: true, Brightness: 50, Mode: devices.ModeTemperature, Kelvin: 3058}},
		{"relays and a lamp on the last output", `{"POWER1":"ON","POWER2":"OFF","Dimmer":10,"CT":153}`,
			tasmotaLamp{power: "POWER2", ct: true}, devices.LightState{Brightness: 10, Mode: devices.ModeTemperature, Kelvin: 6535}},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.state), &m); err != nil {
			t.Fatal(err)
		}
		lamp, ok := lampOf(m)
		if !ok || lamp != c.want {
			t.Errorf("%s: lamp %+v, %v; want %+v", c.name, lamp, ok, c.want)
			continue
		}
		var st devices.LightState
		lamp.apply(&st, m)
		if !sameLight(st, c.st) {
			t.Errorf("%s: state %+v (colour %+v); want %+v (colour %+v)", c.name, st, st.Color, c.st, c.st.Color)
		}
	}
	if _, ok := lampOf(map[string]any{"POWER1": "ON", "POWER2": "OFF"}); ok {
		t.Error("a two-relay switch was taken for a lamp")
	}
}

func TestTasmotaLampCommands(t *testing.T) {
	rgbcw := tasmotaLamp{power: "POWER", ct: true, color: true}
	on, off := true, false
	k, b, warmest := 2700, 40, 1800
	red := devices.Color{Hex: "FF0000"}
	for _, c := range []struct {
		name   string
		lamp   tasmotaLamp
		change devices.LightChange
		cur    devices.LightState
		want   [][2]string
	}{
		{"off wins", rgbcw, devices.LightChange{On: &off, Brightness: &b}, devices.LightState{}, [][2]string{{"POWER", "OFF"}}},
		{"temperature, level, power", rgbcw, devices.LightChange{On: &on, Kelvin: &k, Brightness: &b}, devices.LightState{},
			[][2]string{{"CT", "370"}, {"Dimmer", "40"}, {"POWER", "ON"}}},
		{"temperature clamped to CT 500", rgbcw, devices.LightChange{Kelvin: &warmest}, devices.LightState{}, [][2]string{{"CT", "500"}}},
		{"colour keeps the level", rgbcw, devices.LightChange{Color: &red}, devices.LightState{Brightness: 65}, [][2]string{{"HSBColor", "0,100,65"}}},
		{"colour with a level", rgbcw, devices.LightChange{Color: &red, Brightness: &b}, devices.LightState{Brightness: 65}, [][2]string{{"HSBColor", "0,100,40"}}},
		{"a lamp on POWER2", tasmotaLamp{power: "POWER2"}, devices.LightChange{On: &on}, devices.LightState{}, [][2]string{{"POWER2", "ON"}}},
	} {
		if got := c.lamp.commands(c.change, c.cur); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v; want %v", c.name, got, c.want)
		}
	}
}

func TestReadingUnits(t *testing.T) {
	for _, c := range []struct {
		typ, unit string
		in, want  float64
	}{
		{devices.ReadingTemperature, "°F", 212, 100},
		{devices.ReadingTemperature, "K", 273.15, 0},
		{devices.ReadingTemperature, "°C", 21.5, 21.5},
		{devices.ReadingPower, "kW", 1.5, 1500},
		{devices.ReadingPower, "W", 60, 60},
		{devices.ReadingEnergy, "Wh", 2500, 2.5},
		{devices.ReadingEnergy, "kWh", 12.3, 12.3},
		{devices.ReadingBattery, "%", 97, 97},
	} {
		if got := inReadingUnit(c.typ, c.unit, c.in); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%v %s of %s read as %v; want %v", c.in, c.unit, c.typ, got, c.want)
		}
	}
}

func TestShellyGen1Topics(t *testing.T) {
	s := newShellies(nil)
	for topic, want := range map[string]string{
		"shellies/shelly1-B929CC/relay/0":       "shellies:shelly1-B929CC",
		"shellies/shellyht-C4D5E6/sensor/lux":   "shellies:shellyht-C4D5E6",
		"shellies/announce":                     "shellies:announce",
		"shellies/command":                      "",
		"shellyplus1pm-a8032ab12345/events/rpc": "",
		"shellies//relay/0":                     "",
	} {
		if got, _ := s.route(topic); got != want {
			t.Errorf("%s routes to %q; want %q", topic, got, want)
		}
	}
	for _, c := range []struct {
		name, v string
		want    devices.Reading
		ok      bool
	}{
		{"temperature", "21.75", devices.Reading{Type: devices.ReadingTemperature, Value: 21.75, Unit: "°C"}, true},
		{"lux", "310", devices.Reading{Type: devices.ReadingIlluminance, Value: 310, Unit: "lx"}, true},
		{"battery", "88", devices.Reading{Type: devices.ReadingBattery, Value: 88, Unit: "%"}, true},
		{"tilt", "12", devices.Reading{}, false},
		{"humidity", "n/a", devices.Reading{}, false},
		{"temperature", "nan", devices.Reading{}, false},
		{"battery", "+Inf", devices.Reading{}, false},
	} {
		got, ok := gen1Reading(c.name, c.v)
		if ok != c.ok || (ok && !sameReading(got, c.want)) {
			t.Errorf("sensor/%s %q read as %+v, %v; want %+v", c.name, c.v, got, ok, c.want)
		}
	}
	if r, ok := gen1Reading("state", "open"); !ok || r.Type != devices.ReadingContact || *r.Bool {
		t.Errorf("an open door reads %+v; want contact false", r)
	}
	rs := gen1Status([]byte(`{"motion":true,"timestamp":1700000000,"active":true,"vibration":false,"lux":73,"bat":100}`))
	if m := rs[devices.ReadingMotion]; len(rs) != 3 || m.Bool == nil || !*m.Bool || rs[devices.ReadingIlluminance].Value != 73 {
		t.Errorf("a Motion status reads %+v", rs)
	}
}

func TestNumbersAreFinite(t *testing.T) {
	for _, v := range []any{"NaN", "nan", "inf", "-Infinity", "1e999", "x"} {
		if f, ok := number(v); ok {
			t.Errorf("number(%q) = %v; want no number", v, f)
		}
	}
	if f, ok := number(" 21.5 "); !ok || f != 21.5 {
		t.Errorf("number(\" 21.5 \") = %v, %v", f, ok)
	}
	if _, ok := parseXY("nan,0.3"); ok {
		t.Error("an xy colour of NaN was read")
	}
}
