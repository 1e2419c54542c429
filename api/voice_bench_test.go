package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
)

// BenchmarkVoiceCommandLoopback is POST /api/voice/command "turn off the
// office" (and back on), keyed, over loopback HTTP, on the demo home whose
// devices answer in 1 ms: parse, resolve, the room's write (three lights
// and a fan, in parallel), audit and answer.
//
//	go test -run '^$' -bench VoiceCommandLoopback -benchmem ./api/
func BenchmarkVoiceCommandLoopback(b *testing.B) {
	reg := devices.NewRegistry(0)
	b.Cleanup(reg.Close)
	sim.NewHome(sim.Options{Latency: time.Millisecond}).Register(reg)
	h := apitest.Start(b, reg, 0)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	i := 0
	for b.Loop() {
		text := `{"text":"turn off the office"}`
		if i%2 == 1 {
			text = `{"text":"turn on the office"}`
		}
		i++
		req, _ := http.NewRequest(http.MethodPost, h.URL+"/api/voice/command", strings.NewReader(text))
		req.Header.Set("Authorization", "Bearer "+h.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var body [512]byte
		n, _ := res.Body.Read(body[:])
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body[:n]), `"ok":true`) {
			b.Fatalf("%d %s", res.StatusCode, body[:n])
		}
	}
}
