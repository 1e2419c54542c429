package store_test

import (
	"context"
	"testing"

	"github.com/bifrost-hub/bifrost/store"
)

func TestRetainedMessages(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	err := db.PutRetained(ctx, []store.Retained{
		{Topic: "homeassistant/switch/hall/relay/config", Payload: []byte(`{"name":"Relay"}`), QoS: 1},
		{Topic: "tele/tasmota_1A2B3C/LWT", Payload: []byte("Online"), QoS: 1},
		{Topic: "tele/tasmota_1A2B3C/LWT", Payload: []byte("Offline"), QoS: 1}, // the later one wins
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.ListRetained(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Topic != "tele/tasmota_1A2B3C/LWT" || string(got[1].Payload) != "Offline" || got[1].QoS != 1 || got[0].UpdatedAt.IsZero() {
		t.Fatalf("retained %+v", got)
	}
	// An empty payload clears the topic; a batch with a bad entry changes nothing.
	if err := db.PutRetained(ctx, []store.Retained{{Topic: "tele/tasmota_1A2B3C/LWT"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutRetained(ctx, []store.Retained{{Topic: "a", Payload: []byte("x")}, {Topic: "", Payload: []byte("y")}}); err == nil {
		t.Fatal("a message without a topic was saved")
	}
	got, _ = db.ListRetained(ctx)
	if len(got) != 1 || got[0].Topic != "homeassistant/switch/hall/relay/config" {
		t.Fatalf("after clearing one topic and a refused batch: %+v", got)
	}
}
