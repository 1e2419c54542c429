package mqtt_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt"
)

// A big house over Home Assistant MQTT discovery: 200 lights and 200 plugs
// announced by one bridge-like client on a real mosquitto, followed by the
// whole hub (SQLite, the service, the HTTP API) and sorted into four rooms
// through the API once they are listed. The lights take turns between the
// JSON schema and the default schema (one topic per attribute); all have
// brightness and colour temperature. The plugs are outlet switches.

const (
	bigLights  = 200
	bigPlugs   = 200
	bigNode    = "bighouse" // the bridge's node id, and its topics' root
	bigTimeout = 3 * time.Second
)

var bigRooms = []string{"Ground Floor", "First Floor", "Attic", "Garden"}

func bigLightObject(i int) string { return fmt.Sprintf("l%03d", i+1) }
func bigPlugObject(i int) string  { return fmt.Sprintf("p%03d", i+1) }

// The ids the hub gives them: the adapter's "ha" family and the unique id.
func bigLightID(i int) string { return "mqtt:ha." + bigNode + "-" + bigLightObject(i) }
func bigPlugID(i int) string  { return "mqtt:ha." + bigNode + "-" + bigPlugObject(i) }

// bigHouse is the hub over the big house, with the simulated devices.
type bigHouse struct {
	*apitest.Hub
	sim *simBigHouse
}

// How the hub meets the big house.
type bigStart int

const (
	// hubFirst: the hub runs, then the bridge's entities are discovered one
	// by one (a hub's first day in the house). Each is recorded as it comes.
	hubFirst bigStart = iota
	// hubRestart: the adapter has every entity and state before the service
	// starts (the hub restarting on a house whose bridge is up); the service
	// records them all at start.
	hubRestart
)

