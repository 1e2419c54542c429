package mqtt

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/storage"
	"github.com/mochi-mqtt/server/v2/packets"
)

// Retained is a retained message of the embedded broker.
type Retained struct {
	Topic   string
	Payload []byte // empty: the topic's retained message is cleared
	QoS     byte
}

// RetainStore keeps the embedded broker's retained messages across
// restarts of the hub (in the hub's database), as a standalone broker
// keeps them on disk.
type RetainStore interface {
	LoadRetained(ctx context.Context) ([]Retained, error)
	// SaveRetained saves a batch in order; an empty payload clears its
	// topic.
	SaveRetained(ctx context.Context, batch []Retained) error
}

// retainTimeout bounds one load or save of retained messages.
const retainTimeout = 5 * time.Second

// retainGap is the least time between two saves: changes in between (a
// device that retains every reading) are saved together, the latest per
// topic, sparing an SD card a write per message. A failed save is tried
// again after retainRetry, doubling up to a minute.
var (
	retainGap   = time.Second
	retainRetry = time.Second
)

// retainHook is the broker hook that loads the retained messages at start
// and saves every change to them. Saves are written behind the broker, in
// batches, so a slow disk never holds up a publish; the latest message of
// a topic wins.
type retainHook struct {
	mochi.HookBase
	store RetainStore
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]Retained
	order   []string // topics in pending, in the order they changed

	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

func newRetainHook(s RetainStore, log *slog.Logger) *retainHook {
	h := &retainHook{store: s, log: log, pending: map[string]Retained{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go h.writer()
	return h
}

func (h *retainHook) ID() string { return "bifrost-retained" }

func (h *retainHook) Provides(b byte) bool {
	return b == mochi.OnRetainMessage || b == mochi.OnRetainedExpired || b == mochi.StoredRetainedMessages
}

// StoredRetainedMessages loads the saved retained messages when the
// broker starts.
func (h *retainHook) StoredRetainedMessages() ([]storage.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), retainTimeout)
	defer cancel()
	saved, err := h.store.LoadRetained(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]storage.Message, 0, len(saved))
	for _, r := range saved {
		out = append(out, storage.Message{
			ID: "retained_" + r.Topic, T: storage.RetainedKey, TopicName: r.Topic, Payload: r.Payload,
			FixedHeader: packets.FixedHeader{Type: packets.Publish, Qos: r.QoS, Retain: true},
			Created:     time.Now().Unix(),
		})
	}
	h.log.Debug("retained messages loaded", "count", len(out))
	return out, nil
}

// OnRetainMessage queues a change of a topic's retained message (r is -1
// when the message was cleared).
func (h *retainHook) OnRetainMessage(_ *mochi.Client, pk packets.Packet, r int64) {
	if strings.HasPrefix(pk.TopicName, "$") {
		return // the broker's own $SYS topics
	}
	msg := Retained{Topic: pk.TopicName, QoS: pk.FixedHeader.Qos}
	if r != -1 {
		msg.Payload = bytes.Clone(pk.Payload)
	}
	h.queue(msg)
}

// OnRetainedExpired forgets a retained message whose MQTT 5 expiry passed.
func (h *retainHook) OnRetainedExpired(topic string) {
	h.queue(Retained{Topic: topic})
}

func (h *retainHook) queue(msg Retained) {
	h.mu.Lock()
	if _, queued := h.pending[msg.Topic]; !queued {
		h.order = append(h.order, msg.Topic)
	}
	h.pending[msg.Topic] = msg
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// writer saves queued changes, at most once per retainGap and again after
// a failure, until close; then it saves what is left, once.
func (h *retainHook) writer() {
	defer close(h.stopped)
	pause := retainRetry
	for {
		select {
		case <-h.wake:
		case <-h.stop:
			h.flush()
			return
		}
		wait := retainGap
		if h.flush() {
			pause = retainRetry
		} else {
			wait, pause = pause, min(pause*2, time.Minute)
			select { // try again even if nothing new arrives
			case h.wake <- struct{}{}:
			default:
			}
		}
		select {
		case <-time.After(wait):
		case <-h.stop:
			h.flush()
			return
		}
	}
}

// flush saves what is queued and reports whether that worked. A batch
// that fails goes back in the queue, behind none of the newer changes of
// its topics.
func (h *retainHook) flush() bool {
	h.mu.Lock()
	batch := make([]Retained, 0, len(h.order))
	for _, t := range h.order {
		batch = append(batch, h.pending[t])
	}
	h.pending, h.order = map[string]Retained{}, nil
	h.mu.Unlock()
	if len(batch) == 0 {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), retainTimeout)
	defer cancel()
	err := h.store.SaveRetained(ctx, batch)
	if err == nil {
		return true
	}
	h.log.Warn("saving the embedded broker's retained messages; trying again", "count", len(batch), "err", err)
	h.mu.Lock()
	newer := h.pending
	order := h.order
	h.pending, h.order = map[string]Retained{}, nil
	for _, r := range batch {
		h.pending[r.Topic] = r
		h.order = append(h.order, r.Topic)
	}
	for _, t := range order {
		if _, old := h.pending[t]; !old {
			h.order = append(h.order, t)
		}
		h.pending[t] = newer[t]
	}
	h.mu.Unlock()
	return false
}

// close saves what is queued and stops the writer.
func (h *retainHook) close() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.stopped
}
