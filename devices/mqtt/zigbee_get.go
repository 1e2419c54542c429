package mqtt

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Asking zigbee2mqtt devices for their state.
//
// zigbee2mqtt does not retain device states by default, so after a hub
// restart (or a lost broker connection) the hub knows its Zigbee devices
// only once each reports again, which a lamp nobody touches never does.
// zigbee2mqtt's documented way to read a device is <base>/<name>/get with
// the properties to read and empty values, e.g. {"state": ""}; what can be
// read is what the device's exposes mark with the "get" access bit. So
// the hub asks each device for the properties it follows:
//
//   - when the device first appears in bridge/devices (at start, or when
//     it joins later), or comes back renamed or with a new definition;
//   - after every reconnection to the broker;
//   - when the bridge comes back online after being offline.
//
// Devices with nothing readable (sleepy battery sensors) are not asked:
// they report on their own.
//
// Every ask is one Zigbee read per cluster on a shared 250 kbit/s radio,
// so the requests go out one at a time through a token bucket of
// getRate a second with bursts of getBurst: a small house is asked at
// once, and a 200-device network is asked in about 40 s (200 / 5) instead
// of 200 requests at the same instant.
const (
	getRate  = 5 // requests a second, sustained
	getBurst = 5 // requests at once, after a quiet spell
)

// Expose access bits (zigbee2mqtt "Exposes": 1 published in the state, 2
// settable with /set, 4 readable with /get).
const accessGet = 4

// readFeatures are the features of a light, switch or fan expose that the
// hub's parts read.
var readFeatures = map[string]bool{
	"state": true, "brightness": true, "color_temp": true, "color_xy": true, "color_hs": true, "fan_state": true,
}

// getRequest is the /get payload that reads what the hub follows of a
// device ({"brightness":"","state":""}), or nil when nothing can be read.
// A state feature without access bits (older zigbee2mqtt) is taken as
// readable, as zigbee2mqtt's own example {"state": ""} reads it.
func getRequest(exposes []zExpose) []byte {
	props := map[string]any{}
	for _, e := range exposes {
		if e.Type != "light" && e.Type != "switch" && e.Type != "fan" {
			continue
		}
		for _, f := range e.Features {
			if readFeatures[f.Name] && f.Property != "" && (f.Access&accessGet != 0 || f.Access == 0 && f.Name == "state") {
				props[f.Property] = ""
			}
		}
	}
	read := map[string]bool{}
	for _, f := range sensorFields(exposes) {
		read[f.property] = true
	}
	for _, e := range exposes {
		if read[e.Property] && e.Access&accessGet != 0 {
			props[e.Property] = ""
		}
	}
	if len(props) == 0 {
		return nil
	}
	b, _ := json.Marshal(props) // strings only: cannot fail; keys come out sorted
	return b
}

// stateRequests is the queue of devices to ask, drained by one goroutine
// (started with the first request) at the bucket's pace. A device waits
// in the queue at most once: asking it twice in a row learns nothing more.
type stateRequests struct {
	z      *zigbee
	bucket *tokenBucket

	mu      sync.Mutex
	order   []string // IEEE addresses, oldest first
	queued  map[string]bool
	askedIn map[string]uint64 // the broker session each device was last queued in
	busy    bool              // a request is being made
	wake    chan struct{}
	start   sync.Once
}

func newStateRequests(z *zigbee) *stateRequests {
	return &stateRequests{
		z: z, bucket: newTokenBucket(getRate, getBurst, realClock{}),
		queued: map[string]bool{}, askedIn: map[string]uint64{}, wake: make(chan struct{}, 1),
	}
}

// ask queues the devices, in order, behind those already waiting.
func (q *stateRequests) ask(ieees []string) { q.queue(ieees, false) }

// askOnce queues the devices not yet asked in this session with the
// broker. A (re)connection asks everyone, but the retained bridge/devices
// its subscription brings may have asked some of them already: the two
// race, and a device need not be asked twice.
func (q *stateRequests) askOnce(ieees []string) { q.queue(ieees, true) }

func (q *stateRequests) queue(ieees []string, once bool) {
	if len(ieees) == 0 {
		return
	}
	q.start.Do(func() { q.z.e.async(q.run) })
	session := q.z.e.conn.sessionNumber()
	q.mu.Lock()
	for _, ieee := range ieees {
		if q.queued[ieee] || once && q.askedIn[ieee] == session {
			continue
		}
		q.queued[ieee], q.askedIn[ieee] = true, session
		q.order = append(q.order, ieee)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// idle reports whether nothing is queued nor being asked.
func (q *stateRequests) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.order) == 0 && !q.busy
}

func (q *stateRequests) run() {
	ctx := q.z.e.ctx
	for {
		ieee, ok := q.next(ctx)
		if !ok {
			return
		}
		q.request(ctx, ieee)
		q.mu.Lock()
		q.busy = false
		q.mu.Unlock()
	}
}

// next waits for a queued device.
func (q *stateRequests) next(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		if len(q.order) > 0 {
			ieee := q.order[0]
			q.order = q.order[1:]
			delete(q.queued, ieee)
			q.busy = true
			q.mu.Unlock()
			return ieee, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-ctx.Done():
			return "", false
		}
	}
}

// request asks one device, once the bucket allows. A device that left, or
// a connection that is down (the reconnection asks everyone again), is
// passed over without spending a token.
func (q *stateRequests) request(ctx context.Context, ieee string) {
	z := q.z
	z.mu.Lock()
	n := z.byIEEE[ieee]
	z.mu.Unlock()
	if n == nil || !z.e.conn.up() {
		return
	}
	n.mu.Lock()
	payload := n.getPayload
	n.mu.Unlock()
	if payload == nil || !q.bucket.take(ctx) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, devices.DefaultTimeout)
	defer cancel()
	topic := n.topic(z.base, "get")
	if err := z.e.conn.publish(ctx, topic, payload, false); err != nil {
		z.e.log.Debug("asking a Zigbee device for its state", "topic", topic, "err", err)
	}
}

// tokenBucket lets rate events a second through, burst of them at once.
// It is kept as the time the bucket will next be full again (the "generic
// cell rate algorithm"), in whole nanoseconds, so it neither drifts nor
// rounds.
type tokenBucket struct {
	interval time.Duration // one token's worth of time
	slack    time.Duration // how far ahead of now full may be: burst-1 tokens
	clock    clock

	mu      sync.Mutex
	full    time.Time // when the bucket holds burst tokens again
	granted int       // tokens handed out, ever
}

func newTokenBucket(rate, burst int, c clock) *tokenBucket {
	interval := time.Second / time.Duration(rate)
	return &tokenBucket{interval: interval, slack: time.Duration(burst-1) * interval, clock: c}
}

// take waits for a token; false when ctx ends first.
func (b *tokenBucket) take(ctx context.Context) bool {
	for {
		wait := b.reserve()
		if wait <= 0 {
			return true
		}
		if !b.clock.Sleep(ctx, wait) {
			return false
		}
	}
}

// reserve takes a token if there is one, or says how long until there is.
func (b *tokenBucket) reserve() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if b.full.Before(now) {
		b.full = now
	}
	if wait := b.full.Sub(now) - b.slack; wait > 0 {
		return wait
	}
	b.full = b.full.Add(b.interval)
	b.granted++
	return 0
}

// clock is the time a bucket keeps (a fake one in tests).
type clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, reporting whether ctx is still alive.
	Sleep(ctx context.Context, d time.Duration) bool
}

type realClock struct{}

func (realClock) Now() time.Time                                  { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) bool { return devices.Sleep(ctx, d) }
