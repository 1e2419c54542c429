package mqtt_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt"
)

// The ids the hub gives the simulated devices.
const (
	plugID      = "mqtt:tasmota.tasmota_1A2B3C.1"
	plugSensor  = "mqtt:tasmota.tasmota_1A2B3C.sensor"
	lampID      = "mqtt:tasmota.tasmota_D4E5F6.1"
	heaterID    = "mqtt:tasmota.tasmota_D4E5F6.2"
	tasBulbID   = "mqtt:tasmota.tasmota_C0FFEE.1"
	gen1ID      = "mqtt:shellies.shelly1pm-84CCA8A1B2C3.0"
	htID        = "mqtt:shellies.shellyht-C4D5E6"
	kettleID    = "mqtt:shelly.shellyplus1pm-a8032ab12345.0"
	bulbID      = "mqtt:z2m.0x0017880104e45517"
	motionID    = "mqtt:z2m.0x00158d0001a2b3c4"
	tvPlugID    = "mqtt:z2m.0x70b3d52b6001a1b2"
	relayID     = "mqtt:ha.esp-hall-relay"
	fanID       = "mqtt:ha.esp-hall-fan"
	stripID     = "mqtt:ha.esp-hall-strip"
	espSensorID = "mqtt:ha.esp-hall.sensor"
)

// house is the simulated devices on one broker.
type house struct {
	plug   *simTasmota // a single-relay plug with a temperature sensor
	dual   *simTasmota // a two-relay switch
	bulb   *simTasmota // an RGBCW bulb
	gen1   *simShellyGen1
	ht     *simShellyHT
	shelly *simShelly
	zigbee *simZigbee // a colour bulb, a motion sensor, a plug
	esp    *simESPHome
}

func newZigbeeDevices() []*zigbeeDevice {
	return []*zigbeeDevice{
		{ieee: "0x0017880104e45517", name: "Hall bulb", vendor: "Philips", model: "9290022166", description: "Hue White and Color Ambiance E26/E27",
			exposes: lightExposes(), state: map[string]any{
				"state": "OFF", "brightness": 254, "color_temp": 370, "color_mode": "color_temp",
				"color": map[string]any{"x": 0.4599, "y": 0.4106}, "linkquality": 120}},
		{ieee: "0x00158d0001a2b3c4", name: "Hall motion", vendor: "Aqara", model: "RTCGQ11LM", description: "Motion sensor",
			exposes: motionExposes(), state: map[string]any{"occupancy": false, "illuminance": 30, "temperature": 20.5, "battery": 97}},
		{ieee: "0x70b3d52b6001a1b2", name: "TV plug", vendor: "IKEA", model: "E1603", description: "TRADFRI control outlet smart plug",
			exposes: plugExposes(), state: map[string]any{"state": "OFF", "power": 0}},
	}
}

func newHouse(t testing.TB, broker string) *house {
	return &house{
		plug:   newSimTasmota(t, broker, "tasmota_1A2B3C", []string{"Desk plug"}, true),
		dual:   newSimTasmota(t, broker, "tasmota_D4E5F6", []string{"Lamp", "Heater"}, false),
		bulb:   newSimTasmotaBulb(t, broker, "tasmota_C0FFEE", "Porch bulb"),
		gen1:   newSimShellyGen1(t, broker, "shelly1pm-84CCA8A1B2C3", "SHSW-PM", 1),
		ht:     newSimShellyHT(t, broker, "shellyht-C4D5E6"),
		shelly: newSimShelly(t, broker, "shellyplus1pm-a8032ab12345", "Kitchen", []string{"Kettle"}),
		zigbee: newSimZigbee(t, broker, newZigbeeDevices()...),
		esp:    newSimESPHome(t, broker, "esp-hall", "Landing"),
	}
}

var allIDs = []string{plugID, plugSensor, lampID, heaterID, tasBulbID, gen1ID, kettleID, bulbID, motionID, tvPlugID, relayID, fanID, stripID, espSensorID}

// TestMosquittoStory runs the whole story against Debian's mosquitto, and
// then restarts the broker: the hub resyncs.
func TestMosquittoStory(t *testing.T) {
	broker := startMosquitto(t)
	h := newHub(t, mqtt.Config{URL: broker.url(), ClientID: "bifrost-test"})
	d := newHouse(t, broker.addr)
	h.waitOnline(5*time.Second, allIDs...)

	story(t, h, d)
	t.Run("broker restart resyncs", func(t *testing.T) { checkBrokerRestart(t, h.in(t), d, broker) })
}

