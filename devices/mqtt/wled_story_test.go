package mqtt_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/devices/mqtt"
	"github.com/bifrost-hub/bifrost/service"
)

// simWLED is a WLED strip on the broker: it subscribes where WLED does
// (<topic>, <topic>/col, <topic>/api), keeps its LWT on <topic>/status,
// and is announced with a retained Home Assistant discovery config that
// declares its segments (see devices/mqtt/wled.go).
type simWLED struct {
	*simClient
	topic string
}

func newSimWLED(t testing.TB, broker, mac string, segments int) *simWLED {
	w := &simWLED{simClient: &simClient{}, topic: "wled/" + mac}
	config := fmt.Sprintf(`{"~":%q,"name":"Rope","uniq_id":"wled_light_%s","cmd_t":"~","bri_cmd_t":"~","bri_stat_t":"~/g","avty_t":"~/status",`+
		`"segments":%d,"segments_command_topic":"~/api","dev":{"ids":[%q],"name":"Rope","mf":"WLED","mdl":"esp32"}}`, w.topic, mac, segments, mac)
	dialSim(t, w.simClient, broker, simOptions{
		id: "wled-" + mac, willTopic: w.topic + "/status", willPayload: "offline",
		subscribe: []string{w.topic, w.topic + "/col", w.topic + "/api"},
		birth: func(c paho.Client) {
			c.Publish(w.topic+"/status", 0, true, "online")
			c.Publish(w.topic+"/g", 0, true, "128")
			c.Publish("homeassistant/light/"+mac+"/config", 0, true, config)
		},
		handler: func(string, []byte) {},
	})
	return w
}

func TestWLEDStripTakesSegments(t *testing.T) {
	broker := startMosquitto(t)
	h := newHub(t, mqtt.Config{URL: broker.url()})
	w := newSimWLED(t, broker.addr, "a1b2c3", 15)
	const id = "mqtt:ha.wled_light_a1b2c3"
	h.waitOnline(10*time.Second, id)

	var l lightView
	if code := h.get("/lights/"+esc(id), &l); code != http.StatusOK {
		t.Fatalf("GET the strip: %d", code)
	}
	if l.Capabilities.Segments != 15 || !l.Capabilities.Dimmable {
		t.Errorf("the strip's capabilities are %+v; want dimmable with 15 segments", l.Capabilities)
	}

	since := time.Now()
	res, err := h.svc.SetSegments(h.sys, id, []service.Segment{
		{Segment: 0, RGB: ptrInt(0xFF0000), Brightness: ptrInt(50)},
		{Segment: 3, RGB: ptrInt(0x0000FF)},
		{Segment: 14, Brightness: ptrInt(0)},
	})
	if err != nil || res.Segments != 3 {
		t.Fatalf("SetSegments: %+v, %v", res, err)
	}
	got := w.waitMessage(t, w.topic+"/api", since, 5*time.Second)
	want := `{"seg":[{"id":0,"col":[[255,0,0]],"bri":128},{"id":3,"col":[[0,0,255]]},{"id":14,"bri":0}]}`
	if got.Payload != want {
		t.Errorf("WLED received\n%s\nwant\n%s", got.Payload, want)
	}
	if ms := w.messages(w.topic, since); len(ms) != 1 {
		t.Errorf("WLED received %d messages; want the one JSON API command: %+v", len(ms), ms)
	}

	// A segment the strip lacks is refused before anything is sent.
	since = time.Now()
	if _, err := h.svc.SetSegments(h.sys, id, []service.Segment{{Segment: 15, RGB: ptrInt(1)}}); service.ErrorCode(err) != service.EINVALID {
		t.Errorf("segment 15 of 15: %v", err)
	}
	// An ordinary discovered light takes none.
	w.publish("homeassistant/light/desk/config", true,
		`{"name":"Desk","uniq_id":"desk_light","schema":"json","cmd_t":"desk/set","stat_t":"desk/state","brightness":true}`)
	w.publish("desk/state", true, `{"state":"OFF","brightness":255}`)
	h.waitOnline(10*time.Second, "mqtt:ha.desk_light")
	if _, err := h.svc.SetSegments(h.sys, "mqtt:ha.desk_light", []service.Segment{{Segment: 0, RGB: ptrInt(1)}}); service.ErrorCode(err) != service.EDEVICE {
		t.Errorf("a light without segments: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if ms := w.messages(w.topic, since); len(ms) != 0 {
		t.Errorf("refused commands reached WLED: %+v", ms)
	}

	// Off the network (its LWT says offline), the strip is unreachable.
	w.drop()
	eventually(t, 10*time.Second, func() error {
		if h.devices()[id].Online {
			return fmt.Errorf("%s is still listed online", id)
		}
		return nil
	})
	if _, err := h.svc.SetSegments(h.sys, id, []service.Segment{{Segment: 1, RGB: ptrInt(1)}}); service.ErrorCode(err) != service.EUNREACHABLE {
		t.Errorf("an offline strip: %v", err)
	}
}

func ptrInt(v int) *int { return &v }
