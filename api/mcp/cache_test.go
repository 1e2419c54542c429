package mcp_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// TestKeptAnswersFollowTheHouse calls list_lights again and again around
// changes: the same answer (with each request's own id) while nothing
// changed, the new state as soon as a change is recorded, whether the hub
// made it or the lamp changed by hand.
func TestKeptAnswersFollowTheHouse(t *testing.T) {
	h := newHub(t)
	call := func(id int) []byte {
		t.Helper()
		header := bearer(h.read)
		header.Set("Mcp-Protocol-Version", "2025-06-18")
		res, b := h.post(t, "/mcp", header, toolCall(id, "list_lights", map[string]any{}))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("list_lights: %d %s", res.StatusCode, b)
		}
		return b
	}
	result := func(b []byte) string {
		t.Helper()
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Structured struct {
					Lights []struct {
						Name       string `json:"name"`
						Brightness *int   `json:"brightness"`
					} `json:"lights"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		decodeJSON(t, b, &m)
		for _, l := range m.Result.Structured.Lights {
			if l.Name == "Key Light" && l.Brightness != nil {
				return string(rune('0'+m.ID%10)) + ":" + itoa(*l.Brightness)
			}
		}
		t.Fatalf("no Key Light brightness in %s", b)
		return ""
	}
	first, second := call(1), call(2)
	if !bytes.Contains(second, []byte(`"id":2`)) || bytes.Contains(second, []byte(`"id":1`)) {
		t.Fatalf("the kept answer carries another request's id: %s", second)
	}
	if result(first)[2:] != result(second)[2:] {
		t.Fatalf("two answers with nothing changed differ: %s / %s", first, second)
	}
	// A change the hub makes is in the very next answer.
	_, b := h.post(t, "/mcp", bearer(h.control), toolCall(3, "set_light", map[string]any{"light": "Key Light", "brightness": 23}))
	if !bytes.Contains(b, []byte(`"isError":false`)) && bytes.Contains(b, []byte(`"isError":true`)) {
		t.Fatalf("set_light: %s", b)
	}
	if got := result(call(4)); got != "4:23" {
		t.Fatalf("after set_light brightness 23 the answer says %s", got)
	}
	// A change by hand reaches the model on its own time; the answer
	// follows it.
	l := h.home.Light(devices.ID("sim:key-light"))
	st := l.State()
	st.Brightness = 61
	l.SetState(st)
	deadline := time.Now().Add(10 * time.Second)
	for i := 5; result(call(i))[2:] != "61"; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the answer never showed the lamp dimmed by hand to 61")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