// story is what both brokers go through: devices of every family appear,
// take commands and report back, a colour reaches a Zigbee lamp as the
// right xy, motion fills a room, a device that drops off fails fast, and
// a removed entity is kept offline.
func story(t *testing.T, h *hub, d *house) {
	t.Run("every family appears with its kind", func(t *testing.T) { checkInventory(t, h.in(t)) })
	t.Run("tasmota plug turns on and reports back", func(t *testing.T) { checkTasmotaPlug(t, h.in(t), d.plug) })
	t.Run("tasmota relays are separate devices", func(t *testing.T) { checkTasmotaRelays(t, h.in(t), d.dual) })
	t.Run("tasmota sensor", func(t *testing.T) { checkTasmotaSensor(t, h.in(t), d.plug) })
	t.Run("tasmota bulb is a light", func(t *testing.T) { checkTasmotaBulb(t, h.in(t), d.bulb) })
	t.Run("shelly switch over RPC", func(t *testing.T) { checkShelly(t, h.in(t), d.shelly) })
	t.Run("shelly gen1 relay and meter", func(t *testing.T) { checkShellyGen1(t, h.in(t), d.gen1) })
	t.Run("shelly gen1 H&T", func(t *testing.T) { checkShellyHT(t, h.in(t), d.ht) })
	t.Run("zigbee plug", func(t *testing.T) { checkZigbeePlug(t, h.in(t), d.zigbee) })
	t.Run("zigbee light takes hex as xy", func(t *testing.T) { checkZigbeeLight(t, h.in(t), d.zigbee) })
	t.Run("discovered switch, fan and light", func(t *testing.T) { checkDiscovered(t, h.in(t), d.esp) })
	t.Run("zigbee occupancy fills its room", func(t *testing.T) { checkZigbeeOccupancy(t, h.in(t), d.zigbee) })
	t.Run("discovered occupancy fills its room", func(t *testing.T) { checkDiscoveredOccupancy(t, h.in(t), d.esp) })
	t.Run("offline by LWT fails fast", func(t *testing.T) { checkLWT(t, h.in(t), d.plug) })
	t.Run("removed entity stays listed offline", func(t *testing.T) { checkRemoval(t, h.in(t), d.esp) })
}

// TestEmbeddedBrokerStory runs the same story against the broker the hub
// runs itself, and a Zigbee device leaves the network.
func TestEmbeddedBrokerStory(t *testing.T) {
	h := newHub(t, mqtt.Config{Embedded: "127.0.0.1:0", ClientID: "bifrost-embedded"})
	d := newHouse(t, h.adapter.BrokerAddr())
	h.waitOnline(5*time.Second, allIDs...)

	story(t, h, d)
	t.Run("a zigbee device that leaves stays listed offline", func(t *testing.T) { checkZigbeeLeave(t, h.in(t), d.zigbee) })
}

// TestShellyThatMissedItsProbeIsAskedAgain: a Shelly that says it is
// online but answers nothing is asked again when the hub's own connection
// to the broker comes back, even while the first probe is still waiting
// for its answer. The device itself stays connected and says nothing new.
func TestShellyThatMissedItsProbeIsAskedAgain(t *testing.T) {
	broker := startMosquitto(t)
	const clientID = "bifrost-probe"
	h := newHub(t, mqtt.Config{URL: broker.url(), ClientID: clientID})
	d := newMutedSimShelly(t, broker.addr, "shellyplus1-b0b0b0b0b0b0", "Porch", []string{"Porch light"})
	select { // its handler has decided not to answer the first probe
	case <-d.ignored:
	case <-time.After(10 * time.Second):
		t.Fatal("the hub did not probe the Shelly within 10 s")
	}
	d.mute.Store(false)
	if ds := h.devices(); ds["mqtt:shelly.shellyplus1-b0b0b0b0b0b0.0"].Online {
		t.Fatal("a Shelly that answered nothing is listed online")
	}

	// Another client takes the hub's client id: the broker drops the hub,
	// which reconnects.
	kick := paho.NewClient(paho.NewClientOptions().AddBroker(broker.url()).SetClientID(clientID).SetConnectTimeout(5 * time.Second))
	if tok := kick.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting as the hub's client id: %v", tok.Error())
	}
	kick.Disconnect(0)

	h.waitOnline(15*time.Second, "mqtt:shelly.shellyplus1-b0b0b0b0b0b0.0")
	if n := len(d.messages(d.id+"/rpc", time.Time{})); n < 2 {
		t.Fatalf("the Shelly was asked %d times; want the unanswered probe and another", n)
	}
}

