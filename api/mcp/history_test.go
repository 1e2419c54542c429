package mcp_test

import (
	"strings"
	"testing"
	"time"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/devices"
)

// TestListSensorsSince: with since, list_sensors says each reading's
// range, mean and first value over the span, from the stored history, in
// its text and its structured content; a bad since is a tool error that
// says what is accepted.
func TestListSensorsSince(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.read, mcplib.ProtocolVersion20251125)
	if err := h.home.Sensor("sim:bedroom-temperature").SetReading(devices.ReadingTemperature, 23.5); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Sensors []struct {
			Name    string
			History *struct {
				Since, Resolution string
				Series            []struct {
					Type                        string
					Unit                        string
					Min, Max, Mean, First, Last float64
				}
			}
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		res := call(t, c, "list_sensors", map[string]any{"since": "1h"})
		ok(t, res, &out)
		if strings.Contains(text(res), "Bedroom Temperature") && strings.Contains(text(res), "since 1h: ") {
			var last float64
			for _, s := range out.Sensors {
				if s.Name == "Bedroom Temperature" && s.History != nil {
					for _, r := range s.History.Series {
						if r.Type == devices.ReadingTemperature {
							last = r.Last
						}
					}
				}
			}
			if last == 23.5 {
				line := lineWith(text(res), "Bedroom Temperature")
				if !strings.Contains(line, "since 1h: ") || !strings.Contains(line, "temperature ") || !strings.Contains(line, "23.5 °C (mean") {
					t.Fatalf("the sensor's line does not say its history: %q", line)
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reading never showed in list_sensors since 1h: %s", text(res))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range out.Sensors {
		if s.History == nil || s.History.Since != "1h" || s.History.Resolution != "raw" {
			t.Fatalf("%s: history %+v; want since 1h, raw", s.Name, s.History)
		}
	}
	// Without since, no history.
	res := call(t, c, "list_sensors", nil)
	var plain struct{ Sensors []map[string]any }
	ok(t, res, &plain)
	if strings.Contains(text(res), "since ") || plain.Sensors[0]["history"] != nil {
		t.Fatalf("list_sensors without since: %s", text(res))
	}
	failed(t, call(t, c, "list_sensors", map[string]any{"since": "yesterday"}), "Since \"yesterday\"", "24h")
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
