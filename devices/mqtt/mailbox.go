package mqtt

import (
	"log/slog"
	"sync"
)

// mailboxLimit bounds one device's backlog. A device that floods the broker
// faster than the hub can follow loses its oldest messages, not the hub its
// memory.
const mailboxLimit = 1024

// mailboxes run jobs one at a time per key (a device, in practice) and
// concurrently across keys. Posting never blocks: the MQTT client's
// callback posts and returns, so one slow device never stalls the others
// nor the connection's keep-alive. A key's goroutine exists only while it
// has work.
type mailboxes struct {
	log *slog.Logger

	mu     sync.Mutex
	boxes  map[string][]func()
	closed bool
	wg     sync.WaitGroup
}

func newMailboxes(log *slog.Logger) *mailboxes {
	return &mailboxes{log: log, boxes: map[string][]func(){}}
}

// post queues job under key.
func (m *mailboxes) post(key string, job func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	q, busy := m.boxes[key]
	if len(q) >= mailboxLimit {
		m.log.Warn("device queue full: dropping its oldest message", "queue", key)
		q = q[1:]
	}
	m.boxes[key] = append(q, job)
	if !busy {
		m.wg.Add(1)
		go m.drain(key)
	}
}

// drain runs key's jobs until its queue is empty, then retires.
func (m *mailboxes) drain(key string) {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		q := m.boxes[key]
		if len(q) == 0 {
			delete(m.boxes, key)
			m.mu.Unlock()
			return
		}
		job := q[0]
		q[0] = nil
		m.boxes[key] = q[1:]
		m.mu.Unlock()
		job()
	}
}

// close refuses new jobs and waits for the queued ones.
func (m *mailboxes) close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.wg.Wait()
}