func checkInventory(t *testing.T, h *hub) {
	want := map[string]string{
		plugID: "power", lampID: "power", heaterID: "power", kettleID: "power", tvPlugID: "power", relayID: "power", fanID: "power",
		bulbID: "light", stripID: "light", tasBulbID: "light", plugSensor: "sensor", motionID: "sensor", espSensorID: "sensor",
	}
	ds := h.devices()
	for id, kind := range want {
		if ds[id].Kind != kind {
			t.Errorf("%s has kind %q; want %q", id, ds[id].Kind, kind)
		}
	}
	names := map[string]string{plugID: "Desk plug", heaterID: "Heater", tasBulbID: "Porch bulb", kettleID: "Kettle", bulbID: "Hall bulb", relayID: "Hall node Relay", espSensorID: "Hall node"}
	for id, name := range names {
		if ds[id].Name != name {
			t.Errorf("%s is named %q; want %q", id, ds[id].Name, name)
		}
	}
	kinds := map[string]string{tvPlugID: devices.PowerOutlet, relayID: devices.PowerOutlet, fanID: devices.PowerFan, kettleID: devices.PowerSwitch}
	for id, kind := range kinds {
		if k := h.power(id).PowerKind; k != kind {
			t.Errorf("%s has power kind %q; want %q", id, k, kind)
		}
	}
	if ds[relayID].Room != "Landing" {
		t.Errorf("a discovered entity with suggested_area Landing is in room %q", ds[relayID].Room)
	}
}

// switchOn turns a power device on through the API and checks the answer.
func switchOn(t *testing.T, h *hub, id string, on bool) {
	t.Helper()
	var v powerView
	if code := h.call(http.MethodPut, "/power/devices/"+esc(id)+"/state", map[string]any{"on": on}, &v); code != http.StatusOK {
		t.Fatalf("PUT %s on=%v: %d", id, on, code)
	}
	if v.On == nil || *v.On != on || !v.Online {
		t.Fatalf("PUT %s on=%v answered on=%s online=%v", id, on, isOn(v), v.Online)
	}
}

// waitPower waits for the hub to show a power device's state.
func waitPower(t *testing.T, h *hub, id string, on bool) {
	t.Helper()
	eventually(t, 10*time.Second, func() error {
		if v := h.power(id); v.On == nil || *v.On != on || !v.Online {
			return fmt.Errorf("%s shows %s (online %v); want %s", id, isOn(v), v.Online, onOff(on))
		}
		return nil
	})
}

// onlyMessage checks that exactly one message reached topic since, with
// payload want.
func onlyMessage(t *testing.T, d *simClient, topic string, since time.Time, want string) {
	t.Helper()
	d.waitMessage(t, topic, since, 2*time.Second)
	ms := d.messages(topic, since)
	if len(ms) != 1 || ms[0].Topic != topic || ms[0].Payload != want {
		t.Fatalf("the device received %+v; want exactly %q on %s", ms, want, topic)
	}
}

func checkTasmotaPlug(t *testing.T, h *hub, plug *simTasmota) {
	since := time.Now()
	switchOn(t, h, plugID, true)
	onlyMessage(t, plug.simClient, "cmnd/tasmota_1A2B3C/POWER", since, "ON")
	if !plug.relay(0) {
		t.Fatal("the plug's relay is off after the hub turned it on")
	}
	plug.toggleByHand(0)
	waitPower(t, h, plugID, false)
}

func checkTasmotaRelays(t *testing.T, h *hub, dual *simTasmota) {
	since := time.Now()
	switchOn(t, h, heaterID, true)
	onlyMessage(t, dual.simClient, "cmnd/tasmota_D4E5F6/POWER2", since, "ON")
	if !dual.relay(1) || dual.relay(0) {
		t.Fatalf("relays are %v, %v; want only relay 2 on", dual.relay(0), dual.relay(1))
	}
	if v := h.power(lampID); v.On == nil || *v.On {
		t.Fatalf("relay 1 shows %s; want off", isOn(v))
	}
}

