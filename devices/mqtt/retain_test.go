package mqtt

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/packets"
)

// memRetained is a RetainStore in memory whose first saves fail.
type memRetained struct {
	mu    sync.Mutex
	fail  int
	saves int
	kept  map[string]string
}

func (m *memRetained) LoadRetained(context.Context) ([]Retained, error) { return nil, nil }

func (m *memRetained) SaveRetained(_ context.Context, batch []Retained) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saves++
	if m.fail > 0 {
		m.fail--
		return errors.New("database is locked")
	}
	for _, r := range batch {
		if len(r.Payload) == 0 {
			delete(m.kept, r.Topic)
		} else {
			m.kept[r.Topic] = string(r.Payload)
		}
	}
	return nil
}

// state is what the store keeps and how many saves it was asked for.
func (m *memRetained) state() (map[string]string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.kept), m.saves
}

func (m *memRetained) get(topic string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.kept[topic]
	return v, ok
}

// TestRetainedSavesSurviveAFailure: a save that fails is tried again,
// changes made meanwhile win over the failed batch, and an expired
// message is deleted.
func TestRetainedSavesSurviveAFailure(t *testing.T) {
	gap, retry := retainGap, retainRetry
	retainGap, retainRetry = 5*time.Millisecond, 5*time.Millisecond
	defer func() { retainGap, retainRetry = gap, retry }()

	store := &memRetained{fail: 2, kept: map[string]string{}}
	h := newRetainHook(store, slog.New(slog.DiscardHandler))
	defer h.close() // before the timings are restored: its writer reads them
	retain := func(topic, payload string) {
		r := int64(1)
		if payload == "" {
			r = -1
		}
		h.OnRetainMessage(nil, packets.Packet{TopicName: topic, Payload: []byte(payload), FixedHeader: packets.FixedHeader{Qos: 1}}, r)
	}
	retain("tele/plug/LWT", "Online")
	retain("homeassistant/switch/a/config", `{"name":"A"}`)
	retain("$SYS/broker/uptime", "12") // the broker's own: never saved
	time.Sleep(2 * time.Millisecond)
	retain("tele/plug/LWT", "Offline") // newer than the batch that fails
	retain("z2m/lamp", "x")
	h.OnRetainedExpired("z2m/lamp")

	deadline := time.Now().Add(5 * time.Second)
	for {
		lwt, _ := store.get("tele/plug/LWT")
		_, cfg := store.get("homeassistant/switch/a/config")
		_, lamp := store.get("z2m/lamp")
		if lwt == "Offline" && cfg && !lamp {
			break
		}
		if time.Now().After(deadline) {
			kept, _ := store.state()
			t.Fatalf("after two failed saves the store keeps %v", kept)
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.close()
	if _, ok := store.get("$SYS/broker/uptime"); ok {
		t.Error("a $SYS topic was saved")
	}
	if _, saves := store.state(); saves < 3 {
		t.Errorf("%d saves; want the two failures and a success", saves)
	}
}
