package streamdeck_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// heartbeat plays the plugin's connection check: GET /listLights every
// second, as ipc.ts does, for as long as the test runs. It records any
// reply that is not NeewerLite's shape, which the plugin would take as
// the app gone.
type heartbeat struct {
	mu    sync.Mutex
	beats int
	bad   []string
}

func (h *hub) heartbeat(t *testing.T) *heartbeat {
	hb := &heartbeat{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/listLights", nil)
			req.Header.Set("User-Agent", pluginUA)
			res, err := h.client.Do(req)
			if ctx.Err() != nil {
				return
			}
			var body struct {
				Lights []map[string]string `json:"lights"`
			}
			hb.mu.Lock()
			switch {
			case err != nil:
				hb.bad = append(hb.bad, err.Error())
			case res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&body) != nil || body.Lights == nil:
				hb.bad = append(hb.bad, res.Status)
			default:
				hb.beats++
			}
			hb.mu.Unlock()
			if res != nil {
				res.Body.Close()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		hb.mu.Lock()
		defer hb.mu.Unlock()
		if len(hb.bad) > 0 || hb.beats == 0 {
			t.Errorf("heartbeat: %d good beats, failures %v", hb.beats, hb.bad)
		}
	})
	return hb
}

// TestPluginDrivesEveryLight plays NeewerLite's Stream Deck plugin against
// the hub: its buttons and dials in the order its actions send them, its
// heartbeat beside them, on two real Neewer lights (the fake radio checks
// the frames) and on the demo home's Hue bulb, which gets the same buttons.
func TestPluginDrivesEveryLight(t *testing.T) {
	h := newHub(t)
	h.heartbeat(t)
	desk := "sim:desk-lamp"  // a Hue Go: colour, 2000–6500 K, no effects
	fill := "sim:fill-light" // a bi-colour panel: no colour
	ls := h.list(t)
	if k := ls[keyID]; k.Name != "Studio Key" || k.CCTRange != "32-56" || k.SupportRGB != "1" || k.MaxChannel != "9" {
		t.Errorf("key light listed as %+v", k)
	}
	if b := ls[backID]; b.MaxChannel != "17" {
		t.Errorf("back light listed as %+v; want 17 effects", b)
	}
	if d := ls[desk]; d.CCTRange != "20-65" || d.SupportRGB != "1" || d.MaxChannel != "0" {
		t.Errorf("desk lamp listed as %+v", d)
	}
	if f := ls[fill]; f.SupportRGB != "0" || f.CCTRange != "32-56" {
		t.Errorf("fill light listed as %+v", f)
	}
	radioKey := h.radio[keyMAC]

	// The switch key: on.
	h.post(t, "/switch", map[string]any{"lights": []string{keyID, backID, desk}, "state": true})
	ls = h.list(t)
	for _, id := range []string{keyID, backID, desk} {
		if ls[id].State != "1" {
			t.Errorf("after /switch on, %s is %q", id, ls[id].State)
		}
	}
	if !radioKey.On() {
		t.Error("the key light's radio did not hear it switched on")
	}

	// The brightness dial.
	h.post(t, "/brightness", map[string]any{"lights": []string{keyID, desk}, "brightness": 30})
	ls = h.list(t)
	if ls[keyID].Brightness != "30" || ls[desk].Brightness != "30" {
		t.Errorf("after /brightness 30: key %q, desk %q", ls[keyID].Brightness, ls[desk].Brightness)
	}

	// The temperature dial sends hundreds of kelvin; the lamp clamps to
	// its range.
	radioKey.Reset()
	h.post(t, "/temperature", map[string]any{"lights": []string{keyID, desk}, "temperature": 45})
	ls = h.list(t)
	if ls[keyID].Temperature != "45" || ls[desk].Temperature != "45" || ls[keyID].Brightness != "30" {
		t.Errorf("after /temperature 45: key %+v, desk %+v", ls[keyID], ls[desk])
	}
	if got := hexes(radioKey.Commands()); len(got) == 0 || got[len(got)-1] != "78 87 05 1E 2D 32 00 00 81" {
		t.Errorf("the key light heard %v; want the CCT frame of 4500 K at 30 %%", got)
	}
	h.post(t, "/temperature", map[string]any{"lights": []string{keyID}, "temperature": 100})
	if got := h.list(t)[keyID].Temperature; got != "56" {
		t.Errorf("10000 K on a 3200–5600 K panel lists %q; want 56 (clamped)", got)
	}

	// The CCT key: brightness and temperature at once, kelvin accepted too.
	h.post(t, "/cct", map[string]any{"lights": []string{keyID, desk}, "brightness": 70, "temperature": 3200})
	ls = h.list(t)
	if ls[keyID].Temperature != "32" || ls[keyID].Brightness != "70" || ls[desk].Temperature != "32" {
		t.Errorf("after /cct 70 %% 3200 K: key %+v, desk %+v", ls[keyID], ls[desk])
	}

	// The HSI key: the colour picker's hue, saturation and brightness;
	// the bi-colour panel has no colour and is passed over.
	fillBefore := h.light(t, fill).State
	h.post(t, "/hst", map[string]any{"lights": []string{keyID, desk, fill}, "brightness": 60, "saturation": 100, "hex_color": "#00ff00"})
	for _, id := range []string{keyID, desk} {
		l := h.light(t, id)
		if l.State.Mode != devices.ModeColor || l.State.Brightness != 60 || l.State.Color == nil {
			t.Fatalf("after /hst, %s is %+v", id, l.State)
		}
	}
	if c := h.light(t, keyID).State.Color.Hex; c != "00FF00" {
		t.Errorf("key light colour %s; want 00FF00", c)
	}
	if got := h.light(t, fill).State; *got != *fillBefore {
		t.Errorf("/hst changed the bi-colour panel: %+v → %+v", fillBefore, got)
	}
	// The hue dial: 0–100 for the circle; the saturation dial.
	h.post(t, "/hue", map[string]any{"lights": []string{keyID}, "hue": 66.66666})
	if c := h.light(t, keyID).State.Color.Hex; c != "0000FF" {
		t.Errorf("after /hue 66.67 the key light is %s; want 0000FF (240°)", c)
	}
	h.post(t, "/sat", map[string]any{"lights": []string{keyID}, "saturation": 50})
	if c := h.light(t, keyID).State.Color.Hex; c != "8080FF" {
		t.Errorf("after /sat 50 the key light is %s; want 8080FF", c)
	}

	// The FX key sends both lists' ids: a nine-effect light takes fx9, a
	// seventeen-effect light fx17; the Hue bulb has none and is passed over.
	h.post(t, "/fx", map[string]any{"lights": []string{keyID, backID, desk}, "fx9": 3, "fx17": 12})
	key, back := h.light(t, keyID), h.light(t, backID)
	if key.State.Mode != devices.ModeEffect || key.State.Effect != key.Capabilities.Effects[2] {
		t.Errorf("key light after /fx: %+v; want its third effect %q", key.State, key.Capabilities.Effects[2])
	}
	if back.State.Mode != devices.ModeEffect || back.State.Effect != back.Capabilities.Effects[11] {
		t.Errorf("back light after /fx: %+v; want its twelfth effect %q", back.State, back.Capabilities.Effects[11])
	}

	// Off, by name and by raw name as NeewerLite also matches; an entry
	// that names nothing is passed over and the answer is still success.
	h.post(t, "/switch", map[string]any{"lights": []string{"studio key", "NEEWER RGB62", "Hue Go", "nobody"}, "state": false})
	ls = h.list(t)
	for _, id := range []string{keyID, backID, desk} {
		if ls[id].State != "0" {
			t.Errorf("after /switch off, %s is %q", id, ls[id].State)
		}
	}
	if radioKey.On() {
		t.Error("the key light's radio still has it on")
	}

	status, body := h.do(t, http.MethodGet, "/ping", pluginUA, "", "")
	var ping struct {
		Status string `json:"status"`
		Lights int    `json:"lights"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ping) != nil || ping.Status != "ok" || ping.Lights != len(ls) {
		t.Errorf("/ping: %d %s; want ok and %d lights", status, body, len(ls))
	}

	// The writes are the Stream Deck's in the audit log.
	entries, err := h.svc.AuditLog(h.ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.ActorKind == "streamdeck" && e.ActorName == "Stream Deck" {
			n++
		}
	}
	if n < 10 {
		t.Errorf("%d audit entries by the Stream Deck; want one per action", n)
	}
}
