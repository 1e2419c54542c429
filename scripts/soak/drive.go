package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// driver is what the soak does to the hub: readings, keyed writes, scene
// activations, undo, and event streams coming and going. It counts what
// it did; the writes' latencies wait in lat until the next report takes
// them.
type driver struct {
	hub   *hub
	house *house
	clk   clock
	cfg   config

	client *http.Client // keyed writes: kept-alive connections
	stream *http.Client // event streams: a connection each, closed after

	readings  atomic.Int64 // sensor reads made (each sets every series)
	writes    atomic.Int64
	failed    atomic.Int64 // writes, activations and undos not answered 2xx
	scenes    atomic.Int64
	undos     atomic.Int64
	streams   atomic.Int64 // event streams opened
	refused   atomic.Int64 // event streams answered 429
	events    atomic.Int64 // events the streams read
	openNow   atomic.Int64 // event streams open now
	fired     atomic.Int64 // rules fired
	latMu     sync.Mutex
	latencies []time.Duration
}

func newDriver(b *hub, h *house, clk clock, cfg config) *driver {
	return &driver{hub: b, house: h, clk: clk, cfg: cfg,
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.writers}},
		stream: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
	}
}

// run drives the hub until ctx ends, and waits for every driver to stop.
func (d *driver) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { d.readLoop(ctx) })
	for i := range d.cfg.writers {
		wg.Go(func() { d.writeLoop(ctx, i) })
	}
	wg.Go(func() { d.sceneLoop(ctx) })
	wg.Go(func() { d.countFired(ctx) })
	for i := range d.cfg.sse {
		wg.Go(func() { d.streamLoop(ctx, d.hub.read[i%len(d.hub.read)]) })
	}
	wg.Wait()
}

// readLoop moves each sensor's readings once every readingEvery, the
// sensors in turn, spread over the interval: the temperature wanders
// between 16 and 26 °C, so the rules' thresholds are crossed.
func (d *driver) readLoop(ctx context.Context) {
	ss := d.house.sensors
	if len(ss) == 0 {
		return
	}
	t := time.NewTicker(d.cfg.readingEvery / time.Duration(len(ss)))
	defer t.Stop()
	temps := make([]float64, len(ss))
	for i := range temps {
		temps[i] = 21
	}
	for i := 0; ; i = (i + 1) % len(ss) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		temps[i] = walk(temps[i], 0.8, 16, 26)
		s := ss[i]
		_ = s.SetValues(map[string]float64{
			devices.ReadingTemperature: temps[i],
			devices.ReadingHumidity:    walk(45, 15, 30, 65),
			devices.ReadingIlluminance: walk(300, 250, 5, 1000),
		})
		d.readings.Add(1)
	}
}

// walk moves v by up to step either way, within [lo, hi], to one decimal.
func walk(v, step, lo, hi float64) float64 {
	v += (rand.Float64()*2 - 1) * step
	v = min(max(v, lo), hi)
	return float64(int(v*10)) / 10
}

// writeLoop sends keyed light writes at its share of the write rate, each
// writer with its own control key.
func (d *driver) writeLoop(ctx context.Context, n int) {
	key := d.hub.control[n%len(d.hub.control)]
	every := time.Duration(float64(time.Second) * float64(d.cfg.writers) / d.cfg.writeRate)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l := d.house.lights[rand.IntN(len(d.house.lights))]
		body := fmt.Sprintf(`{"on": true, "brightness": %d}`, 1+rand.IntN(100))
		start := time.Now()
		ok := d.call(ctx, key, http.MethodPut, "/api/v1/lights/"+string(l.Info().ID)+"/state", body)
		if ctx.Err() != nil {
			return
		}
		d.latMu.Lock()
		d.latencies = append(d.latencies, time.Since(start))
		d.latMu.Unlock()
		d.writes.Add(1)
		if !ok {
			d.failed.Add(1)
		}
	}
}

// takeLatencies returns the writes' latencies since the last call.
func (d *driver) takeLatencies() []time.Duration {
	d.latMu.Lock()
	defer d.latMu.Unlock()
	out := d.latencies
	d.latencies = nil
	return out
}