// checkTasmotaBulb drives a Tasmota RGBCW bulb: it is a light with
// Tasmota's CT range and colour, a temperature reaches it as CT mireds and
// a colour as HSBColor, and what is changed at the bulb shows in the hub.
func checkTasmotaBulb(t *testing.T, h *hub, bulb *simTasmota) {
	const cmnd = "cmnd/tasmota_C0FFEE/"
	var v lightView
	if code := h.get("/lights/"+esc(tasBulbID), &v); code != http.StatusOK {
		t.Fatalf("GET the Tasmota bulb: %d", code)
	}
	if c := v.Capabilities; !c.Dimmable || !c.Color || c.KelvinMin != 2000 || c.KelvinMax != 6535 {
		t.Errorf("capabilities %+v; want dimmable, colour, 2000–6535 K", c)
	}
	if st := v.State; st == nil || st.On || st.Mode != devices.ModeTemperature || st.Kelvin != 2702 || st.Brightness != 50 {
		t.Errorf("first state %+v; want off, white at 2702 K (370 mireds), 50 %%", st)
	}

	since := time.Now()
	st := setLight(t, h, tasBulbID, map[string]any{"kelvin": 4000, "brightness": 40})
	onlyMessage(t, bulb.simClient, cmnd+"CT", since, "250")
	onlyMessage(t, bulb.simClient, cmnd+"Dimmer", since, "40")
	if on, l := bulb.lampState(); !on || !l.white || l.ct != 250 || l.dimmer != 40 {
		t.Fatalf("the bulb is on %v, %+v after 4000 K at 40 %%", on, l)
	}
	if !st.On || st.Mode != devices.ModeTemperature || st.Kelvin != 4000 || st.Brightness != 40 {
		t.Errorf("the hub reports %+v after 4000 K at 40 %%", st)
	}

	since = time.Now()
	st = setLight(t, h, tasBulbID, map[string]any{"hex": "#00FF00"})
	onlyMessage(t, bulb.simClient, cmnd+"HSBColor", since, "120,100,40")
	if !st.On || st.Mode != devices.ModeColor || st.Color == nil || st.Color.Hex != "00FF00" || st.Brightness != 40 {
		t.Errorf("the hub reports %+v after green", st)
	}

	// Changed at the bulb (its web page, a button): the hub follows.
	bulb.light("HSBColor", "240,100,70")
	eventually(t, 10*time.Second, func() error {
		var v lightView
		h.get("/lights/"+esc(tasBulbID), &v)
		if st := v.State; st == nil || st.Color == nil || st.Color.Hex != "0000FF" || st.Brightness != 70 {
			return fmt.Errorf("after blue at the bulb the hub shows %+v", st)
		}
		return nil
	})

	since = time.Now()
	if st = setLight(t, h, tasBulbID, map[string]any{"on": false}); st.On {
		t.Errorf("the hub reports %+v after off", st)
	}
	onlyMessage(t, bulb.simClient, cmnd+"POWER", since, "OFF")
}

func checkTasmotaSensor(t *testing.T, h *hub, plug *simTasmota) {
	temperature := func() (float64, error) {
		var v sensorView
		if code := h.get("/sensors/devices/"+esc(plugSensor), &v); code != http.StatusOK {
			return 0, fmt.Errorf("GET sensor: %d", code)
		}
		for _, r := range v.Readings {
			if r.Type == devices.ReadingTemperature {
				return r.Value, nil
			}
		}
		return 0, fmt.Errorf("no temperature in %+v", v.Readings)
	}
	plug.setTemperature(23.25)
	eventually(t, 10*time.Second, func() error {
		c, err := temperature()
		if err == nil && c != 23.25 {
			err = fmt.Errorf("temperature %v; want 23.25", c)
		}
		return err
	})
}