// newBigHouse starts mosquitto, the simulated devices, the hub and its
// adapter, waits until every device is listed with its state, and makes
// the four rooms of 50 lights and 50 plugs each.
func newBigHouse(tb testing.TB, order bigStart) *bigHouse {
	tb.Helper()
	broker := startMosquitto(tb)
	tb.Cleanup(func() { brokerReport(tb, broker) })
	sim := newSimBigHouse(tb, broker.addr)
	reg := devices.NewRegistry(bigTimeout)
	tb.Cleanup(reg.Close)
	start := time.Now()
	h := &bigHouse{sim: sim}
	if order == hubFirst {
		h.Hub = apitest.Start(tb, reg, bigTimeout)
	}
	a, err := mqtt.New(reg, mqtt.Config{URL: broker.url(), ClientID: "bifrost-bighouse", Logger: quietLogger(tb)})
	if err != nil {
		tb.Fatalf("mqtt.New: %v", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	tb.Cleanup(func() { stop(); _ = a.Close(); <-done })
	if order == hubRestart {
		waitRegistered(tb, reg, 3*time.Minute)
		h.Hub = apitest.Start(tb, reg, bigTimeout)
	}

	// Under the race detector on a busy machine, recording 400 devices one
	// by one takes the hub about a minute (each reloads the inventory).
	h.waitListed(tb, 3*time.Minute)
	listed := time.Since(start)
	h.makeRooms(tb)
	tb.Logf("big house: %d lights and %d plugs listed with their state after %v, in %d rooms after %v",
		bigLights, bigPlugs, listed.Round(time.Millisecond), len(bigRooms), time.Since(start).Round(time.Millisecond))
	return h
}

// waitRegistered waits until the adapter has registered every light and
// plug and each has reported its state.
func waitRegistered(tb testing.TB, reg *devices.Registry, within time.Duration) {
	tb.Helper()
	eventually(tb, within, func() error {
		lights, plugs := 0, 0
		for _, d := range reg.List() {
			if !d.Online() {
				continue
			}
			switch d := d.(type) {
			case devices.Light:
				if _, err := d.LightState(context.Background()); err == nil {
					lights++
				}
			case devices.PowerDevice:
				if _, err := d.PowerState(context.Background()); err == nil {
					plugs++
				}
			}
		}
		if lights != bigLights || plugs != bigPlugs {
			return fmt.Errorf("the adapter has %d lights and %d plugs online with a state; want %d and %d", lights, plugs, bigLights, bigPlugs)
		}
		return nil
	})
}

// brokerReport shows, when the test failed, what mosquitto logged that
// was not routine: a broker that drops messages to a slow client says so.
func brokerReport(tb testing.TB, broker *mosquitto) {
	if !tb.Failed() {
		return
	}
	b, err := os.ReadFile(broker.LogFile())
	if err != nil {
		tb.Logf("mosquitto's log: %v", err)
		return
	}
	var notable []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.Contains(line, "dropped") || strings.Contains(line, "rror") || strings.Contains(line, "arning") || strings.Contains(line, "disconnected") {
			notable = append(notable, line)
		}
	}
	if len(notable) == 0 {
		return
	}
	if len(notable) > 40 {
		notable = append(notable[:20], append([]string{fmt.Sprintf("… %d lines …", len(notable)-40)}, notable[len(notable)-20:]...)...)
	}
	tb.Logf("mosquitto's log, notable lines:\n%s", strings.Join(notable, "\n"))
}

// quietLogger keeps the adapter's warnings and shows them when the test
// fails; 400 devices at debug level would fill the log (and the RSS).
func quietLogger(tb testing.TB) *slog.Logger {
	buf := &apitest.LogBuffer{}
	tb.Cleanup(func() {
		if out := buf.String(); tb.Failed() && out != "" {
			tb.Logf("adapter log (warnings):\n%s", out)
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// waitListed waits until every light and plug is listed online with a
// state.
func (h *bigHouse) waitListed(tb testing.TB, within time.Duration) {
	tb.Helper()
	eventually(tb, within, func() error {
		var lights []lightView
		h.V1(tb, http.MethodGet, "/lights", "", http.StatusOK, &lights)
		ready := 0
		for _, l := range lights {
			if l.Online && l.State != nil {
				ready++
			}
		}
		if ready != bigLights {
			return fmt.Errorf("%d of %d lights listed online with a state (%d listed)", ready, bigLights, len(lights))
		}
		var plugs []powerView
		h.V1(tb, http.MethodGet, "/power/devices", "", http.StatusOK, &plugs)
		ready = 0
		for _, p := range plugs {
			if p.Online && p.On != nil {
				ready++
			}
		}
		if ready != bigPlugs {
			return fmt.Errorf("%d of %d plugs listed online with a state (%d listed)", ready, bigPlugs, len(plugs))
		}
		return nil
	})
}

// makeRooms makes each room of its share of lights and plugs, through the
// API, and checks every light is listed in its room.
func (h *bigHouse) makeRooms(tb testing.TB) {
	tb.Helper()
	lightsPer, plugsPer := bigLights/len(bigRooms), bigPlugs/len(bigRooms)
	for r, name := range bigRooms {
		var members []string
		for i := r * lightsPer; i < (r+1)*lightsPer; i++ {
			members = append(members, bigLightID(i))
		}
		for i := r * plugsPer; i < (r+1)*plugsPer; i++ {
			members = append(members, bigPlugID(i))
		}
		body, err := json.Marshal(map[string]any{"name": name, "members": members})
		if err != nil {
			tb.Fatal(err)
		}
		h.V1(tb, http.MethodPost, "/rooms", string(body), http.StatusCreated, nil)
	}
	var lights []lightView
	h.V1(tb, http.MethodGet, "/lights", "", http.StatusOK, &lights)
	perRoom := map[string]int{}
	for _, l := range lights {
		perRoom[l.Room]++
	}
	for _, name := range bigRooms {
		if perRoom[name] != lightsPer {
			tb.Fatalf("room %s lists %d lights; want %d (lights per room: %v)", name, perRoom[name], lightsPer, perRoom)
		}
	}
}

// simBigHouse is one client announcing 200 lights and 200 plugs through
// Home Assistant discovery, as a bridge would: retained configs, one
// availability topic (its last will says offline), retained states, and
// every command answered by the state it leads to.
type simBigHouse struct {
	*simClient

	mu     sync.Mutex // held while a state is changed and published, so publishes follow the changes' order
	lights [bigLights]bigLamp
	plugs  [bigPlugs]bool

	// latency is how long a device takes to act on a command and report
	// its state (0: at once).
	latency atomic.Int64
}

// bigLamp is a simulated light's state, in the lamp's units.
type bigLamp struct {
	json  bool // JSON schema; else the default schema
	on    bool
	bri   int // 1–255
	mired int
}

const bigAvailability = bigNode + "/status"

func newSimBigHouse(tb testing.TB, broker string) *simBigHouse {
	s := &simBigHouse{simClient: &simClient{}}
	for i := range s.lights {
		s.lights[i] = bigLamp{json: i%2 == 0, on: i%4 < 2, bri: 26 + (i*37)%230, mired: 153 + (i*13)%347}
	}
	for i := range s.plugs {
		s.plugs[i] = i%3 == 0
	}
	dialSim(tb, s.simClient, broker, simOptions{
		id: bigNode, willTopic: bigAvailability, willPayload: "offline",
		subscribe: []string{bigNode + "/light/+/set", bigNode + "/light/+/+/set", bigNode + "/switch/+/set"},
		birth:     s.birth,
		handler:   s.command,
	})
	return s
}

func bigLightBase(i int) string { return bigNode + "/light/" + bigLightObject(i) }
func bigPlugBase(i int) string  { return bigNode + "/switch/" + bigPlugObject(i) }

// lightConfig is light i's discovery config topic and payload.
func (s *simBigHouse) lightConfig(i int) (string, string) {
	obj, base := bigLightObject(i), bigLightBase(i)
	model := "sim-default"
	if s.lights[i].json {
		model = "sim-json"
	}
	common := fmt.Sprintf(`"name":null,"uniq_id":"%s-%s","avty_t":%q,"min_mirs":153,"max_mirs":500,"dev":{"ids":["%s-%s"],"name":"Lamp %03d","mf":"Bifrost","mdl":%q}`,
		bigNode, obj, bigAvailability, bigNode, obj, i+1, model)
	topic := "homeassistant/light/" + bigNode + "/" + obj + "/config"
	if s.lights[i].json {
		return topic, fmt.Sprintf(`{%s,"schema":"json","stat_t":"%s/state","cmd_t":"%s/set","brightness":true,"sup_clrm":["color_temp"]}`, common, base, base)
	}
	return topic, fmt.Sprintf(`{%s,"stat_t":"%[2]s/switch","cmd_t":"%[2]s/switch/set","bri_stat_t":"%[2]s/brightness","bri_cmd_t":"%[2]s/brightness/set","clr_temp_stat_t":"%[2]s/color_temp","clr_temp_cmd_t":"%[2]s/color_temp/set"}`, common, base)
}

// plugConfig is plug i's discovery config topic and payload.
func plugConfig(i int) (string, string) {
	obj, base := bigPlugObject(i), bigPlugBase(i)
	return "homeassistant/switch/" + bigNode + "/" + obj + "/config",
		fmt.Sprintf(`{"name":null,"uniq_id":"%s-%s","stat_t":"%s/state","cmd_t":"%s/set","dev_cla":"outlet","avty_t":%q,"dev":{"ids":["%s-%s"],"name":"Plug %03d","mf":"Bifrost","mdl":"sim-plug"}}`,
			bigNode, obj, base, base, bigAvailability, bigNode, obj, i+1)
}

// birth says the bridge is online and announces every entity and state,
// retained, on every connection.
func (s *simBigHouse) birth(c paho.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Publish(bigAvailability, 0, true, "online")
	for i := range s.lights {
		topic, payload := s.lightConfig(i)
		c.Publish(topic, 0, true, payload)
		s.publishLight(i, true)
	}
	for i := range s.plugs {
		topic, payload := plugConfig(i)
		c.Publish(topic, 0, true, payload)
		s.publishPlug(i)
	}
}

// publishLight publishes light i's state: the JSON state, or in the
// default schema its switch and brightness (and colour temperature when
// all is set). Called with mu held.
func (s *simBigHouse) publishLight(i int, all bool) {
	l, base := s.lights[i], bigLightBase(i)
	if l.json {
		s.publish(base+"/state", true, fmt.Sprintf(`{"state":%q,"brightness":%d,"color_mode":"color_temp","color_temp":%d}`, onOff(l.on), l.bri, l.mired))
		return
	}
	s.publish(base+"/brightness", true, strconv.Itoa(l.bri))
	s.publish(base+"/switch", true, onOff(l.on))
	if all {
		s.publish(base+"/color_temp", true, strconv.Itoa(l.mired))
	}
}

func (s *simBigHouse) publishPlug(i int) {
	s.publish(bigPlugBase(i)+"/state", true, onOff(s.plugs[i]))
}

// command answers a command topic with the state it leads to, after the
// devices' latency (each device on its own: a slow device holds up no
// other).
func (s *simBigHouse) command(topic string, payload []byte) {
	if d := time.Duration(s.latency.Load()); d > 0 {
		time.AfterFunc(d, func() { s.act(topic, payload) })
		return
	}
	s.act(topic, payload)
}

// act carries out a command and publishes the state it leads to.
func (s *simBigHouse) act(topic string, payload []byte) {
	parts := strings.Split(topic, "/") // bighouse/{light|switch}/<object>[/<attribute>]/set
	if len(parts) < 4 || len(parts[2]) < 2 {
		return
	}
	n := bigLights
	if parts[1] == "switch" {
		n = bigPlugs
	}
	i, err := strconv.Atoi(parts[2][1:])
	if err != nil || i < 1 || i > n {
		return
	}
	i--
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case parts[1] == "switch" && len(parts) == 4:
		s.plugs[i] = strings.EqualFold(string(payload), "ON")
		s.publishPlug(i)
	case parts[1] == "light" && len(parts) == 4 && s.lights[i].json:
		s.jsonCommand(i, payload)
		s.publishLight(i, true)
	case parts[1] == "light" && len(parts) == 5 && !s.lights[i].json:
		s.attributeCommand(i, parts[3], string(payload))
	}
}

// jsonCommand lays a JSON-schema command over light i's state.
func (s *simBigHouse) jsonCommand(i int, payload []byte) {
	var c struct {
		State      *string  `json:"state"`
		Brightness *float64 `json:"brightness"`
		ColorTemp  *float64 `json:"color_temp"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return
	}
	l := &s.lights[i]
	if c.State != nil {
		l.on = strings.EqualFold(*c.State, "ON")
	}
	if c.Brightness != nil {
		l.bri = int(*c.Brightness)
	}
	if c.ColorTemp != nil {
		l.mired = int(*c.ColorTemp)
	}
}

// attributeCommand sets one attribute of a default-schema light and
// reports it on that attribute's state topic.
func (s *simBigHouse) attributeCommand(i int, attr, payload string) {
	l, base := &s.lights[i], bigLightBase(i)
	switch attr {
	case "switch":
		l.on = strings.EqualFold(payload, "ON")
		s.publish(base+"/switch", true, onOff(l.on))
	case "brightness":
		if v, err := strconv.Atoi(payload); err == nil {
			l.bri = v
			s.publish(base+"/brightness", true, payload)
		}
	case "color_temp":
		if v, err := strconv.Atoi(payload); err == nil {
			l.mired = v
			s.publish(base+"/color_temp", true, payload)
		}
	}
}

// dim is light i dimmed at the lamp (by its own remote, say) to pct
// percent, which turns it on; it returns the brightness the hub should
// show, as the lamp's 0–255 value reads in percent.
func (s *simBigHouse) dim(i, pct int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := &s.lights[i]
	l.bri = max(1, int(math.Round(float64(pct)*255/100)))
	wasOn := l.on
	l.on = true
	if l.json {
		s.publishLight(i, false)
	} else {
		s.publish(bigLightBase(i)+"/brightness", true, strconv.Itoa(l.bri))
		if !wasOn {
			s.publish(bigLightBase(i)+"/switch", true, "ON")
		}
	}
	return int(math.Round(float64(l.bri) * 100 / 255))
}

// brightness is light i's brightness in percent, as the hub reads it.
func (s *simBigHouse) brightness(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(math.Round(float64(s.lights[i].bri) * 100 / 255))
}

// TestBigHouseTakesCommands: a light of each schema and a plug of the big
// house take a command through the API and show what the device reported.
func TestBigHouseTakesCommands(t *testing.T) {
	h := newBigHouse(t, hubFirst)
	for _, i := range []int{0, 1} { // JSON schema, default schema
		var res lightResult
		h.V1(t, http.MethodPut, "/lights/"+esc(bigLightID(i))+"/state", `{"brightness":40,"kelvin":3000}`, http.StatusOK, &res)
		if st := res.State; !st.On || st.Brightness != 40 || st.Mode != devices.ModeTemperature || st.Kelvin < 2950 || st.Kelvin > 3050 {
			t.Errorf("%s answered %+v; want on at 40%% and about 3000 K", bigLightID(i), st)
		}
		if got := h.sim.brightness(i); got != 40 {
			t.Errorf("%s: the lamp is at %d%%; want 40%%", bigLightID(i), got)
		}
	}
	var p powerView
	h.V1(t, http.MethodPut, "/power/devices/"+esc(bigPlugID(1))+"/state", `{"on":true}`, http.StatusOK, &p)
	if p.On == nil || !*p.On {
		t.Errorf("%s answered on=%s; want on", bigPlugID(1), isOn(p))
	}
}

// BenchmarkBigHouseListLights is GET /api/v1/lights over the big house,
// through the real router with the key (handler: in process, with a
// recorder; http: over loopback TCP). It reports the allocations per
// light, the process's RSS once the house is loaded (the hub, the
// simulated devices' MQTT client and the test binary; mosquitto is
// another process), and the size of MCP get_home_state's default answer.
func BenchmarkBigHouseListLights(b *testing.B) {
	h := newBigHouse(b, hubFirst)
	runtime.GC()
	rss := vmRSSMB(b)
	homeBytes := h.homeStateSize(b, `{}`)
	h.homeStateSize(b, `{"detail":true}`) // for comparison, logged
	handler := api.New(api.Config{Service: h.Service, Logger: slog.New(slog.DiscardHandler)}).Handler()

	b.Run("handler", func(b *testing.B) {
		get := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/lights", nil)
			req.Header.Set("Authorization", "Bearer "+h.Key)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("GET /api/v1/lights: %d %s", rec.Code, rec.Body)
			}
			return rec
		}
		checkLightList(b, get().Body.Bytes())
		benchAllocs(b, func() { get() })
		b.ReportMetric(rss, "RSS-MB")
		b.ReportMetric(float64(homeBytes), "home_state-B")
	})
	b.Run("http", func(b *testing.B) {
		client := &http.Client{Timeout: 10 * time.Second}
		get := func() []byte {
			req, err := http.NewRequest(http.MethodGet, h.URL+"/api/v1/lights", nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+h.Key)
			res, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err != nil || res.StatusCode != http.StatusOK {
				b.Fatalf("GET /api/v1/lights: %d %v", res.StatusCode, err)
			}
			return body
		}
		checkLightList(b, get())
		benchAllocs(b, func() { get() })
	})
}

// benchAllocs runs fn b.N times and reports its allocations per light
// (every allocation the process made meanwhile, as allocs/op counts them).
func benchAllocs(b *testing.B, fn func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		fn()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/bigLights, "allocs/light")
}

// checkLightList fails unless body lists the 200 lights with their state.
func checkLightList(b *testing.B, body []byte) {
	b.Helper()
	var lights []lightView
	if err := json.Unmarshal(body, &lights); err != nil {
		b.Fatalf("decoding the lights: %v", err)
	}
	withState := 0
	for _, l := range lights {
		if l.State != nil {
			withState++
		}
	}
	if len(lights) != bigLights || withState != bigLights {
		b.Fatalf("GET /api/v1/lights listed %d lights, %d with a state; want %d", len(lights), withState, bigLights)
	}
	b.SetBytes(int64(len(body)))
}

// vmRSSMB is the process's resident set size in MB (/proc/self/status).
func vmRSSMB(tb testing.TB) float64 {
	tb.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatalf("reading the RSS: %v", err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				tb.Fatalf("reading VmRSS %q: %v", line, err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// homeStateSize is the size in bytes of the whole JSON-RPC answer to MCP
// tools/call get_home_state with args (a JSON object), as a client reads
// it off the wire; its text and structured content are logged.
func (h *bigHouse) homeStateSize(tb testing.TB, args string) int {
	tb.Helper()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_home_state","arguments":` + args + `}}`
	req, err := http.NewRequest(http.MethodPost, h.URL+"/mcp", strings.NewReader(call))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.Key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		tb.Fatalf("tools/call get_home_state: %d %v %s", res.StatusCode, err, body)
	}
	var answer struct {
		Result struct {
			IsError           bool              `json:"isError"`
			Content           []json.RawMessage `json:"content"`
			StructuredContent json.RawMessage   `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &answer); err != nil {
		tb.Fatalf("decoding get_home_state's answer: %v: %.300s", err, body)
	}
	if answer.Result.IsError {
		tb.Fatalf("get_home_state failed: %.500s", body)
	}
	var text strings.Builder
	for _, c := range answer.Result.Content {
		var t struct{ Text string }
		_ = json.Unmarshal(c, &t)
		text.WriteString(t.Text)
	}
	shown := text.String()
	if len(shown) > 2000 {
		shown = shown[:2000] + "…"
	}
	tb.Logf("MCP get_home_state %s on the big house: %d bytes on the wire (text %d, structured content %d):\n%s",
		args, len(body), text.Len(), len(answer.Result.StructuredContent), shown)
	return len(body)
}

// BenchmarkBigHouseWrite is a keyed write against a stock mosquitto (its
// default set_tcp_nodelay false) to devices that answer at once, and to
// devices that take 20 ms: one light, and a room of 50. What it measures beyond the broker's and the
// device's own time is the hub's.
func BenchmarkBigHouseWrite(b *testing.B) {
	h := newBigHouse(b, hubFirst)
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		h.sim.latency.Store(int64(latency))
		b.Run(fmt.Sprintf("device=%v/light", latency), func(b *testing.B) {
			i := 0
			for b.Loop() {
				var res lightResult
				h.V1(b, http.MethodPut, "/lights/"+esc(bigLightID(0))+"/state", fmt.Sprintf(`{"brightness":%d}`, 30+i%2*10), http.StatusOK, &res)
				i++
			}
		})
		b.Run(fmt.Sprintf("device=%v/room50", latency), func(b *testing.B) {
			i := 0
			for b.Loop() {
				h.V1(b, http.MethodPut, "/rooms/"+esc(bigRooms[0])+"/state", fmt.Sprintf(`{"brightness":%d}`, 30+i%2*10), http.StatusOK, nil)
				i++
			}
		})
	}
}