// sceneLoop captures a scene of each of the first rooms, then activates
// one every sceneEvery and undoes the last change of a writer's key now
// and then.
func (d *driver) sceneLoop(ctx context.Context) {
	key := d.hub.control[0]
	var scenes []string
	for i := range min(4, len(d.house.lights)/roomSize+1) {
		name := fmt.Sprintf("Scene %d", i)
		if d.call(ctx, key, http.MethodPost, "/api/v1/scenes", fmt.Sprintf(`{"name": %q, "room": "Room %02d"}`, name, i)) {
			scenes = append(scenes, name)
		}
	}
	if len(scenes) == 0 {
		fmt.Fprintln(stderr, "soak: no scene could be captured")
		return
	}
	t := time.NewTicker(d.cfg.sceneEvery)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !d.call(ctx, key, http.MethodPost, "/api/v1/scenes/"+scenes[i%len(scenes)]+"/activate", "") && ctx.Err() == nil {
			d.failed.Add(1)
		}
		d.scenes.Add(1)
		if i%3 == 2 {
			// Undo answers 404 when the key's change is past the window:
			// both are fine; only a failure of the hub counts.
			d.callStatus(ctx, d.hub.control[rand.IntN(len(d.hub.control))], http.MethodPost, "/api/v1/undo", "")
			d.undos.Add(1)
		}
	}
}

// streamLoop is one event-stream client: it opens /api/v1/events, reads
// it for a while (a few seconds to a minute), closes it, pauses and opens
// it again.
func (d *driver) streamLoop(ctx context.Context, key string) {
	for ctx.Err() == nil {
		hold := time.Duration(2+rand.IntN(58)) * time.Second
		sctx, cancel := context.WithTimeout(ctx, hold)
		d.listen(sctx, key)
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(rand.IntN(2000)) * time.Millisecond):
		}
	}
}

func (d *driver) listen(ctx context.Context, key string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.hub.url+"/api/v1/events", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := d.stream.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusTooManyRequests {
		d.refused.Add(1)
		return
	}
	if res.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "soak: an event stream was answered %s\n", res.Status)
		return
	}
	d.streams.Add(1)
	d.openNow.Add(1)
	defer d.openNow.Add(-1)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
			d.events.Add(1)
		}
	}
}

// call sends a request with key and reports whether it was answered 2xx.
func (d *driver) call(ctx context.Context, key, method, path, body string) bool {
	code := d.callStatus(ctx, key, method, path, body)
	return code >= 200 && code < 300
}

func (d *driver) callStatus(ctx context.Context, key, method, path, body string) int {
	var r io.Reader
	if body != "" {
		r = bytes.NewBufferString(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.hub.url+path, r)
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := d.client.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		fmt.Fprintf(stderr, "soak: %s %s answered %s: %s\n", method, path, res.Status, bytes.TrimSpace(b))
	}
	return res.StatusCode
}

// rules creates the automations the readings fire: for each of the
// first sensors, its room's first light goes on when the temperature
// rises above 24 °C and off when it drops below 18 °C.
func (d *driver) rules(ctx context.Context, n int) ([]string, error) {
	key := d.hub.control[0]
	var ids []string
	for i, s := range d.house.sensors[:min(n, len(d.house.sensors))] {
		light := d.house.lights[i%len(d.house.lights)]
		for _, r := range []struct {
			edge  string
			limit float64
			on    bool
		}{{"above", 24, true}, {"below", 18, false}} {
			body, _ := json.Marshal(map[string]any{
				"name":    fmt.Sprintf("%s %s %g", s.Info().Name, r.edge, r.limit),
				"trigger": map[string]any{"type": "sensor", "device": string(s.Info().ID), "reading": "temperature", r.edge: r.limit},
				"actions": []any{map[string]any{"type": "light", "lights": []string{string(light.Info().ID)}, "state": map[string]any{"on": r.on}}},
			})
			id, err := d.create(ctx, key, body)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (d *driver) create(ctx context.Context, key string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.hub.url+"/api/v1/automations", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := d.client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var v struct {
		ID string `json:"id"`
	}
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated || json.Unmarshal(raw, &v) != nil {
		return "", fmt.Errorf("creating a rule: %s: %s", res.Status, bytes.TrimSpace(raw))
	}
	return v.ID, nil
}

// longestTrace is the longest of the rules' traces (each keeps at most
// 100 decisions).
func (d *driver) longestTrace(ctx context.Context, ids []string) int {
	longest := 0
	for _, id := range ids {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.hub.url+"/api/v1/automations/"+id+"/trace", nil)
		req.Header.Set("Authorization", "Bearer "+d.hub.read[0])
		res, err := d.client.Do(req)
		if err != nil {
			continue
		}
		var trace []json.RawMessage
		_ = json.NewDecoder(res.Body).Decode(&trace)
		res.Body.Close()
		longest = max(longest, len(trace))
	}
	return longest
}

// countFired counts the rules' firings as the hub publishes them.
func (d *driver) countFired(ctx context.Context) {
	events, stop := d.hub.svc.Events().Subscribe()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-events:
			if !ok {
				return
			}
			if e.Type == "automation" && e.Action == "fired" {
				d.fired.Add(1)
			}
		}
	}
}