func checkShelly(t *testing.T, h *hub, sh *simShelly) {
	since := time.Now()
	switchOn(t, h, kettleID, true)
	m := sh.waitMessage(t, sh.id+"/rpc", since, 2*time.Second)
	var frame struct {
		ID     int64  `json:"id"`
		Src    string `json:"src"`
		Method string `json:"method"`
		Params struct {
			ID int   `json:"id"`
			On *bool `json:"on"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(m.Payload), &frame); err != nil {
		t.Fatalf("RPC frame %s: %v", m.Payload, err)
	}
	if frame.Method != "Switch.Set" || frame.Params.ID != 0 || frame.Params.On == nil || !*frame.Params.On || frame.Src == "" || frame.ID == 0 {
		t.Fatalf("the Shelly received %s; want Switch.Set {id:0, on:true} with an id and a src", m.Payload)
	}
	if !sh.output(0) {
		t.Fatal("the Shelly's output is off after the hub turned it on")
	}
	sh.toggleByHand(0)
	waitPower(t, h, kettleID, false)

	// A PM model meters its switch: the energy counter from its status
	// (in Wh), the power from its notifications.
	sh.draw(0, 2150)
	eventually(t, 10*time.Second, func() error {
		var v sensorView
		if code := h.get("/sensors/devices/"+esc(kettleID+".sensor"), &v); code != http.StatusOK {
			return fmt.Errorf("GET the Shelly's meter: %d", code)
		}
		got := map[string]devices.Reading{}
		for _, r := range v.Readings {
			got[r.Type] = r
		}
		if p, e := got[devices.ReadingPower], got[devices.ReadingEnergy]; p.Value != 2150 || p.Unit != "W" || e.Value != 1.5205 || e.Unit != "kWh" || v.Name != "Kettle sensor" {
			return fmt.Errorf("the meter %q reads %+v; want 2150 W and 1.5205 kWh", v.Name, v.Readings)
		}
		return nil
	})
}

// checkShellyGen1 switches a first-generation Shelly 1PM and reads its
// meter: relay/0/command, relay/0, relay/0/power and relay/0/energy.
func checkShellyGen1(t *testing.T, h *hub, sh *simShellyGen1) {
	if d := h.devices()[gen1ID]; d.Kind != "power" || d.Model != "Shelly SHSW-PM" {
		t.Errorf("the Gen1 relay is listed as %+v; want a power device, model Shelly SHSW-PM", d)
	}
	since := time.Now()
	switchOn(t, h, gen1ID, true)
	onlyMessage(t, sh.simClient, "shellies/shelly1pm-84CCA8A1B2C3/relay/0/command", since, "on")
	if !sh.relay(0) {
		t.Fatal("the Gen1 relay is off after the hub turned it on")
	}
	sh.draw(0, 60.5)
	eventually(t, 10*time.Second, func() error {
		var v sensorView
		if code := h.get("/sensors/devices/"+esc(gen1ID+".sensor"), &v); code != http.StatusOK {
			return fmt.Errorf("GET the Gen1 meter: %d", code)
		}
		got := map[string]devices.Reading{}
		for _, r := range v.Readings {
			got[r.Type] = r
		}
		if p, e := got[devices.ReadingPower], got[devices.ReadingEnergy]; p.Value != 60.5 || math.Abs(e.Value-1.52) > 1e-9 || e.Unit != "kWh" {
			return fmt.Errorf("the Gen1 meter reads %+v; want 60.5 W and 1.52 kWh", v.Readings)
		}
		return nil
	})
	since = time.Now()
	switchOn(t, h, gen1ID, false)
	onlyMessage(t, sh.simClient, "shellies/shelly1pm-84CCA8A1B2C3/relay/0/command", since, "off")
}

// checkShellyHT reads a battery H&T that wakes, reports and sleeps: its
// readings stay readable while it sleeps.
func checkShellyHT(t *testing.T, h *hub, ht *simShellyHT) {
	ht.wake(22.5, 48, 96)
	eventually(t, 15*time.Second, func() error {
		var v sensorView
		if code := h.get("/sensors/devices/"+esc(htID), &v); code != http.StatusOK {
			return fmt.Errorf("GET the H&T: %d", code)
		}
		got := map[string]float64{}
		for _, r := range v.Readings {
			got[r.Type] = r.Value
		}
		if got[devices.ReadingTemperature] != 22.5 || got[devices.ReadingHumidity] != 48 || got[devices.ReadingBattery] != 96 {
			return fmt.Errorf("the H&T reads %+v", v.Readings)
		}
		return nil
	})
}

func checkZigbeePlug(t *testing.T, h *hub, z *simZigbee) {
	since := time.Now()
	switchOn(t, h, tvPlugID, true)
	onlyMessage(t, z.simClient, "zigbee2mqtt/TV plug/set", since, `{"state":"ON"}`)
	z.setByHand("TV plug", map[string]any{"state": "OFF"})
	waitPower(t, h, tvPlugID, false)

	// The plug meters what it draws: a reading of its sensor, named apart
	// from the plug.
	z.setByHand("TV plug", map[string]any{"power": 87.5})
	eventually(t, 10*time.Second, func() error {
		var v sensorView
		if code := h.get("/sensors/devices/"+esc(tvPlugID+".sensor"), &v); code != http.StatusOK {
			return fmt.Errorf("GET the plug's sensor: %d", code)
		}
		for _, r := range v.Readings {
			if r.Type == devices.ReadingPower && r.Value == 87.5 && r.Unit == "W" && v.Name == "TV plug sensor" {
				return nil
			}
		}
		return fmt.Errorf("the plug's sensor %q reads %+v; want power 87.5 W", v.Name, v.Readings)
	})
}

// setLight writes a light through the API.
func setLight(t *testing.T, h *hub, id string, patch map[string]any) devices.LightState {
	t.Helper()
	var res lightResult
	if code := h.call(http.MethodPut, "/lights/"+esc(id)+"/state", patch, &res); code != http.StatusOK {
		t.Fatalf("PUT light %s %v: %d", id, patch, code)
	}
	return res.State
}

// lastSet is the JSON of the last command that reached topic since.
func lastSet(t *testing.T, d *simClient, topic string, since time.Time) map[string]any {
	t.Helper()
	d.waitMessage(t, topic, since, 2*time.Second)
	ms := d.messages(topic, since)
	var set map[string]any
	if err := json.Unmarshal([]byte(ms[len(ms)-1].Payload), &set); err != nil {
		t.Fatalf("command %s: %v", ms[len(ms)-1].Payload, err)
	}
	return set
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-4 }

func checkXY(t *testing.T, set map[string]any, x, y float64) {
	t.Helper()
	c, _ := set["color"].(map[string]any)
	gx, _ := c["x"].(float64)
	gy, _ := c["y"].(float64)
	if !near(gx, x) || !near(gy, y) {
		t.Fatalf("the lamp received colour %v; want x %.4f y %.4f", set["color"], x, y)
	}
}

func checkZigbeeLight(t *testing.T, h *hub, z *simZigbee) {
	const topic = "zigbee2mqtt/Hall bulb/set"
	since := time.Now()
	st := setLight(t, h, bulbID, map[string]any{"hex": "#FF0000"})
	set := lastSet(t, z.simClient, topic, since)
	checkXY(t, set, 0.7006, 0.2993) // PROTOCOLS.md §6.1, Wide RGB D65, no gamut
	if set["state"] != "ON" {
		t.Errorf("a colour did not switch the lamp on: %v", set)
	}
	if !st.On || st.Mode != devices.ModeColor || st.Color == nil || !near(st.Color.X, 0.7006) {
		t.Errorf("the hub reports %+v after a red write", st)
	}

	since = time.Now()
	st = setLight(t, h, bulbID, map[string]any{"kelvin": 2700})
	if set := lastSet(t, z.simClient, topic, since); set["color_temp"] != 370.0 {
		t.Errorf("2700 K reached the lamp as %v; want color_temp 370 (mireds)", set)
	}
	if st.Mode != devices.ModeTemperature || st.Kelvin != 2702 {
		t.Errorf("the hub reports %+v after 2700 K; want temperature 2702 K (370 mireds)", st)
	}

	since = time.Now()
	st = setLight(t, h, bulbID, map[string]any{"brightness": 40})
	if set := lastSet(t, z.simClient, topic, since); set["brightness"] != 102.0 {
		t.Errorf("40 %% reached the lamp as %v; want brightness 102 of 254", set)
	}
	if st.Brightness != 40 {
		t.Errorf("the hub reports brightness %d; want 40", st.Brightness)
	}

	since = time.Now()
	st = setLight(t, h, bulbID, map[string]any{"effect": "breathe"})
	if set := lastSet(t, z.simClient, topic, since); set["effect"] != "breathe" {
		t.Errorf("the effect reached the lamp as %v", set)
	}
	if st.Mode != devices.ModeEffect || st.Effect != "breathe" {
		t.Errorf("the hub reports %+v after an effect", st)
	}

	setLight(t, h, bulbID, map[string]any{"on": false})
	if s := z.stateOf("Hall bulb"); s["state"] != "OFF" {
		t.Errorf("the lamp is %v after off", s["state"])
	}
}

func checkDiscovered(t *testing.T, h *hub, esp *simESPHome) {
	since := time.Now()
	switchOn(t, h, relayID, true)
	onlyMessage(t, esp.simClient, "esp-hall/switch/relay/command", since, "ON")
	switchOn(t, h, fanID, true)
	onlyMessage(t, esp.simClient, "esp-hall/fan/fan/command", since, "ON")

	var l lightView
	if code := h.get("/lights/"+esc(stripID), &l); code != http.StatusOK {
		t.Fatalf("GET strip: %d", code)
	}
	c := l.Capabilities
	effects := slices.DeleteFunc(slices.Clone(c.Effects), func(e string) bool { return e == "no_effect" }) // the API lists how to clear one too
	if !c.Dimmable || !c.Color || c.KelvinMin != 2000 || c.KelvinMax != 6535 || len(effects) != 2 {
		t.Errorf("the strip's capabilities are %+v", c)
	}
	since = time.Now()
	st := setLight(t, h, stripID, map[string]any{"hex": "#00FF00", "brightness": 50})
	set := lastSet(t, esp.simClient, "esp-hall/light/strip/command", since)
	checkXY(t, set, 0.1724, 0.7468)
	if set["state"] != "ON" || set["brightness"] != 128.0 {
		t.Errorf("the strip received %v; want state ON, brightness 128 of 255", set)
	}
	if !st.On || st.Mode != devices.ModeColor || st.Brightness != 50 {
		t.Errorf("the hub reports %+v for the strip", st)
	}
}

// occupancy reads a room's occupancy through the API.
func occupancy(h *hub, roomID string) (*bool, error) {
	var r roomView
	if code := h.get("/rooms/"+esc(roomID), &r); code != http.StatusOK {
		return nil, fmt.Errorf("GET room: %d", code)
	}
	return r.Occupied, nil
}

func waitOccupied(t *testing.T, h *hub, roomID string, want bool) {
	t.Helper()
	eventually(t, 10*time.Second, func() error {
		o, err := occupancy(h, roomID)
		switch {
		case err != nil:
			return err
		case o == nil || *o != want:
			return fmt.Errorf("room occupied = %v; want %v", o, want)
		}
		return nil
	})
}

func checkZigbeeOccupancy(t *testing.T, h *hub, z *simZigbee) {
	room, err := h.svc.CreateRoom(h.sys, "Hall", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.AddRoomMember(h.sys, room.ID, motionID); err != nil {
		t.Fatal(err)
	}
	waitOccupied(t, h, room.ID, false)
	z.setByHand("Hall motion", map[string]any{"occupancy": true})
	waitOccupied(t, h, room.ID, true)
	z.setByHand("Hall motion", map[string]any{"occupancy": false})
	waitOccupied(t, h, room.ID, false)
}

func checkDiscoveredOccupancy(t *testing.T, h *hub, esp *simESPHome) {
	// The node suggested the area "Landing": its sensor joined that room.
	var rooms []roomView
	if code := h.get("/rooms", &rooms); code != http.StatusOK {
		t.Fatalf("GET rooms: %d", code)
	}
	var landing string
	for _, r := range rooms {
		if r.Name == "Landing" {
			landing = r.ID
		}
	}
	if landing == "" {
		t.Fatalf("no room Landing among %+v", rooms)
	}
	waitOccupied(t, h, landing, false)
	esp.set("binary_sensor/motion/state", "ON")
	waitOccupied(t, h, landing, true)
	esp.set("binary_sensor/motion/state", "OFF")
	waitOccupied(t, h, landing, false)
}

func checkLWT(t *testing.T, h *hub, plug *simTasmota) {
	plug.drop() // the broker publishes its will: tele/…/LWT Offline
	eventually(t, 10*time.Second, func() error {
		if h.devices()[plugID].Online {
			return fmt.Errorf("%s is still online after its LWT said Offline", plugID)
		}
		return nil
	})
	since := time.Now()
	start := time.Now()
	code := h.call(http.MethodPut, "/power/devices/"+esc(plugID)+"/state", map[string]any{"on": true}, nil)
	took := time.Since(start)
	if code != http.StatusBadGateway {
		t.Fatalf("a command to an offline device answered %d; want 502", code)
	}
	if took >= 2*time.Second { // a busy machine's margin, still short of the timeout
		t.Fatalf("a command to an offline device took %v; want it refused at once, not after the 3 s device timeout", took)
	}
	t.Logf("a command to the offline device failed in %v", took.Round(time.Microsecond))
	plug.rejoin()
	h.waitOnline(3*time.Second, plugID)
	time.Sleep(300 * time.Millisecond)
	if ms := plug.messages("cmnd/tasmota_1A2B3C/POWER", since); len(ms) > 0 {
		t.Fatalf("a refused command reached the device later: %+v", ms)
	}
}

func checkRemoval(t *testing.T, h *hub, esp *simESPHome) {
	esp.removeEntity("switch", "relay")
	eventually(t, 10*time.Second, func() error {
		d, listed := h.devices()[relayID]
		switch {
		case !listed:
			return fmt.Errorf("%s is no longer listed", relayID)
		case d.Online:
			return fmt.Errorf("%s is still online after its config was removed", relayID)
		}
		return nil
	})
	if _, ok := h.reg.Get(devices.ID(relayID)); ok {
		t.Fatal("a removed entity is still registered")
	}
	if code := h.call(http.MethodPut, "/power/devices/"+esc(relayID)+"/state", map[string]any{"on": false}, nil); code != http.StatusBadGateway {
		t.Fatalf("a command to a removed device answered %d; want 502", code)
	}
}

func checkZigbeeLeave(t *testing.T, h *hub, z *simZigbee) {
	z.leave("Hall motion")
	eventually(t, 10*time.Second, func() error {
		d, listed := h.devices()[motionID]
		switch {
		case !listed:
			return fmt.Errorf("%s is no longer listed", motionID)
		case d.Online:
			return fmt.Errorf("%s is still online after it left the network", motionID)
		}
		return nil
	})
	if _, ok := h.reg.Get(devices.ID(motionID)); ok {
		t.Fatal("a device that left is still registered")
	}
	h.waitOnline(time.Second, bulbID, tvPlugID)
}

func checkBrokerRestart(t *testing.T, h *hub, d *house, broker *mosquitto) {
	broker.stop()
	eventually(t, 10*time.Second, func() error {
		for _, id := range []string{lampID, kettleID, tvPlugID} {
			if h.devices()[id].Online {
				return fmt.Errorf("%s is online while the broker is down", id)
			}
		}
		return nil
	})
	// While the broker is down, devices change by hand and cannot tell.
	d.dual.mu.Lock()
	d.dual.power[0] = true // Tasmota relay states are not retained: the hub must ask
	d.dual.mu.Unlock()
	d.shelly.mu.Lock()
	d.shelly.outputs[0] = true // neither are Shelly notifications
	d.shelly.mu.Unlock()
	d.gen1.mu.Lock()
	d.gen1.on[0] = true // nor Gen1 relay states
	d.gen1.mu.Unlock()
	d.zigbee.mu.Lock()
	d.zigbee.device("TV plug").state["state"] = "ON" // zigbee2mqtt republishes, retained
	d.zigbee.mu.Unlock()

	started := time.Now()
	broker.start(t)
	eventually(t, 15*time.Second, func() error {
		checks := []struct {
			id string
			on bool
		}{{lampID, true}, {kettleID, true}, {tvPlugID, true}, {heaterID, true}, {gen1ID, true}}
		for _, c := range checks {
			if v := h.power(c.id); !v.Online || v.On == nil || *v.On != c.on {
				return fmt.Errorf("%s shows %s (online %v) after the restart; want %s", c.id, isOn(v), v.Online, onOff(c.on))
			}
		}
		ds := h.devices()
		for _, id := range []string{bulbID, motionID, espSensorID, plugSensor} {
			if !ds[id].Online {
				return fmt.Errorf("%s is offline after the restart", id)
			}
		}
		return nil
	})
	t.Logf("resynchronised %v after the broker started again", time.Since(started).Round(time.Millisecond))
	switchOn(t, h, lampID, false)
	if d.dual.relay(0) {
		t.Fatal("the lamp relay is on after the hub switched it off")
	}
}
