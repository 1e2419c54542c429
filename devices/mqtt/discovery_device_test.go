package mqtt

import (
	"context"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt/mqtttest"
)

func TestDiscoveryUsesHomeAssistantsAbbreviations(t *testing.T) {
	cfg, err := parseHAConfig([]byte(`{"uniq_id":"l","cmd_t":"l/set","clr_temp_cmd_t":"l/ct","clr_temp_k":true,"min_k":2700,"max_k":6000,
		"min_mirs":200,"max_mirs":400,"dev":{"ids":"n","mf":"Acme","mdl":"L1","sw":"1.2"},"o":{"name":"acme2mqtt","sw":"3","url":"https://acme"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ColorTempKelvin || cfg.MinKelvin != 2700 || cfg.MaxKelvin != 6000 || cfg.MinMireds != 200 || cfg.MaxMireds != 400 {
		t.Errorf("colour temperature keys read as kelvin %v, %v–%v K, %v–%v mireds", cfg.ColorTempKelvin, cfg.MinKelvin, cfg.MaxKelvin, cfg.MinMireds, cfg.MaxMireds)
	}
	if cfg.Device.Manufacturer != "Acme" || cfg.Device.Model != "L1" || cfg.Origin.Name != "acme2mqtt" {
		t.Errorf("device %+v, origin %+v", cfg.Device, cfg.Origin)
	}
	// Keys Home Assistant does not abbreviate stay what they are.
	cfg, _ = parseHAConfig([]byte(`{"uniq_id":"l","cmd_t":"l/set","min_klv":2700,"max_klv":6000,"fx":true,"bri":true,"clr_temp":true}`))
	if cfg.MinKelvin != 0 || cfg.MaxKelvin != 0 || cfg.Effect != nil || cfg.Brightness != nil || cfg.ColorTemp != nil {
		t.Errorf("made-up abbreviations were expanded: %+v", cfg)
	}
	// Each table where Home Assistant applies it: "t" is a topic in an
	// availability entry, not a component's id.
	raw, err := expandedConfig([]byte(`{"dev":{"ids":"n"},"o":{"name":"x"},"avty":[{"t":"n/status"}],
		"cmps":{"t":{"p":"switch","cmd_t":"n/t/set","uniq_id":"nt"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cs := deviceComponents("homeassistant/device/n/config", []string{"n"}, raw)
	c, ok := cs["homeassistant/device/n/config#t"]
	if !ok {
		t.Fatalf("components %v", cs)
	}
	cfg, _ = decodeHAConfig(c.raw)
	if c.platform != "switch" || cfg.CommandTopic != "n/t/set" || cfg.UniqueID != "nt" || len(cfg.Availability) != 1 || cfg.Availability[0].Topic != "n/status" {
		t.Errorf("component %s read as %+v", c.platform, cfg)
	}
}

func TestDiscoveredColourTemperatureRangeInBothUnits(t *testing.T) {
	cases := []struct {
		name, config     string
		kMin, kMax       int
		warmest, coolest int // what 1500 K and 10000 K are sent as
	}{
		{"kelvin payloads, kelvin range", `"clr_temp_k":true,"min_k":2700,"max_k":6000`, 2700, 6000, 2700, 6000},
		{"mired payloads, kelvin range", `"min_kelvin":2700,"max_kelvin":5000`, 2700, 5000, 370, 200},
		{"kelvin payloads, mired range", `"color_temp_kelvin":true,"min_mireds":200,"max_mireds":400`, 2500, 5000, 2500, 5000},
		{"mired payloads, mired range", `"min_mirs":160,"max_mirs":370`, 2702, 6250, 370, 160},
		{"no range", ``, 2000, 6535, 500, 153},
	}
	for _, c := range cases {
		e, reg := testEnv(t)
		d := newDiscovery(e, "homeassistant")
		sep := ""
		if c.config != "" {
			sep = ","
		}
		d.handle("homeassistant/light/n/l/config", []byte(`{"uniq_id":"l","cmd_t":"l/set","clr_temp_cmd_t":"l/ct"`+sep+c.config+`}`))
		dev, ok := reg.Get("mqtt:ha.l")
		if !ok {
			t.Fatalf("%s: no light", c.name)
		}
		caps := dev.(*lightDevice).LightCaps()
		if caps.KelvinMin != c.kMin || caps.KelvinMax != c.kMax {
			t.Errorf("%s: range %d–%d K; want %d–%d K", c.name, caps.KelvinMin, caps.KelvinMax, c.kMin, c.kMax)
		}
		cfg, _ := parseHAConfig([]byte(`{` + c.config + `}`))
		sc := lightScales(cfg)
		if w, k := sc.temperatureOut(1500), sc.temperatureOut(10000); w != c.warmest || k != c.coolest {
			t.Errorf("%s: 1500 K and 10000 K sent as %d and %d; want %d and %d", c.name, w, k, c.warmest, c.coolest)
		}
	}
}

func TestDiscoveryMigrationKeepsTheNewEntity(t *testing.T) {
	e, reg := testEnv(t)
	d := newDiscovery(e, "homeassistant")
	single, device := "homeassistant/switch/n/relay/config", "homeassistant/device/n/config"
	d.handle(single, []byte(`{"uniq_id":"n_relay","cmd_t":"n/relay/set","stat_t":"n/relay","dev":{"ids":"n"}}`))
	d.handle(device, []byte(`{"dev":{"ids":"n"},"o":{"name":"x"},"cmps":{"relay":{"p":"switch","uniq_id":"n_relay","cmd_t":"n/relay/set","stat_t":"n/relay"}}}`))
	d.handle(single, []byte(`{"migrate_discovery":true}`)) // unloads the old one only
	d.handle(single, nil)                                  // and its config is cleared
	dev, ok := reg.Get("mqtt:ha.n_relay")
	if !ok {
		t.Fatal("clearing the old config removed the relay the device config announces")
	}
	d.handle("n/relay", []byte("ON"))
	if on, known := dev.(*powerDevice).current(); !on || !known {
		t.Fatal("the relay the device config announces does not read its state")
	}
}

// TestDeviceBasedDiscovery announces a device with one retained config on
// a real broker, changes it, and removes it.
func TestDeviceBasedDiscovery(t *testing.T) {
	broker := mqtttest.StartMosquitto(t)
	reg := devices.NewRegistry(time.Second)
	a, err := New(reg, Config{URL: broker.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	t.Cleanup(func() { cancel(); _ = a.Close(); wg.Wait(); reg.Close() })

	node := paho.NewClient(paho.NewClientOptions().AddBroker(broker.URL()).SetClientID("kitchen-node"))
	if tok := node.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connecting the node: %v", tok.Error())
	}
	t.Cleanup(func() { node.Disconnect(100) })
	publish := func(topic, payload string) {
		t.Helper()
		if tok := node.Publish(topic, 1, true, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publishing %s: %v", topic, tok.Error())
		}
	}
	const (
		topic = "homeassistant/device/kitchen_node/config"
		head  = `{"dev":{"ids":["kitchen-node"],"name":"Kitchen node","mf":"Bla electronics","mdl":"xya","sw":"1.0"},` +
			`"o":{"name":"bla2mqtt","sw":"2.1"},"stat_t":"kitchen/state","avty_t":"kitchen/status","cmps":{`
		relay = `"relay":{"p":"switch","name":"Relay","uniq_id":"kitchen_relay","cmd_t":"kitchen/relay/set","val_tpl":"{{ value_json.relay }}"}`
		temp  = `"temp":{"p":"sensor","uniq_id":"kitchen_t","dev_cla":"temperature","unit_of_meas":"°C","val_tpl":"{{ value_json.temperature }}"}`
		hum   = `"hum":{"p":"sensor","uniq_id":"kitchen_h","dev_cla":"humidity","unit_of_meas":"%","val_tpl":"{{ value_json.humidity }}"}`
		lamp  = `"lamp":{"p":"light","schema":"json","uniq_id":"kitchen_lamp","cmd_t":"kitchen/lamp/set","stat_t":"kitchen/lamp",` +
			`"sup_clrm":["color_temp"],"clr_temp_k":true,"min_k":2700,"max_k":6000}`
		relayID  = devices.ID("mqtt:ha.kitchen_relay")
		sensorID = devices.ID("mqtt:ha.kitchen-node.sensor")
		lampID   = devices.ID("mqtt:ha.kitchen_lamp")
	)
	publish("kitchen/status", "online")
	publish("kitchen/state", `{"relay":"ON","temperature":21.5,"humidity":40}`)
	publish(topic, head+relay+","+temp+","+hum+","+lamp+"}}")

	readings := func() map[string]float64 {
		dev, ok := reg.Get(sensorID)
		if !ok {
			return nil
		}
		rs, _ := dev.(*sensorDevice).Readings(context.Background())
		out := map[string]float64{}
		for _, r := range rs {
			out[r.Type] = r.Value
		}
		return out
	}
	waitFor(t, "the device's components", func() bool {
		dev, ok := reg.Get(relayID)
		if !ok || !dev.Online() {
			return false
		}
		on, known := dev.(*powerDevice).current()
		rs := readings()
		_, hasLamp := reg.Get(lampID)
		return on && known && hasLamp && rs[devices.ReadingTemperature] == 21.5 && rs[devices.ReadingHumidity] == 40
	})
	dev, _ := reg.Get(relayID)
	if info := dev.Info(); info.Name != "Kitchen node Relay" || info.Model != "Bla electronics xya" {
		t.Errorf("the relay is %+v; want it named and modelled after the shared device", info)
	}
	l, _ := reg.Get(lampID)
	if caps := l.(*lightDevice).LightCaps(); caps.KelvinMin != 2700 || caps.KelvinMax != 6000 {
		t.Errorf("the lamp's range is %d–%d K; want 2700–6000 K", caps.KelvinMin, caps.KelvinMax)
	}

	// A component reduced to its platform is removed; the others stay.
	publish(topic, head+relay+","+temp+`,"hum":{"p":"sensor"},`+lamp+"}}")
	waitFor(t, "the humidity to go", func() bool {
		rs := readings()
		_, hasHum := rs[devices.ReadingHumidity]
		return rs != nil && !hasHum && rs[devices.ReadingTemperature] == 21.5
	})

	// A component left out is removed.
	publish(topic, head+temp+","+lamp+"}}")
	waitFor(t, "the relay to go", func() bool {
		_, ok := reg.Get(relayID)
		return !ok
	})
	if _, ok := reg.Get(lampID); !ok {
		t.Fatal("leaving out the relay removed the lamp")
	}

	// An empty config removes the device.
	publish(topic, "")
	waitFor(t, "the device to go", func() bool {
		_, lampLeft := reg.Get(lampID)
		_, sensorLeft := reg.Get(sensorID)
		return !lampLeft && !sensorLeft
	})
}
